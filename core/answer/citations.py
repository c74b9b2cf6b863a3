"""Citation markers ``[n]`` in an answer: which passages a sentence cites; markers to nowhere removed."""

from __future__ import annotations

import re

MARKER = re.compile(r"[\[［]\s*(\d+(?:\s*[,，、]\s*\d+)*)\s*[\]］]")


def cited_in(text: str) -> set[int]:
    """Passage numbers a text cites (``[1]``, ``[1, 3]``, ``［2］``)."""
    return {int(n) for m in MARKER.finditer(text) for n in re.split(r"\s*[,，、]\s*", m.group(1))}


def clean(text: str, passages: int) -> tuple[str, list[str], list[int]]:
    """Drop citations of passages that do not exist (``[7]`` with 3 passages).

    Returns (text, removed markers, cited passage numbers in order of first use).
    """
    removed: list[str] = []
    used: list[int] = []

    def keep(m: re.Match[str]) -> str:
        numbers = [int(n) for n in re.split(r"\s*[,，、]\s*", m.group(1))]
        valid = [n for n in numbers if 1 <= n <= passages]
        if len(valid) < len(numbers):
            removed.append(m.group(0))
        used.extend(n for n in valid if n not in used)
        return "".join(f"[{n}]" for n in valid)

    cleaned = MARKER.sub(keep, text)
    return re.sub(r"[ \t]+([.,;:!?。，；：！？])", r"\1", cleaned), removed, used
