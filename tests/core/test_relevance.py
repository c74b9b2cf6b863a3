"""The relevance judge (issue 55): one fitted model over explicit features, its reasons shown.

The model's arithmetic is checked on a hand-made model; the shipped model is checked for what the issue asks of
it — every feature can change a decision, the operating point is one setting — and the pipeline for what a user
sees: every passage's score and contributions in ``ask --json``, and on a refusal what came closest.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from biny.core.cli import main
from biny.core.embed.sentences import placed, placed_all, placed_similarities
from biny.core.engine import Engine
from biny.core.retrieve.baseline import Distribution
from biny.core.retrieve.lexical import LexicalEvidence
from biny.core.retrieve.relevance import FEATURES, Evidence, RelevanceModel, bundled_model, logit, nearest_sentences
from biny.core.text.question import Question

N = len(FEATURES)


def _model(coef: list[float], intercept: float = 0.0) -> RelevanceModel:
    return RelevanceModel("test", FEATURES, np.zeros(N), np.ones(N), np.array(coef, dtype=np.float64), intercept,
                          {"0": 0.3, "0.5": 0.5, "1": 0.7})


def test_each_passage_is_read_by_its_own_sentences_alone_and_in_pairs() -> None:
    """The pool's sentences are read in one matrix (issue 57); each passage's nearest reading must be its own: a
    sentence alone, or one read after the one before it within the passage, never a pair across two passages."""
    rng = np.random.default_rng(7)

    def unit(n: int) -> np.ndarray:
        v = rng.normal(size=(n, 16)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    q = unit(1)[0]
    aside = unit(2)
    aside = aside - np.outer(aside @ q, q)  # two sentences unrelated to the question (orthogonal to it)
    aside = (aside / np.linalg.norm(aside, axis=1, keepdims=True)).astype(np.float32)
    # The third passage's first sentence is the question itself: read after the second passage's last sentence it
    # would come near (0.45), and that pair across the boundary must not count for the second passage.
    sentences: list[np.ndarray | None] = [unit(3), aside, np.vstack([q[None, :], unit(2)]), None, unit(1), unit(5)]
    whole = np.full(len(sentences), 0.9)
    ev = Evidence(Question.parse("q"), Distribution.of(np.linspace(0.5, 1.0, 50)), 0.1, LexicalEvidence({}, 1.0),
                  True, [None] * len(sentences), {}, q, sentences)
    got = nearest_sentences(ev, whole)
    for i, v in enumerate(sentences):
        if v is None or len(v) < 2:
            assert got[i] == whole[i]  # nothing finer to read
            continue
        readings = [float(s @ q) for s in v] + [float(placed(v[j - 1], v[j]) @ q) for j in range(1, len(v))]
        assert got[i] == pytest.approx(min(whole[i], 1.0 - max(readings)), abs=1e-5)
    assert float(placed(aside[1], q) @ q) > 0.5  # the pair across the boundary is near …
    assert got[1] == pytest.approx(0.9)  # … yet the second passage, whose own sentences are not, keeps its distance
    assert got[2] == pytest.approx(0.0, abs=1e-5)
    rows = np.vstack([v for v in sentences if v is not None]) * np.float32(0.9)  # read by norm, not assumed unit
    assert np.allclose(placed_similarities(rows, q), placed_all(rows) @ q, atol=1e-6)
    assert len(placed_similarities(rows[:1], q)) == 0


def test_contributions_add_up_to_the_score_and_strictness_moves_one_cut() -> None:
    m = _model([0.1 * (i + 1) for i in range(N)], intercept=-2.0)  # a score away from 0 and 1, any N
    x = np.linspace(-1, 1, N)
    assert math.isclose(logit(float(m.score(x))), float(m.contributions(x).sum()) - 2.0, rel_tol=1e-9)
    assert m.threshold(0.0) == 0.3 and m.threshold(1.0) == 0.7 and math.isclose(m.threshold(0.25), 0.4)
    assert RelevanceModel.from_dict(m.to_dict()).to_dict() == m.to_dict()
    with pytest.raises(ValueError, match="other features"):
        RelevanceModel.from_dict({**m.to_dict(), "features": ["distance"]})


def test_the_shipped_model_lets_every_feature_change_a_decision() -> None:
    """For each feature, a passage at the operating point flips between kept and dropped when that feature alone
    moves by two of its standard deviations (the direction its fitted weight says)."""
    m = bundled_model()
    assert m is not None, "resources/judge/relevance.json ships with the package (bench/fit_judge.py writes it)"
    cut = m.threshold(0.5)
    for i, name in enumerate(FEATURES):
        assert m.coef[i] != 0, f"{name} has no weight: it can never change a decision"
        # A passage whose other features sit at their means, placed just below the cut by this feature alone.
        x = m.mean.copy()
        z_needed = logit(cut) - m.intercept
        x[i] = m.mean[i] + (z_needed - 0.25) / m.coef[i] * m.scale[i]
        below = float(m.score(x))
        x[i] += 2 * m.scale[i] * np.sign(m.coef[i]) * max(1.0, 0.5 / abs(m.coef[i]))
        assert below < cut <= float(m.score(x)), name


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("judge-demo")
    assert main(["--home", str(home), "demo"]) == 0
    return home


def test_ask_json_carries_each_passages_score_and_contributions(demo: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["--home", str(demo), "ask", "How much does the Team plan cost per month?", "--space", "demo",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    judged = [c["judge"] for c in out["chunks"] if "judge" in c]
    assert judged, "every passage the judge read carries its verdict"
    assert set(judged[0]["contributions"]) == set(FEATURES) and 0.0 <= judged[0]["score"] <= 1.0
    stage = next(s for s in out["trace"]["stages"] if s["name"] == "relevance")
    verdicts = stage["data"]["verdicts"]
    assert len(verdicts) >= len(out["chunks"]) and all("features" in v for v in verdicts.values())


def test_a_refusal_names_what_came_closest_and_is_not_an_answer(demo: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["--home", str(demo), "ask", "What is the capital of Peru?", "--space", "demo", "--json",
                 "--answer"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["chunks"] == [] and out["answer"]["mode"] == "none"
    closest = out["closest"]
    assert closest["document"] and closest["distance"] > 0 and closest["chunk_id"]
    assert closest["beyond_cut"] is None or isinstance(closest["beyond_cut"], float)
    assert main(["--home", str(demo), "ask", "What is the capital of Peru?", "--space", "demo", "--answer"]) == 0
    plain = capsys.readouterr().out
    assert "closest, not an answer" in plain and closest["document"] in plain


def test_when_the_judge_decides_its_verdicts_keep_and_drop(demo: Path) -> None:
    with Engine.open(demo) as eng:
        params = replace(eng.retrieval.params(5), relevance_decides=True)
        r = eng.ask("demo", "How much does the Team plan cost per month?", params=params)
        assert r.chunks and all(h.kept is not None for h in r.chunks)
        judged = [h for h in r.chunks if h.kept is not None and h.kept.rule == "relevance judge"]
        assert judged and all(h.relevance is not None and h.relevance >= 0.0 for h in judged)
        stage = r.trace.stage("threshold")
        assert stage is not None and all("relevance judge" in str(d.reason) for d in stage.dropped)
        # The strictest operating point keeps no more than the most lenient one.
        strict = eng.ask("demo", "How much does the Team plan cost per month?",
                         params=replace(params, strictness=1.0))
        lenient = eng.ask("demo", "How much does the Team plan cost per month?",
                          params=replace(params, strictness=0.0))
        assert len(strict.chunks) <= len(lenient.chunks)
