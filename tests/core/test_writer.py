"""The one-writer rule (ARCHITECTURE: one writer): every store write goes through StoreWriter.

Three checks: the guard refuses a write from anywhere else; every method of the stores that
writes (by its SQL or its LanceDB call) is guarded; and a full run — spaces, ingest, ask,
more material, memory, backups, passphrase change, status changes — writes only through the
writer, while asking writes nothing at all.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from biny.core.engine import Engine
from biny.core.store import guard
from biny.core.store.catalog import Catalog, SpaceRow, now
from biny.core.store.writer import StoreWriter
from tests.conftest import corpus

ROOT = Path(__file__).resolve().parents[2]
STORE_MODULES = [*(str(p.relative_to(ROOT)) for p in sorted((ROOT / "core/store/catalog").glob("*.py"))),
                 "core/store/lance.py", "core/store/chunk_maintenance.py", "core/store/facts.py",
                 "core/store/structured.py", "core/store/review.py"]
WRITING_SQL = re.compile(r"\b(INSERT|UPDATE|DELETE|CREATE|ALTER|DROP)\b")
WRITING_LANCE = {"add", "delete", "optimize", "create_table", "drop_table", "add_columns", "merge_insert", "update"}


def _writes(fn: ast.FunctionDef) -> bool:
    """Does a method's body run writing SQL or a writing LanceDB call?"""
    for node in ast.walk(fn):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and WRITING_SQL.search(node.value):
            return True
        if isinstance(node, ast.JoinedStr) and any(
                isinstance(v, ast.Constant) and WRITING_SQL.search(str(v.value)) for v in node.values):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WRITING_LANCE:
            receiver = ast.unparse(node.func.value)
            if "db" in receiver or "_table(" in receiver or "tbl" in receiver:
                return True
    return False


def test_every_writing_store_method_is_guarded() -> None:
    unguarded = []
    for module in STORE_MODULES:
        tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef)):
                guarded = any(ast.unparse(d) == "mutation" for d in fn.decorator_list)
                if _writes(fn) and not guarded and fn.name != "__init__":
                    unguarded.append(f"{module}:{cls.name}.{fn.name}")
    assert unguarded == []
    assert {"DocumentTable.activate", "ChunkStore.add", "FactTable.insert", "BaselineTable.save"} <= guard.MUTATIONS


def test_no_module_outside_the_stores_runs_writing_sql() -> None:
    offenders = []
    for path in (ROOT / "core").rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel in STORE_MODULES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "execute":
                offenders.append(f"{rel}:{node.lineno}")
    assert offenders == []


def test_a_write_from_outside_the_writer_is_refused(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.duckdb")
    try:
        with pytest.raises(guard.WriteOutsideWriter, match="single writer"):
            catalog.migrate()
        with guard.writing():
            catalog.migrate()  # the writer's way in works
        row = SpaceRow("abc", "s", now(), "m", 4, False)
        with pytest.raises(guard.WriteOutsideWriter):
            catalog.spaces.insert(row)
        assert catalog.spaces.all() == []  # nothing was written
    finally:
        catalog.close()


def test_a_full_run_writes_only_through_the_writer_and_asking_writes_nothing(
        engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writes: list[str] = []
    original = StoreWriter._write

    def counting(self: StoreWriter, **kwargs):  # type: ignore[no-untyped-def]
        import inspect

        writes.append(inspect.stack()[1].function)  # the writer method that wrote
        return original(self, **kwargs)

    monkeypatch.setattr(StoreWriter, "_write", counting)
    engine.create_space("laws")
    report = engine.ingest("laws", [corpus("cn_laws", "民法典__附则.md"), corpus("python_peps", "pep-0020.rst")])
    assert report.ok
    assert {"create_space", "begin_document", "add_chunks", "commit_document", "save_baselines"} <= set(writes)

    writes.clear()
    result = engine.ask("laws", "Is flat better than nested?", k=1)
    assert result.chunks
    engine.more_material(result.turn_id)
    engine.documents("laws")
    engine.spaces()
    assert writes == []  # reads never write (baselines are measured in memory while answering)

    fact = engine.memory.add("Ana drinks her coffee black.", "user:ana")
    engine.memory.edit(fact.fact_id, "Ana drinks her coffee with milk.")
    engine.memory.add_turn("c1", "user", "How does Ana take her coffee?")
    engine.memory.recall("How does Ana take her coffee?", "user:ana", conversation_id="c1")
    engine.memory.set_status(fact.fact_id, "archived")
    doc = engine.documents("laws")[0]
    engine.set_document_status("laws", doc.doc_id, "archived")
    engine.keys.change_passphrase("laws", "test passphrase — not a real secret", "a new passphrase")
    archive = engine.backup.export_space("laws", tmp_path / "laws.tar")
    before = [(d.title, d.status) for d in engine.documents("laws")]
    engine.delete_space("laws")
    engine.backup.import_space(archive, name="laws-restored")
    assert [(d.title, d.status) for d in engine.documents("laws-restored")] == before
    assert {"insert_fact", "update_fact", "add_turn", "set_fact_status", "set_statuses", "set_wrapped_key",
            "set_memory_key", "import_space", "delete_space"} <= set(writes)
