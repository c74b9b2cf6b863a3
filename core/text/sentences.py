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
# Closing quotes and brackets after the end punctuation belong to the sentence they close: 'of abstinence." Moreover'
# ends after the quote, and 「…。」 keeps its 」 instead of opening the next sentence with it.
_CLOSERS = "\"'”’」』）)\\]»"
_SENTENCE = re.compile(rf"[^{_ENDS}\n]*?(?:[{_ENDS}]+[{_CLOSERS}]*|\.[{_CLOSERS}]*(?=\s|$)|\n|$)")
_END = re.compile(rf"[{_ENDS}.;；:：][{_CLOSERS}]*$")

# A Latin full stop that ends an abbreviation or an initial, not a sentence: "St. Johns River", "Y. pestis",
# "John F. Kennedy", "Dr. Ng".
_ABBREVIATION = re.compile(r"(?:^|[\s(])(?:[A-Z]|St|Mr|Mrs|Ms|Dr|Mt|Jr|Sr|Prof|Gen|Col|Lt|Sgt|Rev|Fr|No|vs|al|e\.g|"
                           r"i\.e|cf|ca|approx)\.$")
_NUMBERED = re.compile(r"(?:[A-Z][a-z]{1,11}\s)?\d{1,3}\.")
# A line that starts a list item ("1. Mount …", "（一）第一顺序…", "- Steady green"): never the rest of the line above.
LIST_ITEM = re.compile(r"\s*(?:[-*•·]\s|\d{1,3}[.)、]\s?|[（(](?:[一二三四五六七八九十]{1,3}|\d{1,3})[）)]|"
                       r"[一二三四五六七八九十]{1,3}、|[a-z][.)]\s)")


def _continues(piece: str, rest: str) -> bool:
    """Whether the text after ``piece`` goes on with the same sentence: after an abbreviation, or over a single
    line break in the middle of a sentence (a wrapped line, "O\\n2 concentration")."""
    nxt = rest.lstrip(" \t")
    if not nxt or nxt[0] == "\n":
        return False
    if piece.rstrip(_CLOSERS).endswith("."):
        line = piece.rstrip(_CLOSERS).rstrip()
        # "1." alone is the number of a list item whose text follows; "Article 3." / "Section 4." the number of one.
        return bool(_ABBREVIATION.search(line)) or nxt[0].islower() or bool(_NUMBERED.fullmatch(line.lstrip()))
    if piece.endswith("\n") and not LIST_ITEM.match(nxt):
        line = piece.rstrip()
        return bool(line) and not _END.search(line) and (nxt[0].islower() or nxt[0].isdigit()) and nxt[0].isascii()
    return False


# A numbered item whose next item's number a flattened list glued to its end ("1. Master control MCU: CH32V003F4P6
# 2." — a PDF's list read as one line): the trailing number opens the next item, it does not end this one.
_GLUED_NUMBER = re.compile(r"^(\s*(\d{1,3})\.\s.*\S)\s+(\d{1,3})\.$", re.S)
# The first item's number glued to what leads into the list ("… the following resources. Motherboard - CH32V003EVT
# 1." before "Master control MCU: … 2."): a "1." that the next item's "2." follows soon.
_GLUED_FIRST = re.compile(r"^(.*\S)\s+1\.$", re.S)
_SECOND_ITEM = re.compile(r"\s2\.\s")
_SECOND_WITHIN = 400  # characters after the "1." in which "2." must open the next item: one item's length, a bound


def _unglued(piece: str, rest: str) -> tuple[str, str]:
    """(the item, the next item's number it carried) — the number only where it is this item's number plus one, or
    a first "1." that a "2." follows in ``rest``."""
    m = _GLUED_NUMBER.match(piece.rstrip())
    if m is not None and int(m.group(3)) == int(m.group(2)) + 1:
        return m.group(1), m.group(3) + "."
    first = _GLUED_FIRST.match(piece.rstrip()) if not LIST_ITEM.match(piece.lstrip("\n")) else None
    if first is not None and _SECOND_ITEM.search(rest[:_SECOND_WITHIN]):
        return first.group(1), "1."
    return piece, ""


def sentences_of(text: str) -> list[str]:
    """Sentences of a passage; headings (short lines without end punctuation) are not sentences."""
    out = []
    pending = ""
    for m in _SENTENCE.finditer(text):
        piece = pending + m.group(0)
        if m.group(0) and _continues(piece, text[m.end():]):
            pending = piece.rstrip("\n") + (" " if piece.endswith("\n") else "")
            continue
        piece, pending = _unglued(piece, text[m.end():])
        item = bool(LIST_ITEM.match(piece.lstrip("\n")))
        s = piece.strip().lstrip("#>*-•· \t").strip()
        heading = not _END.search(s) and len(s) < 40 and not item
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
