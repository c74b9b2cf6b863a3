"""The fact recall chain, rule by rule (SPEC M1–M7), with the real bundled model."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from biny.core.cli import main
from biny.core.engine import Engine

SCOPE = "tenant:acme/user:ana"
COFFEE = [
    "Ana drinks her coffee black, without sugar.",
    "Ana prefers oat milk when she has a latte.",
    "Ana's favourite coffee shop is the one on Harbour Street.",
    "Ana buys single-origin Ethiopian coffee beans.",
    "Ana never drinks coffee after 4 pm.",
    "Ana grinds her coffee beans fresh every morning.",
]
Q = "How does Ana like her coffee?"


def _facts(engine: Engine, texts: list[str], scope: str = SCOPE) -> list[str]:
    return [engine.memory_add(t, scope).fact_id for t in texts]


def test_recall_returns_relevant_facts_with_scores_and_trace(engine: Engine) -> None:
    _facts(engine, [*COFFEE, "Ana's passport expires in March 2031.", "The office wifi password rotates monthly."])
    r = engine.memory_recall(Q, SCOPE)
    assert 1 <= len(r.facts) <= 5
    assert all("coffee" in f.text.lower() or "latte" in f.text.lower() for f in r.facts)
    assert [s.box for s in r.trace] == ["M1", "M2", "M3", "M4", "M5", "M6", "M7"]
    assert all(f.score >= 0.1 for f in r.facts)
    unrelated = engine.memory_recall("Which planet has the most moons?", SCOPE)
    assert unrelated.facts == [] and unrelated.reference_block == ""


def test_edited_between_ranking_and_recheck_is_dropped_not_replaced(engine: Engine) -> None:
    ids = _facts(engine, COFFEE)
    before = engine.memory_recall(Q, SCOPE, k=5)
    assert len(before.facts) == 5
    victim = before.facts[0].fact_id
    r = engine.memory_recall(Q, SCOPE, k=5,
                             between_rank_and_check=lambda: engine.memory_edit(victim, "Ana now drinks tea."))
    assert len(r.facts) == 4, "the freed slot is not refilled"
    assert victim not in {f.fact_id for f in r.facts}
    assert any(d.fact_id == victim and "revision changed (1 → 2)" in d.reason for d in r.dropped)
    sixth = set(ids) - {f.fact_id for f in before.facts}
    assert not sixth & {f.fact_id for f in r.facts}


def test_deleted_archived_and_other_scopes_never_return(engine: Engine) -> None:
    ids = _facts(engine, COFFEE[:3])
    engine.memory_set_status(ids[0], "deleted")
    engine.memory_set_status(ids[1], "archived")
    _facts(engine, ["Bob drinks his coffee with lots of sugar and cream."], scope="tenant:acme/user:bob")
    for _ in range(2):
        r = engine.memory_recall(Q, SCOPE, k=5, threshold=-10)  # even with no threshold at all
        got = {f.fact_id for f in r.facts}
        assert got == {ids[2]}
    # Deleted between ranking and re-check: dropped too.
    r = engine.memory_recall(Q, SCOPE, between_rank_and_check=lambda: engine.memory_set_status(ids[2], "deleted"))
    assert r.facts == [] and any("deleted" in d.reason for d in r.dropped)


def test_budget_keeps_whole_entries(engine: Engine) -> None:
    long = [f"Coffee note {i}: " + ("Ana likes her coffee black and strong. " * 130) for i in range(3)]
    assert all(len(t) > 5000 for t in long)
    _facts(engine, long)
    r = engine.memory_recall(Q, SCOPE, max_chars=12000)
    stored = {f.fact_id: f.text for f in engine.memory_list(SCOPE)}
    assert len(r.facts) == 2
    assert sum(len(f.text) for f in r.facts) <= 12000
    assert all(f.text == stored[f.fact_id] for f in r.facts)  # never half a fact
    assert any("over the budget" in d.reason for d in r.dropped)


def test_reference_block_is_not_in_the_stored_history(engine: Engine) -> None:
    _facts(engine, COFFEE[:3])
    engine.add_turn("c1", "user", "Hi, I'd like to order.")
    engine.add_turn("c1", "user", Q)
    r = engine.memory_recall(Q, SCOPE, conversation_id="c1")
    assert r.reference_block.startswith("Reference material from memory")
    history = engine.conversation("c1")
    assert history == [("user", "Hi, I'd like to order."), ("user", Q)]
    assert all(r.reference_block not in content and "Reference material" not in content for _, content in history)


def test_concurrent_edits_never_return_a_stale_revision(engine: Engine) -> None:
    ids = _facts(engine, [f"{t} (rev 1)" for t in COFFEE])
    stop = threading.Event()
    errors: list[str] = []

    def editor() -> None:
        n = 1
        while not stop.is_set():
            n += 1
            for fid in ids[:3]:
                engine.memory_edit(fid, f"{COFFEE[ids.index(fid)]} (rev {engine.memory.get(fid).revision + 1})")

    t = threading.Thread(target=editor)
    t.start()
    try:
        for _ in range(25):
            r = engine.memory_recall(Q, SCOPE)
            current = engine.memory.current([f.fact_id for f in r.facts])
            for f in r.facts:
                if f"(rev {f.revision})" not in f.text:
                    errors.append(f"text/revision mismatch: {f.revision} {f.text}")
                if current[f.fact_id].revision < f.revision:
                    errors.append("a revision from the future?")
    finally:
        stop.set()
        t.join()
    assert errors == []
    assert engine.memory.get(ids[0]).revision > 3  # edits really happened meanwhile


def test_memory_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "home")
    assert main(["--home", home, "memory", "add", COFFEE[0], "--scope", SCOPE]) == 0
    fid = capsys.readouterr().out.strip()
    assert main(["--home", home, "memory", "edit", fid, COFFEE[1]]) == 0
    capsys.readouterr()
    assert main(["--home", home, "memory", "recall", "Does Ana take milk in her coffee?", "--scope", SCOPE,
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["facts"] and data["facts"][0]["id"] == fid and data["facts"][0]["revision"] == 2
    assert {"id", "text", "score", "revision"} <= set(data["facts"][0])
    assert "dropped" in data and data["trace"][0]["box"] == "M1"
    assert main(["--home", home, "memory", "archive", fid]) == 0
    assert main(["--home", home, "memory", "list", "--scope", SCOPE, "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()[-1]
    assert json.loads(out)[0]["status"] == "archived"
