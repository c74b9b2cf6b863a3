"""Large reads in bounded slices, the vectors copied once, the C heap settled (issue 57: peak RSS of the cost
curve): what a space reads back is unchanged — the same rows, in the same order, the same matrix and lookups."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from biny.core.engine import Engine
from biny.core.store import chunk_rows, chunk_views, heap, lance, vectors
from biny.core.store.vectors import VectorMatrix, _unpacked

PUMPS = "\n\n".join(f"Pump P-{i:03d} is serviced every {i + 2} weeks by the night shift, who log pressure, "
                    f"temperature and vibration readings for unit {i}." for i in range(60))
VALVES = "\n\n".join(f"Relief valve V-{i:02d} opens at {i + 10} bar and is replaced after {i + 4},000 cycles."
                     for i in range(30))


def _space(tmp_path: Path, engine: Engine) -> tuple[str, Any]:
    for name, text in (("pumps.md", PUMPS), ("valves.md", VALVES)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    engine.create_space("s", encrypted=False)
    engine.ingest("s", [tmp_path / "pumps.md", tmp_path / "valves.md"])
    sid = engine.catalog.spaces.named("s").space_id
    return sid, engine.chunks._table(sid)


def _whole(tbl: Any, columns: list[str], where: str | None = None) -> pa.Table:
    """One query over the whole table, as reads were made before slicing."""
    query = tbl.search().select(columns)
    if where:
        query = query.where(where)
    return query.limit(tbl.count_rows()).to_arrow()


def test_sliced_scans_and_batches_read_what_one_query_reads(tmp_path: Path, engine: Engine,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    sid, tbl = _space(tmp_path, engine)
    n = tbl.count_rows()
    assert n >= 8
    monkeypatch.setattr(chunk_rows, "SCAN_SLICE", 3)  # several slices, the last one short
    cols = ["chunk_id", "doc_id", "text", "terms", "vector"]
    assert engine.chunks.scan(sid, cols).to_pylist() == _whole(tbl, cols).to_pylist()
    doc = engine.documents("s")[0].doc_id
    where = f"doc_id IN ('{doc}')"
    filtered = engine.chunks.scan(sid, ["chunk_id", "ordinal"], where)
    assert filtered.num_rows and filtered.to_pylist() == _whole(tbl, ["chunk_id", "ordinal"], where).to_pylist()
    nothing = engine.chunks.scan(sid, ["chunk_id"], "doc_id IN ('none')")
    assert nothing.num_rows == 0 and nothing.column_names == ["chunk_id"]
    for size in (2, n, n + 5):
        parts = list(engine.chunks.batches(sid, ["chunk_id", "mac"], size=size))
        assert all(p.num_rows <= size for p in parts)
        assert pa.Table.from_batches(parts).to_pylist() == _whole(tbl, ["chunk_id", "mac"]).to_pylist()


def test_a_matrix_loaded_in_slices_is_the_matrix_of_one_read(tmp_path: Path, engine: Engine,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    sid, tbl = _space(tmp_path, engine)
    dim = engine.catalog.spaces.named("s").dim
    docs = {d.doc_id for d in engine.documents("s")}
    stored = _whole(tbl, ["chunk_id", "vector", "terms"])
    vectors = np.asarray(stored.column("vector").to_pylist(), dtype=np.float32)

    def load(visible: set[str]) -> VectorMatrix:
        engine.vectors.invalidate(sid)
        return engine.vectors.get(sid, visible, dim)

    one = load(docs)
    monkeypatch.setattr(chunk_rows, "SCAN_SLICE", 4)
    sliced = load(docs)
    assert sliced.chunk_ids == one.chunk_ids == stored.column("chunk_id").to_pylist()
    assert np.array_equal(sliced.matrix, vectors) and np.array_equal(one.matrix, vectors)
    assert sliced.matrix.flags.c_contiguous and sliced.matrix.dtype == np.float32
    assert [sorted(sliced.terms[r]._codes) for r in range(len(sliced))] \
        == [sorted(one.terms[r]._codes) for r in range(len(one))]
    terms = stored.column("terms").to_pylist()
    assert all(all(t in sliced.terms[r] for t in terms[r]) for r in range(len(sliced)))
    # One document visible: its rows only, in stored order, their own vectors.
    pumps = next(d.doc_id for d in engine.documents("s") if d.path.endswith("pumps.md"))
    part = load({pumps})
    rows = [i for i, d in enumerate(_whole(tbl, ["doc_id"]).column("doc_id").to_pylist()) if d == pumps]
    assert 0 < len(part) < len(one) and part.stored.tolist() == rows
    assert np.array_equal(part.matrix, vectors[rows]) and part.matrix.flags.c_contiguous
    hit = engine.ask("s", "At what pressure does relief valve V-07 open?").chunks
    assert hit and "17 bar" in hit[0].text


def test_the_context_view_in_slices_is_the_table(tmp_path: Path, engine: Engine,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    sid, tbl = _space(tmp_path, engine)
    monkeypatch.setattr(chunk_rows, "SCAN_SLICE", 5)
    engine.chunks.forget_reads(sid)
    view = engine.chunks.views._context_view(sid)
    assert view is not None and view.column("chunk_id").num_chunks == 1  # one contiguous batch for takes
    assert view.to_pylist() == _whole(tbl, chunk_views.CONTEXT_COLS).to_pylist()
    sentences = engine.chunks.views._sentence_view(sid)
    assert sentences is not None
    assert sentences.to_pylist() == _whole(tbl, ["chunk_id", "sentence_vectors"]).to_pylist()


def test_vectors_are_unpacked_from_chunked_and_sliced_columns() -> None:
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((7, 4)).astype(np.float32), rng.standard_normal((5, 4)).astype(np.float32)

    def column(m: np.ndarray) -> pa.FixedSizeListArray:
        return pa.FixedSizeListArray.from_arrays(pa.array(m.reshape(-1)), 4)

    chunked = pa.chunked_array([column(a), column(b).slice(2, 3), column(a)[:0]])
    assert np.array_equal(_unpacked(chunked, 4), np.concatenate([a, b[2:]]))
    assert np.array_equal(_unpacked(column(b).slice(1), 4), b[1:])
    assert _unpacked(pa.chunked_array([], type=pa.list_(pa.float32(), 4)), 4).shape == (0, 4)


def test_the_heap_is_settled_only_where_glibc_and_the_user_allow(monkeypatch: pytest.MonkeyPatch) -> None:
    glibc = heap._glibc() is not None
    assert heap.give_back() is glibc
    heap.settle.cache_clear()
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "65536")
    assert heap.settle() is False  # the user's own setting stands
    heap.settle.cache_clear()
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_")
    assert heap.settle() is glibc


def test_a_loaded_space_is_kept_out_of_full_collections_until_the_folder_closes(tmp_path: Path,
                                                                               settings: Any, embedder: Any) -> None:
    """Issue 57: a full collection walked every object loaded for good — the modules, the rows' aspect sets —
    ≈150 ms once in a hundred questions at 10k passages. A loaded space freezes them; closing hands them back, so
    nothing that became cyclic garbage meanwhile is kept for the life of the process."""
    import gc

    gc.unfreeze()
    eng = Engine.open(tmp_path / "home", settings=settings, embedder=embedder)
    try:
        _space(tmp_path, eng)
        eng.answer("s", "How often is pump P-012 serviced?")
        frozen = gc.get_freeze_count()
        assert frozen > 0
        # Those objects are out of every generation: a full collection walks only what was made since.
        assert len(gc.get_objects()) < frozen
    finally:
        eng.close()
    assert gc.get_freeze_count() == 0


def test_passages_read_before_the_final_context_are_taken_not_scanned_for(tmp_path: Path, engine: Engine,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A filtered scan reads the whole table (seconds a question at 1M passages): the retriever's reads of
    passages it holds in its matrix go by their stored rows, and answer as before."""
    _space(tmp_path, engine)
    questions = ["At what pressure does relief valve V-07 open?", "How often is pump P-012 serviced?",
                 "Who bakes the bread on Mondays?"]
    before = [engine.answer("s", q) for q in questions]
    filtered: list[str] = []
    real = lance.ChunkStore.scan

    def scan(self: lance.ChunkStore, space_id: str, columns: list[str], where: str | None = None) -> pa.Table:
        if where and where.startswith("chunk_id IN"):
            filtered.append(where)
        return real(self, space_id, columns, where)

    monkeypatch.setattr(lance.ChunkStore, "scan", scan)
    after = [engine.answer("s", q) for q in questions]
    assert not filtered
    for a, b in zip(before, after, strict=True):
        assert [h.chunk_id for h in a.chunks] == [h.chunk_id for h in b.chunks]
        assert (a.answer.text if a.answer else None) == (b.answer.text if b.answer else None)
    assert before[0].chunks and "17 bar" in before[0].chunks[0].text


def test_rows_with_the_same_marks_share_one_aspect_set(tmp_path: Path, engine: Engine) -> None:
    """Each row's aspect marks are those stored with it, and rows with equal marks hold one set object: a few dozen
    objects for a space, not one per passage for Python's collector to walk (issue 57, 1M passages)."""
    sid, tbl = _space(tmp_path, engine)
    vm = engine.vectors.get(sid, {d.doc_id for d in engine.documents("s")}, engine.catalog.spaces.named("s").dim)
    stored = _whole(tbl, ["chunk_id", "aspects"])
    marks = dict(zip(stored.column("chunk_id").to_pylist(), stored.column("aspects").to_pylist(), strict=True))
    assert [vm.aspects[r] for r in range(len(vm))] == [frozenset(marks[c]) for c in vm.chunk_ids]
    distinct = set(vm.aspects)
    assert 1 <= len(distinct) < len(vm) and len({id(a) for a in vm.aspects}) == len(distinct)
    assert any("duration" in a for a in distinct)  # "every 3 weeks": the pumps' rows are marked


@pytest.mark.parametrize(("few", "step"), [(20_000, 1 << 20), (0, 3)])
def test_term_sets_and_their_frequencies_are_those_of_the_rows_read_one_by_one(
        monkeypatch: pytest.MonkeyPatch, few: int, step: int) -> None:
    """One vocabulary over chunks encoded together (sliced chunks, an empty one, rows without terms), and frequencies
    over the visible rows only — hidden rows taken off one by one or by a mask (``few`` 0), counted in steps."""
    monkeypatch.setattr(vectors, "_FEW_HIDDEN", few)
    monkeypatch.setattr(vectors, "_COUNT_STEP", step)
    rows_terms = [["pump", "valve"], [], ["bar", "pump"], ["seal"], ["valve", "bar", "cycle"], ["pump"], ["x"]]
    typ = pa.list_(pa.string())
    column = pa.chunked_array([pa.array(rows_terms[:3], typ), pa.array([["dropped"], *rows_terms[3:6]], typ).slice(1),
                               pa.array([], typ), pa.array(rows_terms[6:], typ)])
    visible = np.array([0, 2, 4, 5], dtype=np.int64)  # stored rows 1, 3 and 6 are hidden
    terms = vectors.TermSets.from_arrow(column, visible)
    assert "dropped" not in terms.vocab and sorted(terms.vocab) == sorted({t for r in rows_terms for t in r})
    for row, stored in enumerate(visible):
        assert len(terms[row]._codes) == len(rows_terms[stored]) and all(t in terms[row] for t in rows_terms[stored])
    df = terms.doc_freq()
    expected = Counter(t for r in visible for t in rows_terms[r])
    assert {t: df.get(t) for t in terms.vocab} == {t: expected.get(t, 0) for t in terms.vocab}
    assert df.get("seal") == 0 and df.get("pump") == 3
    empty = vectors.TermSets.from_arrow(pa.chunked_array([pa.array([[], []], typ)]), np.array([0, 1]))
    assert empty.vocab == {} and empty.doc_freq().get("pump") == 0


def test_a_rows_term_set_is_built_once_and_still_its_own_when_the_built_ones_are_let_go(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 57: a row's set is kept once built (a question reads the same rows many times), up to a bound; past it
    the kept sets are let go and every row still reads its own terms. ``holds`` compares term codes in one step."""
    monkeypatch.setattr(vectors, "_BUILT_ROWS", 2)
    rows_terms = [["pump", "valve"], ["bar"], ["valve", "seal"], ["pump", "bar", "seal"]]
    terms = vectors.TermSets.from_arrow(pa.chunked_array([pa.array(rows_terms, pa.list_(pa.string()))]),
                                        np.arange(4, dtype=np.int64))
    first = terms[0]
    assert terms[0] is first  # built once
    for _ in range(2):
        for row, expected in enumerate(rows_terms):
            got = terms[row]
            assert len(got) == len(expected) and all(t in got for t in expected)
            assert not any(t in got for t in {"pump", "valve", "bar", "seal"} - set(expected))
    assert len(terms._built) <= 2
    code = terms.code
    pump_bar = frozenset(c for c in (code("pump"), code("bar")) if c is not None)
    assert len(pump_bar) == 2 and code("absent") is None
    assert [terms[r].holds(pump_bar) for r in range(4)] == [False, False, False, True]


def test_a_stream_read_ahead_keeps_its_order_its_errors_and_stops_with_its_reader() -> None:
    read: list[int] = []
    closed: list[bool] = []

    def source(n: int, fail_at: int | None = None) -> Iterator[int]:
        try:
            for i in range(n):
                if i == fail_at:
                    raise OSError("disk gone")
                read.append(i)
                yield i
        finally:
            closed.append(True)

    assert list(chunk_rows.read_ahead(source(6))) == list(range(6)) and closed == [True]
    with pytest.raises(OSError, match="disk gone"):
        list(chunk_rows.read_ahead(source(6, fail_at=3)))
    read.clear()
    closed.clear()
    stream = chunk_rows.read_ahead(source(100))
    assert next(stream) == 0
    stream.close()  # the reader stops: at most one item was read ahead, and the source is closed
    assert read in ([0, 1], [0]) and closed == [True]
    assert not any(t.name.startswith("biny-read-ahead") for t in threading.enumerate())
