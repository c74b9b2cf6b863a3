"""Light, dark or the system's colours — the same on X11, Wayland, macOS and Windows.

Qt follows the desktop's colour scheme only where the platform tells it (many X11 desktops
do not), so "light" and "dark" set an explicit Fusion palette; "system" goes back to the
style's own palette (which follows the platform where it can). The choice is remembered.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

CHOICES = ("system", "light", "dark")
_KEY = "appearance"

_DARK = {
    QPalette.ColorRole.Window: "#2b2b2b", QPalette.ColorRole.WindowText: "#e6e6e6",
    QPalette.ColorRole.Base: "#1f1f1f", QPalette.ColorRole.AlternateBase: "#333333",
    QPalette.ColorRole.ToolTipBase: "#3a3a3a", QPalette.ColorRole.ToolTipText: "#f0f0f0",
    QPalette.ColorRole.Text: "#e6e6e6", QPalette.ColorRole.Button: "#353535",
    QPalette.ColorRole.ButtonText: "#e6e6e6", QPalette.ColorRole.BrightText: "#ff6b6b",
    QPalette.ColorRole.Highlight: "#3d7bd9", QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.Link: "#74b4ff", QPalette.ColorRole.PlaceholderText: "#8a8a8a",
}
_LIGHT = {
    QPalette.ColorRole.Window: "#efefef", QPalette.ColorRole.WindowText: "#1a1a1a",
    QPalette.ColorRole.Base: "#ffffff", QPalette.ColorRole.AlternateBase: "#f5f5f5",
    QPalette.ColorRole.ToolTipBase: "#ffffdc", QPalette.ColorRole.ToolTipText: "#000000",
    QPalette.ColorRole.Text: "#1a1a1a", QPalette.ColorRole.Button: "#efefef",
    QPalette.ColorRole.ButtonText: "#1a1a1a", QPalette.ColorRole.BrightText: "#c92a2a",
    QPalette.ColorRole.Highlight: "#308cc6", QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.Link: "#1c62b9", QPalette.ColorRole.PlaceholderText: "#7a7a7a",
}


def palette(choice: str) -> QPalette:
    app = QApplication.instance()
    style = app.style() if isinstance(app, QApplication) else None
    if choice not in {"light", "dark"}:
        return style.standardPalette() if style is not None else QPalette()
    pal = QPalette()
    for role, colour in (_DARK if choice == "dark" else _LIGHT).items():
        pal.setColor(role, QColor(colour))
    disabled = QColor("#7f7f7f" if choice == "dark" else "#a0a0a0")
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return pal


def apply(choice: str, settings: QSettings | None = None) -> str:
    """Use ``choice`` (system | light | dark) now, and remember it when ``settings`` is given."""
    choice = choice if choice in CHOICES else "system"
    app = QApplication.instance()
    if isinstance(app, QApplication):
        app.setPalette(palette(choice))
    if settings is not None:
        settings.setValue(_KEY, choice)
    return choice


def remembered(settings: QSettings) -> str:
    value = str(settings.value(_KEY, "system") or "system")
    return value if value in CHOICES else "system"
