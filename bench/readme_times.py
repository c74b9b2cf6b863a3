"""The times the README quotes (issue 58), measured here: ``biny demo`` on a fresh data folder, and the
goodbooks ingest's rows/s against the embedder's own tokens/s on the same rows.

Run: ``python bench/readme_times.py [--rows 300] [--runs 2]``; ``bench/startup.py`` gives ``biny ask``'s start-up.
Each ``biny`` is a fresh process on a fresh temporary data folder. The rows are the first ``--rows`` of
``../shared/corpora/goodbooks10k/books.csv`` (a CSV of that many rows, written to a temporary folder); the
embedder's figure embeds exactly the inputs that ingest embedded (the rows' passages with their contextual
header), in the configured batch size, in one process with the model already loaded. The machine's load average
is printed first: take the figures on an idle machine.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOKS = ROOT.parent / "shared" / "corpora" / "goodbooks10k" / "books.csv"


def _biny(home: Path, *args: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "biny.core.cli", "--home", str(home), *args], capture_output=True,
                         text=True, check=True, env={**os.environ, "BINY_PASSPHRASE": "bench passphrase, not secret"})
    return time.perf_counter() - t0, out.stdout


def _rows(dest: Path, n: int) -> Path:
    with BOOKS.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        head = next(reader)
        rows = [r for _, r in zip(range(n), reader, strict=False)]
    with dest.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([head, *rows])
    return dest


def _embedder_rate(home: Path) -> tuple[float, float, int]:
    """(passages/s, tokens/s, passages) of the model alone on the inputs the ingest embedded."""
    from biny.core.chunking.header import embedding_input
    from biny.core.engine import Engine

    with Engine.open(home) as eng:
        inputs = []
        for doc in eng.documents("books"):
            for rec in eng.document_chunks("books", doc.doc_id):
                inputs.append(embedding_input(doc.title, rec.heading_path, rec.text))
        emb, batch = eng.models.embedder, max(1, eng.settings.embedding.batch_size)
        tokens = sum(emb.token_count(x) for x in inputs)
        emb.embed_passages(inputs[:batch])  # warm
        t0 = time.perf_counter()
        for i in range(0, len(inputs), batch):
            emb.embed_passages(inputs[i : i + batch])
        seconds = time.perf_counter() - t0
    return len(inputs) / seconds, tokens / seconds, len(inputs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=300)
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        demo = []
        for n in range(args.runs):
            seconds, _ = _biny(Path(tmp) / f"demo{n}", "demo")
            demo.append(seconds)
        print(f"biny demo, fresh data folder        p50 {statistics.median(demo):6.1f} s  (runs: "
              + ", ".join(f"{s:.1f}" for s in demo) + ")")

        home = Path(tmp) / "books"
        table = _rows(Path(tmp) / "books.csv", args.rows)
        _biny(home, "space", "create", "books", "--unencrypted")
        seconds, out = _biny(home, "ingest", str(table), "--space", "books", "--json")
        report = json.loads(out)
        timing = report["files"][0]["timings"]
        print(f"goodbooks ingest, {args.rows} rows       {seconds:6.1f} s in all, {args.rows / seconds:5.2f} rows/s "
              f"(ingest's own {report['seconds']:.1f} s: "
              + ", ".join(f"{k} {v:.1f}" for k, v in sorted(timing.items(), key=lambda kv: -kv[1])) + ")")
        per_s, tok_s, n = _embedder_rate(home)
        print(f"embedder alone on those {n} passages  {per_s:5.2f} passages/s, {tok_s:6.0f} tokens/s")


if __name__ == "__main__":
    main()
