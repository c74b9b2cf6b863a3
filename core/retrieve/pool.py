"""R2: a ranked pool wider than K, fetched first (exact search over every chunk)."""

from __future__ import annotations

import time

import numpy as np
import numpy.typing as npt

from biny.core.crypto.blind import BlindIndex
from biny.core.embed.base import Vectors
from biny.core.i18n import msg
from biny.core.retrieve.baseline import Baselines
from biny.core.retrieve.candidates import Candidate, QueryDistances, RetrievalParams
from biny.core.store.vectors import VectorMatrix
from biny.core.text.scripts import SCRIPTS
from biny.core.trace import Stage, Trace
from biny.core.trace.records import PoolRecord

# A combination of scripts gets its own row mask only when it holds this share of the rows: smaller ones would be
# measured against a handful of passages (a stray Greek formula in an English manual).
MIN_SCRIPT_SHARE = 0.05
# Rows sampled for the standout figure: the median and MAD move by ~1/30 of a MAD against 4,096, and the product is
# a quarter of the reads (issue 23: 0.55 → ~0.15 ms right after an embedding, at 11,831 rows).
STANDOUT_SAMPLE = 1024
# Below this many passages the standout's median and MAD are too few values to mean anything: not recorded.
STANDOUT_MIN_ROWS = 20


def script_masks(vm: VectorMatrix, baselines: Baselines, blind: BlindIndex,
                 min_share: float = MIN_SCRIPT_SHARE) -> dict[frozenset[str], npt.NDArray[np.int64]]:
    """Row masks, one per combination of scripts (Chinese; English; Chinese with English;
    Japanese = kana with han …) holding at least ``min_share`` of the rows, as row indices. From the
    script marks stored at ingest; rows stored before them have none. Kept per matrix.

    Combinations, not single scripts: a Chinese passage quoting English names would
    otherwise count as English and win the English ranking for a Chinese question.
    """
    if baselines.script_rows is None:
        marks = {blind.aspect(f"script:{g}"): g for g, _ in SCRIPTS}
        keys = np.array([",".join(sorted(marks[a] for a in row if a in marks)) for row in vm.aspects] or [""])
        masks = {}
        for key in sorted(set(keys.tolist()) - {""}):
            rows = np.flatnonzero(keys == key)
            if len(rows) >= min_share * len(vm):
                masks[frozenset(key.split(","))] = rows
        baselines.script_rows = masks
        # Each script class is a group of the 8-bit scan, so its own ranking comes from the same pass.
        vm.set_groups(list(masks.values()) if len(masks) > 1 else [])
    return baselines.script_rows


def standout(vm: VectorMatrix, query: Vectors, nearest: float) -> float:
    """How far the top hit stands out from this question's own distance distribution
    ((median − d1) / MAD; recorded for analysts, measured and not used as a gate —
    see bench/threshold_rules.py)."""
    sample = vm.sample_distances(query, STANDOUT_SAMPLE)
    med = float(np.median(sample))
    mad = float(np.median(np.abs(sample - med))) or 1e-6
    return (med - nearest) / mad


def gather(query: Vectors, vm: VectorMatrix, baselines: Baselines, params: RetrievalParams, group: str,
           blind: BlindIndex, trace: Trace) -> tuple[list[Candidate], QueryDistances]:
    t0 = time.perf_counter()
    k = params.k
    exact = vm.ann is None or vm.ann.rows != len(vm)
    classes = script_masks(vm, baselines, blind) if params.pool_per_script and exact else {}
    # Passages written without the question's script get a ranking of their own: a
    # multilingual model puts a question nearer to any passage in its own language than to
    # the answer in another (R2; bench/eval_retrieval.py "mixed en+zh": a Chinese question's
    # English answer was outranked by every Chinese passage). Among passages sharing its
    # script the plain ranking is fair, so a one-language space is searched as before.
    # Exact scan only: above the ANN crossover a mixed space gets the plain ranking (open).
    scripts = [m for key, m in classes.items() if group != "all" and group not in key] if len(classes) > 1 else []
    n_per_script = 0
    if scripts:
        idx, pool_d, n_per_script = vm.search_by_script(query, k * params.pool_factor, scripts)
    else:
        idx, pool_d = vm.search(query, k * params.pool_factor)
    dist = QueryDistances(vm, query)
    dist.note(idx, pool_d)
    pool = [dist.candidate(int(i)) for i in idx]
    stands = standout(vm, query, pool[0].distance) if len(vm) >= STANDOUT_MIN_ROWS and pool else None
    how_searched = msg("exact") if exact else msg("ANN candidates, exact distances")
    more = " " + msg("+ {n} nearest of each script").format(n=n_per_script) if n_per_script else ""
    trace.add(Stage(
        "pool", msg("{n} nearest{more} of {total} chunks (K={k} × {factor}, {how})").format(
            n=len(pool) - n_per_script, more=more, total=len(vm), k=k, factor=params.pool_factor, how=how_searched),
        kept=[c.chunk_id for c in pool],
        data=PoolRecord([round(c.distance, 4) for c in pool], len(vm), n_per_script,
                        None if stands is None else round(stands, 2)),
        ms=(time.perf_counter() - t0) * 1000,
    ))
    return pool, dist
