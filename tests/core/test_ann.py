"""The ANN path for large spaces (issue 9): same pool as exact search, index kept on disk."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from biny.core.config import Settings
from biny.core.engine import Engine
from biny.core.store.ann import AnnIndex
from biny.core.store.vectors import VectorMatrix
from tests.conftest import CountingEmbedder, corpus


def _open(home: Path, embedder: CountingEmbedder, min_rows: int = 20) -> Engine:
    s = Settings()
    s.retrieval.ann_min_rows = min_rows  # every space in this test is "large"
    return Engine.open(home, settings=s, embedder=embedder)


def _matrix(eng: Engine, space: str) -> VectorMatrix:
    row = eng.catalog.spaces.named(space)
    vm = eng.vectors.get(row.space_id, eng.catalog.docs.active_ids(row.space_id), row.dim)
    assert eng.vectors.wait_for_index(row.space_id, timeout=120)
    return vm


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CountingEmbedder]:
    home = tmp_path_factory.mktemp("ann") / "home"
    emb = CountingEmbedder()
    with _open(home, emb) as eng:
        eng.create_space("law")
        assert eng.ingest("law", [corpus("cn_laws", "社会法__劳动法(2018-12-29).md")]).ok
    return home, emb


def test_ann_pool_matches_exact_search(built: tuple[Path, CountingEmbedder]) -> None:
    home, emb = built
    with _open(home, emb) as eng:
        vm = _matrix(eng, "law")
        assert len(vm) >= 20 and vm.ann is not None and vm.ann.rows == len(vm)
        for q in ["劳动者每日工作时间不超过几小时？", "用人单位解除劳动合同应当提前多少天通知？",
                  "What does the law say about wages?"]:
            qv = emb.embed_queries([q])[0]
            a_idx, a_d = vm.search(qv, 20)
            e_idx, e_d = vm.nearest(qv, 20)
            # On a few hundred rows every inverted list is probed: the pool must be the exact one,
            # and the distances are always the exact float32 ones (re-ranked), not quantised.
            assert list(a_idx) == list(e_idx)
            np.testing.assert_allclose(a_d, e_d, atol=1e-6)
        result = eng.ask("law", "劳动者每日工作时间不超过几小时？")
        pool = result.trace.stage("pool")
        assert pool is not None and "ANN candidates" in str(pool.summary)
        assert result.chunks, "the answer is in the law"


def test_index_is_kept_and_reused_and_a_damaged_one_rebuilt(built: tuple[Path, CountingEmbedder],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    home, emb = built
    with _open(home, emb) as eng:
        _matrix(eng, "law")
    kept = list((home / "cache" / "ann").glob("*.faiss"))
    assert len(kept) == 1

    def no_build(*_a: object, **_k: object) -> AnnIndex:
        raise AssertionError("the kept index should have been read back")

    with monkeypatch.context() as m:
        m.setattr(AnnIndex, "build", classmethod(lambda cls, *a, **k: no_build()))
        with _open(home, emb) as eng:
            vm = _matrix(eng, "law")
            assert vm.ann is not None and vm.ann.rows == len(vm)

    kept[0].write_bytes(b"not a faiss index")
    with _open(home, emb) as eng:
        vm = _matrix(eng, "law")
        assert vm.ann is not None and vm.ann.rows == len(vm)  # rebuilt, not trusted
    assert AnnIndex.load(kept[0]).rows == len(vm)


def test_a_failed_build_leaves_exact_search_answering(built: tuple[Path, CountingEmbedder],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    home, emb = built
    for f in (home / "cache" / "ann").glob("*.faiss"):
        f.unlink()

    def boom(cls: type[AnnIndex], *_a: object, **_k: object) -> AnnIndex:
        raise MemoryError("no room for the index")

    monkeypatch.setattr(AnnIndex, "build", classmethod(boom))
    with _open(home, emb) as eng:
        vm = _matrix(eng, "law")
        assert vm.ann is None
        result = eng.ask("law", "劳动者每日工作时间不超过几小时？")
        pool = result.trace.stage("pool")
        assert pool is not None and "exact" in str(pool.summary) and result.chunks


def test_new_revision_rebuilds_and_delete_removes_the_index(tmp_path: Path, embedder: CountingEmbedder) -> None:
    with _open(tmp_path / "home", embedder, min_rows=2) as eng:
        eng.create_space("s", encrypted=False)
        doc = tmp_path / "notes.md"
        doc.write_text("\n\n".join(f"Paragraph {i}: the quarterly report covers region {i}." for i in range(40)))
        assert eng.ingest("s", [doc]).ok
        first = _matrix(eng, "s")
        extra = tmp_path / "more.md"
        extra.write_text("\n\n".join(f"Section {i}: refunds are paid within {i} days." for i in range(30)))
        assert eng.ingest("s", [extra]).ok
        second = _matrix(eng, "s")
        assert len(second) > len(first) and second.ann is not None and second.ann.rows == len(second)
        assert len(list((tmp_path / "home" / "cache" / "ann").glob("*.faiss"))) == 1  # the old index replaced
        eng.delete_space("s")
        assert not list((tmp_path / "home" / "cache" / "ann").glob("*.faiss"))
