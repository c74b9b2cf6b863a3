"""Form fields that a passing scroll wheel leaves alone (issue 49).

Scrolling down a long form (Settings) over a spin box or a drop-down changed its value: Qt gives the wheel to
whatever is under the pointer. These take the wheel only when focused (clicked or tabbed into); otherwise the
event is ignored and goes on to the scroll area, which scrolls.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QSpinBox, QWidget


class _FocusedWheel:
    """Mixed in before the Qt class: the wheel changes the value only while the field has the focus."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # type: ignore[attr-defined]  # not WheelFocus

    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():  # type: ignore[attr-defined]
            super().wheelEvent(event)  # type: ignore[misc]
        else:
            event.ignore()  # on to the parent: the scroll area scrolls


class SpinBox(_FocusedWheel, QSpinBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)


class DoubleSpinBox(_FocusedWheel, QDoubleSpinBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)


class ComboBox(_FocusedWheel, QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
