"""Sentences of a passage, in any script that marks where one ends.

Used by the no-model answer (answer/extractive.py) and by the sentence check of the cut
(retrieve/sentences.py). A sentence ends at end punctuation of the CJK, Latin, Devanagari
(danda), Arabic/Urdu, Ethiopic or Armenian scripts, or at a line break; a Latin full stop
needs a space after it, so "3.5" and "v1.2" stay whole. Scripts written without sentence
punctuation (Thai, Lao, Khmer) come back as one sentence per line.
"""

from __future__ import annotations

import itertools
import re

_ENDS = "。！？!?।॥؟۔።፧։"
_SENTENCE = re.compile(rf"[^{_ENDS}\n]*?(?:[{_ENDS}]+|\.(?=\s|$)|\n|$)")
_END = re.compile(rf"[{_ENDS}.;；:：]$")


def sentences_of(text: str) -> list[str]:
    """Sentences of a passage; headings (short lines without end punctuation) are not sentences."""
    out = []
    for m in _SENTENCE.finditer(text):
        s = m.group(0).strip().lstrip("#>*-•· \t").strip()
        heading = not _END.search(s) and len(s) < 40
        if len(s) >= 2 and not heading:
            out.append(s)
    return out


def sentence_windows(text: str) -> list[str]:
    """Each sentence of a passage, and each two adjacent ones as one text; none when it has fewer than two.

    An answer is said in one sentence ("The Starter plan is for small workshops.") or across two: read alone, a
    sentence loses what the one before names ("He also …") and a split abbreviation ("Y." | "pestis …") is two
    fragments; read only in pairs, a one-sentence answer is diluted by its neighbour about something else.
    Measured for the sentence check (retrieve/sentences.py, bench/README.md).
    """
    found = sentences_of(text)
    if len(found) < 2:
        return []
    return found + [f"{a} {b}" for a, b in itertools.pairwise(found)]
