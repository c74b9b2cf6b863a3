"""R2/R9: cut the pool at distances set against the measured reference, checked by words.

Each candidate leaves this stage carrying its own cut (``Candidate.cut``) and, where
words are evidence, its word share (``Candidate.word_share``); the trace records them.
Fewer than K kept is a correct result; nothing is padded.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from biny.core.crypto.blind import BlindIndex
from biny.core.embed.base import Vectors
from biny.core.i18n import Said, msg
from biny.core.results import Kept
from biny.core.retrieve import relevance, translated
from biny.core.retrieve.baseline import Baselines, Distribution, load_questions
from biny.core.retrieve.candidates import Candidate, Context, Judging, RetrievalParams
from biny.core.retrieve.lexical import LexicalEvidence, evidence, familiarity
from biny.core.retrieve.translated import shared_terms
from biny.core.store.vectors import VectorMatrix
from biny.core.text.language import TAGGED
from biny.core.text.question import Question
from biny.core.text.scripts import SCRIPTS, script_name
from biny.core.trace import Dropped, Stage, Trace
from biny.core.trace.records import (
    LexicalRecord,
    RelevanceRecord,
    SharedTermsRecord,
    SpaceGateRecord,
    ThresholdRecord,
    TranslatedRecord,
)


@dataclass(slots=True)
class WordCheck:
    """Whether and how word overlap judges passages for this question."""

    evidence: LexicalEvidence
    familiar: float
    applies: bool
    rescue_distance: float | None
    other_script: set[int]  # rows written without the script of the question's words: not asked
    # A passage this far inside its distance cut is kept whatever words it shares: a paraphrase (issue 20).
    inside_by: float | None = None
    # Rows written without the question's script, whether or not words are asked of them (cross_script_gap).
    cross_script: set[int] = field(default_factory=set)
    language: str | None = None  # the question's language when its words are Latin script and it is sure
    # How far a passage holding a rare word of the question and most of its weight may come from (issue 45).
    name_rescue: float | None = None


def other_language_rows(pool: list[Candidate], vm: VectorMatrix, blind: BlindIndex, language: str | None) -> set[int]:
    """Rows whose recorded language (text/language.py) is not the question's; none when either is unknown."""
    if language is None:
        return set()
    tagged, own = blind.aspect(TAGGED), blind.aspect(f"lang:{language}")
    return {c.row for c in pool if tagged in vm.aspects[c.row] and own not in vm.aspects[c.row]}


@dataclass(slots=True)
class Cuts:
    """Each passage's distance cut and how it was set."""

    cuts: dict[int, float]
    how: Said
    encyclopedic: set[int] = field(default_factory=set)  # rows measured against the encyclopedia questions too
    # Rows in another script → the cut everyday questions in the question's language alone set them (the language
    # pair's reference): one between its cut and this is kept when translated words vouch (retrieve/translated.py).
    paired: dict[int, float] = field(default_factory=dict)


def distance_cuts(j: Judging, baselines: Baselines, language: str | None = None,
                  other_language: frozenset[int] = frozenset()) -> Cuts:
    """Row → the distance that passage must beat, with a sentence saying how it was set."""
    pool, params, group, ref = j.pool, j.params, j.group, j.ref
    if not params.use_threshold:
        return Cuts({}, msg("threshold switched off"))
    if params.max_distance is not None:
        return Cuts({c.row: params.max_distance for c in pool}, msg("explicit cut {cut}").format(
            cut=f"{params.max_distance:.3f}"))
    if ref is None:
        return Cuts({}, msg("no reference measured yet: nothing cut"))
    if params.local_cut and baselines.questions:
        return local_cuts(j, ref, baselines, language, other_language)
    gate = ref.quantile(params.threshold_quantile)
    keep = max(gate, ref.quantile(params.keep_quantile))
    # Nothing comes as close as the closest tenth of unrelated questions do: nothing answers.
    flat = gate if pool and pool[0].distance > gate else keep
    return Cuts({c.row: flat for c in pool},
                msg("top hit must be within {gate} (p{gq}), further hits within {keep} (p{kq}) of unrelated questions' "
                    "nearest distance ({group}, median {median})").format(
                    gate=f"{gate:.3f}", gq=f"{params.threshold_quantile * 100:.0f}", keep=f"{keep:.3f}",
                    kq=f"{params.keep_quantile * 100:.0f}", group=script_name(group), median=f"{ref.median:.3f}"))


def local_cuts(j: Judging, ref: Distribution, baselines: Baselines, language: str | None,
               other_language: frozenset[int]) -> Cuts:
    """Each passage against the unrelated questions closest to *it*: a margin of the reference's own spread
    (median − p10) below their mean distance (retrieve/baseline.py)."""
    pool, vm, params, group, blind = j.pool, j.vm, j.params, j.group, j.blind
    spread = ref.median - ref.quantile(params.threshold_quantile)
    margin = params.local_margin * spread
    # Passages marked as written in the question's script meet the knowledge questions too, which
    # sit closer to them than everyday questions do: a narrower margin there (issue 20).
    mark = blind.aspect(f"script:{group}")
    # Rows in another language than the question's (``other_language_rows``), where it has reference questions.
    known = language is not None and language in baselines.languages
    foreign = np.array([known and c.row in other_language for c in pool], dtype=bool)
    own = np.array([params.knowledge_refs and group in baselines.knowledge and mark in vm.aspects[c.row]
                    for c in pool], dtype=bool) & ~foreign
    local = baselines.local_reference(group, vm.matrix, [c.row for c in pool], own=own,
                                      language=(language, foreign) if language is not None else None)
    margins = np.where(own, params.knowledge_margin * spread, margin)
    # Rows in another script, when the question's language has everyday questions of its own: also against those
    # alone — the language pair's reference (issue 20: an English question over Chinese text came no closer to its
    # answer than the nearest German or Vietnamese everyday questions did, and lost 8 answers in 10).
    marks = {blind.aspect(f"script:{g}") for g, _ in SCRIPTS}
    paired = [c.row for c in pool if params.pair_reference and known and mark not in vm.aspects[c.row]
              and marks & vm.aspects[c.row]]
    pair_local = baselines.language_reference(str(language), vm.matrix, paired) if paired else np.zeros(0)
    how = msg("each passage must be closer than its 3 nearest unrelated {group} questions are, by {margin} "
              "({factor} × the reference's median − p10)").format(group=script_name(group), margin=f"{margin:.3f}",
                                                                factor=f"{params.local_margin:g}")
    if own.any():
        how += msg("; {n} in the question's script against everyday and encyclopedia questions, by {margin} "
                   "({factor} ×)").format(n=int(own.sum()), margin=f"{params.knowledge_margin * spread:.3f}",
                                       factor=f"{params.knowledge_margin:g}")
    if foreign.any():
        how += msg("; {n} in another language than the question's ({language}) against everyday questions in "
                   "{language} only").format(n=int(foreign.sum()), language=language)
    return Cuts({c.row: float(h - m) for c, h, m in zip(pool, local, margins, strict=True)}, how,
                {c.row for c, o in zip(pool, own, strict=True) if o},
                {r: float(h - margin) for r, h in zip(paired, pair_local, strict=True)})


def word_check(j: Judging, baselines: Baselines, language: str | None = None,
               other_language: frozenset[int] = frozenset()) -> WordCheck:
    pool, vm, params, group, ref, blind = j.pool, j.vm, j.params, j.group, j.ref, j.blind
    lex = j.words if j.words is not None else evidence(j.query, vm, blind)
    familiar = baselines.familiar.get(group)
    if familiar is None:
        texts = [q for g, q in load_questions() if g == group or group == "all"]
        familiar = baselines.familiar[group] = familiarity(texts, vm, blind)
    # Words are evidence when the space knows the question's words, or is written in its
    # script at all — then knowing none of them means the material does not cover it.
    applies = params.lexical_check and params.use_threshold and params.max_distance is None and ref is not None \
        and (lex.applies(params.lexical_known) or familiar >= params.lexical_familiar)
    rescue = ref.quantile(params.rescue_quantile) if applies and ref is not None else None
    name_rescue = ref.quantile(params.name_rescue_quantile) if applies and ref is not None else None
    # Word overlap is asked only of passages written in the script of the question's words:
    # in a space of Chinese and English documents, a Chinese question's answer in English
    # shares no Chinese words, and distance alone judges it (as in an all-English space).
    # ("RFC 9110 的标题是什么？" is judged on rfc/9110: English passages are asked.)
    # Passages stored before scripts were recorded carry no script mark and are all asked.
    own_mark = blind.aspect(f"script:{lex.script}")
    marks = {blind.aspect(f"script:{g}") for g, _ in SCRIPTS}
    elsewhere = {c.row for c in pool if lex.script != "all"
                 and own_mark not in vm.aspects[c.row] and marks & vm.aspects[c.row]}
    # Within the Latin script, by language: a German question's answer in an English passage shares no German
    # words either (text/language.py). Passages stored before languages were recorded carry no mark and are asked.
    lang = language if lex.script == "latin" else None
    if lang is not None:
        elsewhere |= other_language
    inside = None
    if applies and ref is not None and params.lexical_override > 0:
        inside = params.lexical_override * (ref.median - ref.quantile(params.threshold_quantile))
    return WordCheck(lex, familiar, applies, rescue, elsewhere if params.lexical_own_script else set(), inside,
                     elsewhere, lang, name_rescue)


def verdict(c: Candidate, words: WordCheck, params: RetrievalParams, encyclopedic: bool = False) -> Said | None:
    """None when kept, else why the passage was dropped."""
    share = c.word_share
    if words.applies and share is not None and words.rescue_distance is not None \
            and share >= params.lexical_rescue and c.distance <= words.rescue_distance:
        return None
    if c.named and words.name_rescue is not None and c.distance <= words.name_rescue:
        return None
    if c.cut is not None and c.distance > c.cut:
        if encyclopedic:
            return msg("beyond the distance cut ({cut} for this passage, set with encyclopedia questions of its "
                       "script)").format(cut=f"{c.cut:.3f}")
        return msg("beyond the distance cut ({cut} for this passage)").format(cut=f"{c.cut:.3f}")
    if words.inside_by is not None and c.cut is not None and c.cut - c.distance >= words.inside_by:
        return None  # far inside its cut: the words are not asked (a paraphrase shares few of them)
    if words.applies and share is not None and share < params.lexical_min and c.row not in words.other_script:
        return msg("shares {share} of the question's words (needs {needed})").format(
            share=f"{share:.0%}", needed=f"{params.lexical_min:.0%}")
    return None


def cross_script_gap(j: Judging, words: WordCheck) -> Said:
    """Passages in another script than the question's, kept by their cut, must also be about as close as the
    nearest of them: within ``cross_script_gap`` × the reference's spread behind it (issue 20).

    Across scripts a multilingual model's distances bunch together, so a cut that lets the answer through lets
    its neighbours through too (a Chinese question over English articles kept 4.5 passages of 5 where one
    language keeps ~3). Words cannot judge there, so the distance gap does. Returns a sentence for the trace.
    """
    pool, reasons, params, ref = j.pool, j.reasons, j.params, j.ref
    if not params.cross_script_gap or ref is None or not words.cross_script or not params.use_threshold \
            or params.max_distance is not None:
        return ""
    other = [c for c in pool if c.row in words.cross_script and reasons[c.row] is None]
    if len(other) < 2:
        return ""
    gap = params.cross_script_gap * (ref.median - ref.quantile(params.threshold_quantile))
    best = min(c.distance for c in other)
    for c in other:
        if c.distance > best + gap:
            reasons[c.row] = msg("{gap} or more behind the nearest passage in another script ({best})").format(
                gap=f"{gap:.3f}", best=f"{best:.3f}")
    return msg("passages in another script within {gap} of the nearest of them ({factor} × the reference's "
               "median − p10)").format(gap=f"{gap:.3f}", factor=f"{params.cross_script_gap:g}")


def space_gate(j: Judging, words: WordCheck, foreign: frozenset[int]) -> tuple[Said, SpaceGateRecord | None]:
    """Passages written in the question's script alone and in its language, kept by their own cut, must also lie
    within the space-wide gate — the ``threshold_quantile`` of unrelated questions' nearest distance — unless they
    hold ``space_gate_words`` of the question's word weight (issue 20: two signals agreeing).

    The per-passage cut forgives a passage that sits close to every question; inside one topic that keeps passages
    about a neighbouring subject (CMRC questions about articles the space lacks kept passages 1 time in 4). Across
    scripts and languages the distances bunch apart from this reference, and the signals above judge instead — so
    too for a passage written in two scripts (a Chinese article full of English names, asked in English).
    Returns a sentence for the trace, and the gate, the passages it dropped and those beyond it kept for their
    words."""
    pool, reasons, params, group, ref, vm, blind = j.pool, j.reasons, j.params, j.group, j.ref, j.vm, j.blind
    if not params.space_gate or not params.local_cut or ref is None or not params.use_threshold \
            or params.max_distance is not None:
        return "", None
    gate = ref.quantile(params.threshold_quantile)
    others = {blind.aspect(f"script:{g}") for g, _ in SCRIPTS if g != group}
    dropped, by_words = [], []
    for c in pool:
        if reasons[c.row] is not None or c.row in words.cross_script or c.row in foreign or c.distance <= gate \
                or others & vm.aspects[c.row]:
            continue
        if c.word_share is not None and c.word_share >= params.space_gate_words:
            by_words.append(c.chunk_id)
            c.kept_as = Kept("gate words", share=c.word_share, gate=gate)
            continue
        share = f"{c.word_share:.0%}" if c.word_share is not None else msg("none asked")
        c.gated = gate
        reasons[c.row] = msg("beyond the space-wide gate ({gate}) and shares {share} of the question's words (needs "
                             "{needed} there)").format(gate=f"{gate:.3f}", share=share,
                                                     needed=f"{params.space_gate_words:.0%}")
        dropped.append(c.chunk_id)
    record = SpaceGateRecord(round(gate, 4), params.space_gate_words, dropped, by_words)
    return msg("passages in the question's script must also be within {gate} (p{q} of unrelated {group} questions' "
               "nearest distance) or share ≥{needed} of its words").format(
                 gate=f"{gate:.3f}", q=f"{params.threshold_quantile * 100:.0f}", group=script_name(group),
                 needed=f"{params.space_gate_words:.0%}"), record


def shared_terms_check(j: Judging, words: WordCheck) -> tuple[Said, SharedTermsRecord | None]:
    """Passages in another script or language than the question's, kept by their cut, must hold one of its
    ``shared_terms`` when it has any (issue 20). Words cannot judge there and the model's distances bunch
    together; a number or a Latin-script name is the one thing both sides write the same way (measured on XQuAD:
    of the questions with one, 91–94 % have it in the English paragraph answering them). Returns a sentence for
    the trace, and the terms asked and the candidates holding one."""
    pool, reasons, params, vm, blind = j.pool, j.reasons, j.params, j.vm, j.blind
    if not params.shared_terms or not words.cross_script or not params.use_threshold \
            or params.max_distance is not None:
        return "", None
    # A Latin-script word the space holds nowhere says nothing about one passage: a name misspelt ("Abilene" asked
    # as "ableine"), or one the material lacks — which distance already judges. A number is asked regardless.
    names = {n for n in shared_terms(j.query, words.evidence.script) if n.isdigit() or vm.df.get(blind(n), 0) > 0}
    if not names:
        return "", None
    coded = [blind(n) for n in names]
    listed = ", ".join(sorted(names))
    # A document names its year or subject once, not in every passage: one of its candidates holding a shared term
    # vouches for the others (a Super Bowl article's passages about "the 2015 season" that say "that season").
    holding = [c for c in pool if any(n in vm.terms[c.row] for n in coded)]
    vouched = {c.doc_id for c in holding}
    for c in pool:
        if c.row in words.cross_script and reasons[c.row] is None and c.doc_id not in vouched:
            reasons[c.row] = msg("in another script or language and holds none of the question's numbers or "
                                 "Latin-script names ({names})").format(names=listed)
    return msg("passages in another script or language must hold one of the question's numbers or Latin-script "
               "names ({names})").format(names=listed), SharedTermsRecord(sorted(names), [c.chunk_id for c in holding])


def cut(query: Question, pool: list[Candidate], vm: VectorMatrix, baselines: Baselines, params: RetrievalParams,
        group: str, ref: Distribution | None, ctx: Context,
        trace: Trace, query_vector: Vectors | None = None) -> tuple[list[Candidate], float | None]:
    """The kept candidates, in pool order, and the top hit's cut (the space's headline cut)."""
    t0 = time.perf_counter()
    j = Judging(query, pool, params, vm, ctx.blind, ref, group, words=ctx.words(query, vm))
    # The question's language, when its script is Latin (one script, many languages: text/language.py).
    language = query.language if group == "latin" and params.by_language else None
    foreign = frozenset(other_language_rows(pool, vm, ctx.blind, language))
    cuts = distance_cuts(j, baselines, language, foreign)
    words = word_check(j, baselines, language, foreign)
    shares = words.evidence.coverages(vm, [c.row for c in pool]) if words.applies else [None] * len(pool)
    named = named_rows(words, pool, shares, vm, params)
    # Passages in another script or language, or written in two scripts, are judged by the cross-language signals
    # below; the sentence check (retrieve/sentences.py) leaves them to those, as the space gate does.
    others = {ctx.blind.aspect(f"script:{g}") for g, _ in SCRIPTS if g != group}
    for c, share in zip(pool, shares, strict=True):
        c.cut = cuts.cuts.get(c.row)
        c.word_share = share
        c.named = c.row in named
        c.elsewhere = c.row in words.cross_script or c.row in foreign or bool(others & vm.aspects[c.row])
    how = cuts.how + _words_how(words, params, group)
    if named and words.name_rescue is not None:
        how += "; " + msg("{n} holding a rare word of the question and ≥{share} of its word weight (a name asked "
                          "about) kept up to {distance} (p{q})").format(
            n=len(named), share=f"{params.name_rescue_words:.0%}", distance=f"{words.name_rescue:.3f}",
            q=f"{params.name_rescue_quantile * 100:.0f}")
    j.reasons = {c.row: verdict(c, words, params, c.row in cuts.encyclopedic) for c in pool}
    # The space-wide gate first (passages in the question's script alone), then translated words (they may keep a
    # passage just beyond its cut), then shared numbers and names: the gap is then measured from the nearest passage
    # that passed them.
    gate_how, gate = space_gate(j, words, foreign)
    translated_how, looked_up = translated.check(j, words.cross_script, cuts.paired)
    terms_how, terms = shared_terms_check(j, words)
    for extra in (gate_how, translated_how, terms_how, cross_script_gap(j, words)):
        if extra:
            how += "; " + extra
    judged = _relevance(j, words, shares, looked_up, query_vector, ctx)
    reasons, how = _judge_decides(pool, judged, how) if judged is not None and judged.decided else (j.reasons, how)
    kept = [c for c in pool if reasons[c.row] is None]
    max_d = pool[0].cut if pool and cuts.cuts else None
    record = ThresholdRecord(
        max_d, group, params.threshold_quantile, {c.chunk_id: round(c.cut, 4) for c in pool if c.cut is not None},
        [vm.chunk_ids[r] for r in sorted(cuts.encyclopedic)], _lexical_record(words, pool, vm), gate, terms,
        looked_up)
    trace.add(Stage(
        "threshold", msg("{kept} of {total} kept").format(kept=len(kept), total=len(pool)) + "; " + how,
        kept=[c.chunk_id for c in kept],
        dropped=[Dropped(c.chunk_id, reasons[c.row] or "", c.distance) for c in pool if reasons[c.row]],
        data=record, ms=(time.perf_counter() - t0) * 1000,
    ))
    if judged is not None:
        trace.add(Stage("relevance", msg("{kept} of {total} judged to answer (p ≥ {needed}, model {model}){how}")
                        .format(
            kept=sum(1 for v in judged.verdicts.values() if v.kept), total=len(judged.verdicts),
            needed=f"{judged.threshold:.2f}", model=judged.model,
            how="" if judged.decided else msg("; recorded beside the rules, which decided")),
            kept=[cid for cid, v in judged.verdicts.items() if v.kept], data=judged))
    return kept, max_d


def _judge_decides(pool: list[Candidate], judged: RelevanceRecord, how: Said) -> tuple[dict[int, Said | None], Said]:
    """Issue 55: the fitted judge keeps and drops (its verdicts, one reason each); the rules stay as its features'
    sources and in the trace's words."""
    for c in pool:
        if c.verdict is not None and c.verdict.kept:
            c.kept_as = Kept("relevance judge", share=c.verdict.score)
    reasons: dict[int, Said | None] = {c.row: None if c.verdict is not None and c.verdict.kept else msg(
        "the relevance judge: {score} < {needed} that it answers").format(
        score=f"{c.verdict.score:.2f}" if c.verdict else "?", needed=f"{judged.threshold:.2f}") for c in pool}
    return reasons, msg("the relevance judge ({model}, strictness {s}) decided; ").format(
        model=judged.model, s=f"{judged.strictness:g}") + how


def _relevance(j: Judging, words: WordCheck, shares: Sequence[float | None], looked_up: TranslatedRecord | None,
               query_vector: Vectors | None, ctx: Context) -> RelevanceRecord | None:
    """Issue 55: the fitted judge's verdict on every pool passage (retrieve/relevance.py); None where no reference
    is measured, an explicit cut is set, the threshold is off, or no model ships."""
    params, ref = j.params, j.ref
    if ref is None or not params.use_threshold or params.max_distance is not None:
        return None
    wanted = query_vector is not None and ctx.stored_sentences is not None and relevance.bundled_model() is not None
    sentences = ctx.stored_sentences([c.row for c in j.pool], params.relevance_decides) \
        if wanted and ctx.stored_sentences else None
    ev = relevance.Evidence(j.query, ref, ref.median - ref.quantile(params.threshold_quantile), words.evidence,
                            words.applies, list(shares), dict(looked_up.shares) if looked_up is not None else {},
                            query_vector, sentences)
    return relevance.record(ev, j.pool, j.vm, j.blind, params.strictness, params.relevance_decides)


def named_rows(words: WordCheck, pool: list[Candidate], shares: Sequence[float | None], vm: VectorMatrix,
               params: RetrievalParams) -> set[int]:
    """The rows holding ``name_rescue_words`` of the question's word weight, a word at most ``name_rescue_df``
    passages of the space hold among it: what a name asked about looks like ("潘基文", "拉采尔"), and what a question
    of common words ("决赛是在哪里举行的？") never has however many passages hold all of them (issue 45)."""
    if not words.applies:
        return set()
    # Read from the space's document frequencies, not the evidence's weights: a word met also by its stem carries
    # its weight split in two (lexical.py STEM_SHARE), and "support" held by 2 passages of 32 must still count.
    rare = {term: w for term, w in words.evidence.weights.items() if 0 < vm.df.get(term, 0) <= params.name_rescue_df}
    rows = [c.row for c, share in zip(pool, shares, strict=True) if share is not None
            and share >= params.name_rescue_words]
    if not rare or not rows:
        return set()
    return {r for r, held in zip(rows, vm.terms.weigh(rows, rare), strict=True) if held > 0}


def _words_how(words: WordCheck, params: RetrievalParams, group: str) -> Said:
    """The trace's words on how the question's words judge its passages ("" when they do not)."""
    how: Said = ""
    if words.applies and words.rescue_distance is not None:
        how += "; " + msg(
            "the space knows {known} of the question's words ({familiar} of everyday {group} questions' words), so a "
            "hit must share ≥{needed} of their weight, and one sharing ≥{rescue} is kept up to {distance} (p{q})"
        ).format(known=f"{words.evidence.known_share:.0%}", familiar=f"{words.familiar:.0%}", group=script_name(group),
                 needed=f"{params.lexical_min:.0%}", rescue=f"{params.lexical_rescue:.0%}",
                 distance=f"{words.rescue_distance:.3f}", q=f"{params.rescue_quantile * 100:.0f}")
        if words.inside_by is not None:
            how += "; " + msg("one {inside} or more inside its cut keeps its place whatever words it shares (a "
                              "paraphrase)").format(inside=f"{words.inside_by:.3f}")
    if words.applies and words.language:
        how += "; " + msg("the question reads as language {language}: passages in other languages are not asked for "
                          "its words").format(language=words.language)
    return how


def _lexical_record(words: WordCheck, pool: list[Candidate], vm: VectorMatrix) -> LexicalRecord:
    return LexicalRecord(
        words.applies, round(words.evidence.known_share, 3), round(words.familiar, 3),
        [vm.chunk_ids[r] for r in sorted(words.other_script)], words.language,
        {c.chunk_id: round(c.word_share, 3) for c in pool if c.word_share is not None},
        words.rescue_distance, words.inside_by, [c.chunk_id for c in pool if c.named],
        words.name_rescue if any(c.named for c in pool) else None)
