"""The console starts on a real X11 display (xcb platform under Xvfb), not only offscreen.

A fresh desktop once aborted in Qt's xcb plugin (missing libxcb-cursor0, -icccm4, -keysyms1) while
every offscreen test passed; this starts the real app the way a user does. CI installs Xvfb and
runs the preflight (.ci/run), so there it must run; elsewhere it is skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

home, png = sys.argv[1], sys.argv[2]
app = QApplication(sys.argv[:1])
print("platform", app.platformName(), flush=True)

def shoot():
    windows = [w for w in app.topLevelWidgets() if w.isVisible() and w.windowTitle() == "biny console"]
    if windows:
        windows[0].grab().save(png)
    app.quit()

QTimer.singleShot(4000, shoot)
from biny.console.app import main
sys.exit(main(["--home", home]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the xcb platform is Linux's")
def test_console_starts_on_xcb_under_xvfb(tmp_path: Path) -> None:
    from PySide6.QtGui import QImage

    xvfb = shutil.which("xvfb-run")
    if xvfb is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install xvfb (see .ci/run)")
        pytest.skip("xvfb-run is not installed (apt-get install xvfb xauth)")
    preflight = subprocess.run([sys.executable, "-m", "biny.console.preflight", "--check"], capture_output=True,
                               text=True, check=False)
    assert preflight.returncode == 0, preflight.stderr  # the libraries Qt's xcb plugin needs are there
    png = tmp_path / "xcb.png"
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"} | {"QT_QPA_PLATFORM": "xcb"}
    run = subprocess.run([xvfb, "-a", "-s", "-screen 0 1280x800x24", sys.executable, "-c", SCRIPT,
                          str(tmp_path / "home"), str(png)], env=env, capture_output=True, text=True,
                         timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "platform xcb" in run.stdout
    img = QImage(str(png))
    assert img.width() > 600 and img.height() > 400
    colours = {img.pixel(x, y) for x in range(0, img.width(), 8) for y in range(0, img.height(), 8)}
    assert len(colours) >= 20  # a drawn window, not a blank surface
