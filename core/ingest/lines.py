"""Visual lines of text (a PDF block, an OCR'd line) joined into running text."""

from __future__ import annotations

import re

_CJK_END = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]$")
_CJK_START = re.compile(r"^[\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")


def join_lines(lines: list[str]) -> str:
    """Join the visual lines of one PDF text block into a paragraph.

    A hyphen at a line end joins words; CJK text joins without a space; everything
    else joins with one space.
    """
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not out:
            out = line
        elif out.endswith("-") and line[:1].islower():
            out = out[:-1] + line
        elif _CJK_END.search(out) and _CJK_START.search(line):
            out += line
        else:
            out += " " + line
    return out
