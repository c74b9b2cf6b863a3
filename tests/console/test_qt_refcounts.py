"""The Qt binding must not drop references to None/True/False (it did: PySide6 6.12.0 on Python 3.11).

On Python 3.11 these singletons are not immortal; a binding that returns them without a new
reference makes the console crash ("deallocating None") after some thousands of UI updates.
Counted, not timed: the reference counts must be unchanged after many calls.
"""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QLabel

pytestmark = pytest.mark.usefixtures("qapp")


class _Emitter(QObject):
    value = Signal(object)


def _refs() -> tuple[int, int, int]:
    return sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False)


def test_void_calls_and_signal_emits_keep_singleton_references() -> None:
    label = QLabel()
    emitter = _Emitter()
    got: list[object] = []
    emitter.value.connect(got.append)
    app = QApplication.instance()
    assert app is not None
    before = _refs()
    for i in range(200):
        label.setText(str(i))  # a void call: returns None
        emitter.value.emit(i)  # returns a bool
        app.processEvents()
    after = _refs()
    assert len(got) == 200
    # A few references may come and go with caches; a leak would show -200 or worse.
    assert all(abs(a - b) < 20 for a, b in zip(after, before, strict=True)), (before, after)
