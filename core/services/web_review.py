"""The web answers' review queue (SPEC W5–W7): what each web turn proposed, and the operator's decisions.

Each web answer becomes a review item: the question, the answer, every source read or found-only, a snapshot of the
read pages (masked) and the proposed entry, sealed in the space's key. The same pages reached by another question
add that question to the waiting item. Approval ingests the entry (or the operator's edit) with its provenance,
merged with an earlier approved entry from the same page; rejection fingerprints the pages and the question so they
are never proposed again for the space; undo puts an item back to pending.
"""

from __future__ import annotations

import json
import re
import tempfile
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from biny.core.crypto.space import SpaceCrypto
from biny.core.errors import BinyError
from biny.core.i18n import t
from biny.core.results import Answer, Hit, IngestReport
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.services.retrieval import Retriever
from biny.core.services.web_marks import EntryMarks
from biny.core.store.catalog import now
from biny.core.store.review import ReviewRow
from biny.core.web import fingerprint, injection, pii
from biny.core.web.entry import Entry, ReadPage

__all__ = ["Reading", "ReviewItem", "ReviewQueue", "WebSource"]

SNAPSHOT_CHARS = 200_000
NEAR_DUPLICATE = 0.99  # closer than 99% of unrelated questions: the entry says what the space already says


@dataclass(slots=True)
class WebSource:
    url: str
    title: str
    read: bool
    error: str = ""  # why it was not read (timeout, HTTP 404, too large, not text, rejected before …) or not used
    fetched_at: str = ""
    content_hash: str = ""
    simhash: int = 0
    used: bool = True  # read and judged close enough to the question to answer from (False: "read, not used")

    @property
    def domain(self) -> str:
        return (urlsplit(self.url).hostname or "").removeprefix("www.")

    def to_dict(self) -> dict[str, Any]:
        return {"url": self.url, "title": self.title, "read": self.read, "used": self.read and self.used,
                "domain": self.domain, "error": self.error, "fetched_at": self.fetched_at}


@dataclass(slots=True)
class ReviewItem:
    review_id: str
    space: str
    status: str
    created_at: datetime
    question: str
    answer: str
    sources: list[WebSource]
    snapshot: dict[str, str]  # url → the page's main text as read (masked)
    untraced_numbers: list[str]
    entry: Entry
    decided_by: str = ""
    reason: str = ""
    doc_id: str | None = None
    edited: str = ""  # the operator's edited entry, when there was one
    # Sentences of the read pages that addressed a model or the reader: left out of the answer and the entry.
    flagged: list[dict[str, str]] = field(default_factory=list)
    edited_by: str = ""  # who edited the entry, and when (ISO, UTC): the text is theirs, not the pages' (issue 60)
    edited_at: str = ""
    # Every question that reached the same pages (the first is ``question``): one item, not one per wording.
    questions: list[str] = field(default_factory=list)
    # Sentences of the entry the space's own material states otherwise (issue 59: services/contradict.py), each
    # with the space's sentence, its document and page.
    contradicted: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"review_id": self.review_id, "space": self.space, "status": self.status,
                "created_at": self.created_at, "question": self.question, "answer": self.answer,
                "sources": [s.to_dict() for s in self.sources], "snapshot": self.snapshot,
                "untraced_numbers": self.untraced_numbers, "entry": self.entry.to_dict(),
                "entry_text": self.edited or self.entry.markdown(), "decided_by": self.decided_by,
                "reason": self.reason, "doc_id": self.doc_id, "flagged": self.flagged,
                "edited_by": self.edited_by, "edited_at": self.edited_at,
                "questions": self.questions or [self.question], "contradicted": self.contradicted}


@dataclass(slots=True)
class Reading:
    """What one web turn read: every search result (read or not, and why), the pages read (masked), and the
    sentences left out of them for addressing a model or the reader."""

    sources: list[WebSource] = field(default_factory=list)
    pages: list[ReadPage] = field(default_factory=list)
    flagged: list[injection.Flagged] = field(default_factory=list)


def _slug(title: str) -> str:
    return re.sub(r"[^\w]+", "-", title.casefold()).strip("-")[:60]


class ReviewQueue:
    """The review items of every web-enabled space: proposed by a web turn, decided by the operator."""

    def __init__(self, folder: DataFolder, keys: KeySession, retriever: Retriever, marks: EntryMarks,
                 ingest: Callable[..., IngestReport], set_status: Callable[[str, str, str], None]) -> None:
        self.folder = folder
        self.keys = keys
        self.retriever = retriever
        self.marks = marks
        self._ingest = ingest
        self._set_status = set_status

    # ---- rejections a web turn honours (W7) -----------------------------------------------------------------
    @staticmethod
    def question_key(question: str, crypto: SpaceCrypto) -> str:
        masked, _ = pii.mask(question)  # the queue keeps the masked question: a rejection is keyed the same way
        return crypto.stored_hash("question:" + " ".join(re.findall(r"\w+", masked.casefold())))

    def rejected_question(self, question: str, crypto: SpaceCrypto, space_id: str) -> bool:
        """Was a web answer to this question rejected in the space (issue 49)?"""
        key = self.question_key(question, crypto)
        return any(r.url_key == key for r in self.folder.review.rejections(space_id))

    # ---- proposing (W5) -------------------------------------------------------------------------------------
    def _same_pages(self, space_id: str, crypto: SpaceCrypto, reading: Reading) -> str | None:
        """A waiting item built from the very same pages (same text hashes): the one to add a question to."""
        mine = {s.content_hash for s in reading.sources if s.read and s.used}
        if not mine:
            return None
        for row in self.folder.review.items(space_id, ("pending",)):
            p = json.loads(crypto.open_note(f"review:{row.review_id}", row.payload))
            theirs = {s.get("content_hash", "") for s in p["sources"] if s["read"] and s.get("used", True)}
            if theirs == mine:
                return row.review_id
        return None

    def enqueue(self, space_id: str, crypto: SpaceCrypto, question: str, answer: Answer, reading: Reading,
                entry: Entry, contradicted: list[dict[str, Any]]) -> str:
        """Queue a web answer and its proposed entry for review; the review id (an existing item's when the same
        pages answered another question)."""
        masked_question, _ = pii.mask(question)
        same = self._same_pages(space_id, crypto, reading)
        if same is not None:
            # The same pages reached by another question (another wording, another language): one item holding both
            # questions, so the operator decides once and a rejection covers both (issue 60).
            row = self.folder.review.item(same)
            assert row is not None
            payload = json.loads(crypto.open_note(f"review:{same}", row.payload))
            asked = payload.get("questions", [payload["question"]])
            if masked_question not in asked:
                self.folder.writer.web.decide_review(same, "pending", "", "", None,
                                                     self.payload(same, questions=[*asked, masked_question]))
            return same
        review_id = uuid.uuid4().hex[:12]
        payload = {
            "question": masked_question, "answer": answer.text, "untraced": answer.untraced_numbers,
            "sources": [{**s.to_dict(), "content_hash": s.content_hash, "simhash": s.simhash}
                        for s in reading.sources],
            "snapshot": {p.url: p.text[:SNAPSHOT_CHARS] for p in reading.pages}, "entry": entry.to_dict(),
            "flagged": [f.to_dict() for f in reading.flagged], "contradicted": contradicted,
        }
        sealed = crypto.seal_note(f"review:{review_id}", json.dumps(payload, ensure_ascii=False))
        self.folder.writer.web.add_review(ReviewRow(review_id, space_id, now(), "pending", sealed))
        return review_id

    # ---- the items and the operator's decisions (W5–W7) -----------------------------------------------------
    def _open(self, row: ReviewRow) -> ReviewItem:
        space = self.folder.catalog.spaces.by_id(row.space_id)
        crypto = self.keys.crypto(space)
        p = json.loads(crypto.open_note(f"review:{row.review_id}", row.payload))
        sources = [WebSource(s["url"], s["title"], s["read"], s.get("error", ""), s.get("fetched_at", ""),
                             s.get("content_hash", ""), int(s.get("simhash", 0)), bool(s.get("used", True)))
                   for s in p["sources"]]
        reason = crypto.open_note(f"review-reason:{row.review_id}", row.reason) if row.reason else ""
        return ReviewItem(row.review_id, space.name, row.status, row.created_at, p["question"], p["answer"], sources,
                          p["snapshot"], p.get("untraced", []), Entry.from_dict(p["entry"]), row.decided_by, reason,
                          row.doc_id, p.get("edited", ""), p.get("flagged", []), p.get("edited_by", ""),
                          p.get("edited_at", ""), p.get("questions", [p["question"]]), p.get("contradicted", []))

    def items(self, space: str, statuses: tuple[str, ...] = ("pending",)) -> list[ReviewItem]:
        row = self.folder.catalog.spaces.named(space)
        return [self._open(r) for r in self.folder.review.items(row.space_id, statuses)]

    def item(self, review_id: str) -> ReviewItem:
        row = self.folder.review.item(review_id)
        if row is None:
            raise BinyError(t("No review item {review_id!r}; `biny review list --space NAME` shows the queue.")
                             .format(review_id=review_id))
        return self._open(row)

    @staticmethod
    def _source(item: ReviewItem) -> str:
        """What an approved entry is recorded as: the page its first sentence came from (else the first page
        read), with its title (issue 49: not the temporary file it was written to)."""
        read = [s.url for s in item.sources if s.read]
        url = item.entry.sentences[0].url if item.entry.sentences else (read[0] if read else "web")
        return f"{url}#{_slug(item.entry.title)}" if _slug(item.entry.title) else url

    def _merged(self, item: ReviewItem, body: str) -> tuple[str, str, list[str]]:
        """(text, source, merged review ids): an earlier approved entry with the same title that shares a
        sentence with this one — the same page, or a copy of it, answered again — is one document: its
        sentences this one lacks are added and the new text is stored as its next revision, so an answer no
        longer cites one sentence from three entries ([1][2][3])."""
        def paras(text: str) -> list[str]:
            return [p.strip() for p in text.split("\n---\n")[0].split("\n\n") if p.strip()
                    and not p.lstrip().startswith("#")]

        def norm(p: str) -> str:
            return " ".join(p.split()).casefold()

        mine = {norm(p) for p in paras(body)}
        crypto = self.keys.crypto(self.folder.catalog.spaces.named(item.space))
        for earlier in self.items(item.space, ("approved",)):
            doc = self.folder.catalog.docs.get(earlier.doc_id or "")
            theirs = paras(earlier.edited or earlier.entry.markdown())
            if doc is None or doc.status != "active" or _slug(earlier.entry.title) != _slug(item.entry.title) \
                    or not mine & {norm(p) for p in theirs}:
                continue
            extra = [p for p in theirs if norm(p) not in mine]
            return "\n\n".join([body.rstrip(), *extra]), crypto.open_meta(doc).path, [earlier.review_id]
        return body, self._source(item), []

    def approve(self, review_id: str, edited: str | None = None, *, confirm_flagged: Sequence[str] = (),
                confirm_contradicted: Sequence[str] = ()) -> ReviewItem:
        """W6: ingest the entry (or the operator's edit, masked too) as a document with its provenance, recorded
        under the page it came from; an earlier approved entry from the same page and title is merged into it.

        An entry that still holds a sentence addressed to a model or the reader (issue 59: an edit put it back, or
        it was proposed before the rule caught it) is refused unless ``confirm_flagged`` names each such sentence
        (its text, or at least 12 characters of it); one the space's own material contradicts, still in the text,
        unless ``confirm_contradicted`` names it."""
        item = self._pending(review_id)
        user = self.keys.owner[1]
        read = [s for s in item.sources if s.read]
        # An edit is the operator's text, not the pages': stored as theirs, with author and time (issue 60).
        changed = edited is not None and edited.strip() != item.entry.markdown().strip()
        body = pii.mask(edited)[0].rstrip() if edited is not None and changed else item.entry.markdown().rstrip()
        self.marks.check_approval(review_id, item.space, body, item.contradicted, confirm_flagged,
                                  confirm_contradicted)
        body, source, merged = self._merged(item, body)
        when = datetime.now(UTC)
        read = [s for s in read if s.used]
        provenance = "Public source" + ("s" if len(read) > 1 else "") + ": " + "; ".join(
            f"{s.url} (read {s.fetched_at})" for s in read) + \
            (f". Edited by {user} on {when:%Y-%m-%d %H:%M} UTC: the wording is the operator's, not the pages'"
             if changed else "") + \
            f". Approved by {user} on {when:%Y-%m-%d} (review {review_id}" + \
            (f"; merged with {', '.join(merged)}" if merged else "") + ")."
        text = f"{body}\n\n---\n{provenance}\n"
        doc_id = self._store(item.space, review_id, text, source)
        # What was stored, and which approval it absorbed: an undo puts that one's own entry back.
        payload = self.payload(review_id, edited=text if changed else "", stored=text, source=source,
                               merged=merged, edited_by=user if changed else "",
                               edited_at=f"{when:%Y-%m-%dT%H:%M:%SZ}" if changed else "")
        self.folder.writer.web.decide_review(review_id, "approved", user, "", doc_id, payload)
        return self.item(review_id)

    def _store(self, space: str, review_id: str, text: str, source: str) -> str:
        """Ingest an entry's text as the document of ``source`` (a revision when it exists); its doc id."""
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"web-entry-{review_id}.md"
            path.write_text(text, encoding="utf-8")
            report = self._ingest(space, [path], sources={path: source})
        done = next((f for f in report.files if f.doc_id), None)
        if done is None or done.doc_id is None:
            raise BinyError(t("The entry of review {review_id} could not be stored: {reason}")
                             .format(review_id=review_id,
                                     reason=report.files[0].message if report.files else t("nothing ingested")))
        return done.doc_id

    def reject(self, review_id: str, reason: str = "") -> ReviewItem:
        """W7: fingerprint every read page (URL, text hash, SimHash) so it is not proposed again here."""
        item = self._pending(review_id)
        row = self.folder.catalog.spaces.named(item.space)
        crypto = self.keys.crypto(row)
        pages = [(crypto.stored_hash("url:" + fingerprint.normalise_url(s.url)),
                  crypto.stored_hash("page:" + s.content_hash), s.simhash) for s in item.sources if s.read]
        # The question itself too: asked again, it is not answered from other pages (no text hash, no SimHash).
        pages += [(self.question_key(q, crypto), "", 0) for q in dict.fromkeys([item.question, *item.questions])]
        self.folder.writer.web.reject_pages(row.space_id, review_id, pages)
        sealed = crypto.seal_note(f"review-reason:{review_id}", reason) if reason else ""
        self.folder.writer.web.decide_review(review_id, "rejected", self.keys.owner[1], sealed, None)
        return self.item(review_id)

    def undo(self, review_id: str) -> ReviewItem:
        """Back to pending: an approval's document is deleted, a rejection's fingerprints forgotten."""
        item = self.item(review_id)
        if item.status == "approved" and item.doc_id:
            self._set_status(item.space, item.doc_id, "deleted")
            self._restore_merged(review_id)
        elif item.status == "rejected":
            self.folder.writer.web.forget_rejection(review_id)
        self.folder.writer.web.decide_review(review_id, "pending", "", "", None)
        return self.item(review_id)

    def _restore_merged(self, review_id: str) -> None:
        """An undone approval that had absorbed earlier ones: each of those gets its own entry back."""
        row = self.folder.review.item(review_id)
        assert row is not None
        crypto = self.keys.crypto(self.folder.catalog.spaces.by_id(row.space_id))
        payload = json.loads(crypto.open_note(f"review:{review_id}", row.payload))
        for rid in payload.get("merged", []):
            earlier = self.folder.review.item(rid)
            if earlier is None or earlier.status != "approved":
                continue
            theirs = json.loads(crypto.open_note(f"review:{rid}", earlier.payload))
            if not theirs.get("stored"):
                continue
            space = self.folder.catalog.spaces.by_id(row.space_id).name
            doc_id = self._store(space, rid, theirs["stored"], theirs.get("source", ""))
            self.folder.writer.web.decide_review(rid, "approved", earlier.decided_by or "", "", doc_id, earlier.payload)

    def _pending(self, review_id: str) -> ReviewItem:
        item = self.item(review_id)
        if item.status != "pending":
            raise BinyError(t("Review {review_id} is already {status}; undo it first to decide again.")
                             .format(review_id=review_id, status=item.status))
        return item

    def payload(self, review_id: str, **changes: Any) -> str:
        """The item's sealed payload with ``changes`` made (what a decision stores with it)."""
        row = self.folder.review.item(review_id)
        assert row is not None
        crypto = self.keys.crypto(self.folder.catalog.spaces.by_id(row.space_id))
        key = f"review:{review_id}"
        payload = json.loads(crypto.open_note(key, row.payload)) | changes
        return crypto.seal_note(key, json.dumps(payload, ensure_ascii=False))

    def nearest(self, review_id: str, k: int = 3) -> tuple[list[Hit], bool]:
        """Where the entry would land: its nearest chunks in the space, and whether it repeats one."""
        item = self.item(review_id)
        params = self.retriever.params(k)
        params.use_threshold = params.use_structured = params.use_second_pass = params.use_rerank = False
        text = " ".join(s.text for s in item.entry.sentences)[:1000] or item.question
        hits = self.retriever.ask(item.space, text, params=params).chunks[:k]
        return hits, any((h.closer_than or 0.0) >= NEAR_DUPLICATE for h in hits)
