"""What checking every row's integrity code costs when a space's matrix is loaded for answering (issue 59).

Run: ``python bench/row_integrity.py [--rows 10000] [--repeat 5]``. Builds a space of ``--rows`` passages straight
through the stores in a temporary folder (no embedding: 384 random unit vectors; ~1 KB of text, ~90 terms, a few
identifiers and aspects per passage, as ingest stores them), then loads its matrix as ``ask`` does with and without
the row-code check (store/rowmac.py) and prints the median of ``--repeat`` loads each, plus the cost of coding the
rows at write time and of ``doctor --deep``'s full read.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

from biny.core.store import rowmac
from biny.core.store.guard import writing
from biny.core.store.lance import ChunkRecord, ChunkStore
from biny.core.store.vectors import RowCheck, VectorCache

DIM = 384
WORDS = [f"word{i}" for i in range(5000)]


def build(store: ChunkStore, space: str, rows: int, key: bytes) -> dict[str, tuple[int, str]]:
    rng = np.random.default_rng(7)
    docs: dict[str, tuple[int, str]] = {}
    per_doc = 20
    with writing():
        store.ensure_table(space, DIM)
        for start in range(0, rows, 2000):
            records = []
            n = min(2000, rows - start)
            for i in range(start, start + n):
                doc = f"doc{i // per_doc:05d}"
                docs[doc] = (docs.get(doc, (0, ""))[0] + 1, "")
                picked = sorted({WORDS[j] for j in rng.integers(0, len(WORDS), 90)})
                text = " ".join(WORDS[j] for j in rng.integers(0, len(WORDS), 140))
                records.append(ChunkRecord(uuid.uuid4().hex, doc, i % per_doc, text, 0, len(text), None, None,
                                           ["Heading"], 180, 175.0, [f"def|id{i}"], picked, ["price"]))
            vecs = rng.standard_normal((n, DIM)).astype(np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            store.add(space, records, vecs, key)
        store.maintenance.compact(space)
    return docs


def timed(fn: object, repeat: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds (CPU: every thread of the process; steadier on a shared machine)."""
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()  # type: ignore[operator]
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    key = rowmac.new_plain_key()
    with tempfile.TemporaryDirectory() as tmp:
        store = ChunkStore(Path(tmp) / "lance")
        space = "bench"
        t0 = time.perf_counter()
        docs = build(store, space, args.rows, key)
        built = time.perf_counter() - t0
        cache = VectorCache(store)
        plain = timed(lambda: cache._load(space, docs, DIM), args.repeat)
        check = RowCheck(key, True)
        checked = timed(lambda: cache._load(space, docs, DIM, check), args.repeat)
        vm = cache._load(space, docs, DIM, check)
        assert vm.checked and not vm.tampered and len(vm) == args.rows
        part = next(store.batches(space, rowmac.columns(), size=args.rows))
        coding = timed(lambda: rowmac.table_macs(key, part), args.repeat)
        deep = timed(lambda: [rowmac.mismatched(key, b, bound=True) for b in store.batches(space, rowmac.columns())],
                     args.repeat)
    print(f"rows: {args.rows} (built in {built:.1f} s); load average {os.getloadavg()[0]:.1f}")
    print("| what | median wall ms | median CPU ms |")
    print("|---|---|---|")
    for what, (w, c) in [("matrix load, no row-code check", plain), ("matrix load, every row's code checked", checked),
                         (f"coding {args.rows} rows at write (table_macs)", coding),
                         ("doctor --deep's read of every row and its code", deep)]:
        print(f"| {what} | {w:.0f} | {c:.0f} |")
    print(f"| added by the check | {checked[0] - plain[0]:.0f} | {checked[1] - plain[1]:.0f} |")


if __name__ == "__main__":
    main()
