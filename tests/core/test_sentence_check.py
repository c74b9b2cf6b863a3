"""Issue 20: a passage kept near its cut must hold a sentence within it (retrieve/sentences.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from biny.core.embed.base import Vectors
from biny.core.retrieve import sentences
from biny.core.retrieve.baseline import Distribution
from biny.core.retrieve.candidates import Candidate, Context, RetrievalParams
from biny.core.text.sentences import sentence_windows, sentences_of
from biny.core.trace import Trace

QUERY = np.array([1.0, 0.0, 0.0], dtype=np.float32)


def at(distance: float) -> Vectors:
    """A unit vector this cosine distance from QUERY."""
    cos = 1.0 - distance
    return np.array([cos, np.sqrt(1.0 - cos * cos), 0.0], dtype=np.float32)


def test_sentences_end_at_the_punctuation_of_many_scripts() -> None:
    assert sentences_of("वह दिल्ली में रहता है। वह कब आया? फिर गया॥") == ["वह दिल्ली में रहता है।", "वह कब आया?", "फिर गया॥"]
    assert sentences_of("ما هو الهدف؟ وصلوا إلى النقاش.") == ["ما هو الهدف؟", "وصلوا إلى النقاش."]
    assert sentences_of("第一条 为了保护权益。第二条 适用范围！") == ["第一条 为了保护权益。", "第二条 适用范围！"]
    # A version number or a decimal is not a sentence end; a short line without end punctuation is a heading.
    assert sentences_of("Heading\nPython 3.5 added it. Version v1.2 followed.") == [
        "Python 3.5 added it.", "Version v1.2 followed."]
    # Each sentence alone and with its neighbour: what the first names, the second says ("It …").
    assert sentence_windows("Tesla moved to Colorado. It had more room. He built a lab.") == [
        "Tesla moved to Colorado.", "It had more room.", "He built a lab.",
        "Tesla moved to Colorado. It had more room.", "It had more room. He built a lab."]
    assert sentence_windows("One sentence only.") == [] and sentence_windows("") == []


def test_where_no_passage_is_firmly_inside_its_cut_each_needs_two_sentences_within_it() -> None:
    # Reference spread (median − p10) 0.064; window 0.5 × 0.064: "firmly inside" = 0.032 or more inside the cut.
    ref = Distribution.of(np.linspace(0.22, 0.38, 101).astype(np.float32))
    spread = ref.median - ref.quantile(0.10)
    assert abs(spread - 0.064) < 1e-6
    params = RetrievalParams(k=5, pool_factor=4, threshold_quantile=0.10, sentence_window=0.5)
    window = 0.5 * spread
    cut = 0.25
    about = Candidate(2, "about", "d", cut - 0.012, cut=cut)  # every pair beyond the cut
    said = Candidate(1, "said", "d", cut - 0.01, cut=cut)  # one pair of sentences inside the cut
    single = Candidate(3, "single", "d", cut + 0.01, cut=cut)  # beyond (kept for its words), one sentence
    other = Candidate(4, "other", "d", cut - 0.001, cut=cut, elsewhere=True)  # another script: not read
    also = Candidate(5, "also", "d", cut + 0.005, cut=cut)  # every pair beyond the cut
    read: list[int] = []
    by_row: dict[int, Vectors | None] = {1: np.stack([at(0.30), at(cut - 0.02)]),
                                         2: np.stack([at(cut + 0.01), at(cut + 0.03)]), 3: None,
                                         5: np.stack([at(cut + 0.002)])}

    def vectors(rows: list[int]) -> list[Vectors | None]:
        read.extend(rows)
        return [by_row[r] for r in rows]

    ctx = Context(titles={}, glossary=[], embed_queries=lambda texts: np.zeros((0, 3)), sentence_vectors=vectors)
    # Nearest first: "about" says nothing within its cut and goes; "said" does — the question is answered, and what
    # lies beyond it is not read.
    kept = [about, said, other, single, also]
    trace = Trace("q", "q")
    out = sentences.check(kept, QUERY, params, ref, ctx, trace)
    assert [c.chunk_id for c in out] == ["said", "other", "single", "also"]
    assert read == [2, 1]
    stage = trace.stage("sentences")
    assert stage is not None and [d.chunk_id for d in stage.dropped] == ["about"]
    reason = str(stage.dropped[0].reason)
    assert "0.250" in reason and "0.260" in reason
    assert stage.data.nearest_sentences == {"about": round(cut + 0.01, 4), "said": round(cut - 0.02, 4)}

    # Nothing says anything within its cut: every passage read is dropped; one of one sentence cannot be judged.
    read.clear()
    trace = Trace("q", "q")
    assert sentences.check([about, single, also], QUERY, params, ref, ctx, trace) == [single]
    assert read == [2, 5, 3]  # by distance
    stage = trace.stage("sentences")
    assert stage is not None and [d.chunk_id for d in stage.dropped] == ["about", "also"]

    # A passage firmly inside its cut answers: nothing is read, everything kept, the trace says which.
    read.clear()
    kept = [about, said, single]
    firm = Candidate(0, "firm", "d", cut - window - 0.001, cut=cut)
    trace = Trace("q", "q")
    assert sentences.check([firm, *kept], QUERY, params, ref, ctx, trace) == [firm, *kept]
    stage = trace.stage("sentences")
    assert read == [] and stage is not None and stage.data.firm == "firm" and not stage.dropped

    # Off, without a reference or without a reader: nothing is read, nothing dropped, no stage.
    for p, r, c in ((replace(params, sentence_check=False), ref, ctx), (params, None, ctx),
                    (replace(params, use_threshold=False), ref, ctx),
                    (params, ref, replace(ctx, sentence_vectors=None))):
        trace = Trace("q", "q")
        assert sentences.check(kept, QUERY, p, r, c, trace) == kept and trace.stage("sentences") is None
    assert read == []


def test_a_sentence_just_inside_its_cut_needs_the_questions_words_beside_it() -> None:
    """Where the sentence a passage holds lies within its cut but not firmly (less than the window inside it), the
    passage must also hold ``sentence_words`` of the question's word weight; a sentence firmly inside needs none."""
    ref = Distribution.of(np.linspace(0.22, 0.38, 101).astype(np.float32))
    params = RetrievalParams(k=5, pool_factor=4, threshold_quantile=0.10, sentence_window=0.5, sentence_words=0.4)
    cut = 0.25  # window 0.032: "firmly inside" = a sentence at 0.218 or nearer
    by_row: dict[int, Vectors | None] = {1: np.stack([at(0.30), at(cut - 0.01)]),  # just inside the cut
                                         2: np.stack([at(cut - 0.04), at(0.30)])}  # firmly inside it
    ctx = Context(titles={}, glossary=[], embed_queries=lambda texts: np.zeros((0, 3)),
                  sentence_vectors=lambda rows: [by_row[r] for r in rows])

    def passage(row: int, share: float | None) -> Candidate:
        return Candidate(row, f"p{row}", "d", cut - 0.005 + row * 0.001, cut=cut, word_share=share)

    # Few words beside a sentence just inside: dropped, the reason naming the share held and needed; the next one
    # read holds its sentence firmly inside and stays whatever its words.
    trace = Trace("q", "q")
    out = sentences.check([passage(1, 0.25), passage(2, 0.05)], QUERY, params, ref, ctx, trace)
    assert [c.chunk_id for c in out] == ["p2"]
    stage = trace.stage("sentences")
    assert stage is not None and stage.data.words_needed == 0.4
    assert [d.chunk_id for d in stage.dropped] == ["p1"]
    reason = str(stage.dropped[0].reason)
    assert "25%" in reason and "40%" in reason and "0.240" in reason
    # Enough words, words not asked (None), or the rule off (0): a sentence within the cut is enough.
    for share, p in ((0.45, params), (None, params), (0.25, replace(params, sentence_words=0.0))):
        trace = Trace("q", "q")
        assert [c.chunk_id for c in sentences.check([passage(1, share)], QUERY, p, ref, ctx, trace)] == ["p1"]
        assert not trace.stage("sentences").dropped  # type: ignore[union-attr]
