"""Which installed fonts draw Chinese: one rule for the figures and for the console's preflight.

fontconfig decides, not a list of family names we happen to know: any font it says covers
``zh`` (WenQuanYi, Noto CJK, Droid Sans Fallback, a vendor's own …) is used. Families we know
to look good come first when several are installed. No matplotlib and no Qt here, so the
preflight can ask before either is importable.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

# Preferred when installed (lower case, as fontconfig spells family names in any case).
PREFERRED = ("wenquanyi micro hei", "noto sans cjk sc", "source han sans sc", "noto sans cjk jp",
             "wenquanyi zen hei", "droid sans fallback")


@dataclass(frozen=True, slots=True)
class FontFile:
    family: str
    path: str


def cjk_fonts() -> list[FontFile]:
    """Font files fontconfig says cover Chinese, preferred families first; empty without fontconfig."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return []
    try:
        out = subprocess.run([fc_list, ":lang=zh", "family", "file"], capture_output=True, text=True,
                             check=False, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):  # fontconfig broken or hung: as if no font, said by the caller
        return []
    found: list[FontFile] = []
    for line in out.splitlines():
        # "/usr/share/fonts/…/wqy-microhei.ttc: WenQuanYi Micro Hei,文泉驿微米黑"
        path, _, families = line.partition(": ")
        if path and families:
            found.append(FontFile(families.split(",")[0].strip(), path.strip()))

    def rank(f: FontFile) -> tuple[int, str]:
        name = f.family.lower()
        return (PREFERRED.index(name) if name in PREFERRED else len(PREFERRED), f.path)

    return sorted(found, key=rank)


def has_cjk_font() -> bool:
    return bool(cjk_fonts())
