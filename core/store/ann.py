"""Approximate nearest-neighbour candidates for large spaces, re-ranked exactly.

Measured with ``bench/vector_search.py`` (vectors drawn from a Gaussian fitted to real
e5 embeddings, this class of machine): an exact float32 scan is ~6 ms a query at 100k
chunks — exact and fast enough — but ~63 ms at 1M. Above ``ANN_MIN_ROWS`` biny asks
an inverted-file index over 8-bit scalar-quantised vectors (IVF-SQ8) for a few times
more candidates than wanted and ranks those by their exact float32 distance, so the
distances every later stage compares against the space's references (R2/R9) are
exact; only membership of the pool is approximate. At 1M: recall@10 0.988 at 13.7 ms
p50 with an eighth of the lists probed, built in 40 s — an HNSW graph reached 0.93 at
7 ms but took 708 s to build, too long to redo after an ingest.

FAISS is imported lazily: small spaces, the common case, never load it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from biny.core.embed.base import Vectors

# Crossover chosen from the benchmark: below this the exact scan stays under ~12 ms.
ANN_MIN_ROWS = 200_000
# Share of the inverted lists probed per query (1M rows: 512 of 4000 → recall@10 0.988).
PROBE_SHARE = 0.125


def _faiss() -> Any:
    import faiss

    return faiss


class AnnIndex:
    """An IVF-SQ8 index over the rows of one space's matrix (same row order)."""

    def __init__(self, index: Any, rows: int) -> None:
        self._index = index
        self.rows = rows

    @classmethod
    def build(cls, matrix: Vectors, seed: int = 7) -> AnnIndex:
        faiss = _faiss()
        data = np.ascontiguousarray(matrix, dtype=np.float32)
        n, dim = data.shape
        nlist = max(1, min(int(4 * np.sqrt(n)), n // 40))  # ≥40 training rows per list
        quantiser = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFScalarQuantizer(quantiser, dim, nlist, faiss.ScalarQuantizer.QT_8bit,
                                              faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(seed)  # a fixed sample: the same rows give the same index
        sample = data[np.sort(rng.choice(n, size=min(n, 50 * nlist), replace=False))]
        index.train(sample)
        index.add(data)
        return cls(index, n)

    @classmethod
    def load(cls, path: Path) -> AnnIndex:
        index = _faiss().read_index(str(path))
        return cls(index, int(index.ntotal))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        _faiss().write_index(self._index, str(tmp))
        tmp.replace(path)  # never leave a half-written index where a reader would load it

    def search(self, matrix: Vectors, query: Vectors, n: int, probe_share: float = PROBE_SHARE,
               ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """The ``n`` nearest rows by exact cosine distance among the index's candidates."""
        n = min(n, self.rows)
        if n <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        want = min(self.rows, max(4 * n, 40))
        nlist = int(self._index.nlist)
        self._index.nprobe = min(nlist, max(8, round(probe_share * nlist)))
        q = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
        _, labels = self._index.search(q, want)
        cand = labels[0][labels[0] >= 0].astype(np.int64)
        sims = matrix[cand] @ q[0]
        order = np.argsort(-sims, kind="stable")[:n]
        return cand[order], (1.0 - sims[order]).astype(np.float32)
