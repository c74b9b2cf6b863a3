"""Each kept passage carries the rule that kept it (issue 47): derived once in core from what the stages recorded,
read by the Inspector and --json as a typed record."""

from __future__ import annotations

from biny.core.results import Kept
from biny.core.retrieve.candidates import Candidate
from biny.core.retrieve.kept import kept_rule
from biny.core.retrieve.records import (
    JudgeRecord,
    LexicalRecord,
    SpaceGateRecord,
    ThresholdRecord,
    TranslatedRecord,
)
from biny.core.retrieve.trace import Stage, Trace


def _trace(*, space_gate: SpaceGateRecord | None = None, translated: TranslatedRecord | None = None) -> Trace:
    lexical = LexicalRecord(applies=False, known_share=0.0, script_familiarity=1.0, other_script=[],
                            question_language="en", coverage={}, rescue_distance=None, override_inside_by=None)
    record = ThresholdRecord(max_distance=None, reference="everyday", quantile=0.05, cuts={}, encyclopedia_reference=[],
                             lexical=lexical, space_gate=space_gate, translated=translated)
    trace = Trace("q", "q")
    trace.add(Stage("threshold", "", data=record))
    return trace


def _translated(kept: list[str], shares: dict[str, float]) -> TranslatedRecord:
    return TranslatedRecord(words={}, weights={}, found={}, shares=shares, needed=None, needed_near_cut=None,
                            near=None, rescue=None, kept_beyond_cut=kept, pair_cuts={}, kept_within_pair_cut=[])


def _c(distance: float, *, pinned: bool = False, words: float | None = None) -> Candidate:
    return Candidate(0, "c", "d", distance, pinned=pinned, cut=0.15, word_share=words)


def test_each_kept_passage_says_which_rule_kept_it() -> None:
    plain = _trace()
    assert kept_rule(_c(0.10), 0.15, plain) == Kept("within cut")
    assert kept_rule(_c(0.10), 0.15, plain).says() == "within its distance cut"
    words = kept_rule(_c(0.20, words=0.4), 0.15, plain)
    assert words == Kept("words", share=0.4) and "carries 40%" in words.says()  # beyond the cut, for its words
    assert kept_rule(_c(0.30, pinned=True), 0.15, plain).says().startswith("pinned")
    assert kept_rule(_c(0.20), 0.15, plain).says().startswith("added by the second pass")
    # Kept by the question's looked-up words (issue 20), whatever words of its own language it shares.
    translated = _trace(translated=_translated(["c"], {"c": 0.62}))
    assert "renderings of 62%" in kept_rule(_c(0.20, words=0.26), 0.15, translated).says()
    # Within its cut but beyond the space-wide gate, kept for the question's words it carries.
    gate = _trace(space_gate=SpaceGateRecord(gate=0.12, words_needed=0.3, dropped=[], kept_by_words=["c"]))
    assert "space-wide gate (0.120), kept because it carries 45%" in kept_rule(_c(0.13, words=0.45), 0.15,
                                                                                gate).says()
    # Near its cut, kept because the configured model judged that it answers, on either side of the cut.
    judged = _trace()
    judged.add(Stage("judge", "", data=JudgeRecord(band=0.027, model="scripted", judged=["c"], answering=["c"])))
    assert "the model (scripted) judged that it answers" in kept_rule(_c(0.16), 0.15, judged).says()
    assert "within 0.027" in kept_rule(_c(0.14, words=0.1), 0.15, judged).says()
    # More material (R6) is said as such; the record is what --json carries.
    more = _trace()
    more.add(Stage("more_material", ""))
    assert kept_rule(_c(0.10), 0.15, more).rule == "more material"
    assert kept_rule(_c(0.20, words=0.4), 0.15, plain).to_dict()["rule"] == "words"


def test_hits_from_the_engine_carry_their_rule_into_json(tmp_path: object) -> None:
    from pathlib import Path

    from biny.core.config import Settings
    from biny.core.demo import build_demo
    from biny.core.engine import Engine
    from tests.conftest import CountingEmbedder

    with Engine.open(Path(str(tmp_path)) / "home", settings=Settings(), embedder=CountingEmbedder()) as eng:
        assert build_demo(eng).ok
        result = eng.ask("demo", "What is the battery life of TA-210?")  # a part number: pinned (R4)
        assert result.chunks and all(h.kept is not None for h in result.chunks)
        assert any(h.kept is not None and h.kept.rule == "pinned" for h in result.chunks)
        rows = result.to_dict()["chunks"]
        assert all(r["kept"]["rule"] in {"pinned", "within cut", "words", "translated words", "gate words",
                                         "judged", "second pass or nearest"} and r["kept"]["says"] for r in rows)
