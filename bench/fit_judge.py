"""Fit the relevance judge (issue 55; core/retrieve/relevance.py) and measure it against the rules it replaces.

Run after ``eval_retrieval.py`` has built its spaces:

    python bench/fit_judge.py --home bench-data [--out resources/judge/relevance.json]

Training pairs (question, pool passage, does the passage hold the answer?) come only from ../shared/corpora and
from the hand-written natural questions' *dev* split (bench/questions/natural, ``"split": "dev"``):

- XQuAD en / zh questions over their spaces, zh questions over the English articles, CMRC dev questions, and each
  other XQuAD language over its 40-article space — every question ``eval_retrieval.py`` samples for its figures is
  left out (the same seeds draw the same samples here), so the harness's rows are never trained on;
- unanswerable: CMRC *trial* questions (other articles of the same encyclopedia) over the CMRC space and the FastAPI
  docs, XQuAD questions over the laws and the PEPs of the natural set;
- the natural dev questions over their own spaces (built here: ``nat-<corpus>``), answerable and not.

A passage's label: it holds the gold answer (verbatim). Every candidate of the pool is a pair; the judge's features
are read from the trace of a real ``ask`` (the threshold stage records them), so what is fitted is what runs.

The model is a logistic regression (L2, Newton's method in NumPy: no new dependency), on standardised features.
Its operating points are question-level: strictness 0.5 is the probability cut that maximises
(answered right on answerable + refused on unanswerable) / 2 over the training questions; 0 and 1 lie one unit of
log-odds either side. Printed: the weights, held-out AUC over pairs, and per question set the share answered
(the gold in the kept passages) and refused, for the rules, the judge and no threshold.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_retrieval as ev

from biny.core.engine import Engine
from biny.core.errors import SpaceNotFound
from biny.core.retrieve import relevance
from biny.core.retrieve.relevance import FEATURES, RelevanceModel, logit
from biny.core.trace.records import RelevanceRecord

ROOT = Path(__file__).resolve().parents[1]
NATURAL = Path(__file__).resolve().parent / "questions" / "natural"


@dataclass(slots=True)
class Asked:
    """One question over one space: its label function over a passage's text (None: unanswerable)."""

    space: str
    text: str
    holds: Callable[[str], bool] | None
    group: str  # the set it belongs to, for the per-set figures


@dataclass(slots=True)
class Pool:
    asked: Asked
    x: np.ndarray  # (passages, features)
    y: np.ndarray  # 1 = holds the answer
    rules_kept: np.ndarray  # the rules' final context held this passage
    in_top_k: np.ndarray  # within the first K of the pool by distance (no threshold)


@dataclass(frozen=True, slots=True)
class _Holds:
    """Whether a passage's text holds one of the gold answers (verbatim); picklable, so ``--pairs`` can keep it."""

    wanted: tuple[str, ...]

    def __call__(self, text: str) -> bool:
        return any(a in text for a in self.wanted)


def _holds(answers: Iterable[str]) -> Callable[[str], bool]:
    return _Holds(tuple(a for a in answers if a))


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def harness_questions(n: int) -> set[str]:
    """Every question text ``eval_retrieval.py`` measures with (its seeds, its order of draws)."""
    rng = random.Random(20261130)
    xq_en, _ = ev.xquad_questions("en", n, rng)
    xq_zh, _ = ev.xquad_questions("zh", n, rng)
    cmrc = ev.cmrc_questions(n, rng)
    out = {q.text for q in [*xq_en, *xq_zh, *cmrc]}
    out |= {q.text for q in ev.cmrc_questions(n, random.Random(20261201), slice(150, None))}
    out |= {q.text for q in ev.xquad_other_articles(n, random.Random(20261202))}
    out |= {q for q, _ in ev.english_to_chinese_items()[:n]}
    out |= {r["question"] for r in map(json.loads, (ROOT / "bench" / "paraphrases.jsonl").read_text("utf-8")
                                       .splitlines()) if r}
    for lang in ev.LANGUAGES:
        for _, _, qs, _ in ev.language_sets(lang, n):
            out |= {q.text for q in qs}
    return out


def _squad(path: Path, articles: slice = slice(None)) -> list[tuple[str, str, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [(qa["question"], qa["answers"][0]["text"], qa["id"]) for a in data["data"][articles]
            for p in a["paragraphs"] for qa in p["qas"]]


def corpus_training(exclude: set[str], per_set: int, rng: random.Random, languages: tuple[str, ...]) -> list[Asked]:
    x = ev.CORPORA / "xquad"
    en = _squad(x / "xquad.en.json")
    en_by_id = {i: a for _, a, i in en}
    out: list[Asked] = []

    def take(items: list[Asked]) -> list[Asked]:
        items = [a for a in items if a.text.strip() and a.text not in exclude]  # a blank question is no question
        rng.shuffle(items)
        return items[:per_set]

    out += take([Asked("xquad-en", q, _holds([a]), "train: XQuAD en→en") for q, a, _ in en])
    zh = _squad(x / "xquad.zh.json")
    out += take([Asked("xquad-zh", q, _holds([a]), "train: XQuAD zh→zh") for q, a, _ in zh])
    out += take([Asked("xquad-en", q, _holds([en_by_id[i]]), "train: XQuAD zh→en") for q, _, i in zh])
    cmrc = _squad(ev.CORPORA / "cmrc2018" / "cmrc2018_dev.squad.json", slice(0, 150))
    out += take([Asked("cmrc", q, _holds([a]), "train: CMRC zh") for q, a, _ in cmrc])
    trial = _squad(ev.CORPORA / "cmrc2018" / "cmrc2018_trial.squad.json")
    out += take([Asked("cmrc", q, None, "train: CMRC trial → cmrc (unanswerable)") for q, _, _ in trial])
    out += take([Asked("nat-cn_laws", q, None, "train: XQuAD en → laws (unanswerable)") for q, _, _ in en])
    out += take([Asked("nat-peps", q, None, "train: XQuAD zh → PEPs (unanswerable)") for q, _, _ in zh])
    out += take([Asked("nat-fastapi", q, None, "train: CMRC trial → FastAPI (unanswerable)") for q, _, _ in trial])
    for lang in languages:
        own = _squad(x / f"xquad.{lang}.json", slice(0, 40))
        out += take([Asked(f"xquad-{lang}-40", q, _holds([a]), f"train: XQuAD {lang}→{lang}")
                     for q, a, _ in own])[: per_set // 2]
    return out


def natural(split: str) -> list[Asked]:
    """The hand-written natural questions of one split, over their ``nat-<corpus>`` spaces."""
    out = []
    for path in sorted(NATURAL.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            if r["split"] != split:
                continue
            answers = [r["answer"], *[a for a in r.get("answer_any", []) if len(a) >= 4]] if r["answerable"] else []
            out.append(Asked(f"nat-{r['corpus']}", r["question"], _holds(answers) if answers else None,
                             f"natural {split}: {r['corpus']} " + ("answerable" if answers else "unanswerable")))
    return out


def build_natural(eng: Engine) -> None:
    spec = json.loads((NATURAL / "corpora.json").read_text(encoding="utf-8"))
    for corpus, s in spec.items():
        name = f"nat-{corpus}"
        try:
            eng.space(name)
        except SpaceNotFound:
            eng.create_space(name, encrypted=False)
        t0 = time.time()
        report = eng.ingest(name, [ROOT / s["root"] / f for f in s["files"]])
        if report.by("ingested"):
            print(f"built {name}: {len(report.by('ingested'))} docs in {time.time() - t0:.0f} s", file=sys.stderr)


class Texts:
    """chunk id → text, per space (the bench spaces are unencrypted)."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng
        self.by_space: dict[str, dict[str, str]] = {}

    def of(self, space: str) -> dict[str, str]:
        if space not in self.by_space:
            self.by_space[space] = {c.chunk_id: c.text for d in self.eng.documents(space, include_archived=False)
                                    for c in self.eng.document_chunks(space, d.doc_id)}
        return self.by_space[space]


def collect(eng: Engine, asked: list[Asked], texts: Texts, k: int) -> list[Pool]:
    params = eng.retrieval.params(k)
    pools = []
    t0 = time.time()
    for n, a in enumerate(asked):
        if n and n % 200 == 0:
            print(f"  asked {n} of {len(asked)} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
        r = eng.ask(a.space, a.text, params=params)
        rec = r.trace.record(RelevanceRecord)
        if rec is None or not rec.verdicts:
            continue
        ids = list(rec.verdicts)
        pool_stage = r.trace.stage("pool")
        order = list(pool_stage.kept) if pool_stage else ids
        top = set(order[:k])
        x = np.array([[rec.verdicts[c].features[f] for f in FEATURES] for c in ids])
        space_texts = texts.of(a.space)
        y = np.array([1.0 if a.holds is not None and a.holds(space_texts.get(c, "")) else 0.0 for c in ids])
        kept = {h.chunk_id for h in r.chunks}
        pools.append(Pool(a, x, y, np.array([c in kept for c in ids]), np.array([c in top for c in ids])))
    return pools


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, iters: int = 50) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                                float]:
    """Logistic regression by Newton's method on standardised features: (mean, scale, coef, intercept)."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    # Classes weighed equally: a pool holds far more passages that do not answer than ones that do.
    w_pos = 0.5 / max(y.mean(), 1e-9)
    w_neg = 0.5 / max(1 - y.mean(), 1e-9)
    weight = np.where(y > 0, w_pos, w_neg)
    beta = np.zeros(z.shape[1])
    reg = np.full(z.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(z @ beta)))
        grad = z.T @ (weight * (p - y)) + reg * beta
        hess = (z * (weight * p * (1 - p))[:, None]).T @ z + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return mean, scale, beta[:-1], float(beta[-1])


def auc(scores: np.ndarray, y: np.ndarray) -> float:
    pos, neg = scores[y > 0], scores[y <= 0]
    if not len(pos) or not len(neg):
        return float("nan")
    order = np.argsort(np.concatenate([pos, neg]))
    ranks = np.empty(len(order))
    ranks[order] = np.arange(1, len(order) + 1)
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def question_figures(pools: list[Pool], keep: Callable[[Pool], np.ndarray]) -> tuple[float, float, int, int]:
    """(answered right among answerable, refused among unanswerable, n answerable, n unanswerable)."""
    right = refused = n_ans = n_un = 0
    for p in pools:
        kept = keep(p)
        if p.asked.holds is None:
            n_un += 1
            refused += not kept.any()
        else:
            n_ans += 1
            right += bool((kept & (p.y > 0)).any())
    return right / max(n_ans, 1), refused / max(n_un, 1), n_ans, n_un


def operating_point(pools: list[Pool], model: RelevanceModel) -> float:
    """The probability cut that maximises the mean over the training *sets* of each set's figure (answered right
    for an answerable set, refused for an unanswerable one): every set weighs the same, so the many corpus-style
    questions do not outvote the natural ones."""
    groups: dict[str, list[Pool]] = {}
    for p in pools:
        groups.setdefault(p.asked.group, []).append(p)
    scores = {id(p): model.score(p.x) for p in pools}
    best, best_p = -1.0, 0.5
    for cut in np.linspace(0.05, 0.95, 91):
        figures = []
        for ps in groups.values():
            right, refused, n_ans, _ = question_figures(ps, lambda p, c=cut: scores[id(p)] >= c)
            figures.append(right if n_ans else refused)
        if float(np.mean(figures)) > best:
            best, best_p = float(np.mean(figures)), float(cut)
    return best_p


def report(label: str, pools: list[Pool], model: RelevanceModel, strictness: float, k: int) -> None:
    groups: dict[str, list[Pool]] = {}
    for p in pools:
        groups.setdefault(p.asked.group, []).append(p)
    cut = model.threshold(strictness)
    print(f"\n{label} (judge at strictness {strictness:g}: p ≥ {cut:.3f}; figures per question)")
    print(f"{'set':<52}{'n':>5}{'rules':>8}{'judge':>8}{'no cut':>8}")
    for g, ps in sorted(groups.items()):
        unans = ps[0].asked.holds is None
        pick = 1 if unans else 0
        rules = question_figures(ps, lambda p: p.rules_kept)[pick]
        judged = question_figures(ps, lambda p: (model.score(p.x) >= cut) & rank_k(p, model, k))[pick]
        none = question_figures(ps, lambda p: p.in_top_k)[pick]
        kind = "refused" if unans else "answered"
        print(f"{g + ' (' + kind + ')':<52}{len(ps):>5}{rules:>8.3f}{judged:>8.3f}{none:>8.3f}")


def rank_k(p: Pool, model: RelevanceModel, k: int) -> np.ndarray:
    """The judge's kept passages that would reach the context: its K best-scored."""
    s = model.score(p.x)
    top = np.argsort(-s)[:k]
    mask = np.zeros(len(s), dtype=bool)
    mask[top] = True
    return mask


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--n", type=int, default=200, help="the harness's questions per set (left out of training)")
    ap.add_argument("--per-set", type=int, default=250, help="training questions per corpus set")
    ap.add_argument("--out", type=Path, default=None, help="write the fitted model here (resources/judge/…)")
    ap.add_argument("--version", default="relevance-1")
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--pairs", type=Path, default=None,
                    help="keep the collected pairs here and read them back on the next run (a refit without asking)")
    ap.add_argument("--languages", default="de,ru", help="XQuAD languages beside en/zh to train on (their spaces)")
    args = ap.parse_args()
    rng = random.Random(20261205)
    # Features are recorded by the threshold stage only where a model is loaded: a neutral one (every weight 0)
    # while collecting, so the features read do not depend on any earlier fit.
    relevance.BUNDLED.put(RelevanceModel("neutral", FEATURES, np.zeros(len(FEATURES)), np.ones(len(FEATURES)),
                                         np.zeros(len(FEATURES)), 0.0, {"0.5": 0.5}))
    languages = tuple(x for x in args.languages.split(",") if x)
    with Engine.open(args.home, embedder=ev.MemoEmbedder()) as eng, tempfile.TemporaryDirectory() as tmp:
        ev.build_spaces(eng, Path(tmp), {"xquad-en", "xquad-zh", "cmrc", *(f"xquad-{x}-40" for x in languages)})
        build_natural(eng)
        # The judge reads sentence vectors stored at ingest (an older space's are made only when the judge decides):
        # stored for every space first, so the features fitted are those a filled space gives at run time.
        for space in {a.space for a in corpus_training(set(), 1, random.Random(0), languages) + natural("dev")}:
            eng.reembed(space)
        texts = Texts(eng)
        exclude = harness_questions(args.n)
        train_q = corpus_training(exclude, args.per_set, rng, languages) + natural("dev")
        t0 = time.time()
        if args.pairs is not None and args.pairs.exists():
            train, test = pickle.loads(args.pairs.read_bytes())  # the same asks, read again: only the fit changes
        else:
            train = collect(eng, train_q, texts, args.k)
            test = collect(eng, natural("test"), texts, args.k)
            if args.pairs is not None:
                args.pairs.write_bytes(pickle.dumps((train, test)))
        print(f"collected {len(train)} training and {len(test)} natural test questions in {time.time() - t0:.0f} s",
              file=sys.stderr)
        # Pairs of one question stay on one side: the held-out AUC is over questions never fitted.
        held = [p for p in train if int(_key(p.asked.text), 16) % 5 == 0]
        fitted = [p for p in train if int(_key(p.asked.text), 16) % 5 != 0]
        x = np.vstack([p.x for p in fitted])
        y = np.concatenate([p.y for p in fitted])
        mean, scale, coef, intercept = fit(x, y, args.l2)
        model = RelevanceModel(args.version, FEATURES, mean, scale, coef, intercept, {"0.5": 0.5},
                               "XQuAD/CMRC outside the harness's samples, CMRC trial, natural dev (bench/fit_judge.py)")
        mid = operating_point(fitted, model)
        model = replace(model, thresholds={"0": 1 / (1 + np.exp(-(logit(mid) - 1))), "0.5": mid,
                                           "1": 1 / (1 + np.exp(-(logit(mid) + 1)))})
        print("weights (per standardised feature):")
        for f, c, m, s in zip(FEATURES, coef, mean, scale, strict=True):
            print(f"  {f:<16}{c:+.3f}   (mean {m:.3f}, sd {s:.3f})")
        print(f"  intercept {intercept:+.3f}; strictness 0.5 → p ≥ {mid:.3f}")
        hx = np.vstack([p.x for p in held])
        hy = np.concatenate([p.y for p in held])
        print(f"pairs: {len(y)} fitted ({int(y.sum())} answering), {len(hy)} held out; held-out AUC "
              f"{auc(model.score(hx), hy):.3f}; word share alone {auc(hx[:, FEATURES.index('words')], hy):.3f}; "
              f"inside cut alone {auc(hx[:, FEATURES.index('inside_cut')], hy):.3f}")
        report("held-out training questions", held, model, 0.5, args.k)
        report("natural questions, test split (never fitted)", test, model, 0.5, args.k)
        if args.out is not None:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(model.to_dict(), indent=1) + "\n", encoding="utf-8")
            print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
