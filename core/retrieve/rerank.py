"""Rerank stage: reorder the unpinned candidates; pins keep their places (R4).

The reranker itself is pluggable (retrieve/rerankers.py); this stage — not the
reranker — enforces that pins stay first and that only K reach the context.
"""

from __future__ import annotations

import time

from biny.core.i18n import msg
from biny.core.retrieve.candidates import Candidate, Context
from biny.core.store.vectors import VectorMatrix
from biny.core.text.question import Question
from biny.core.trace import Dropped, Stage, Trace


def rerank(question: Question, pins: list[Candidate], rest: list[Candidate], k: int, vm: VectorMatrix, ctx: Context,
           trace: Trace, *, enabled: bool = True) -> tuple[list[Candidate], list[Candidate]]:
    """(the K for the context, the whole ranked list) — pins first in both."""
    t0 = time.perf_counter()
    if enabled and len(rest) > 1:
        order = ctx.reranker.order(question, [c.row for c in rest], [c.distance for c in rest], vm, ctx.blind,
                                   words=ctx.words(question, vm))
        by_row = {c.row: c for c in rest}
        rest = [by_row[r] for r in order]
    ranked = pins + rest
    slots = max(0, k - len(pins))
    final = pins + rest[:slots]
    trace.add(Stage(
        "rerank", (msg(ctx.reranker.name) if enabled else msg("vector order")) + "; "
                  + msg("{pins} pinned first, {ranked} ranked").format(pins=len(pins), ranked=len(final) - len(pins)),
        kept=[c.chunk_id for c in final],
        dropped=[Dropped(c.chunk_id, msg("past K after rerank"), c.distance) for c in rest[slots:]],
        ms=(time.perf_counter() - t0) * 1000,
    ))
    return final, ranked
