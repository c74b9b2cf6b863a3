"""Exact in-memory vector search over a space's visible chunks.

Measured on this class of machine (ARCHITECTURE.md): LanceDB flat search took
200–350 ms a query at 100k × 384, a float32 matrix product 8 ms, and loading the
matrix from Lance 0.22 s. So LanceDB stays the durable store and queries run on a
matrix built from it, rebuilt lazily after each write.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from biny.core.embed.base import Vectors
from biny.core.store.lance import ChunkStore


@dataclass(slots=True)
class VectorMatrix:
    chunk_ids: list[str]
    doc_ids: list[str]
    matrix: Vectors  # (n, dim), rows L2-normalised

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def nearest(self, query: Vectors, n: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Indices and cosine distances of the ``n`` nearest rows, nearest first."""
        if len(self) == 0 or n <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        sims = self.matrix @ query.reshape(-1).astype(np.float32)
        n = min(n, len(sims))
        idx = np.argpartition(-sims, n - 1)[:n] if n < len(sims) else np.arange(len(sims))
        idx = idx[np.argsort(-sims[idx], kind="stable")]
        return idx.astype(np.int64), (1.0 - sims[idx]).astype(np.float32)

    def distances(self, query: Vectors) -> npt.NDArray[np.float32]:
        """Cosine distance from ``query`` to every row."""
        if len(self) == 0:
            return np.zeros(0, dtype=np.float32)
        return (1.0 - self.matrix @ query.reshape(-1).astype(np.float32)).astype(np.float32)


class VectorCache:
    """Per-space matrices; ``invalidate`` after any write that changes visibility."""

    def __init__(self, chunks: ChunkStore) -> None:
        self._chunks = chunks
        self._lock = threading.Lock()
        self._cache: dict[str, VectorMatrix] = {}

    def invalidate(self, space_id: str) -> None:
        with self._lock:
            self._cache.pop(space_id, None)

    def get(self, space_id: str, visible_docs: set[str], dim: int) -> VectorMatrix:
        with self._lock:
            hit = self._cache.get(space_id)
            if hit is not None:
                return hit
            if self._chunks.count(space_id) == 0:
                vm = VectorMatrix([], [], np.zeros((0, dim), dtype=np.float32))
            else:
                tbl = self._chunks.scan(space_id, ["chunk_id", "doc_id", "vector"])
                doc_ids = tbl.column("doc_id").to_pylist()
                keep = np.array([d in visible_docs for d in doc_ids], dtype=bool)
                vec_col = tbl.column("vector").combine_chunks()
                flat = vec_col.values.to_numpy(zero_copy_only=False)
                matrix = np.asarray(flat, dtype=np.float32).reshape(-1, dim)[keep]
                ids = tbl.column("chunk_id").to_pylist()
                vm = VectorMatrix(
                    [c for c, k in zip(ids, keep, strict=True) if k],
                    [d for d, k in zip(doc_ids, keep, strict=True) if k],
                    np.ascontiguousarray(matrix),
                )
            self._cache[space_id] = vm
            return vm
