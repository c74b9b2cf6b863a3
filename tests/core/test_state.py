"""The process's shared state sits in one registry with a lifetime per entry (issue 56, core/state.py)."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

import biny.core.analysis.model_baseline  # noqa: F401 — registers its bands
from biny.core import state
from biny.core.crypto.blind import BlindIndex, _blind
from biny.core.engine import Engine
from biny.core.retrieve import baseline
from biny.core.store.guard import write_stamp
from biny.core.text.terms import stem_of


def test_every_process_cache_is_registered_with_its_lifetime() -> None:
    held = state.entries()
    assert held["biny.core.retrieve.baseline._QUESTION_VECTORS"] == state.PROCESS
    assert held["biny.core.analysis.model_baseline._BANDS"] == state.PROCESS
    # What a session's keys made: the blinded keys, and the stems of the terms they blind.
    assert held["biny.core.crypto.blind._blind"] == state.SESSION
    assert held["biny.core.text.terms.stem_of"] == state.SESSION
    # The fitted models shipped in resources/judge.
    assert held["biny.core.retrieve.relevance.BUNDLED"] == state.PROCESS
    assert held["biny.core.answer.ranking.BUNDLED"] == state.PROCESS


def test_a_bundled_model_is_read_once_replaced_by_put_and_read_again_after_reset() -> None:
    from biny.core.answer import ranking

    shipped = ranking.bundled()
    assert shipped is not None and shipped.version  # resources/judge/sentences.json ships
    assert ranking.bundled() is shipped  # read once per process
    ranking.BUNDLED.put(None)  # a fitting script's candidate (here: none, the evidence's own sum)
    assert ranking.bundled() is None
    state.reset()
    again = ranking.bundled()
    assert again is not None and again is not shipped and again == shipped


def test_a_session_forget_keeps_process_entries_and_reset_drops_everything() -> None:
    BlindIndex(b"k" * 32)("pump")
    stem_of("pumps")
    baseline._QUESTION_VECTORS["test"] = np.zeros((1, 4), np.float32)
    before = write_stamp()
    state.forget(state.SESSION)
    assert _blind.cache_info().currsize == 0 and stem_of.cache_info().currsize == 0
    assert "test" in baseline._QUESTION_VECTORS  # shared by every engine of the process: kept
    BlindIndex(b"k" * 32)("pump")
    state.reset()
    assert _blind.cache_info().currsize == 0 and "test" not in baseline._QUESTION_VECTORS
    assert write_stamp() > before  # every read cache tagged before is retired


def test_closing_an_engine_ends_its_session_memos(tmp_path: Path) -> None:
    with Engine.open(tmp_path / "home"):
        BlindIndex(b"k" * 32)("pump")
        assert _blind.cache_info().currsize > 0
    assert _blind.cache_info().currsize == 0


def test_a_shipped_model_this_code_cannot_read_is_set_aside_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    """A model fitted on other features than this code reads (a damaged or mixed install) decides nothing: the
    evidence's own sums decide, and the log says to reinstall."""
    from biny.core.answer.ranking import Ranker

    def other_features(d: dict[str, object]) -> Ranker:
        return Ranker.from_dict({**d, "features": ["words", "length"]})

    with caplog.at_level(logging.WARNING, logger="biny.core.state"):
        assert state.fitted("sentences.json", other_features) is None
    assert "reinstall" in caplog.text and "sentences.json" in caplog.text
    assert state.fitted("no-such-model.json", other_features) is None  # none shipped: quietly none
