"""The reference questions' vectors shipped for the default embedder (core/retrieve/baseline.py): a fresh data
folder reads them instead of embedding 375 questions, so they must be what the model gives today."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from biny.core.config import EmbeddingSettings
from biny.core.embed.factory import make_embedder
from biny.core.retrieve import baseline


@pytest.fixture(scope="module")
def embedder():  # type: ignore[no-untyped-def]
    return make_embedder(EmbeddingSettings().model)


@pytest.mark.parametrize("name", ["questions", "knowledge"])
def test_shipped_vectors_are_the_default_models_own(embedder, name: str) -> None:  # type: ignore[no-untyped-def]
    questions = baseline.load_questions(name)
    key = baseline._vectors_key(embedder, questions)
    shipped = baseline._bundled(key)
    assert shipped is not None, "stale or missing: run `python packaging/question_vectors.py`"
    fresh = embedder.embed_queries([q for _, q in questions])
    assert shipped.shape == fresh.shape
    # Same model and text: equal up to float noise between CPUs (each row's cosine with itself).
    cos = np.sum(shipped * fresh, axis=1) / (np.linalg.norm(shipped, axis=1) * np.linalg.norm(fresh, axis=1))
    assert float(cos.min()) > 0.999


def test_a_fresh_folder_embeds_no_reference_question(embedder, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    baseline._QUESTION_VECTORS.clear()
    monkeypatch.setattr(embedder, "embed_queries", lambda texts: pytest.fail(f"embedded {len(texts)} questions"))
    scripts, vecs = baseline.question_vectors(embedder, tmp_path / "cache")
    assert len(scripts) == len(vecs) == len(baseline.load_questions())
    assert not (tmp_path / "cache").exists()  # nothing written to the data folder either
    baseline._QUESTION_VECTORS.clear()


def test_another_model_or_set_is_embedded_and_kept_in_the_folder(embedder, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    baseline._QUESTION_VECTORS.clear()
    monkeypatch.setattr(type(embedder), "model_id", property(lambda self: "another-model"), raising=False)
    calls: list[int] = []
    real = embedder.embed_queries

    def counting(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return real(texts)

    monkeypatch.setattr(embedder, "embed_queries", counting)
    _, vecs = baseline.question_vectors(embedder, tmp_path / "cache")
    assert len(vecs) == len(baseline.load_questions())
    assert calls == [len(baseline.load_questions())]
    assert len(list((tmp_path / "cache").glob("baseline-questions-*.npy"))) == 1
    baseline._QUESTION_VECTORS.clear()
