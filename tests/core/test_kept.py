"""Each kept passage carries the rule that kept it (issue 47): derived once in core from what the stages recorded,
read by the Inspector and --json as a typed record."""

from __future__ import annotations

from dataclasses import replace

from biny.core.results import Kept
from biny.core.retrieve.candidates import Candidate
from biny.core.retrieve.kept import kept_rule


def _c(distance: float, *, pinned: bool = False, words: float | None = None, said: Kept | None = None) -> Candidate:
    return Candidate(0, "c", "d", distance, pinned=pinned, cut=0.15, word_share=words, kept_as=said)


def test_each_kept_passage_says_which_rule_kept_it() -> None:
    """The rule is read from the candidate, as the stage that kept it said it (issue 56: never from the trace)."""
    assert kept_rule(_c(0.10), 0.15) == Kept("within cut")
    assert kept_rule(_c(0.10), 0.15).says() == "within its distance cut"
    words = kept_rule(_c(0.20, words=0.4), 0.15)
    assert words == Kept("words", share=0.4) and "carries 40%" in words.says()  # beyond the cut, for its words
    assert kept_rule(_c(0.30, pinned=True), 0.15).says().startswith("pinned")
    assert kept_rule(_c(0.20), 0.15).says().startswith("added by the second pass")
    # Kept by the question's looked-up words (issue 20), whatever words of its own language it shares.
    translated = Kept("translated words", share=0.62)
    assert "renderings of 62%" in kept_rule(_c(0.20, words=0.26, said=translated), 0.15).says()
    # Within its cut but beyond the space-wide gate, kept for the question's words it carries.
    gate = Kept("gate words", share=0.45, gate=0.12)
    assert "space-wide gate (0.120), kept because it carries 45%" in kept_rule(_c(0.13, words=0.45, said=gate),
                                                                                0.15).says()
    # ...and beyond its cut the gate's words do not keep it: the cut's own rule says why it is there.
    assert kept_rule(_c(0.20, words=0.45, said=gate), 0.15).rule == "words"
    # Near its cut, kept because the configured model judged that it answers, on either side of the cut.
    judged = Kept("judged", band=0.027, model="scripted")
    assert "the model (scripted) judged that it answers" in kept_rule(_c(0.16, said=judged), 0.15).says()
    assert "within 0.027" in kept_rule(_c(0.14, words=0.1, said=judged), 0.15).says()
    # The fitted relevance judge (issue 55) and more material (R6) are said as such.
    assert "relevance judge: 71%" in kept_rule(_c(0.19, said=Kept("relevance judge", share=0.71)), 0.15).says()
    assert kept_rule(replace(_c(0.10), kept_as=Kept("more material")), 0.15).rule == "more material"
    assert kept_rule(_c(0.20, words=0.4), 0.15).to_dict()["rule"] == "words"


def test_hits_from_the_engine_carry_their_rule_into_json(tmp_path: object) -> None:
    from pathlib import Path

    from biny.core.config import Settings
    from biny.core.demo import build_demo
    from biny.core.engine import Engine
    from tests.conftest import CountingEmbedder

    with Engine.open(Path(str(tmp_path)) / "home", settings=Settings(), embedder=CountingEmbedder()) as eng:
        assert build_demo(eng).ok
        # A part number is pinned (R4). The structured index would answer the code itself (issue 64), so it is off.
        params = replace(eng.retrieval.params(), use_structured=False)
        result = eng.ask("demo", "What is the battery life of TA-210?", params=params)
        assert result.chunks and all(h.kept is not None for h in result.chunks)
        assert any(h.kept is not None and h.kept.rule == "pinned" for h in result.chunks)
        rows = result.to_dict()["chunks"]
        assert all(r["kept"]["rule"] in {"pinned", "within cut", "words", "translated words", "gate words",
                                         "judged", "relevance judge", "second pass or nearest"}
                   and r["kept"]["says"] for r in rows)
