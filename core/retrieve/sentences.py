"""Issue 20 (R2/R9): a passage kept near its cut must say something within the cut.

The cut judges a passage whole. Inside one topic a passage about a neighbouring subject sits
near every question on that subject, as close as the passage that answers one — but an answer
is *said* somewhere: two adjacent sentences of the answering passage lie within its cut, as
near the question as the passage or nearer. A passage kept within ``sentence_window``
reference spreads of its cut, or beyond it (kept for its words), is read and each two
adjacent sentences embedded (text/sentences.py ``sentence_pairs``); it stays only if the
nearest pair lies within the passage's own cut. Not read: passages far inside their cut (the
check costs one embedding per pair), passages of one sentence (nothing finer to read), those
in another script or language than the question (their cut comes from another reference; the
signals of threshold.py judge them) and those named by identifier.

Measured (bench/README.md, ninth pass): questions about articles a space lacks, refused — Chinese
0.835 → 0.850, English 0.814 → 0.870, German 0.627 → 0.672, Spanish 0.492 → 0.537, Hindi 0.864 →
0.898, Vietnamese 0.644 → 0.780; answers in English, Chinese, CMRC, Arabic, German, Russian unchanged,
Spanish / Thai / Hindi / Vietnamese 1–4 in 200 fewer; single sentences instead of pairs lost twice
as many answers for about the same refusals.
"""

from __future__ import annotations

import time

import numpy as np

from biny.core.embed.base import Vectors
from biny.core.i18n import t
from biny.core.retrieve.baseline import Distribution
from biny.core.retrieve.candidates import Candidate, Context, RetrievalParams
from biny.core.retrieve.trace import Dropped, Stage, Trace


def check(kept: list[Candidate], query_vector: Vectors, params: RetrievalParams, ref: Distribution | None,
          ctx: Context, trace: Trace) -> list[Candidate]:
    """``kept`` without the passages near or beyond their cut no two adjacent sentences of which lie within it."""
    if not params.sentence_check or not params.use_threshold or params.max_distance is not None or ref is None \
            or ctx.sentence_vectors is None:
        return kept
    t0 = time.perf_counter()
    window = params.sentence_window * (ref.median - ref.quantile(params.threshold_quantile))
    near = [c for c in kept if c.cut is not None and not c.elsewhere and not c.pinned and c.distance > c.cut - window]
    nearest: dict[str, float] = {}
    dropped: list[Dropped] = []
    for c, vectors in zip(near, ctx.sentence_vectors([c.row for c in near]) if near else [], strict=True):
        if vectors is None:
            continue
        assert c.cut is not None
        s = float(np.min(1.0 - vectors @ query_vector))
        nearest[c.chunk_id] = round(s, 4)
        if s > c.cut:
            dropped.append(Dropped(c.chunk_id, t("no two adjacent sentences of it within its cut ({cut}; nearest "
                                                 "{s})").format(cut=f"{c.cut:.3f}", s=f"{s:.3f}"), c.distance))
    gone = {d.chunk_id for d in dropped}
    out = [c for c in kept if c.chunk_id not in gone]
    trace.add(Stage(
        "sentences", t("{read} passage(s) within {window} of their cut read by sentence; {dropped} without two "
                       "adjacent sentences within it").format(read=len(near), window=f"{window:.3f}",
                                                               dropped=len(dropped)),
        kept=[c.chunk_id for c in out], dropped=dropped,
        data={"window": round(window, 4), "nearest_sentences": nearest},
        ms=(time.perf_counter() - t0) * 1000,
    ))
    return out
