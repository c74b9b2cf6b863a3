"""Before Qt starts on a Linux desktop: are the xcb plugin's libraries and a CJK font there?

Qt aborts the process when its xcb platform plugin cannot load ("xcb-cursor0 or
libxcb-cursor0 is needed … Aborted"), and Chinese and Japanese text draws as boxes without
a CJK font. This check runs first (``make console``; ``python -m biny.console.preflight``):
it lists what is missing by Debian package, installs it when it can (root with apt-get, or
``--install``), and otherwise prints the exact command and exits 2 — before Qt would abort.
It imports no Qt, so it works where Qt cannot start.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from biny.core import has_cjk_font

# Shared libraries Qt's xcb plugin links or loads at start → the Debian package that has them.
LIBRARIES = {
    "libxcb-cursor.so.0": "libxcb-cursor0", "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1", "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0", "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0", "libxkbcommon.so.0": "libxkbcommon0",
    "libxcb-shape.so.0": "libxcb-shape0", "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0", "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0", "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-render.so.0": "libxcb-render0", "libxcb.so.1": "libxcb1", "libX11-xcb.so.1": "libx11-xcb1",
    "libEGL.so.1": "libegl1", "libGL.so.1": "libgl1", "libfontconfig.so.1": "libfontconfig1",
    "libdbus-1.so.3": "libdbus-1-3", "libglib-2.0.so.0": "libglib2.0-0",
}
# Loaded by Qt at run time (not visible to ldd): checked by name.
ALWAYS = ("libxcb-cursor.so.0",)
CJK_FONT_PACKAGE = "fonts-wqy-microhei"  # 4.6 MB; covers Simplified Chinese and Japanese kana/kanji


def xcb_plugin() -> Path | None:
    try:
        import importlib.util

        spec = importlib.util.find_spec("PySide6")
    except ImportError:
        return None
    if spec is None or spec.origin is None:
        return None
    plugin = Path(spec.origin).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return plugin if plugin.exists() else None


def missing_libraries(plugin: Path | None) -> list[str]:
    """Sonames the xcb plugin needs that the dynamic loader cannot find."""
    missing: list[str] = []
    if plugin is not None and shutil.which("ldd"):
        out = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, check=False).stdout
        missing += [line.split()[0] for line in out.splitlines() if "not found" in line]
    known = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=False).stdout \
        if shutil.which("ldconfig") else ""
    missing += [lib for lib in ALWAYS if lib not in known and lib not in missing]
    return sorted(set(missing))


# What the test suite needs besides the console's own (``--tests``; `make test` runs it): a real X display for the
# xcb start test, Tesseract with the document languages for the OCR engine it measures, objdump for PyInstaller.
TEST_COMMANDS = {"Xvfb": "xvfb", "xauth": "xauth", "tesseract": "tesseract-ocr", "objdump": "binutils"}
TESSERACT_LANGUAGES = {"chi_sim": "tesseract-ocr-chi-sim", "jpn": "tesseract-ocr-jpn"}


def test_packages_needed() -> list[str]:
    packages = {pkg for cmd, pkg in TEST_COMMANDS.items() if shutil.which(cmd) is None}
    tesseract = shutil.which("tesseract")
    if tesseract is not None:
        out = subprocess.run([tesseract, "--list-langs"], capture_output=True, text=True, check=False)
        have = set((out.stdout + out.stderr).split())
        packages |= {pkg for lang, pkg in TESSERACT_LANGUAGES.items() if lang not in have}
    else:
        packages |= set(TESSERACT_LANGUAGES.values())
    return sorted(packages)


def packages_needed(tests: bool = False) -> list[str]:
    libs = missing_libraries(xcb_plugin())
    packages = {LIBRARIES.get(lib, "") for lib in libs} - {""}
    unknown = [lib for lib in libs if lib not in LIBRARIES]
    if unknown:
        print(f"Qt's xcb plugin also needs: {', '.join(unknown)} (find the package with apt-file).", file=sys.stderr)
    if not has_cjk_font():
        packages.add(CJK_FONT_PACKAGE)
        if shutil.which("fc-list") is None:
            packages.add("fontconfig")
    if tests:
        packages |= set(test_packages_needed())
    return sorted(packages)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m biny.console.preflight", description=__doc__.splitlines()[0])
    ap.add_argument("--install", action="store_true", help="install what is missing (needs root or sudo)")
    ap.add_argument("--check", action="store_true", help="only report; exit 2 if anything is missing")
    ap.add_argument("--tests", action="store_true",
                    help="also what the test suite needs: Xvfb, Tesseract (chi_sim, jpn), objdump")
    args = ap.parse_args(argv)
    if not sys.platform.startswith("linux"):
        return 0  # macOS and Windows wheels carry their platform plugin's dependencies
    needed = packages_needed(args.tests)
    if not needed:
        return 0
    command = ["apt-get", "install", "-y", "--no-install-recommends", *needed]
    can_apt = shutil.which("apt-get") is not None
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if not args.check and can_apt and (root or args.install):
        prefix = [] if root else ["sudo", "-n"]
        print(f"installing what the console needs: {' '.join(needed)}", file=sys.stderr)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run([*prefix, "apt-get", "update", "-qq"], check=False, env=env)
        done = subprocess.run([*prefix, *command, "-qq"], check=False, env=env, stdout=subprocess.DEVNULL)
        if done.returncode == 0 and not packages_needed(args.tests):
            return 0
    what = "the tests cannot run yet: system packages they use are" if args.tests else \
        "the console cannot start on this desktop yet: Qt's xcb platform plugin or a CJK font is"
    print(f"{what[0].upper()}{what[1:]} missing.\n"
          f"Install them, then run the command again:\n\n    sudo {' '.join(command)}\n", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
