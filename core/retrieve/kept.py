"""Which rule put each passage in the context (issue 47): read once, here, from what the stages recorded.

The threshold stage records the passages its words kept beyond the space-wide gate and those the dictionary's
renderings kept beyond their cut; the judge records the passages the model said answer; a candidate carries its
own cut and word share. ``kept_rule`` turns these into a typed ``Kept`` on the hit, so the Inspector and
``--json`` read the rule itself.
"""

from __future__ import annotations

from biny.core.results import Kept
from biny.core.retrieve.candidates import Candidate
from biny.core.retrieve.records import JudgeRecord, ThresholdRecord
from biny.core.retrieve.trace import Trace


def kept_rule(c: Candidate, cut: float | None, trace: Trace) -> Kept:
    if c.pinned:
        return Kept("pinned")
    if trace.stage("more_material") is not None:
        return Kept("more material")
    judge = trace.record(JudgeRecord)
    if judge is not None and c.chunk_id in judge.answering:
        return Kept("judged", band=judge.band, model=judge.model)
    threshold = trace.record(ThresholdRecord)
    gate = threshold.space_gate if threshold is not None else None
    within = cut is None or c.distance <= cut
    if within and c.word_share is not None and gate is not None and c.chunk_id in gate.kept_by_words:
        return Kept("gate words", share=c.word_share, gate=gate.gate)
    if within:
        return Kept("within cut")
    translated = threshold.translated if threshold is not None else None
    if translated is not None and c.chunk_id in translated.kept_beyond_cut:
        return Kept("translated words", share=translated.shares.get(c.chunk_id))
    if c.word_share:
        return Kept("words", share=c.word_share)
    return Kept("second pass or nearest")
