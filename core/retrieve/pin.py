"""R4: identifiers are identity — looked up as keys and pinned ahead of semantic ranking."""

from __future__ import annotations

import itertools
import time

import numpy as np

from biny.core.i18n import msg
from biny.core.retrieve.candidates import Candidate, Context, QueryDistances
from biny.core.store.vectors import VectorMatrix
from biny.core.text.identifiers import Identifier
from biny.core.text.question import Question
from biny.core.text.terms import fold
from biny.core.trace import Stage, Trace
from biny.core.trace.records import IdentifierPin, PinRecord

# A cliff: a gap at least this many times the median gap and this share of the whole spread. Set by hand on R4's
# example (a page's identifier hits at 0.27, 0.31, then noise from 0.51) with room either side; not fitted.
CLIFF_MEDIAN_GAPS = 4
CLIFF_SPREAD_SHARE = 0.15


def find_cliff(distances: list[float], slots: int) -> int:
    """How many of the nearest hits stand before a cliff in the distances (0 = smooth slope).

    R4: when an identifier hits more chunks than fit, keep those before a clear step
    (the page's 0.27, 0.31, then noise from 0.51); a smooth slope means the hits are
    a sample, and none is rescued. A step is a gap within the first ``slots`` hits at
    least 4× the median gap and at least 15% of the whole spread.
    """
    d = sorted(distances)
    if len(d) <= slots:
        return len(d)
    gaps = [b - a for a, b in itertools.pairwise(d)]
    spread = d[-1] - d[0]
    if spread <= 0:
        return 0
    median_gap = float(np.median(gaps))
    i = max(range(min(slots, len(gaps))), key=lambda j: gaps[j])
    if gaps[i] >= CLIFF_MEDIAN_GAPS * max(median_gap, 1e-6) and gaps[i] >= CLIFF_SPREAD_SHARE * spread:
        return i + 1
    return 0


def named_docs(question: str, ctx: Context) -> set[str]:
    """Documents whose title the question names (glossary terms of that title present in it)."""
    q = fold(question)
    glossary = ctx.folded_glossary if ctx.folded_glossary is not None else [(g, fold(g)) for g in ctx.glossary]
    named = [low for g, low in glossary if len(g) >= 2 and low in q]
    if not named:
        return set()
    longest = max(len(g) for g in named)
    # Prefer the most specific title term named ("劳动合同法" over "合同法").
    specific = [g for g in named if len(g) == longest]
    titles = ctx.folded_titles if ctx.folded_titles is not None else {d: fold(t) for d, t in ctx.titles.items()}
    # Which titles hold a term is kept per matrix generation (``ctx.titled``): one pass over every title
    # per term named, the first time only (issue 23: 0.4 ms a question at 533 documents).
    memo = ctx.titled if ctx.titled is not None else {}
    out: set[str] = set()
    for g in specific:
        docs = memo.get(g)
        if docs is None:
            docs = memo[g] = frozenset(d for d, title in titles.items() if g in title)
        out |= docs
    return out


def _pin_one(ident: Identifier, vm: VectorMatrix, dist: QueryDistances, ctx: Context, scope: set[str],
             slots: int, pinned: set[int]) -> tuple[list[int], IdentifierPin]:
    """Rows to pin for one identifier, and what the trace says about it."""
    entries = vm.id_index.get(ctx.blind(ident.key), [])
    defining = [r for r, tier in entries if tier == "def"]
    rows = defining or [r for r, _ in entries]
    scoped = [r for r in rows if vm.doc_ids[r] in scope] if scope else rows
    rows = sorted(set(scoped or rows))
    rows = [r for _, r in sorted(zip(dist.many(rows), rows, strict=True))]
    n_keep = find_cliff(dist.many(rows), slots)
    one_document = bool(defining) and len({vm.doc_ids[r] for r in rows}) == 1
    if n_keep == 0 and one_document:
        # Every defining hit is in one document: the identifier names that document
        # (e.g. "PEP 484" in its title), so its nearest chunk is pinned — the
        # smooth-slope rule is for mentions scattered across documents.
        n_keep = 1
    taken = [r for r in rows[:n_keep] if r not in pinned]
    rule = ("all fit" if len(rows) <= slots else "cliff" if n_keep and not one_document
            else "one document named: its nearest chunk" if n_keep else "smooth slope: none rescued")
    return taken, IdentifierPin(ident.surface, ident.key, len(rows), "def" if defining else "ref", bool(scope),
                                len(taken), rule)


def pin_identifiers(question: Question, vm: VectorMatrix, dist: QueryDistances, k: int, ctx: Context, trace: Trace,
                    *, enabled: bool = True) -> list[Candidate]:
    t0 = time.perf_counter()
    pins: list[Candidate] = []
    id_data: list[IdentifierPin] = []
    if enabled:
        scope = named_docs(question.text, ctx)
        for ident in question.keys:
            taken, data = _pin_one(ident, vm, dist, ctx, scope, max(1, k - len(pins)), {p.row for p in pins})
            pins.extend(dist.candidate(r, pinned=True, source="identifier") for r in taken)
            id_data.append(data)
    trace.add(Stage(
        "identifiers",
        msg("{n} pinned from {ids} identifier(s)").format(n=len(pins), ids=len(id_data)) if id_data
        else msg("no identifier in the question"),
        kept=[p.chunk_id for p in pins], data=PinRecord(id_data),
        ms=(time.perf_counter() - t0) * 1000,
    ))
    return pins
