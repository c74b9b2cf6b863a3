"""The marks a proposed web entry carries and what approving it must confirm (issue 59, SPEC W6).

Two kinds of sentence are marked: one addressed to a model or the reader (web/injection.py: left out when proposed,
but an operator's edit may put it back) and one the space's own material states otherwise (services/contradict.py,
marked when the entry is proposed and read again at approval: a document added since may state otherwise). An entry
still holding either is approved only when the operator names each such sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from biny.core.embed.sentences import sentence_texts
from biny.core.errors import BinyError
from biny.core.i18n import t
from biny.core.services.contradict import contradictions
from biny.core.services.models import Models
from biny.core.services.retrieval import Retriever
from biny.core.web import injection

__all__ = ["ContradictedNotConfirmed", "EntryMarks", "FlaggedNotConfirmed"]


class FlaggedNotConfirmed(BinyError):
    """An approval of an entry holding a flagged sentence that the operator did not name (issue 59)."""


class ContradictedNotConfirmed(FlaggedNotConfirmed):
    """An approval of an entry holding a sentence the space's own material contradicts, not named (issue 59)."""


class EntryMarks:
    """Marks an entry's contradicted sentences when it is proposed; refuses an approval that leaves a marked
    sentence unnamed."""

    def __init__(self, retriever: Retriever, models: Models) -> None:
        self.retriever = retriever
        self.models = models

    def contradicted(self, space: str, sentences: list[str]) -> list[dict[str, Any]]:
        """The sentences the space's own material states otherwise, each with the space's sentence, its document
        and page, as the review queue stores them."""
        return [c.to_dict() for c in contradictions(self.retriever, self.models, space, sentences)]

    def check_approval(self, review_id: str, space: str, body: str, marked: list[dict[str, Any]],
                       confirm_flagged: Sequence[str], confirm_contradicted: Sequence[str]) -> None:
        """Raise unless every flagged sentence still in ``body`` is named in ``confirm_flagged`` (its text, or at
        least 12 characters of it) and every contradicted one — ``marked`` when proposed, or found now — in
        ``confirm_contradicted``."""
        unconfirmed = [s for s in injection.flagged_sentences(body) if not injection.named(s, confirm_flagged)]
        if unconfirmed:
            raise FlaggedNotConfirmed(t(
                "The entry of review {review_id} still holds {n} sentence(s) addressed to a model or the reader: "
                "{sentences}. Remove them (biny review approve {review_id} --edit FILE), or approve naming each: "
                "--confirm-flagged \"SENTENCE\".").format(review_id=review_id, n=len(unconfirmed),
                                                           sentences="; ".join(f"«{s}»" for s in unconfirmed)))
        # Read again against the material as it is now: a document added since the proposal may state otherwise.
        sentences = [u for u in sentence_texts(body.split("\n---\n")[0])[0] if not u.lstrip().startswith("#")]
        _refuse_contradicted(review_id, body, [*marked, *self.contradicted(space, sentences)], confirm_contradicted)


def _refuse_contradicted(review_id: str, body: str, marks: list[dict[str, Any]],
                         confirmations: Sequence[str]) -> None:
    """An entry still holding a sentence the space states otherwise (marked when proposed, or found now) is
    approved only when the operator names it."""
    plain = " ".join(body.split())
    marked = {c["sentence"]: c for c in marks}
    left = [c for c in marked.values() if " ".join(c["sentence"].split()) in plain
            and not injection.named(c["sentence"], confirmations)]
    if left:
        shown = "; ".join(t("«{sentence}» — contradicted by {where}: «{mine}»").format(
            sentence=c["sentence"], where=f"{c['title']}, p. {c['page']}" if c.get("page") else c["title"],
            mine=c["mine"]) for c in left)
        raise ContradictedNotConfirmed(t(
            "The entry of review {review_id} holds {n} sentence(s) that your own material states otherwise: "
            "{sentences}. Correct or remove them (biny review approve {review_id} --edit FILE), or approve naming "
            "each: --confirm-contradicted \"SENTENCE\".").format(review_id=review_id, n=len(left),
                                                                  sentences=shown))
