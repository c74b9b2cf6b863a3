"""Issue 20 (R2/R9): a passage kept near its cut must say something within the cut.

The cut judges a passage whole. Inside one topic a passage about a neighbouring subject sits
near every question on that subject, as close as the passage that answers one — but an answer
is *said* somewhere: a sentence of the answering passage (alone or with the next) lies within its cut, as
near the question as the passage or nearer. When no kept passage lies ``sentence_window``
reference spreads or more inside its cut — when the cut is unsure whether anything answers —
the kept passages are read and each sentence, alone and with its neighbour, embedded
(text/sentences.py ``sentence_windows``, under the passage's contextual header), nearest first,
until one holds a sentence within its own cut: those read before it are dropped, it and the rest
stay. A sentence firmly within the cut (``sentence_window`` spreads or more) says it; one only just within it keeps
the passage beside ``sentence_words`` (40 %) of the question's word weight — the two signals agreeing where each
alone is unsure (eleventh pass: the sentences of passages kept for questions the space cannot answer lay a median
0.38 spread inside their cut, those of answers 1.12). Not read: anything, when a passage lies firmly inside its
cut, nor what comes after a passage the check kept (it cost one embedding per window then;
measured, reading the rest beside them changed no answer or refusal and cost 5× the reads);
passages of one sentence (nothing finer to read); those in another script or language than the
question, or written in two scripts (their cut comes from another reference; the signals of
threshold.py judge them, as the space gate leaves them to those).

Measured (bench/README.md, ninth pass): questions about articles a space lacks, refused — Chinese
0.835 → 0.850, English 0.814 → 0.881, German 0.627 → 0.667, Spanish 0.492 → 0.520, Hindi 0.864 →
0.898, Vietnamese 0.644 → 0.751; answers in English, Chinese, CMRC, Arabic, German, Russian, Thai
unchanged, Spanish / Hindi / Vietnamese 1–3 in 200 fewer, English paraphrases 0.797 → 0.763.
Sentences alone lost twice the answers pairs did; pairs alone dropped a one-sentence answer
followed by a sentence about something else: each sentence is read alone and with the next.
"""

from __future__ import annotations

import time

import numpy as np

from biny.core.embed.base import Vectors
from biny.core.i18n import msg
from biny.core.retrieve.baseline import Distribution
from biny.core.retrieve.candidates import Candidate, Context, RetrievalParams
from biny.core.trace import Dropped, Stage, Trace
from biny.core.trace.records import SentencesRecord


def check(kept: list[Candidate], query_vector: Vectors, params: RetrievalParams, ref: Distribution | None,
          ctx: Context, trace: Trace) -> list[Candidate]:
    """``kept`` without the passages no sentence of which (alone or with the next) lies within their cut — asked
    only when no passage lies ``sentence_window`` spreads or more inside its own."""
    if not params.sentence_check or not params.use_threshold or params.max_distance is not None or ref is None \
            or ctx.sentence_vectors is None:
        return kept
    t0 = time.perf_counter()
    window = params.sentence_window * (ref.median - ref.quantile(params.threshold_quantile))
    # A passage firmly within its cut answers the question: reading the rest by sentence would only trim what comes
    # beside it, for one embedding per sentence — the check decides whether anything answers, where the cut is unsure.
    firm = next((c for c in kept if c.cut is not None and c.distance <= c.cut - window), None)
    if firm is not None:
        trace.add(Stage("sentences", msg("a passage lies {window} or more inside its cut: none read by sentence")
                        .format(window=f"{window:.3f}"), kept=[c.chunk_id for c in kept],
            data=SentencesRecord(round(window, 4), {}, firm=firm.chunk_id),
            ms=(time.perf_counter() - t0) * 1000))
        return kept
    near = sorted((c for c in kept if c.cut is not None and not c.elsewhere), key=lambda c: c.distance)
    nearest: dict[str, float] = {}
    dropped: list[Dropped] = []
    # Nearest first, one at a time: the first passage that says something within its cut answers the question, and
    # the rest stay unread as beside a firm one (an unanswerable question has every passage read and dropped).
    for c in near:
        assert c.cut is not None
        s = _nearest_sentence(c, ctx, query_vector)
        if s is None:
            continue
        nearest[c.chunk_id] = round(s, 4)
        # A sentence firmly inside the cut says it; one just inside it must have the question's words beside it.
        # A passage holding a rare word of the question and most of its weight (a name asked about, issue 45) may
        # have its nearest sentence a window beyond the cut: a list of alumni naming 潘基文 says little else.
        if s <= c.cut - window or (s <= c.cut and (c.word_share is None or c.word_share >= params.sentence_words)) \
                or (c.named and s <= c.cut + window):
            break
        if s <= c.cut:
            held = int((c.word_share or 0) * 100)  # floored: 39.8 % must not read "40% (needs 40%)"
            reason = msg("its nearest sentence ({s}) lies less than {window} inside its cut ({cut}) and it holds "
                         "{share} of the question's words (needs {needed} there)").format(
                s=f"{s:.3f}", window=f"{window:.3f}", cut=f"{c.cut:.3f}", share=f"{held}%",
                needed=f"{params.sentence_words:.0%}")
        else:
            reason = msg("no sentence of it, alone or with the next, within its cut ({cut}; nearest {s})").format(
                cut=f"{c.cut:.3f}", s=f"{s:.3f}")
        dropped.append(Dropped(c.chunk_id, reason, c.distance))
    gone = {d.chunk_id for d in dropped}
    out = [c for c in kept if c.chunk_id not in gone]
    trace.add(Stage(
        "sentences", msg("no passage {window} or more inside its cut: {read} read by sentence, {dropped} without a "
                         "sentence within it (or one just inside, beside under {needed} of the question's words)")
        .format(
            read=len(nearest), window=f"{window:.3f}", dropped=len(dropped), needed=f"{params.sentence_words:.0%}"),
        kept=[c.chunk_id for c in out], dropped=dropped,
        data=SentencesRecord(round(window, 4), nearest, words_needed=params.sentence_words),
        ms=(time.perf_counter() - t0) * 1000,
    ))
    return out


def _nearest_sentence(c: Candidate, ctx: Context, query_vector: Vectors) -> float | None:
    """The distance of the passage's nearest sentence (alone or with the next) to the question; None for a passage
    of one sentence (nothing finer to read)."""
    assert ctx.sentence_vectors is not None
    vectors = ctx.sentence_vectors([c.row])[0]
    return None if vectors is None else float(np.min(1.0 - vectors @ query_vector))


GATE_READS = 3  # passages read at most for the rescue below: each costs an embedding per sentence
# How far inside the gate, in reference spreads, the rescuing sentence must lie. Measured over the unanswerable sets
# of bench/eval_retrieval.py: the sentences that rescued passages for questions the space cannot answer lay 0.51–0.92
# spreads inside, those of answers 1.76 (XQuAD ru) and 2.1 (the demo's workshop question).
GATE_MARGIN = 1.0


def rescue_gated(kept: list[Candidate], pool: list[Candidate], query_vector: Vectors, params: RetrievalParams,
                 ref: Distribution | None, ctx: Context, trace: Trace) -> list[Candidate]:
    """Nothing kept: the passages the space-wide gate alone dropped that hold ``gate_sentence_words`` of the question's
    word weight, nearest first (at most ``GATE_READS``), are read by sentence, and one holding a sentence (alone or
    with the next) firmly within the gate stays.

    The gate measures a passage whole. A passage that covers several subjects — a price list's five plans, a manual's
    section of light codes — lies as far from a question about one of them as unrelated questions do, though the
    sentence that answers lies well inside ("Which plan suits a workshop?": the price list 0.216 against a gate of
    0.215, its sentence "The Starter plan is for households and small workshops …" 0.170). Firmly: ``GATE_MARGIN``
    reference spreads inside."""
    if kept or not params.gate_sentences or not params.sentence_check or not params.use_threshold \
            or params.max_distance is not None or ref is None or ctx.sentence_vectors is None:
        return kept
    # Words and meaning must agree: the passage holds part of the question's words, a sentence of it the meaning.
    gated = sorted((c for c in pool if c.gated is not None and (c.word_share or 0.0) >= params.gate_sentence_words),
                   key=lambda c: c.distance)[:GATE_READS]
    if not gated:
        return kept
    t0 = time.perf_counter()
    window = GATE_MARGIN * (ref.median - ref.quantile(params.threshold_quantile))
    nearest: dict[str, float] = {}
    rescued: list[Candidate] = []
    for c in gated:
        assert c.gated is not None
        s = _nearest_sentence(c, ctx, query_vector)
        if s is None:
            continue  # one sentence: the passage is its sentence, already judged whole
        nearest[c.chunk_id] = round(s, 4)
        # Its own cut already let it through (by distance, or by its words): the gate is what the sentence answers.
        if s <= c.gated - window:
            rescued.append(c)
    trace.add(Stage(
        "gate_sentences", msg("nothing kept: {read} passage(s) dropped by the space-wide gate read by sentence, {kept} "
                              "kept for a sentence {window} or more inside it").format(
            read=len(nearest), kept=len(rescued), window=f"{window:.3f}"),
        kept=[c.chunk_id for c in rescued],
        data=SentencesRecord(round(window, 4), nearest),
        ms=(time.perf_counter() - t0) * 1000,
    ))
    return rescued
