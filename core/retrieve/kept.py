"""Which rule put each passage in the context (issue 47, 56): read from the candidate itself.

A stage that keeps a passage for a reason beyond the plain distance cut says so on the candidate as it keeps it
(``Candidate.kept_as``: the space gate's words, the dictionary's renderings, the model judge, the fitted relevance
judge, more material); a candidate also carries its own cut and word share. ``kept_rule`` turns these into the
typed ``Kept`` on the hit, so the Inspector and ``--json`` read the rule itself — and nothing reads a decision back
out of the trace, which is the audit log only.
"""

from __future__ import annotations

from biny.core.results import Kept
from biny.core.retrieve.candidates import Candidate

# Reasons that hold wherever the passage lies against its cut.
_ANYWHERE = ("more material", "judged", "relevance judge")


def kept_rule(c: Candidate, cut: float | None) -> Kept:
    if c.pinned:
        return Kept("pinned")
    said = c.kept_as
    if said is not None and said.rule in _ANYWHERE:
        return said
    within = cut is None or c.distance <= cut
    if within and said is not None and said.rule == "gate words":
        return said
    if within:
        return Kept("within cut")
    if said is not None and said.rule == "translated words":
        return said
    if c.word_share:
        return Kept("words", share=c.word_share)
    return Kept("second pass or nearest")
