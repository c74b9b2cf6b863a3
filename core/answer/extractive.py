"""The no-model answer: the sentences of the final context that best cover the question.

Scored by string evidence only — the question's terms (IDF-weighted within the context),
its identifiers and the aspect it asks about (price, duration, contact …), and, for sentences
in the other language of a Chinese ↔ English pair, the renderings of the question's words
(text/dictionary.py); the passage's rank breaks ties. At most ``max_sentences`` sentences,
each with its citation, in reading order. Fast (no model, no network): a few milliseconds on
top of ``ask``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from biny.core.text import dictionary
from biny.core.text.aspects import asked_aspects, aspects_of
from biny.core.text.identifiers import chunk_keys, question_keys
from biny.core.text.scripts import script_of
from biny.core.text.sentences import sentences_of
from biny.core.text.terms import query_terms, stem_of, terms_of

_MAX_CHARS = 400


@dataclass(slots=True)
class Sentence:
    passage: int  # 1-based, in context order
    position: int
    text: str
    score: float = 0.0


def choose(question: str, passages: list[str], max_sentences: int = 3) -> list[Sentence]:
    """The best-covering sentences, in passage order then reading order."""
    candidates = [Sentence(n, i, s[:_MAX_CHARS]) for n, text in enumerate(passages, start=1)
                  for i, s in enumerate(sentences_of(text))]
    if not candidates:
        return []
    asked = query_terms(question)
    terms = [terms_of(c.text) for c in candidates]
    # IDF within the context: a word every sentence has says little about which one answers.
    idf = {t: math.log(1 + len(candidates) / (1 + sum(t in ts for ts in terms))) for t in asked}
    total = sum(idf.values()) or 1.0
    keys = {i.key for i in question_keys(question)}
    aspects = {a for a in asked_aspects(question) if not a.startswith("topic:")}
    across = _translated(question, [c.text for c in candidates], terms)
    for c, ts, more in zip(candidates, terms, across, strict=True):
        c.score = sum(w for t, w in idf.items() if t in ts) / total + more
        if keys and keys & {k.split("|", 1)[1] for k in chunk_keys(c.text, "")}:
            c.score += 1.0  # the named article / RFC / part is in this sentence
    # A sentence continues the one before it ("The Team plan … . History is kept for 2 years."):
    # it inherits part of that sentence's evidence.
    base = [c.score for c in candidates]
    for i in range(1, len(candidates)):
        if candidates[i].passage == candidates[i - 1].passage:
            candidates[i].score += 0.3 * base[i - 1]
    if aspects:
        # The asked price / duration / contact counts where the sentence, or the one before it
        # ("The Starter plan … . It costs $49 …"), is about what was asked — not any price in reach.
        strong = 0.5 * max(base)
        about = [b > 0 and b >= strong for b in base]
        for i, c in enumerate(candidates):
            before = i > 0 and candidates[i - 1].passage == c.passage and about[i - 1]
            if (about[i] or before) and aspects & aspects_of(c.text):
                c.score += 0.5
    ranked = sorted(candidates, key=lambda c: (-c.score, c.passage, c.position))
    best = [c for c in ranked if c.score > 0][:max_sentences]
    if not best:
        # No shared words (a question in another language than the passage, no dictionary for
        # the pair): the nearest passage is the answer retrieval found; its opening sentences carry it.
        best = [c for c in candidates if c.passage == 1][:2]
    return sorted(best, key=lambda c: (c.passage, c.position))


def _translated(question: str, sentences: list[str], terms: list[set[str]]) -> list[float]:
    """Each sentence's share of the question's words looked up across Chinese ↔ English, IDF-weighted within the
    context, for the sentences in another script than the question; 0 elsewhere. ``terms``: each sentence's
    ``terms_of``. A Chinese question shares no words with the English sentence that answers it (only its numbers
    and names): without this the answer fell back to the nearest passage's opening sentences (bench/README.md,
    grounded answers)."""
    script = script_of(question)
    other = [script_of(s) not in (script, "all") for s in sentences]
    words = dictionary.looked_up(question) if any(other) else []
    sets = [[a for r in w.renderings for a in dictionary.term_sets(r)] for w in words if w.renderings]
    if not sets:
        return [0.0] * len(sentences)
    held: list[list[bool]] = []
    for ts, away in zip(terms, other, strict=True):
        # Renderings are held by a word or its stem, as ingest stores them (terms.index_terms).
        ts = ts | {s for s in map(stem_of, ts) if s is not None} if away else set()
        held.append([bool(ts) and any(all(x in ts for x in a) for a in alts) for alts in sets])
    weights = [math.log(1 + len(sentences) / (1 + sum(h[i] for h in held))) for i in range(len(sets))]
    total = sum(weights)
    return [sum(w for w, hit in zip(weights, h, strict=True) if hit) / total for h in held]


def render(chosen: list[Sentence]) -> str:
    """Sentences with their citations, CJK sentences joined without spaces."""
    out = ""
    for c in chosen:
        piece = f"{c.text} [{c.passage}]"
        if out and not re.search(r"[\u3040-\u30ff\u3400-\u9fff]", c.text[:1]):
            out += " "
        out += piece
    return out
