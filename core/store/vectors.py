"""Exact in-memory search over a space's visible chunks, with their lookup metadata.

Measured on this class of machine (ARCHITECTURE.md): LanceDB flat search took
200–350 ms a query at 100k × 384, a float32 matrix product 8 ms, and loading the
matrix from Lance 0.22 s. So LanceDB stays the durable store and queries run on a
matrix built from it, rebuilt lazily after each write. Beside the vectors it keeps
what R3/R4/R8 look up without reading chunk text: identifier keys, term sets,
aspect flags, token and character counts.
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from biny.core.embed.base import Vectors
from biny.core.store.lance import ChunkStore

_COLUMNS = ["chunk_id", "doc_id", "vector", "ids", "terms", "aspects", "tokens", "char_start", "char_end"]


@dataclass(slots=True)
class VectorMatrix:
    chunk_ids: list[str]
    doc_ids: list[str]
    matrix: Vectors  # (n, dim), rows L2-normalised
    # identifier key → [(row, tier)], tier "def" (defining) or "ref" (mention)
    id_index: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    terms: list[frozenset[str]] = field(default_factory=list)
    aspects: list[frozenset[str]] = field(default_factory=list)
    tokens: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    chars: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    df: Counter[str] = field(default_factory=Counter)

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def similarities(self, query: Vectors) -> npt.NDArray[np.float32]:
        if len(self) == 0:
            return np.zeros(0, dtype=np.float32)
        return (self.matrix @ query.reshape(-1).astype(np.float32)).astype(np.float32)

    def nearest(self, query: Vectors, n: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Indices and cosine distances of the ``n`` nearest rows, nearest first."""
        return self.top(self.similarities(query), n)

    @staticmethod
    def top(sims: npt.NDArray[np.float32], n: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        if len(sims) == 0 or n <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        n = min(n, len(sims))
        idx = np.argpartition(-sims, n - 1)[:n] if n < len(sims) else np.arange(len(sims))
        idx = idx[np.argsort(-sims[idx], kind="stable")]
        return idx.astype(np.int64), (1.0 - sims[idx]).astype(np.float32)

    def distances(self, query: Vectors) -> npt.NDArray[np.float32]:
        """Cosine distance from ``query`` to every row."""
        return (1.0 - self.similarities(query)).astype(np.float32)


class VectorCache:
    """Per-space matrices; ``invalidate`` after any write that changes visibility."""

    def __init__(self, chunks: ChunkStore) -> None:
        self._chunks = chunks
        self._lock = threading.Lock()
        self._cache: dict[str, VectorMatrix] = {}

    def invalidate(self, space_id: str) -> None:
        with self._lock:
            self._cache.pop(space_id, None)

    def get(self, space_id: str, visible_docs: set[str] | Callable[[], set[str]], dim: int) -> VectorMatrix:
        """The space's matrix; ``visible_docs`` may be a callable, read only on a cache miss."""
        with self._lock:
            hit = self._cache.get(space_id)
            if hit is not None:
                return hit
            docs = visible_docs() if callable(visible_docs) else visible_docs
            vm = self._load(space_id, docs, dim)
            self._cache[space_id] = vm
            return vm

    def _load(self, space_id: str, visible_docs: set[str], dim: int) -> VectorMatrix:
        if self._chunks.count(space_id) == 0:
            return VectorMatrix([], [], np.zeros((0, dim), dtype=np.float32))
        tbl = self._chunks.scan(space_id, _COLUMNS)
        doc_ids_all = tbl.column("doc_id").to_pylist()
        keep = np.array([d in visible_docs for d in doc_ids_all], dtype=bool)
        flat = tbl.column("vector").combine_chunks().values.to_numpy(zero_copy_only=False)
        matrix = np.ascontiguousarray(np.asarray(flat, dtype=np.float32).reshape(-1, dim)[keep])
        rows = np.flatnonzero(keep)
        chunk_ids = tbl.column("chunk_id").to_pylist()
        ids_col = tbl.column("ids").to_pylist()
        terms_col = tbl.column("terms").to_pylist()
        aspects_col = tbl.column("aspects").to_pylist()
        id_index: dict[str, list[tuple[int, str]]] = defaultdict(list)
        terms: list[frozenset[str]] = []
        aspects: list[frozenset[str]] = []
        df: Counter[str] = Counter()
        for new, old in enumerate(rows):
            for item in ids_col[old]:
                tier, key = item.split("|", 1)
                id_index[key].append((new, tier))
            t = frozenset(terms_col[old])
            terms.append(t)
            df.update(t)
            aspects.append(frozenset(aspects_col[old]))
        starts = tbl.column("char_start").to_numpy()[keep]
        ends = tbl.column("char_end").to_numpy()[keep]
        return VectorMatrix(
            chunk_ids=[chunk_ids[i] for i in rows],
            doc_ids=[doc_ids_all[i] for i in rows],
            matrix=matrix,
            id_index=dict(id_index),
            terms=terms,
            aspects=aspects,
            tokens=tbl.column("tokens").to_numpy()[keep].astype(np.int32),
            chars=(ends - starts).astype(np.int32),
            df=df,
        )
