"""The nearest rows at a quarter of the bytes: an 8-bit scan picks candidates, float32 ranks them exactly.

An exact float32 scan reads the whole matrix per question (101,640 × 384: 156 MB, 5–10 ms on this class of
machine, issue 23). Each value is here also kept as an 8-bit code on a per-dimension grid, and FAISS scans the
codes with SIMD. A row's approximate similarity differs from its exact one by a sum of 384 rounding errors,
each uniform within half a grid step: a question's error spread is ``σ = sqrt(Σ (q_i·step_i)² / 12)``. If ``T``
is the n-th best approximate score, every row of the exact top n scores ≥ T − 2·8σ approximately unless a
rounding sum strays past 8σ; all rows above that bound are re-ranked by their exact float32 similarity, so the
distances are exact and the rows are the full scan's. Measured on the 11,831-chunk bench space
(real passages, 100 real questions, 1.18M row–question pairs): the largest error was 4.8σ (5.2σ over the
101,640 stand-in vectors of the 100k bench space), and the band held ~60 rows for a top 40. (The worst-case
bound, ½ Σ |q_i|·step_i, is ~27σ: e5 similarities are so close together that its band held 2,700 rows.)

Rows are kept in groups (a space's script classes, R2's per-script rankings), so the top n of each group
comes from the same single pass; large groups are split into pieces searched on the scan threads.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from biny.core.embed.base import Vectors

# Below this many rows the float32 scan is as fast or faster (bench/query_latency.py at 11,831 rows: ask
# overhead 3.8 ms either way right after an embedding, 2.55 ms float32 against 2.90 ms 8-bit with the
# question's vector cached — one BLAS call beats a FAISS call per group), and FAISS need not be loaded.
QUANT_MIN_ROWS = 20_000
# Half-width of the candidate band in rounding-error spreads (σ above). A Gaussian strays past 8σ about
# once in 10¹⁵ draws; measured errors stayed within 4.8σ.
BAND_SIGMAS = 8.0
# Slack for float32 summation inside FAISS and numpy.
_EPS = 1e-5


def _faiss() -> Any:
    import faiss

    return faiss


@dataclass(slots=True)
class _Piece:
    group: int
    rows: npt.NDArray[np.int64]  # matrix rows, in the piece's local order
    index: Any  # faiss.IndexScalarQuantizer over the piece's codes


class QuantizedScan:
    """8-bit codes of one matrix, in groups of rows; ``top`` returns each group's exact nearest rows."""

    def __init__(self, step: Vectors, pieces: list[_Piece], groups: Sequence[npt.NDArray[np.int64]]) -> None:
        self._step = step
        self._pieces = pieces
        self.source = groups  # the groups as given (the caller rebuilds when it holds other ones)
        self.groups = max(1, len(groups))

    @classmethod
    def build(cls, matrix: Vectors, groups: Sequence[npt.NDArray[np.int64]], piece_rows: int) -> QuantizedScan:
        """Codes for ``matrix``; ``groups`` partition its rows (row indices; none given = one group)."""
        faiss = _faiss()
        dim = matrix.shape[1]
        # One grid for every piece: per dimension, 256 levels between the matrix's min and max (RS_minmax).
        template = faiss.IndexScalarQuantizer(dim, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT)
        template.train(matrix)
        trained = faiss.vector_to_array(template.sq.trained)
        step = (trained[dim:] / 255.0).astype(np.float32)  # the grid step; codes decode to cell centres
        parts = list(groups) or [np.arange(len(matrix), dtype=np.int64)]
        pieces: list[_Piece] = []
        for g, rows in enumerate(parts):
            for start in range(0, len(rows), max(1, piece_rows)):
                sub = np.asarray(rows[start:start + piece_rows], dtype=np.int64)
                index = faiss.IndexScalarQuantizer(dim, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT)
                faiss.copy_array_to_vector(trained, index.sq.trained)
                index.is_trained = True
                index.add(np.ascontiguousarray(matrix[sub]))
                pieces.append(_Piece(g, sub, index))
        return cls(step, pieces, groups)

    @property
    def nbytes(self) -> int:
        return sum(int(p.index.ntotal) * len(self._step) + p.rows.nbytes for p in self._pieces)

    def _candidates(self, piece: _Piece, qs: Vectors, bound: float, n: int) -> npt.NDArray[np.int64]:
        """Rows of ``piece`` that may be among its exact top ``n``: approximate score ≥ T − 2·``bound``."""
        # One OpenMP thread per search: the pieces already run on the scan threads, and FAISS's own team,
        # when it forms, spins after the search on the cores the other pieces need. Per thread (an ICV).
        _faiss().omp_set_num_threads(1)
        total = len(piece.rows)
        m = min(total, 2 * n + 32)
        while True:
            scores, local = piece.index.search(qs, m)
            scores, local = scores[0], local[0]
            floor = scores[min(n, m) - 1] - 2 * bound - _EPS
            if m == total or scores[m - 1] < floor:
                found: npt.NDArray[np.int64] = piece.rows[local[scores >= floor]]
                return found
            m = min(total, m * 4)  # the band holds more rows than asked for: ask for more

    def top(self, matrix: Vectors, query: Vectors, n: int,
            pool: concurrent.futures.Executor | None = None) -> list[tuple[npt.NDArray[np.int64], Vectors]]:
        """Per group: its ``min(n, size)`` nearest rows and their exact similarities, nearest first."""
        q = np.ascontiguousarray(query.reshape(-1), dtype=np.float32)
        qs = q[None, :]
        bound = BAND_SIGMAS * float(np.sqrt(np.square(q * self._step).sum() / 12.0))
        if pool is not None and len(self._pieces) > 1:
            found = list(pool.map(lambda p: self._candidates(p, qs, bound, n), self._pieces))
        else:
            found = [self._candidates(p, qs, bound, n) for p in self._pieces]
        out: list[tuple[npt.NDArray[np.int64], Vectors]] = []
        for g in range(self.groups):
            rows = np.concatenate([f for f, p in zip(found, self._pieces, strict=True) if p.group == g]
                                  or [np.zeros(0, dtype=np.int64)])
            sims = matrix[rows] @ q
            order = np.lexsort((rows, -sims))[:n]  # nearest first; equal similarity → lower row first
            out.append((rows[order], sims[order].astype(np.float32)))
        return out
