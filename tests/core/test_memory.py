"""The fact recall chain, rule by rule (SPEC M1–M7), with the real bundled model."""

from __future__ import annotations

import json
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
    return [engine.memory.add(t, scope).fact_id for t in texts]


def test_recall_returns_relevant_facts_with_scores_and_trace(engine: Engine) -> None:
    _facts(engine, [*COFFEE, "Ana's passport expires in March 2031.", "The office wifi password rotates monthly."])
    r = engine.memory.recall(Q, SCOPE)
    assert 1 <= len(r.facts) <= 5
    assert all("coffee" in f.text.lower() or "latte" in f.text.lower() for f in r.facts)
    assert [s.box for s in r.trace] == ["M1", "M2", "M3", "M4", "M5", "M6", "M7"]
    assert all(f.score >= 0.1 for f in r.facts)
    unrelated = engine.memory.recall("Which planet has the most moons?", SCOPE)
    assert unrelated.facts == [] and unrelated.reference_block == ""


def test_edited_between_ranking_and_recheck_is_dropped_not_replaced(engine: Engine) -> None:
    ids = _facts(engine, COFFEE)
    before = engine.memory.recall(Q, SCOPE, k=5)
    assert len(before.facts) == 5
    victim = before.facts[0].fact_id
    r = engine.memory.recall(Q, SCOPE, k=5,
                             between_rank_and_check=lambda: engine.memory.edit(victim, "Ana now drinks tea."))
    assert len(r.facts) == 4, "the freed slot is not refilled"
    assert victim not in {f.fact_id for f in r.facts}
    assert any(d.fact_id == victim and "revision changed (1 → 2)" in str(d.reason) for d in r.dropped)
    sixth = set(ids) - {f.fact_id for f in before.facts}
    assert not sixth & {f.fact_id for f in r.facts}


def test_deleted_archived_and_other_scopes_never_return(engine: Engine) -> None:
    ids = _facts(engine, COFFEE[:3])
    engine.memory.set_status(ids[0], "deleted")
    engine.memory.set_status(ids[1], "archived")
    _facts(engine, ["Bob drinks his coffee with lots of sugar and cream."], scope="tenant:acme/user:bob")
    for _ in range(2):
        r = engine.memory.recall(Q, SCOPE, k=5, threshold=-10)  # even with no threshold at all
        got = {f.fact_id for f in r.facts}
        assert got == {ids[2]}
    # Deleted between ranking and re-check: dropped too.
    r = engine.memory.recall(Q, SCOPE, between_rank_and_check=lambda: engine.memory.set_status(ids[2], "deleted"))
    assert r.facts == [] and any("deleted" in str(d.reason) for d in r.dropped)


def test_budget_keeps_whole_entries(engine: Engine) -> None:
    long = [f"Coffee note {i}: " + ("Ana likes her coffee black and strong. " * 130) for i in range(3)]
    assert all(len(t) > 5000 for t in long)
    _facts(engine, long)
    r = engine.memory.recall(Q, SCOPE, max_chars=12000)
    stored = {f.fact_id: f.text for f in engine.memory.facts(SCOPE)}
    assert len(r.facts) == 2
    assert sum(len(f.text) for f in r.facts) <= 12000
    assert all(f.text == stored[f.fact_id] for f in r.facts)  # never half a fact
    assert any("over the budget" in str(d.reason) for d in r.dropped)


def test_reference_block_is_not_in_the_stored_history(engine: Engine) -> None:
    _facts(engine, COFFEE[:3])
    engine.memory.add_turn("c1", "user", "Hi, I'd like to order.")
    engine.memory.add_turn("c1", "user", Q)
    r = engine.memory.recall(Q, SCOPE, conversation_id="c1")
    assert r.reference_block.startswith("Reference material from memory")
    history = engine.memory.conversation("c1")
    assert history == [("user", "Hi, I'd like to order."), ("user", Q)]
    assert all(r.reference_block not in content and "Reference material" not in content for _, content in history)


def test_edits_interleaved_with_recalls_never_return_a_stale_revision(engine: Engine) -> None:
    """Edits land between ranking (M4) and the re-check (M5) of every recall, in a fixed order.

    Deterministic: the recall chain's seam runs the edit exactly where a concurrent writer
    could, so no thread has to be scheduled for the case to happen.
    """
    ids = _facts(engine, [f"{t} (rev 1)" for t in COFFEE])
    dropped_for_revision = 0
    for n in range(12):
        target = ids[n % 3]

        def edit_now(fid: str = target) -> None:
            current = engine.memory.get(fid)
            engine.memory.edit(fid, f"{COFFEE[ids.index(fid)]} (rev {current.revision + 1})")

        r = engine.memory.recall(Q, SCOPE, between_rank_and_check=edit_now)
        current = engine.memory.current([f.fact_id for f in r.facts])
        for f in r.facts:
            assert f"(rev {f.revision})" in f.text  # text and revision always from one read
            assert current[f.fact_id].revision == f.revision  # never a revision edited away
        assert target not in {f.fact_id for f in r.facts}  # edited after ranking: dropped, never refilled
        dropped_for_revision += sum("revision changed" in str(d.reason) for d in r.dropped)
    assert dropped_for_revision >= 1  # the edits really hit ranked facts
    assert engine.memory.get(ids[0]).revision == 5  # 12 edits over 3 facts: 4 each


def test_facts_stored_in_plaintext_by_an_older_version_are_sealed_at_first_use(engine: Engine) -> None:
    from biny.core.store.guard import writing

    vec = [float(x) for x in engine.models.embedder.embed_passages(["Ana drinks tea."])[0]]
    # An older biny wrote this table: plaintext text and scope, no sealed column. The connection is taken inside the
    # writer's guard (a reader's is read-only, issue 58) and used under the catalog's lock, as the stores use it:
    # outside it the idle timer may close a connection in use (store/catalog/table.py ``Db``).
    with writing(), engine.catalog.lock:
        con = engine.catalog.con
        con.execute(f"""CREATE TABLE facts (fact_id VARCHAR PRIMARY KEY, scope VARCHAR NOT NULL,
            text VARCHAR NOT NULL, status VARCHAR NOT NULL, revision INTEGER NOT NULL,
            created_at TIMESTAMP NOT NULL, updated_at TIMESTAMP NOT NULL, source VARCHAR NOT NULL DEFAULT '',
            model VARCHAR NOT NULL, vector FLOAT[{len(vec)}] NOT NULL)""")
        con.execute("INSERT INTO facts VALUES ('old1', ?, 'Ana drinks tea.', 'active', 3, now(), now(), 'cli', ?, ?)",
                    [SCOPE, engine.models.embedder.model_id, vec])
    facts = engine.memory.facts(SCOPE)
    assert [(f.fact_id, f.text, f.revision, f.source) for f in facts] == [("old1", "Ana drinks tea.", 3, "cli")]
    # Sealing rewrote the catalog file (a new connection): the plaintext is gone from its freed blocks too.
    with engine.catalog.lock:
        text, scope, ct = engine.catalog.con.execute(
            "SELECT text, scope, ct FROM facts WHERE fact_id = 'old1'").fetchone()
    assert text == "" and scope != SCOPE and ct  # sealed; the scope kept only as a keyed hash
    raw = b"".join(f.read_bytes() for f in engine.home.rglob("catalog.duckdb*") if f.is_file())
    assert raw and b"Ana drinks tea." not in raw
    assert engine.memory.recall("What does Ana drink?", SCOPE).facts[0].fact_id == "old1"


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
