"""Exact in-memory search over a space's visible chunks, with their lookup metadata.

Measured on this class of machine (docs/architecture.md, "Decisions measured"): LanceDB flat search took
200–350 ms a query at 100k × 384, a float32 matrix product 8 ms, and loading the
matrix from Lance 0.22 s. So LanceDB stays the durable store and queries run on a
matrix built from it, rebuilt lazily after each write. Beside the vectors it keeps
what R3/R4/R8 look up without reading chunk text: identifier keys, term sets,
aspect flags, token and character counts.

Above ``AnnPolicy.min_rows`` chunks (issue 9's crossover) an IVF index supplies the
candidates (``store/ann.py``); it is built — or read back from the data folder's
cache — on a background thread, and until it is ready every query is answered by the
exact scan, so a large space is searchable the moment it opens.
"""

from __future__ import annotations

import bisect
import concurrent.futures
import hashlib
import itertools
import logging
import os
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from biny.core.embed.base import Vectors
from biny.core.i18n import t
from biny.core.store import rowmac
from biny.core.store.ann import ANN_MIN_ROWS, PROBE_SHARE, AnnIndex
from biny.core.store.guard import retire_reads
from biny.core.store.heap import give_back, keep_out_of_collections, let_collections_in
from biny.core.store.integrity import mismatches
from biny.core.store.lance import ChunkStore
from biny.core.store.quantized import QUANT_MIN_ROWS, QuantizedScan
from biny.core.store.stamp import FolderStamp

log = logging.getLogger(__name__)

# Terms are read in a second scan so their strings never sit in memory beside the vectors
# (bench/console_memory.py: peak 2.9 GB → see README figures at 100k chunks).
_COLUMNS = ["chunk_id", "doc_id", "vector", "ids", "aspects", "tokens", "char_start", "char_end"]


class RowTerms:
    """One chunk's term set, as term codes; ``term in row`` looks the term up by code."""

    __slots__ = ("_codes", "_vocab")

    def __init__(self, vocab: dict[str, int], codes: frozenset[int]) -> None:
        self._vocab = vocab
        self._codes = codes

    def __contains__(self, term: object) -> bool:
        code = self._vocab.get(term) if isinstance(term, str) else None
        return code is not None and code in self._codes

    def __len__(self) -> int:
        return len(self._codes)

    def holds(self, codes: frozenset[int]) -> bool:
        """Does the row carry every one of these term codes (``TermSets.code``)? One set comparison, for checks
        that look the same terms up in many rows (retrieve/translated.py)."""
        return codes <= self._codes


class DocFreq:
    """How many visible chunks carry each term (``get`` like a dict)."""

    def __init__(self, vocab: dict[str, int], counts: npt.NDArray[np.int64]) -> None:
        self._vocab = vocab
        self._counts = counts
        self._sorted: list[str] | None = None  # the visible terms in order, made on the first ``begins``

    def get(self, term: str, default: int = 0) -> int:
        code = self._vocab.get(term)
        return int(self._counts[code]) if code is not None and code < len(self._counts) else default

    def __len__(self) -> int:
        return int(np.count_nonzero(self._counts))

    def begins(self, prefix: str) -> bool:
        """Does a term some visible chunk carries begin with ``prefix``? A word's shortening ("eval" for
        "evaluation") or its plural's stem is no word the question names that the space lacks (issue 55,
        retrieve/mentions.py). Plain terms only: a blinded term keeps nothing of its letters."""
        return bool(self.starting(prefix, 1))

    def starting(self, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` visible terms beginning with ``prefix``, in order (plain terms only, as ``begins``)."""
        if self._sorted is None:
            self._sorted = sorted(t for t, code in self._vocab.items()
                                  if code < len(self._counts) and self._counts[code] > 0)
        i = bisect.bisect_left(self._sorted, prefix)
        out: list[str] = []
        while i < len(self._sorted) and len(out) < limit and self._sorted[i].startswith(prefix):
            out.append(self._sorted[i])
            i += 1
        return out


_GENERATIONS = itertools.count(1)

# The exact scan is memory-bound: above this many rows it is split over the cores (fixed row ranges, so the
# result does not depend on scheduling). BLAS itself stays single-threaded (services/models.py): its workers
# spin after a call and slowed the next query embedding; these threads finish and sleep. Measured at 101,640
# rows × 384 on 2 cores: one thread 9.8 ms, two 5.3 ms.
SPLIT_SCAN_ROWS = 20_000
_SCAN_THREADS = max(1, min(4, os.cpu_count() or 1))
_scan_pool = concurrent.futures.ThreadPoolExecutor(max_workers=_SCAN_THREADS, thread_name_prefix="biny-scan")


def _scan(matrix: Vectors, q: Vectors) -> Vectors:
    """``matrix @ q``, over row ranges in parallel for large matrices (numpy releases the GIL)."""
    if len(matrix) < SPLIT_SCAN_ROWS or _SCAN_THREADS == 1:
        return np.asarray(matrix @ q, dtype=np.float32)
    out = np.empty(len(matrix), dtype=np.float32)
    bounds = np.linspace(0, len(matrix), _SCAN_THREADS + 1).astype(np.int64)
    parts = [_scan_pool.submit(np.dot, matrix[a:b], q, out[a:b]) for a, b in itertools.pairwise(bounds)]
    for part in parts:
        part.result()
    return out
# The documents a matrix holds: ids, or doc_id → (passages, chunk digest) to verify them (store/integrity.py).
Visible = set[str] | Mapping[str, tuple[int, str]]


@dataclass(frozen=True, slots=True)
class RowCheck:
    """How a load checks row codes (store/rowmac.py): the space's key, and whether every row must have one."""

    key: bytes
    bound: bool


def check_rows(batches: Iterator[Any], check: RowCheck, chunk_ids: Sequence[str], doc_ids: Sequence[str],
               keep: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.bool_], int, dict[str, str]] | None:
    """Per stored row: does its code disagree with its columns (only rows in ``keep`` are computed); how many
    kept rows have no code; and doc_id → why for the documents of the rows that disagree. ``batches`` stream
    ``rowmac.columns()`` of every row in the order of ``chunk_ids``; None when they do not (a write landed
    between the scans)."""
    bad = np.zeros(len(chunk_ids), dtype=bool)
    uncoded, at = 0, 0
    for part in batches:
        n = part.num_rows
        if part.column("chunk_id").to_pylist() != list(chunk_ids[at:at + n]):
            return None
        mask = keep[at:at + n]
        if mask.any():
            rows = part if mask.all() else part.filter(pa.array(mask))
            bad[at:at + n][mask] = rowmac.mismatched(check.key, rows, bound=check.bound)
            uncoded += rowmac.uncoded(rows)
        at += n
    if at != len(chunk_ids):
        return None
    tampered = {doc_id: t("{n} passage(s) no longer match their integrity code").format(n=n)
                for doc_id, n in Counter(doc_ids[int(i)] for i in np.flatnonzero(bad)).items()}
    return bad, uncoded, tampered


_FEW_HIDDEN = 20_000  # hidden rows read one by one up to here (≈0.1 s); a mask over every code beyond
_COUNT_STEP = 1 << 20  # codes counted per step: bincount copies its input to int64 first
_BUILT_ROWS = 1024  # term sets kept built (TermSets.__getitem__): a question's pool is tens of rows


def _counted(codes: npt.NDArray[np.int32], size: int) -> npt.NDArray[np.int64]:
    """``np.bincount(codes, minlength=size)`` a million codes at a time: in one call its int64 copy of all the codes
    (114 MB at 100k passages) was fresh memory, and faulting it in took 0.6 s; in steps the copy is 8 MB, reused."""
    out = np.zeros(size, dtype=np.int64)
    for at in range(0, len(codes), _COUNT_STEP):
        out += np.bincount(codes[at:at + _COUNT_STEP], minlength=size)
    return out


class TermSets:
    """Every chunk's term set in one dictionary-encoded array.

    Measured (bench/console_memory.py): at 100k chunks the terms were 9.8M entries;
    held as Python frozensets they took ~2.5 GB of the engine's 2.9 GB. As 4-byte codes
    into one vocabulary they take ~40 MB; a row's set is built only when a query asks
    about that row (a few dozen rows a question).
    """

    def __init__(self, vocab: dict[str, int], offsets: npt.NDArray[np.int64], codes: npt.NDArray[np.int32],
                 rows: npt.NDArray[np.int64]) -> None:
        self.vocab = vocab
        self._offsets = offsets  # into ``codes``, per stored row (visible or not)
        self._codes = codes
        self._rows = rows  # matrix row → stored row
        # A question reads the same few dozen rows' sets many times over (the word check, the translated check, the
        # judge): each set built once per row, not per look (issue 57: the largest Python cost of a question at 10k
        # once its word lookups were counted, bench/question_python.py --profile).
        # Bounded, as the sets are ≈7 KB each; emptied whole when full, as rows asked together are asked again soon.
        self._built: dict[int, RowTerms] = {}

    @classmethod
    def empty(cls) -> TermSets:
        return cls({}, np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64))

    @classmethod
    def from_arrow(cls, column: Any, rows: npt.NDArray[np.int64]) -> TermSets:
        """From a LanceDB ``list<string>`` column (all stored rows, chunked) and the visible rows.

        The chunks' values (zero-copy slices) are dictionary-encoded as one chunked array, so Arrow hashes each term
        once into one vocabulary and Python reads only that vocabulary. Encoding chunk by chunk and mapping each
        chunk's own dictionary in Python read the common terms once per chunk: 19 s of a 1M-passage space's first
        question (issue 57, bench/cold_load.py)."""
        import pyarrow as pa

        offsets_parts: list[npt.NDArray[np.int64]] = [np.zeros(1, dtype=np.int64)]
        values: list[Any] = []
        base = 0
        for chunk in getattr(column, "chunks", [column]):
            off = np.asarray(chunk.offsets.to_numpy(), dtype=np.int64)
            values.append(chunk.values.slice(int(off[0]), int(off[-1] - off[0])))
            offsets_parts.append(off[1:] - off[0] + base)
            base += int(off[-1] - off[0])
        vocab: dict[str, int] = {}
        codes = np.zeros(0, dtype=np.int32)
        if base:
            # One dictionary for every chunk: the encoder's chunks normally share it already, and unify makes sure.
            encoded = pa.chunked_array(values, type=column.type.value_type).dictionary_encode().unify_dictionaries()
            parts = [c for c in encoded.chunks if len(c)]
            vocab = {term: i for i, term in enumerate(parts[0].dictionary.to_pylist())}
            codes = np.concatenate([np.asarray(c.indices.to_numpy(zero_copy_only=False), dtype=np.int32)
                                    for c in parts])
        return cls(vocab, np.concatenate(offsets_parts), codes, np.asarray(rows, dtype=np.int64))

    def __len__(self) -> int:
        return len(self._rows)

    def code(self, term: str) -> int | None:
        """The term's code in the vocabulary (None: no stored row carries it)."""
        return self.vocab.get(term)

    def __getitem__(self, row: int) -> RowTerms:
        got = self._built.get(row)
        if got is None:
            stored = self._rows[row]
            got = RowTerms(self.vocab, frozenset(self._codes[self._offsets[stored]:self._offsets[stored + 1]].tolist()))
            if len(self._built) >= _BUILT_ROWS:
                self._built.clear()
            self._built[row] = got
        return got

    def weigh(self, rows: Sequence[int], weights: Mapping[str, float]) -> npt.NDArray[np.float64]:
        """Per row: the sum of ``weights`` over the terms it carries — one pass over the rows' codes instead
        of a set per row (issue 23: ask overhead). A row's terms are unique (stored as a sorted set)."""
        known = sorted((code, w) for t, w in weights.items() if (code := self.vocab.get(t)) is not None)
        out = np.zeros(len(rows), dtype=np.float64)
        if not known or not len(rows):
            return out
        keys = np.array([c for c, _ in known], dtype=np.int32)
        values = np.array([w for _, w in known], dtype=np.float64)
        stored = self._rows[np.asarray(rows, dtype=np.int64)]
        starts, ends = self._offsets[stored], self._offsets[stored + 1]
        codes = np.concatenate([self._codes[a:b] for a, b in zip(starts, ends, strict=True)])
        at = np.searchsorted(keys, codes).clip(0, len(keys) - 1)
        hit = np.where(keys[at] == codes, values[at], 0.0)
        owner = np.repeat(np.arange(len(rows)), ends - starts)
        return np.bincount(owner, weights=hit, minlength=len(rows)).astype(np.float64)

    def doc_freq(self) -> DocFreq:
        """Document (chunk) frequencies over the visible rows only."""
        lengths = np.diff(self._offsets)
        start = int(self._offsets[0])
        counts = _counted(self._codes[start:start + int(lengths.sum())], len(self.vocab))
        hidden = np.ones(len(lengths), dtype=bool)
        hidden[self._rows] = False
        # Every row counted, then the hidden ones (archived, disabled) taken off: usually few, so they are read one
        # by one; a mask over all the codes took 6.6 s at 1M passages (issue 57), and is kept for many hidden rows.
        gone = np.flatnonzero(hidden)
        if len(gone) > _FEW_HIDDEN:
            mask = np.repeat(hidden, lengths)
            counts -= _counted(self._codes[start:start + len(mask)][mask], len(self.vocab))
        else:
            for row in gone:
                np.subtract.at(counts, self._codes[self._offsets[row]:self._offsets[row + 1]], 1)
        return DocFreq(self.vocab, counts.astype(np.int64))


@dataclass(slots=True)
class VectorMatrix:
    chunk_ids: list[str]
    doc_ids: list[str]
    matrix: Vectors  # (n, dim), rows L2-normalised
    # identifier key → [(row, tier)], tier "def" (defining) or "ref" (mention)
    id_index: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    terms: TermSets = field(default_factory=lambda: TermSets.empty())
    aspects: list[frozenset[str]] = field(default_factory=list)
    tokens: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    chars: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    df: DocFreq = field(default_factory=lambda: DocFreq({}, np.zeros(0, dtype=np.int64)))
    # Matrix row → row position in the table scan it was built from (LanceDB take_offsets).
    stored: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # Rows for per-question distribution statistics, gathered on first use (sample_distances).
    sample: Vectors | None = None
    # Set by VectorCache once the index is built; None means exact search (small spaces).
    ann: AnnIndex | None = None
    ann_probe_share: float = PROBE_SHARE
    # Unique per loaded matrix: a new one is loaded after every write to the space, so
    # whatever is derived from the space's visible documents can be cached against it.
    generation: int = field(default_factory=lambda: next(_GENERATIONS))
    # The last exact scan (query bytes, similarities): the per-question statistics reuse it instead of a
    # second product over the sample (issue 23: ask overhead). One tuple, replaced whole (threads share it).
    last_scan: tuple[bytes, Vectors] | None = field(default=None, repr=False)
    # Left out when loaded (issue 22): doc_id → why its stored passages do not match the catalog, and
    # chunks whose stored vector is not finite. Answers name them in the trace.
    damaged: dict[str, str] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)
    # Row codes (store/rowmac.py, issue 59): were they checked at load (a locked space's are not), the documents
    # with rows whose code does not match (doc_id → why; left out too), and visible rows stored without a code
    # in a space not yet bound.
    checked: bool = False
    tampered: dict[str, str] = field(default_factory=dict)
    uncoded: int = 0
    # Groups of rows ranked on their own (script classes, set by the retrieval pool) and the 8-bit codes
    # built over them (store/quantized.py); both replaced whole, never mutated.
    groups: tuple[npt.NDArray[np.int64], ...] = ()
    quant: QuantizedScan | None = field(default=None, repr=False)
    quant_min_rows: int = QUANT_MIN_ROWS

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def search(self, query: Vectors, n: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """The ``n`` nearest rows and their exact cosine distances, nearest first.

        Exact scan unless an ANN index is ready; either way the distances are exact.
        """
        ann = self.ann
        if ann is not None and ann.rows == len(self):
            return ann.search(self.matrix, query, n, self.ann_probe_share)
        quant = self._quantized()
        if quant is None:
            return self.nearest(query, n)
        found = quant.top(self.matrix, query, n, _scan_pool if len(self) >= SPLIT_SCAN_ROWS else None)
        return self._merge([rows for rows, _ in found], [sims for _, sims in found], n)

    def set_groups(self, groups: Sequence[npt.NDArray[np.int64]]) -> None:
        """Rows ranked on their own (disjoint row-index arrays); the rest form one more group."""
        rest = np.ones(len(self), dtype=bool)
        for g in groups:
            rest[g] = False
        self.groups = tuple(groups) + ((np.flatnonzero(rest).astype(np.int64),) if rest.any() else ())

    def _quantized(self) -> QuantizedScan | None:
        """The 8-bit codes over the current groups, built on first use (large matrices only)."""
        if len(self) < self.quant_min_rows:
            return None
        quant = self.quant
        if quant is None or quant.source is not self.groups:
            piece = max(QUANT_MIN_ROWS, -(-len(self) // (2 * _SCAN_THREADS)))  # a few per thread, to balance
            quant = self.quant = QuantizedScan.build(self.matrix, self.groups, piece)
        return quant

    @staticmethod
    def _merge(rows: list[npt.NDArray[np.int64]], sims: list[Vectors], n: int
               ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """The ``n`` best of several groups' exact rankings, nearest first."""
        all_rows, all_sims = np.concatenate(rows), np.concatenate(sims)
        order = np.lexsort((all_rows, -all_sims))[:n]
        return all_rows[order].astype(np.int64), (1.0 - all_sims[order]).astype(np.float32)

    def search_by_script(self, query: Vectors, n: int, scripts: Sequence[npt.NDArray[Any]]
                         ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32], int]:
        """The ``n`` nearest rows, plus the ``n`` nearest among the rows of each script mask.

        A multilingual model puts a question nearer to any passage in its own language than
        to the answer in another one, so in a space of several languages the plain ranking
        fills the pool with one language; within one script the ranking compares like with
        like. Returns the union by exact distance, nearest first, and how many rows the
        per-script rankings added. Exact: from the full scan, or from the 8-bit codes re-ranked exactly when
        the scripts are groups the codes were built over (``set_groups``).
        """
        quant = self._quantized()
        if quant is not None and all(any(s is g for g in self.groups) for s in scripts):
            found = quant.top(self.matrix, query, n, _scan_pool if len(self) >= SPLIT_SCAN_ROWS else None)
            raw, _ = self._merge([r for r, _ in found], [s for _, s in found], n)
            rows = raw
            for script in scripts:
                own = found[next(i for i, g in enumerate(self.groups) if g is script)][0]
                rows = np.concatenate([rows, np.setdiff1d(own, rows)])
            d = self.distances_at(query, rows)
            order = np.lexsort((rows, d))
            return rows[order].astype(np.int64), d[order], len(rows) - len(raw)
        sims = self.similarities(query)
        raw, _ = self.top(sims, n)
        rows = raw
        for script in scripts:
            # Row indices (kept per matrix generation by the caller) or a boolean mask.
            idx = np.flatnonzero(script) if script.dtype == np.bool_ else script
            if len(idx):
                local, _ = self.top(sims[idx], min(n, len(idx)))
                rows = np.concatenate([rows, np.setdiff1d(idx[local], rows)])
        d = (1.0 - sims[rows]).astype(np.float32)
        order = np.argsort(d, kind="stable")
        return rows[order].astype(np.int64), d[order], len(rows) - len(raw)

    def distances_at(self, query: Vectors, rows: Sequence[int] | npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """Exact cosine distances from ``query`` to the given rows only."""
        if len(rows) == 0:
            return np.zeros(0, dtype=np.float32)
        q = query.reshape(-1).astype(np.float32)
        return (1.0 - self.matrix[np.asarray(rows, dtype=np.int64)] @ q).astype(np.float32)

    def sample_rows(self, n: int) -> npt.NDArray[np.int64]:
        """A fixed, evenly spread sample of rows (for distribution statistics on big spaces)."""
        if len(self) <= n:
            return np.arange(len(self), dtype=np.int64)
        return np.linspace(0, len(self) - 1, n).astype(np.int64)

    def sample_distances(self, query: Vectors, n: int = 4096) -> npt.NDArray[np.float32]:
        """Distances to the fixed sample of ``sample_rows(n)``; the sample is gathered once, not per query,
        and read off the question's exact scan when one was just made."""
        last = self.last_scan
        if last is not None and last[0] == np.ascontiguousarray(query.reshape(-1), dtype=np.float32).tobytes():
            return (1.0 - last[1][self.sample_rows(n)]).astype(np.float32)
        if self.sample is None or len(self.sample) != min(n, len(self)):
            self.sample = np.ascontiguousarray(self.matrix[self.sample_rows(n)])
        return (1.0 - self.sample @ query.reshape(-1).astype(np.float32)).astype(np.float32)

    def similarities(self, query: Vectors) -> npt.NDArray[np.float32]:
        if len(self) == 0:
            return np.zeros(0, dtype=np.float32)
        q = np.ascontiguousarray(query.reshape(-1), dtype=np.float32)
        sims = _scan(self.matrix, q)
        self.last_scan = (q.tobytes(), sims)
        return sims

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


@dataclass(frozen=True, slots=True)
class AnnPolicy:
    min_rows: int = ANN_MIN_ROWS
    probe_share: float = PROBE_SHARE
    cache_dir: Path | None = None  # where built indexes are kept between sessions


def _lookups(tbl: Any, rows: npt.NDArray[np.int64]) -> tuple[dict[str, list[tuple[int, str]]],
                                                              list[frozenset[str]]]:
    """The identifier index (key → [(matrix row, tier)]) and aspect sets of the kept rows.

    Rows share one set object per distinct set of marks: a space holds a few dozen distinct sets (a script, a
    language, a price, …), and a set per row cost ≈400 B a passage and a million objects for Python's collector to
    walk at 1M passages (a full collection paused a question 1.2–1.4 s; bench/README.md, issue 57)."""
    ids_col = tbl.column("ids").to_pylist()
    aspects_col = tbl.column("aspects").to_pylist()
    id_index: dict[str, list[tuple[int, str]]] = defaultdict(list)
    aspects: list[frozenset[str]] = []
    shared: dict[tuple[str, ...], frozenset[str]] = {}
    for new, old in enumerate(rows):
        for item in ids_col[old]:
            tier, key = item.split("|", 1)
            id_index[key].append((new, tier))
        marks = tuple(aspects_col[old])
        found = shared.get(marks)
        if found is None:
            found = shared[marks] = frozenset(marks)
        aspects.append(found)
    return id_index, aspects


def _unpacked(column: Any, dim: int) -> Vectors:
    """A ``fixed_size_list<float32>`` column (chunked) as one ``(n, dim)`` float32 array, copied once chunk by chunk.

    ``combine_chunks()`` then ``full[keep]`` made two whole copies beside the table's own (issue 57: at 100,007
    passages three 150 MB copies of the vectors were alive at once during a load)."""
    out = np.empty((len(column), dim), dtype=np.float32)
    at = 0
    for chunk in getattr(column, "chunks", [column]):
        n = len(chunk)
        if n:
            flat = chunk.flatten()  # respects a sliced chunk's offset (``.values`` would not)
            out[at:at + n] = np.asarray(flat.to_numpy(zero_copy_only=False), dtype=np.float32).reshape(n, dim)
        at += n
    return out


class VectorCache:
    """Per-space matrices; ``invalidate`` after any write that changes visibility."""

    def __init__(self, chunks: ChunkStore, ann: AnnPolicy | None = None, stamp: FolderStamp | None = None) -> None:
        self._chunks = chunks
        self._ann = ann or AnnPolicy()
        # Another process's writes to a local data folder (store/stamp.py); None: only this process writes.
        self._stamp = stamp
        self._lock = threading.Lock()
        self._cache: dict[str, VectorMatrix] = {}
        self._builders: dict[str, threading.Thread] = {}
        self._closed = False

    def invalidate(self, space_id: str) -> None:
        """Reload on next use (after a write, or when another process may have changed the space)."""
        with self._lock:
            self._cache.pop(space_id, None)
        self._chunks.forget_reads(space_id)

    def invalidate_all(self) -> None:
        """Reload every space on next use (a team space's reader moved to a newer snapshot)."""
        with self._lock:
            self._cache.clear()
        self._chunks.forget_all_reads()

    def retire_all(self) -> None:
        """Every matrix loaded again and every read cache retired (store/guard.py): the folder changed under this
        process — another process's commit (store/stamp.py) or a team space's newer snapshot (services/team.py)."""
        self.invalidate_all()
        retire_reads()

    def forget(self, space_id: str) -> None:
        """Drop a deleted space's matrix and any ANN index kept for it on disk."""
        self.invalidate(space_id)
        if self._ann.cache_dir is not None and self._ann.cache_dir.is_dir():
            for old in self._ann.cache_dir.glob(f"{space_id}-*.faiss"):
                old.unlink(missing_ok=True)

    def close(self) -> None:
        """Stop using the data folder: a build still running keeps nothing on disk."""
        self._closed = True
        with self._lock:
            self._cache.clear()
        let_collections_in()

    def wait_for_index(self, space_id: str, timeout: float | None = None) -> bool:
        """Block until a pending ANN build for the space finishes; True if none is pending."""
        t = self._builders.get(space_id)
        if t is not None:
            t.join(timeout)
            return not t.is_alive()
        return True

    def get(self, space_id: str, visible_docs: Visible | Callable[[], Visible], dim: int,
            check: RowCheck | Callable[[], RowCheck | None] | None = None,
            hidden: Callable[[], Collection[str]] | None = None) -> VectorMatrix:
        """The space's matrix; ``visible_docs`` may be a callable, read only on a cache miss. Given as
        doc_id → (passages, chunk digest), documents whose stored rows differ are left out (``damaged``).
        With ``check`` (or a callable giving it, None when the key is not at hand) every visible row's code is
        verified and rows that fail are left out (``tampered``); a matrix loaded unchecked is loaded again the
        first time a check is possible. ``hidden``: the chunk ids a curator disabled (issue 61), read on a miss
        too; stored, never retrieved.

        Another process having written the folder since the last look (an ingest beside an open console), every
        matrix is loaded again and every read cache retired first (issue 58): a reader answers from what was last
        committed, not from what it first loaded."""
        if self._stamp is not None and self._stamp.moved():
            self.retire_all()
        with self._lock:
            hit = self._cache.get(space_id)
            if hit is not None and (hit.checked or check is None):
                return hit
            rows = check() if callable(check) else check
            if hit is not None and rows is None:
                return hit
            docs = visible_docs() if callable(visible_docs) else visible_docs
            vm = self._load(space_id, docs, dim, rows, set(hidden()) if hidden is not None else set())
            vm.ann_probe_share = self._ann.probe_share
            self._cache[space_id] = vm
            keep_out_of_collections()  # what stays loaded is never walked by a full collection (store/heap.py)
            if len(vm) >= self._ann.min_rows:
                t = threading.Thread(target=self._attach_ann, args=(space_id, vm), daemon=True,
                                     name=f"ann-{space_id}")
                self._builders[space_id] = t
                t.start()
            return vm

    def _ann_path(self, space_id: str, vm: VectorMatrix) -> Path | None:
        if self._ann.cache_dir is None:
            return None
        # The index's rows must be the matrix's rows: key the file by the row order.
        digest = hashlib.blake2b("\n".join(vm.chunk_ids).encode(), digest_size=12).hexdigest()
        return self._ann.cache_dir / f"{space_id}-{digest}.faiss"

    def _attach_ann(self, space_id: str, vm: VectorMatrix) -> None:
        path = self._ann_path(space_id, vm)
        try:
            ann = None
            if path is not None and path.exists():
                try:
                    ann = AnnIndex.load(path)
                except (RuntimeError, OSError) as exc:  # a damaged cache file is rebuilt, never trusted
                    log.warning("ANN cache %s unreadable (%s); rebuilding", path, exc)
                if ann is not None and ann.rows != len(vm):
                    ann = None
            if ann is None:
                ann = AnnIndex.build(vm.matrix)
                if path is not None and not self._closed:
                    try:
                        for old in path.parent.glob(f"{space_id}-*.faiss"):
                            old.unlink(missing_ok=True)
                        ann.save(path)
                    except OSError as exc:  # disk full etc.: the index still serves this session
                        log.warning("could not keep the ANN index at %s: %s", path, exc)
            vm.ann = ann
        # A background build must never take the engine down with it, whatever faiss raises:
        # exact search keeps answering and nothing stored is touched.
        except Exception as exc:  # noqa: BLE001
            log.warning("ANN build for space %s failed (%s); exact search continues", space_id, exc)

    def _load(self, space_id: str, visible_docs: Visible, dim: int, check: RowCheck | None = None,
              hidden: Collection[str] = frozenset()) -> VectorMatrix:
        if self._chunks.count(space_id) == 0:
            return VectorMatrix([], [], np.zeros((0, dim), dtype=np.float32), checked=check is not None)
        tbl = self._chunks.scan(space_id, _COLUMNS)
        doc_ids_all = tbl.column("doc_id").to_pylist()
        chunk_ids = tbl.column("chunk_id").to_pylist()
        # Documents whose stored passages differ from what the catalog recorded are left out (issue 22).
        damaged = mismatches(visible_docs, doc_ids_all, chunk_ids) if isinstance(visible_docs, Mapping) else {}
        keep = np.array([d in visible_docs and d not in damaged for d in doc_ids_all], dtype=bool)
        if hidden:
            keep &= np.array([c not in hidden for c in chunk_ids], dtype=bool)
        full = _unpacked(tbl.column("vector"), dim)
        tbl = tbl.drop_columns(["vector"])  # the Arrow copy is freed here, not at the end of the load
        # A vector that is not finite (a flipped byte) can never be near anything: leave it out and say so.
        broken = keep & ~np.isfinite(full).all(axis=1)
        keep &= ~broken
        checked = None
        if check is not None:
            checked = check_rows(self._chunks.batches(space_id, rowmac.columns()), check, chunk_ids,
                                 doc_ids_all, keep)
            if checked is None:  # a write landed between the scans: start over
                return self._load(space_id, visible_docs, dim, check, hidden)
            keep &= ~checked[0]
        matrix = full if keep.all() else np.ascontiguousarray(full[keep])
        rows = np.flatnonzero(keep)
        id_index, aspects = _lookups(tbl, rows)
        starts = tbl.column("char_start").to_numpy()[keep]
        ends = tbl.column("char_end").to_numpy()[keep]
        tokens = tbl.column("tokens").to_numpy()[keep].astype(np.int32)
        del tbl, full
        give_back()
        terms_tbl = self._chunks.scan(space_id, ["chunk_id", "terms"])
        if terms_tbl.column("chunk_id").to_pylist() != chunk_ids:
            # A write landed between the two scans (the single writer runs beside queries):
            # start over rather than pair terms with the wrong rows.
            del terms_tbl
            return self._load(space_id, visible_docs, dim, check, hidden)
        terms = TermSets.from_arrow(terms_tbl.column("terms"), rows)
        del terms_tbl
        give_back()
        return VectorMatrix(
            checked=checked is not None,
            tampered={**{doc_ids_all[i]: t("a stored vector is not a number") for i in np.flatnonzero(broken)},
                      **(checked[2] if checked is not None else {})},
            uncoded=checked[1] if checked is not None else 0,
            damaged=damaged,
            unreadable=[chunk_ids[i] for i in np.flatnonzero(broken)],
            chunk_ids=[chunk_ids[i] for i in rows],
            doc_ids=[doc_ids_all[i] for i in rows],
            matrix=matrix,
            id_index=dict(id_index),
            terms=terms,
            aspects=aspects,
            tokens=tokens,
            stored=rows.astype(np.int64),
            chars=(ends - starts).astype(np.int32),
            df=terms.doc_freq(),
        )
