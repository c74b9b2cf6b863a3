"""The one helper that runs engine work off the UI thread (after Anki's CollectionOp).

``run_op(parent, fn, on_success=..., on_failure=..., on_progress=...)`` runs ``fn``
on the thread pool; results, errors and progress arrive on the UI thread through
queued signals. Rule: ``fn`` never touches widgets.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from biny.core import BinyError, CancelToken, Progress


class _Signals(QObject):
    progress = Signal(object)
    succeeded = Signal(object)
    failed = Signal(object, str)
    finished = Signal()


class Op(QRunnable):
    """A unit of background work with progress, cancel and UI-thread callbacks."""

    def __init__(self, fn: Callable[[Callable[[Progress], None], CancelToken], Any]) -> None:
        super().__init__()
        self.fn = fn
        self.cancel = CancelToken()
        self.signals = _Signals()
        self.setAutoDelete(False)

    def run(self) -> None:
        try:
            result = self.fn(self.signals.progress.emit, self.cancel)
        except Exception as exc:  # noqa: BLE001 — every failure must reach the UI, never kill the pool
            # A BinyError says what happened and what to do, in the user's language: its traceback is no detail for
            # them (issue 60: one showed under "Show details…" for a missing file). Anything else keeps it.
            self.signals.failed.emit(exc, "" if isinstance(exc, BinyError) else traceback.format_exc())
        else:
            self.signals.succeeded.emit(result)
        finally:
            self.signals.finished.emit()


_running: set[Op] = set()


def run_op(
    fn: Callable[[Callable[[Progress], None], CancelToken], Any],
    *,
    on_success: Callable[[Any], None] | None = None,
    on_failure: Callable[[BaseException, str], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    on_finished: Callable[[], None] | None = None,
) -> Op:
    op = Op(fn)
    if on_success:
        op.signals.succeeded.connect(on_success)
    if on_failure:
        op.signals.failed.connect(on_failure)
    if on_progress:
        op.signals.progress.connect(on_progress)
    if on_finished:
        op.signals.finished.connect(on_finished)
    _running.add(op)  # keep the Python object alive until it finishes
    op.signals.finished.connect(lambda: _running.discard(op))
    QThreadPool.globalInstance().start(op)
    return op


def idle() -> bool:
    """No background op is running or waiting to deliver its result (tests wait on this)."""
    return not _running


def wait_all(timeout_ms: int = 30000) -> bool:
    """Block until background ops finish (used at shutdown and in tests)."""
    return QThreadPool.globalInstance().waitForDone(timeout_ms)
