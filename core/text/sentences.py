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


def sentence_pairs(text: str) -> list[str]:
    """Each two adjacent sentences of a passage, as one text; none when it has fewer than two.

    Read alone, a sentence loses what the one before it names ("He also …", "It was …") and a split
    abbreviation ("Y." | "pestis …") is two fragments; read with its neighbour it keeps both. Measured for
    the sentence check (retrieve/sentences.py, bench/README.md): against single sentences, half the answers
    lost for about the same refusals.
    """
    found = sentences_of(text)
    return [f"{a} {b}" for a, b in itertools.pairwise(found)]
