"""What a passage is found by without reading it (SPEC R3, R4, R7): identifier keys, terms, aspect and
language marks — computed at ingest from the passage and its document's title, stored beside its vector
(blinded in an encrypted space).

``KEYS_VERSION`` names how they are computed. A document records the version its passages were keyed
with; `biny doctor` reports documents keyed by an older one and `biny doctor --repair` re-keys them from
their stored text (no parse, no re-embedding), so a space ingested before a change to these keys gains it.
"""

from __future__ import annotations

from dataclasses import dataclass

from biny.core.text.aspects import aspects_of
from biny.core.text.identifiers import chunk_keys
from biny.core.text.language import language_marks
from biny.core.text.terms import index_terms

KEYS_VERSION = 5
"""0: recorded before versions were (whole words without stems, words split at combining marks, no language
marks). 1: words keep their combining marks, Thai/Lao/Myanmar/Khmer as 4-grams, 5-letter stems, the language of
Latin-script passages (issue 20). 2: digits of every script stored as 0–9 (numbers are evidence across
scripts), Traditional Chinese characters as Simplified ones. 3: a word with an apostrophe also stored by its parts
("BSkyB's": bskyb). 4: Vietnamese adjacent syllables also stored as pairs ("thành phố"). 5: Arabic and Devanagari words
stemmed by Snowball's Arabic and Hindi stemmers before they are truncated."""


@dataclass(frozen=True, slots=True)
class PassageKeys:
    ids: list[str]
    terms: list[str]
    aspects: list[str]


def passage_keys(text: str, title: str, title_terms: set[str] | None = None) -> PassageKeys:
    """The keys of one passage; ``title_terms`` (``index_terms(title)``) once per document when given."""
    terms = index_terms(text) | (index_terms(title) if title_terms is None else title_terms)
    return PassageKeys(chunk_keys(text, title), sorted(terms), sorted(aspects_of(text) | language_marks(text)))
