"""biny.console — the PySide6 admin console (imports only biny.core's public API)."""

import os

# matplotlib's Qt canvas (the Analysis screen) must bind to the same Qt as the console.
os.environ.setdefault("QT_API", "pyside6")
