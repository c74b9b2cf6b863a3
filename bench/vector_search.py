"""Store-level vector search at 100k and 1M vectors: latency and recall@10 against exact.

Run: ``python bench/vector_search.py [--sizes 100000,1000000] [--queries 50]``.
Synthetic vectors: a mixture of Gaussian clusters on the unit sphere (embeddings
are clustered; uniform random vectors are the worst case for every ANN index).
Compares the in-memory exact scan biny uses (numpy), LanceDB flat search, LanceDB
IVF_HNSW_SQ with refine, and FAISS HNSW (if faiss-cpu is installed: pip install
'biny[bench]').
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time

import numpy as np


def clustered(n: int, dim: int, rng: np.random.Generator, clusters: int = 2000) -> np.ndarray:
    centres = rng.standard_normal((clusters, dim)).astype(np.float32)
    labels = rng.integers(0, clusters, n)
    x = centres[labels] + 0.35 * rng.standard_normal((n, dim)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x


def exact_top(matrix: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    sims = matrix @ q
    idx = np.argpartition(-sims, k)[:k]
    return idx[np.argsort(-sims[idx])]


def timed(fn, queries):  # type: ignore[no-untyped-def]
    out, ms = [], []
    for q in queries:
        t0 = time.perf_counter()
        out.append(fn(q))
        ms.append((time.perf_counter() - t0) * 1000)
    return out, statistics.median(ms), sorted(ms)[int(0.95 * (len(ms) - 1))]


def recall(found: list[np.ndarray], truth: list[np.ndarray], k: int) -> float:
    hits = [len(set(map(int, f[:k])) & set(map(int, t[:k]))) / k for f, t in zip(found, truth, strict=True)]
    return float(np.mean(hits))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--dim", type=int, default=384)
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    k = 10
    print(f"{'n':>9} {'method':<34}{'p50 ms':>9}{'p95 ms':>9}{'recall@10':>11}{'build s':>9}")
    for n in map(int, args.sizes.split(",")):
        data = clustered(n, args.dim, rng)
        queries = list(clustered(args.queries, args.dim, rng))
        truth, p50, p95 = timed(lambda q, d=data: exact_top(d, q, k), queries)
        print(f"{n:>9} {'numpy exact (in-memory float32)':<34}{p50:>9.1f}{p95:>9.1f}{1.0:>11.3f}{0:>9}", flush=True)

        import lancedb
        import pyarrow as pa

        with tempfile.TemporaryDirectory() as tmp:
            db = lancedb.connect(tmp)
            t0 = time.perf_counter()
            flat = pa.FixedSizeListArray.from_arrays(pa.array(data.reshape(-1)), args.dim)
            tbl = db.create_table("v", pa.table({"id": pa.array(np.arange(n)), "vector": flat}))
            load = time.perf_counter() - t0

            def lance(q: np.ndarray, refine: int | None = None, nprobes: int | None = None,
                      tbl: lancedb.table.Table = tbl) -> np.ndarray:
                s = tbl.search(q).distance_type("cosine").limit(k).select(["id", "_distance"])
                if nprobes:
                    s = s.nprobes(nprobes)
                if refine:
                    s = s.refine_factor(refine)
                return np.asarray(s.to_arrow().column("id").to_pylist())

            found, p50, p95 = timed(lance, queries[:10])
            print(f"{n:>9} {'LanceDB flat':<34}{p50:>9.1f}{p95:>9.1f}{recall(found, truth[:10], k):>11.3f}"
                  f"{load:>9.1f}", flush=True)
            from lancedb.index import HnswSq

            t0 = time.perf_counter()
            parts = max(8, int(np.sqrt(n) / 4))
            tbl.create_index("vector", config=HnswSq(distance_type="cosine", num_partitions=parts))
            build = time.perf_counter() - t0
            for nprobes, refine in ((8, None), (32, 5)):
                found, p50, p95 = timed(lambda q, np_=nprobes, rf=refine: lance(q, rf, np_), queries)
                label = f"LanceDB IVF_HNSW_SQ p={parts} np={nprobes}" + (f" rf={refine}" if refine else "")
                print(f"{n:>9} {label:<34}{p50:>9.1f}{p95:>9.1f}{recall(found, truth, k):>11.3f}{build:>9.1f}",
                      flush=True)
        try:
            import faiss
        except ImportError:
            print(f"{n:>9} {'faiss HNSW':<34}   (faiss-cpu not installed)")
            continue
        t0 = time.perf_counter()
        index = faiss.IndexHNSWFlat(args.dim, 32, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 80
        index.add(data)
        build = time.perf_counter() - t0
        for ef in (64, 128):
            index.hnsw.efSearch = ef
            found, p50, p95 = timed(lambda q, ix=index: ix.search(q.reshape(1, -1), k)[1][0], queries)
            print(f"{n:>9} {f'faiss HNSW M=32 ef={ef}':<34}{p50:>9.1f}{p95:>9.1f}{recall(found, truth, k):>11.3f}"
                  f"{build:>9.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
