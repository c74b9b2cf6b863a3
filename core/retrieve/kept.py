"""Which rule put each passage in the context (issue 47): read once, here, from what the stages recorded.

The threshold stage records the passages its words kept beyond the space-wide gate and those the dictionary's
renderings kept beyond their cut; the judge records the passages the model said answer; a candidate carries its
own cut and word share. ``kept_rule`` turns these into a typed ``Kept`` on the hit, so the Inspector and
``--json`` read the rule itself.
"""

from __future__ import annotations

from biny.core.results import Kept
from biny.core.retrieve.candidates import Candidate
from biny.core.retrieve.trace import Trace


def kept_rule(c: Candidate, cut: float | None, trace: Trace) -> Kept:
    if c.pinned:
        return Kept("pinned")
    if trace.stage("more_material") is not None:
        return Kept("more material")
    judge = trace.stage("judge")
    if judge is not None and c.chunk_id in judge.data.get("answering", []):
        return Kept("judged", band=judge.data.get("band"), model=str(judge.data.get("model", "")))
    threshold = trace.stage("threshold")
    data = threshold.data if threshold is not None else {}
    gate = data.get("space_gate") or {}
    within = cut is None or c.distance <= cut
    if within and c.word_share is not None and c.chunk_id in gate.get("kept_by_words", []):
        return Kept("gate words", share=c.word_share, gate=gate.get("gate"))
    if within:
        return Kept("within cut")
    translated = data.get("translated") or {}
    if c.chunk_id in translated.get("kept_beyond_cut", []):
        return Kept("translated words", share=translated.get("shares", {}).get(c.chunk_id))
    if c.word_share:
        return Kept("words", share=c.word_share)
    return Kept("second pass or nearest")
