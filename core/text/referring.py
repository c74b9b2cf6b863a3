"""Does a sentence open by referring back to the one before it? ("They live in its forests", 「它们生活在……」)

The openers are word lists per language in resources/referring/ (one file per language; languages written without
spaces match an opener as a prefix). Used by the no-model answer to read such a sentence together with its
antecedent (issue 60): a pronoun alone does not say what it stands for.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources

_FIRST_WORD = re.compile(r"[\w'’-]+")


@functools.cache
def _lists() -> tuple[frozenset[str], tuple[str, ...]]:
    """(openers matched as a whole first word, openers matched as a prefix)."""
    words: set[str] = set()
    prefixes: set[str] = set()
    folder = resources.files("biny.resources").joinpath("referring")
    for item in folder.iterdir():
        if not item.name.endswith(".json"):
            continue
        data = json.loads(item.read_text(encoding="utf-8"))
        target = words if data.get("words", True) else prefixes
        target.update(str(w).casefold() for w in data.get("openers", []))
    return frozenset(words), tuple(sorted(prefixes, key=len, reverse=True))


def refers_back(sentence: str) -> bool:
    """Does the sentence's first word refer to something named before it?"""
    text = sentence.lstrip(" \t\"'“‘「『(（-–—*•")
    words, prefixes = _lists()
    if text.startswith(prefixes):
        return True
    m = _FIRST_WORD.match(text)
    return m is not None and m.group(0).casefold().replace("’", "'") in words
