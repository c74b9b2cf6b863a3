"""Garbled text layers: East-Asian bytes decoded as Latin-1 (SPEC I2).

A PDF whose font maps GBK/Big5/Shift-JIS bytes one-to-one to Latin-1 code points yields
"ÀÖöÎÐÅÏ¢¿Æ¼¼…" where the page shows "乐鑫信息科技…". Such a span is detected by its shape
(a run of Latin-1 supplement letters and symbols, rare in real European text) and repaired
when its bytes decode strictly in one of those encodings into mostly CJK characters. What
cannot be repaired is counted as garbled, so the page can be sent to OCR instead.
"""

from __future__ import annotations

import re

# Runs of Latin-1 supplement characters (U+00A1–U+00FF), optionally with ASCII letters/digits
# in between, of 4 or more supplement characters: the shape of double-byte text read as Latin-1.
_RUN = re.compile(r"(?:[\u00a1-\u00ff][\u00a1-\u00ffA-Za-z0-9]*){4,}")
# What a repaired span must consist of: ideographs, kana, CJK and full-width punctuation — not
# full-width Latin letters or Cyrillic, which a symbol font's bytes also decode to.
_CJK = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff01-\uff0f\uff1a-\uff20]")
# GB2312 before GBK: its 6,763 common ideographs make a false repair of symbol-font bytes unlikely.
_ENCODINGS = ("gb2312", "big5", "shift_jis", "utf-8")
MIN_REPAIRED_CHARS = 4


def _supplement_share(span: str) -> float:
    return sum("\u00a1" <= c <= "\u00ff" for c in span) / max(1, len(span))


def _repair(span: str) -> str | None:
    try:
        raw = span.encode("latin-1")
    except UnicodeEncodeError:
        return None
    for enc in _ENCODINGS:
        try:
            text = raw.decode(enc)
        except UnicodeDecodeError:
            continue
        dense = text.replace(" ", "")
        if len(dense) >= MIN_REPAIRED_CHARS and len(_CJK.findall(text)) >= 0.8 * len(dense):
            return text
    return None


def repair_mojibake(text: str) -> tuple[str, int, int]:
    """(text with repairable spans decoded, spans repaired, garbled characters left).

    Real French, German or Icelandic words have at most a few accented letters between ASCII
    ones; a span qualifies only if more than half of it is Latin-1 supplement characters.
    """
    repaired = 0
    garbled = 0

    def fix(m: re.Match[str]) -> str:
        nonlocal repaired, garbled
        span = m.group(0)
        if _supplement_share(span) <= 0.5:
            return span
        fixed = _repair(span)
        if fixed is None:
            garbled += len(span)
            return span
        repaired += 1
        return fixed

    out = _RUN.sub(fix, text)
    return out, repaired, garbled
