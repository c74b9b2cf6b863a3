"""The retrieval pipeline, top to bottom like SPEC R2–R8.

Stages work on candidates (row indices and distances) — never on text — so only
the chunks that end up in the context are read back (R7, decrypt last). Each
stage records what it kept and dropped into the ``Trace``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from biny.core.embed.base import Vectors
from biny.core.retrieve.baseline import Baselines
from biny.core.retrieve.trace import Dropped, Stage, Trace
from biny.core.store.vectors import VectorMatrix


@dataclass(slots=True)
class Candidate:
    row: int
    chunk_id: str
    doc_id: str
    distance: float
    pinned: bool = False


@dataclass(slots=True)
class RetrievalParams:
    k: int
    pool_factor: int
    threshold_quantile: float
    # An explicit cut (console slider, tests); None = from the measured reference.
    max_distance: float | None = None


@dataclass(slots=True)
class Retrieval:
    final: list[Candidate]
    pool: list[Candidate]
    max_distance: float | None
    reference: str
    trace: Trace


def retrieve(
    question: str,
    query_vector: Vectors,
    vm: VectorMatrix,
    baselines: Baselines,
    params: RetrievalParams,
    trace: Trace,
) -> Retrieval:
    # R2: a ranked pool wider than K, fetched first; the distance filter runs after it.
    t0 = time.perf_counter()
    idx, dist = vm.nearest(query_vector, params.k * params.pool_factor)
    pool = [Candidate(int(i), vm.chunk_ids[i], vm.doc_ids[i], float(d)) for i, d in zip(idx, dist, strict=True)]
    trace.add(Stage(
        "pool",
        f"{len(pool)} nearest of {len(vm)} chunks (K={params.k} × {params.pool_factor})",
        kept=[c.chunk_id for c in pool],
        data={"distances": [round(c.distance, 4) for c in pool], "searched": len(vm)},
        ms=(time.perf_counter() - t0) * 1000,
    ))

    # R2/R9: cut by a maximum distance set against the measured reference for this
    # question's script (unrelated questions → nearest passage), never a fixed number.
    t0 = time.perf_counter()
    group, ref = baselines.reference_for(question)
    if params.max_distance is not None:
        max_d: float | None = params.max_distance
        how = f"explicit cut {max_d:.3f}"
    elif ref is not None:
        max_d = ref.quantile(params.threshold_quantile)
        how = (f"cut at {max_d:.3f} = p{params.threshold_quantile * 100:.0f} of unrelated "
               f"questions' nearest distance ({group}, median {ref.median:.3f})")
    else:
        max_d = None
        how = "no reference measured yet: nothing cut"
    kept = [c for c in pool if max_d is None or c.distance <= max_d]
    trace.add(Stage(
        "threshold",
        f"{len(kept)} of {len(pool)} within the cut; {how}",
        kept=[c.chunk_id for c in kept],
        dropped=[Dropped(c.chunk_id, "beyond the distance cut", c.distance)
                 for c in pool if max_d is not None and c.distance > max_d],
        data={"max_distance": max_d, "reference": group, "quantile": params.threshold_quantile},
        ms=(time.perf_counter() - t0) * 1000,
    ))

    # Fewer than K is a correct result: never pad (R2).
    final = kept[: params.k]
    trace.add(Stage(
        "select",
        f"{len(final)} chunk(s) in the context" + ("" if final else ": no passage close enough"),
        kept=[c.chunk_id for c in final],
        dropped=[Dropped(c.chunk_id, "past K", c.distance) for c in kept[params.k:]],
    ))
    return Retrieval(final, pool, max_d, group, trace)
