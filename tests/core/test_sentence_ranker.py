"""The extracted answer's sentence ranker (issue 55, core/answer/ranking.py): it orders the sentences that may answer;
which may answer stays the evidence's."""

from __future__ import annotations

import math

import pytest

from biny.core.answer import extractive, ranking
from biny.core.text.question import Question

PASSAGE = ("The hub stores readings for seven days when the internet connection drops. "
           "The hub's firmware updates itself at night. "
           "A hub manages up to 64 sensors.")


def _only(feature: str, weight: float) -> ranking.Ranker:
    """A ranker that reads one feature: each weighs nothing else."""
    coef = tuple(weight if f == feature else 0.0 for f in ranking.FEATURES)
    n = len(ranking.FEATURES)
    return ranking.Ranker("test", (0.0,) * n, (1.0,) * n, coef, 0.0)


def _first(question: str, monkeypatch: pytest.MonkeyPatch, model: ranking.Ranker | None) -> str:
    monkeypatch.setattr(ranking, "bundled", lambda: model)
    best = extractive.choose(Question.parse(question), [PASSAGE], max_sentences=1)
    return best[0].text if best else ""


def test_the_shipped_ranker_reads_every_feature_with_a_finite_weight() -> None:
    model = ranking.bundled()
    if model is None:
        pytest.skip("no sentence ranker ships: the evidence's own sum orders")
    assert len(model.coef) == len(ranking.FEATURES) and all(math.isfinite(w) for w in model.coef)
    assert model.version and model.trained_on


def test_the_ranker_decides_which_sentence_leads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every sentence names the hub; which one leads is the ranker's: by its place in the passage one way, the
    other way round, or by the question's other words."""
    q = "How long does the hub keep readings?"
    assert _first(q, monkeypatch, _only("position", 1.0)).startswith("The hub stores readings")
    assert _first(q, monkeypatch, _only("position", -1.0)).startswith("A hub manages")
    assert _first("How many sensors does a hub manage?", monkeypatch, _only("words", 1.0)).startswith("A hub manages")


def test_without_a_ranker_the_evidence_orders_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _first("How many sensors can one hub manage?", monkeypatch, None).startswith("A hub manages")


def test_a_sentence_without_evidence_never_answers_however_the_ranker_weighs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ranker orders; it does not make an answer of a sentence that holds nothing asked (issue 55: an answer
    must answer)."""
    text = "Der Hub speichert Messwerte.\n\nCompletely unrelated filler about gardening tools and soil."
    monkeypatch.setattr(ranking, "bundled", lambda: _only("length", 5.0))
    best = extractive.choose(Question.parse("How long does the hub keep readings?"), [text], max_sentences=3)
    assert all("gardening" not in c.text for c in best)


def test_a_ranker_fitted_on_other_features_is_refused() -> None:
    with pytest.raises(ValueError, match="other features"):
        ranking.Ranker.from_dict({"version": "x", "features": ["words"], "mean": [0], "scale": [1], "coef": [1],
                                  "intercept": 0})
