"""The 8-bit scan with exact re-rank returns the full float32 scan's rows and distances (issue 23)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pytest

from biny.core.engine import Engine
from biny.core.retrieve.lexical import LexicalEvidence
from biny.core.store.vectors import TermSets, VectorMatrix


def _crowded(n: int, seed: int, spread: float) -> npt.NDArray[np.float32]:
    """Unit vectors around one common direction, as e5 puts every passage: similarities close together."""
    rng = np.random.default_rng(seed)
    common = rng.standard_normal(384)
    m = (common * 0.15 + rng.standard_normal((n, 384)) * spread).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _pair(m: npt.NDArray[np.float32]) -> tuple[VectorMatrix, VectorMatrix]:
    ids = [f"c{i}" for i in range(len(m))]
    exact = VectorMatrix(ids, ["d"] * len(m), m, quant_min_rows=10**9)
    quant = VectorMatrix(ids, ["d"] * len(m), m, quant_min_rows=0)
    return exact, quant


@pytest.mark.parametrize("spread", [0.05, 0.01])  # 0.01: thousands of rows inside the band, which must widen
def test_same_rows_and_distances_as_the_exact_scan(spread: float) -> None:
    m = _crowded(6000, 3, spread)
    exact, quant = _pair(m)
    groups = [np.arange(0, len(m), 3, dtype=np.int64), np.arange(1, len(m), 3, dtype=np.int64)]
    exact.set_groups(groups)
    quant.set_groups(groups)
    queries = _crowded(30, 4, spread)
    for q in queries:
        a_rows, a_d = exact.search(q, 40)
        b_rows, b_d = quant.search(q, 40)
        assert set(a_rows.tolist()) == set(b_rows.tolist())
        np.testing.assert_allclose(a_d, b_d, atol=1e-5)
        # Per-script rankings from the same pass: each group's own nearest rows join the pool.
        a = exact.search_by_script(q, 40, list(exact.groups[:2]))
        b = quant.search_by_script(q, 40, list(quant.groups[:2]))
        assert set(a[0].tolist()) == set(b[0].tolist()) and a[2] == b[2] > 0
        np.testing.assert_allclose(a[1], b[1], atol=1e-5)
    assert quant.quant is not None and exact.quant is None
    # The codes are a quarter of the float32 matrix (plus the row lists).
    assert quant.quant.nbytes < m.nbytes / 3


def test_masks_the_codes_were_not_built_over_take_the_exact_path() -> None:
    m = _crowded(3000, 5, 0.05)
    exact, quant = _pair(m)
    other = np.arange(0, len(m), 7, dtype=np.int64)  # not one of quant's groups
    a = exact.search_by_script(m[0], 20, [other])
    b = quant.search_by_script(m[0], 20, [other])
    assert a[0].tolist() == b[0].tolist() and a[2] == b[2]


def test_weights_summed_from_term_codes_equal_the_per_row_sets() -> None:
    rows_terms = [["alpha", "beta", "gamma"], [], ["beta"], ["delta", "alpha"], ["zeta"]]
    column = pa.chunked_array([pa.array(rows_terms[:2], pa.list_(pa.string())),
                               pa.array(rows_terms[2:], pa.list_(pa.string()))])
    visible = np.array([0, 1, 3, 4], dtype=np.int64)  # stored row 2 is not visible
    terms = TermSets.from_arrow(column, visible)
    ev = LexicalEvidence({"alpha": 2.0, "beta": 1.0, "omega": 5.0}, 0.5)
    vm = VectorMatrix([f"c{i}" for i in range(4)], ["d"] * 4, np.eye(4, 384, dtype=np.float32), terms=terms)
    rows = [3, 0, 2, 1, 0]
    assert ev.coverages(vm, rows) == pytest.approx([ev.coverage(terms[r]) for r in rows])
    assert ev.coverages(vm, rows) == pytest.approx([0.0, 3 / 8, 2 / 8, 0.0, 3 / 8])
    assert ev.coverages(vm, []) == []


def test_an_engine_answers_the_same_on_the_codes(tmp_path: Path, engine: Engine) -> None:
    """A space in two scripts, asked with the 8-bit path forced on: same passages, same distances."""
    en = "\n\n".join(f"Harbour crane C-{i} lifts {10 + i} tonnes and is inspected every {i + 3} months by the "
                     f"port authority's engineers." for i in range(30))
    zh = "\n\n".join(f"第{i}号水泵每{i + 2}周由夜班检修一次，记录压力、温度和振动数据。" for i in range(30))
    (tmp_path / "cranes.md").write_text(en, encoding="utf-8")
    (tmp_path / "pumps.md").write_text(zh, encoding="utf-8")
    engine.create_space("s", encrypted=False)
    engine.ingest("s", [tmp_path / "cranes.md", tmp_path / "pumps.md"])
    questions = ["How much can crane C-7 lift?", "第5号水泵多久检修一次？", "起重机C-12由谁检查？",
                 "What is the capital of Peru?"]
    before = [engine.ask("s", q) for q in questions]
    sid = engine.catalog.spaces.named("s").space_id
    vm = engine.vectors.get(sid, set(), 384)  # the cached matrix the asks used
    assert len(vm.groups) >= 2  # the pool made each script a group
    vm.quant_min_rows = 0
    after = [engine.ask("s", q) for q in questions]
    assert vm.quant is not None
    for a, b in zip(before, after, strict=True):
        assert [c.chunk_id for c in a.chunks] == [c.chunk_id for c in b.chunks]
        pool_a, pool_b = a.trace.stages[1], b.trace.stages[1]
        assert pool_a.name == pool_b.name == "pool"
        assert set(pool_a.kept) == set(pool_b.kept)
        np.testing.assert_allclose(sorted(pool_a.data.distances), sorted(pool_b.data.distances), atol=2e-4)


def test_no_module_keeps_the_last_questions_blinded_terms(tmp_path: Path, engine: Engine) -> None:
    """The question's word evidence (blinded terms, the blinding key) is per-ask state on the retrieval context:
    once the ask returns, no module of core holds it (issue 47; it was a module-global memo that closing the
    engine had to clear)."""
    import sys

    from biny.core.retrieve.candidates import Context

    (tmp_path / "a.md").write_text("The relief valve V-77 opens at 12 bar.", encoding="utf-8")
    engine.create_space("s")  # encrypted: the evidence holds blinded terms and the blinding key
    engine.ingest("s", [tmp_path / "a.md"])
    assert engine.ask("s", "At what pressure does the relief valve open?").chunks
    made: list[LexicalEvidence] = []
    original = Context.words

    def spy(self: Context, question: str, vm: object) -> LexicalEvidence:
        got = original(self, question, vm)  # type: ignore[arg-type]
        made.append(got)
        return got

    Context.words = spy  # type: ignore[method-assign]
    try:
        engine.ask("s", "At what pressure does the relief valve open?")
    finally:
        Context.words = original  # type: ignore[method-assign]
    assert made and all(m is made[0] for m in made), "made once per ask, read by the threshold and the reranker"
    held = []
    for mod in list(sys.modules.values()):
        if mod is None or not mod.__name__.startswith("biny."):
            continue
        for name, value in vars(mod).items():
            if isinstance(value, LexicalEvidence) or (isinstance(value, tuple) and any(x is made[0] for x in value)):
                held.append(f"{mod.__name__}.{name}")
    assert held == []