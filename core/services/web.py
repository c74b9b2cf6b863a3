"""The public-web fallback and its review queue (SPEC W1–W7).

When a web-enabled space has nothing close enough, the question is searched, the best
results are *read* (never answered from snippets), personal data is masked, and the answer
is composed from the read pages only — marked by the platform as public, with every source
listed read or found-only. Each such answer becomes a review item; approval ingests a
regenerated entry with its provenance, rejection fingerprints the pages so they are never
proposed again for the space.
"""

from __future__ import annotations

import json
import math
import re
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from biny.core.answer.compose import ComposeSettings, compose
from biny.core.config import save_settings
from biny.core.crypto.space import SpaceCrypto
from biny.core.embed.sentences import sentence_texts
from biny.core.errors import BinyError
from biny.core.i18n import t
from biny.core.results import Answer, AskResult, Hit, IngestReport, Kept
from biny.core.services.contradict import contradictions
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.services.models import Models
from biny.core.services.retrieval import Retriever
from biny.core.store.catalog import now
from biny.core.store.review import ReviewRow
from biny.core.text.question import Question
from biny.core.text.scripts import script_of
from biny.core.text.terms import terms_of
from biny.core.web import fingerprint, injection, pii
from biny.core.web.entry import Entry, ReadPage, propose_entry
from biny.core.web.fetch import Page, fetch
from biny.core.web.search import SearchFailed, SearchProvider, SearchResult, SearxngSearch

__all__ = ["ReviewItem", "WebFallback", "WebSource"]

PASSAGES = 4  # read-page paragraphs given to the composer
PARAGRAPHS_PER_PAGE = 200
EMBEDDED_CANDIDATES = 12  # paragraphs embedded per turn: the lexically best, plus each page's first three
EMBED_CHARS = 600
VECTOR_CACHE = 2000  # paragraph vectors kept for the session
ENTRY_PARAGRAPHS = 8  # the nearest paragraphs a proposed entry's sentences are chosen from (no model)
SNAPSHOT_CHARS = 200_000
NEAR_DUPLICATE = 0.99  # closer than 99% of unrelated questions: the entry says what the space already says

COULD_NOT_READ = {
    "en": "Your material does not cover this, and none of the {n} public results found could be read "
          "({why}), so there is no answer from them.",
    "zh": "你的资料里没有这个问题的答案；找到了 {n} 条公开结果，但没有一个页面能读取（{why}），因此无法据此回答。",
}
# The public search itself failed: said as such, never as "not in your material" (issue 60).
SEARCH_FAILED = {
    "en": "Your material does not cover this, and the public search could not be done: {reason}",
    "zh": "你的资料里没有这个问题的答案，而公开搜索未能完成：{reason}",
}


class FlaggedNotConfirmed(BinyError):
    """An approval of an entry holding a flagged sentence that the operator did not name (issue 59)."""


class ContradictedNotConfirmed(FlaggedNotConfirmed):
    """An approval of an entry holding a sentence the space's own material contradicts, not named (issue 59)."""


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
class _Turn:
    sources: list[WebSource] = field(default_factory=list)
    pages: list[ReadPage] = field(default_factory=list)
    flagged: list[injection.Flagged] = field(default_factory=list)


@dataclass(slots=True)
class _Paragraph:
    """A read page's paragraph: its ordinal on the page, text, offset and distance to the question (2.0: not
    embedded)."""

    page: ReadPage
    n: int
    text: str
    start: int
    distance: float = 2.0
    cut: float | None = None  # the distance it had to beat, set as for the space's own passages (None: no cut)
    passed: bool = False


def _slug(title: str) -> str:
    return re.sub(r"[^\w]+", "-", title.casefold()).strip("-")[:60]


class WebFallback:
    def __init__(self, folder: DataFolder, models: Models, keys: KeySession, retriever: Retriever,
                 ingest: Callable[..., IngestReport],
                 set_status: Callable[[str, str, str], None]) -> None:
        self.folder = folder
        self.models = models
        self.keys = keys
        self.retriever = retriever
        self._ingest = ingest
        self._set_status = set_status
        self.provider: SearchProvider | None = None  # set to use another provider than [web] search_url's
        self._vectors: dict[tuple[str, str], Any] = {}

    # ---- the switch (W1) ----------------------------------------------------------------------------
    def enabled(self, space: str) -> bool:
        return self.folder.catalog.spaces.web_enabled(self.folder.catalog.spaces.named(space).space_id)

    def set_enabled(self, space: str, on: bool) -> None:
        self.folder.writer.web.set_web(self.folder.catalog.spaces.named(space).space_id, on)

    def _search(self) -> SearchProvider | None:
        if self.provider is not None:
            return self.provider
        cfg = self.folder.settings.web
        return SearxngSearch(cfg.search_url, timeout_s=cfg.timeout_s, user_agent=cfg.user_agent,
                             deadline_s=cfg.page_deadline_s) \
            if cfg.search_url else None

    def configure_search(self, search_url: str) -> str:
        """Set the search endpoint (SearXNG's JSON API) and save it to config.toml; "" turns searching off. Takes
        effect at once — no restart (issue 60). Returns what was set, in words."""
        url = search_url.strip()
        if url and urlsplit(url).scheme not in {"http", "https"}:
            raise BinyError(t("{url} is no web address: the search endpoint starts with http:// or https:// "
                              "(e.g. http://127.0.0.1:8888/search).").format(url=url))
        self.folder.settings.web.search_url = url
        save_settings(self.folder.settings, self.folder.home / "config.toml")
        return t("Search endpoint saved: {url}.").format(url=url) if url else \
            t("No search endpoint: nothing leaves this machine.")

    def test_search(self, search_url: str | None = None, query: str = "biny") -> list[SearchResult]:
        """One search through the endpoint (the saved one, or ``search_url`` before it is saved); raises
        ``SearchFailed`` saying why it could not be used."""
        url = (self.folder.settings.web.search_url if search_url is None else search_url).strip()
        if not url:
            raise SearchFailed(t("No search endpoint is set: enter a SearXNG JSON endpoint first."))
        if urlsplit(url).scheme not in {"http", "https"}:
            raise SearchFailed(t("{url} is no web address: the search endpoint starts with http:// or https:// "
                                 "(e.g. http://127.0.0.1:8888/search).").format(url=url))
        cfg = self.folder.settings.web
        return SearxngSearch(url, timeout_s=cfg.timeout_s, user_agent=cfg.user_agent).search(query, cfg.results)

    def ready(self, space: str) -> bool:
        """Switched on for the space *and* a search endpoint configured; else nothing leaves the machine."""
        return self.enabled(space) and self._search() is not None

    # ---- a web turn (W2–W5) ----------------------------------------------------------------------------
    def _read(self, question: str, crypto: SpaceCrypto, space_id: str) -> _Turn:
        provider = self._search()
        assert provider is not None
        cfg = self.folder.settings.web
        turn = _Turn()
        results = provider.search(question, cfg.results)
        # One deadline for all the pages of this question (issue 59), besides each page's own.
        deadline = time.monotonic() + cfg.question_deadline_s
        rejected = self.folder.review.rejections(space_id)
        urls = {r.url_key for r in rejected}
        for res in results:
            src = WebSource(res.url, res.title, False)
            turn.sources.append(src)
            if crypto.stored_hash("url:" + fingerprint.normalise_url(res.url)) in urls:
                src.error = t("rejected before in this space")
                continue
            if len([s for s in turn.sources if s.fetched_at]) >= cfg.read:
                src.error = t("not read (enough pages were read)")
                continue
            if time.monotonic() >= deadline:
                src.error = t("not read (the question's time for reading pages ran out)")
                continue
            page = fetch(res.url, cfg, deadline)
            src.fetched_at = page.fetched_at
            self._use(page, src, turn, crypto, rejected)
        return turn

    @staticmethod
    def _question_key(question: str, crypto: SpaceCrypto) -> str:
        masked, _ = pii.mask(question)  # the queue keeps the masked question: a rejection is keyed the same way
        return crypto.stored_hash("question:" + " ".join(re.findall(r"\w+", masked.casefold())))

    def _rejected_question(self, question: str, crypto: SpaceCrypto, space_id: str) -> bool:
        key = self._question_key(question, crypto)
        return any(r.url_key == key for r in self.folder.review.rejections(space_id))

    def _use(self, page: Page, src: WebSource, turn: _Turn, crypto: SpaceCrypto, rejected: list[Any]) -> None:
        if not page.read:
            src.error = page.error or "no readable text"
            return
        text, _ = pii.mask(page.text)  # W6: masked before a model or the queue sees it
        # Text that addresses a model or the reader ("ignore previous instructions…") is no material: left out
        # of the passages and the entry, listed in the queue (issue 49).
        text, flagged = injection.strip(text, src.url)
        title, _ = pii.mask(page.title or src.title, names=False)
        src.content_hash, src.simhash = page.content_hash, fingerprint.simhash(text)
        for r in rejected:
            if not r.content_hash:
                continue  # a rejected question, not a page
            if r.content_hash == crypto.stored_hash("page:" + page.content_hash) or fingerprint.near(r.simhash,
                                                                                                      src.simhash):
                src.error = t("a page rejected before in this space (same or nearly the same text)")
                return
        src.read, src.title = True, title or src.title
        turn.pages.append(ReadPage(src.url, src.title, text))
        turn.flagged += flagged

    def _ranked(self, question: Question, turn: _Turn) -> list[_Paragraph]:
        """The read pages' paragraphs, nearest the question first.

        Meaning and the question's own words vote together (reciprocal rank fusion): e5 distances
        bunch within one page, and "created in 1998" must not be outranked by its neighbours. Only
        the lexically best and the leading paragraphs are embedded (a page has hundreds), and a
        page's paragraph vectors are kept for the session by its text hash.
        """
        paras: list[_Paragraph] = []
        for page in turn.pages:
            pos = 0
            for n, para in enumerate(p for p in re.split(r"\n\s*\n", page.text) if len(p.strip()) > 30):
                start = page.text.find(para, pos)
                pos = max(pos, start)
                paras.append(_Paragraph(page, n, para.strip(), start))
                if n + 1 >= PARAGRAPHS_PER_PAGE:
                    break
        if not paras:
            return []
        asked = question.terms
        terms = [terms_of(p.text) for p in paras]
        idf = {t: math.log(1 + len(paras) / (1 + sum(t in ts for ts in terms))) for t in asked}
        lexical = np.array([sum(w for t, w in idf.items() if t in ts) for ts in terms])
        lex_rank = np.argsort(-lexical, kind="stable")
        chosen = sorted(set(lex_rank[:EMBEDDED_CANDIDATES].tolist()) | {i for i, p in enumerate(paras) if p.n < 3})
        q = self.models.embed_queries([question.text])[0]
        vecs = self._vectors_of([(paras[i].page.url, paras[i].text[:EMBED_CHARS]) for i in chosen])
        dist = np.full(len(paras), 2.0)
        dist[chosen] = 1.0 - vecs @ q
        fused = np.zeros(len(paras))
        for ranking in (np.argsort(dist, kind="stable"), lex_rank):
            fused[ranking] += 1.0 / (60 + np.arange(len(paras)))
        for p, d in zip(paras, dist, strict=True):
            p.distance = float(d)
        return [paras[int(i)] for i in np.argsort(-fused, kind="stable")]

    def _judge(self, space: str, question: Question, ranked: list[_Paragraph]) -> None:
        """Each embedded paragraph judged as the space's own passages are (R2/R9, issue 60): its cut is set against
        the unrelated questions nearest to *it* (``Baselines.local_reference``, the margin of the reference's spread
        below their mean distance), and one in the question's script must also lie within the space-wide gate (p10
        of unrelated questions' nearest distance) unless it carries enough of the question's words. A page none of
        whose paragraphs passes is read, not used: never composed from, never queued."""
        params = self.retriever.params()
        embedded = [p for p in ranked if p.distance < 2.0]
        base = self.retriever.baselines(space)
        group, ref = base.reference_for(question)
        if not params.use_threshold or ref is None:  # no reference (an empty space) or the cut is off: as the space
            for p in embedded:
                p.passed = True
            return
        if params.max_distance is not None:
            cuts = np.full(len(embedded), params.max_distance)
        elif params.local_cut and base.questions:
            spread = ref.median - ref.quantile(params.threshold_quantile)
            vecs = self._vectors_of([(p.page.url, p.text[:EMBED_CHARS]) for p in embedded])
            own = np.array([params.knowledge_refs and group in base.knowledge and script_of(p.text) == group
                            for p in embedded], dtype=bool)
            local = base.local_reference(group, vecs, list(range(len(embedded))), own=own)
            cuts = local - np.where(own, params.knowledge_margin, params.local_margin) * spread
        else:
            cuts = np.full(len(embedded), ref.quantile(params.threshold_quantile))
        gate = ref.quantile(params.threshold_quantile)
        # As for the space's passages, words vouch too: one carrying lexical_rescue of the question's words may come
        # from as far as the rescue_quantile of the reference ("It was built in 1872" for "When was it built?").
        rescue = ref.quantile(params.rescue_quantile) if params.lexical_check else None
        asked = question.terms
        for p, cut in zip(embedded, cuts, strict=True):
            p.cut = float(cut)
            share = len(asked & terms_of(p.text)) / len(asked) if asked else 0.0
            beyond_gate = params.space_gate and script_of(p.text) == group and p.distance > gate \
                and share < params.space_gate_words
            by_words = rescue is not None and share >= params.lexical_rescue and p.distance <= rescue
            p.passed = (p.distance <= p.cut and not beyond_gate) or by_words

    @staticmethod
    def _hits(ranked: list[_Paragraph]) -> list[Hit]:
        """The nearest paragraphs as numbered passages (never snippets), for the composer."""
        return [Hit(f"web:{uuid.uuid4().hex[:10]}", "web", p.page.title, p.page.url, p.text, p.distance, None,
                    False, None, p.n, [], p.start, p.start + len(p.text), kept=Kept("public page", source=p.page.url))
                for p in ranked[:PASSAGES]]

    @staticmethod
    def _focus(ranked: list[_Paragraph], pages: list[ReadPage]) -> list[ReadPage]:
        """Each read page cut to its paragraphs among the nearest ``ENTRY_PARAGRAPHS``, in page order: what the
        proposed entry's sentences are chosen from. Reading every sentence of every page by meaning cost seconds a
        page (a Wikipedia article has hundreds); the paragraphs nearest the question hold the answering ones."""
        near = ranked[:ENTRY_PARAGRAPHS]
        return [ReadPage(page.url, page.title, "\n\n".join(p.text for p in sorted(held, key=lambda p: p.n)))
                for page in pages if (held := [p for p in near if p.page is page])]

    def _vectors_of(self, keys: list[tuple[str, str]]) -> Any:
        """Vectors of (url, paragraph) pairs: cached ones reused, the rest embedded in one batch."""
        missing = [k for k in dict.fromkeys(keys) if k not in self._vectors]
        if missing:
            for k, vec in zip(missing, self.models.embedder.embed_passages([t for _, t in missing]), strict=True):
                self._vectors[k] = vec
            while len(self._vectors) > VECTOR_CACHE:
                self._vectors.pop(next(iter(self._vectors)))
        return np.stack([self._vectors[k] for k in keys])

    def answer(self, space: str, result: AskResult, history: list[str] | None, asked: Question) -> None:
        """Fill ``result.answer`` from the public web (W2–W4) and queue it for review (W5); ``asked`` is
        ``result.question`` as parsed once by the ask (text/question.py)."""
        row = self.folder.catalog.spaces.named(space)
        crypto = self.keys.crypto(row)
        question = result.question
        if self._rejected_question(question, crypto, row.space_id):
            # The operator rejected a web answer to this question here: the topic is not for this space, so the
            # answer stays "not in your material" instead of reading other pages (issue 49).
            if result.answer is not None:
                result.answer.note += t("; a public-web answer to this question was rejected in this space "
                                        "(undo that rejection to search again)")
            return
        try:
            turn = self._read(question, crypto, row.space_id)
        except SearchFailed as exc:
            result.answer = _search_failed(asked.reply_language, exc)
            return
        if not turn.sources:
            if result.answer is not None:
                result.answer.note += t("; the public search found nothing")
            return
        lang = asked.reply_language
        if not turn.pages:
            result.answer = _none_read(lang, turn)
            return
        ranked = self._ranked(asked, turn)
        self._judge(space, asked, ranked)
        used = _mark_unused(turn, ranked)
        if not used:
            # Pages beyond the judge's cut never reach an answer or the queue (issue 60): the answer stays "not in
            # your material", with what was read listed.
            if result.answer is not None:
                result.answer.sources = [s.to_dict() for s in turn.sources]
                result.answer.note += t("; {n} public page(s) read, none close enough to the question to use").format(
                    n=sum(s.read for s in turn.sources))
            return
        # A used page is read whole (its nearest paragraphs, as before); a page that did not pass gives nothing.
        turn.pages = [p for p in turn.pages if p.url in used]
        ranked = [p for p in ranked if p.page.url in used]
        hits = self._hits(ranked)
        llm = self.folder.settings.llm
        # Read by meaning too, as the space's own answers are: the sentence that answers leads ("built in 1872"),
        # not the page's most word-rich one (opening hours) — issue 49.
        answer = compose(asked, hits, self.models.llm, space=space, documents=0, history=history,
                         cfg=ComposeSettings(timeout_s=llm.answer_timeout_s, max_tokens=llm.answer_max_tokens),
                         distances=self.models.sentence_distances)
        for c in answer.citations:
            c.url = hits[c.n - 1].source
        domains = ", ".join(sorted({s.domain for s in turn.sources if s.read and s.used}))
        answer.mode, answer.note_kind, answer.sources = "web", "web", [s.to_dict() for s in turn.sources]
        answer.note = t("public sources, not your material ({domains})").format(domains=domains) + "; " + answer.note
        result.chunks, result.answer = hits, answer
        entry = propose_entry(asked, turn.pages, self.models.llm, self.models.sentence_distances,
                              self._focus(ranked, turn.pages))
        # The entry read against the space's own material: a sentence it states otherwise is marked (issue 59).
        found = contradictions(self.retriever, self.models, space, [s.text for s in entry.sentences])
        result.review_id = self._enqueue(row.space_id, crypto, question, answer, turn, entry,
                                         [c.to_dict() for c in found])
        answer.review_id = result.review_id

    def _same_pages(self, space_id: str, crypto: SpaceCrypto, turn: _Turn) -> str | None:
        """A waiting item built from the very same pages (same text hashes): the one to add a question to."""
        mine = {s.content_hash for s in turn.sources if s.read and s.used}
        if not mine:
            return None
        for row in self.folder.review.items(space_id, ("pending",)):
            p = json.loads(crypto.open_note(f"review:{row.review_id}", row.payload))
            theirs = {s.get("content_hash", "") for s in p["sources"] if s["read"] and s.get("used", True)}
            if theirs == mine:
                return row.review_id
        return None

    def _enqueue(self, space_id: str, crypto: SpaceCrypto, question: str, answer: Answer, turn: _Turn,
                 entry: Entry, contradicted: list[dict[str, Any]]) -> str:
        masked_question, _ = pii.mask(question)
        same = self._same_pages(space_id, crypto, turn)
        if same is not None:
            # The same pages reached by another question (another wording, another language): one item holding both
            # questions, so the operator decides once and a rejection covers both (issue 60).
            row = self.folder.review.item(same)
            assert row is not None
            payload = json.loads(crypto.open_note(f"review:{same}", row.payload))
            asked = payload.get("questions", [payload["question"]])
            if masked_question not in asked:
                self.folder.writer.web.decide_review(same, "pending", "", "", None,
                                                 self._payload(same, questions=[*asked, masked_question]))
            return same
        review_id = uuid.uuid4().hex[:12]
        payload = {
            "question": masked_question, "answer": answer.text, "untraced": answer.untraced_numbers,
            "sources": [{**s.to_dict(), "content_hash": s.content_hash, "simhash": s.simhash} for s in turn.sources],
            "snapshot": {p.url: p.text[:SNAPSHOT_CHARS] for p in turn.pages}, "entry": entry.to_dict(),
            "flagged": [f.to_dict() for f in turn.flagged], "contradicted": contradicted,
        }
        sealed = crypto.seal_note(f"review:{review_id}", json.dumps(payload, ensure_ascii=False))
        self.folder.writer.web.add_review(ReviewRow(review_id, space_id, now(), "pending", sealed))
        return review_id

    # ---- the queue (W5–W7) -----------------------------------------------------------------------------
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
        unconfirmed = [s for s in injection.flagged_sentences(body) if not injection.named(s, confirm_flagged)]
        if unconfirmed:
            raise FlaggedNotConfirmed(t(
                "The entry of review {review_id} still holds {n} sentence(s) addressed to a model or the reader: "
                "{sentences}. Remove them (biny review approve {review_id} --edit FILE), or approve naming each: "
                "--confirm-flagged \"SENTENCE\".").format(review_id=review_id, n=len(unconfirmed),
                                                           sentences="; ".join(f"«{s}»" for s in unconfirmed)))
        # Read again against the material as it is now: a document added since the proposal may state otherwise.
        sentences = [u for u in sentence_texts(body.split("\n---\n")[0])[0] if not u.lstrip().startswith("#")]
        fresh = [c.to_dict() for c in contradictions(self.retriever, self.models, item.space, sentences)]
        _refuse_contradicted(item, body, confirm_contradicted, fresh)
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
        payload = self._payload(review_id, edited=text if changed else "", stored=text, source=source,
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
        pages += [(self._question_key(q, crypto), "", 0) for q in dict.fromkeys([item.question, *item.questions])]
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

    def _payload(self, review_id: str, **changes: Any) -> str:
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


def _refuse_contradicted(item: ReviewItem, body: str, confirmations: Sequence[str],
                         fresh: list[dict[str, Any]]) -> None:
    """An entry still holding a sentence the space states otherwise (marked when proposed, or ``fresh``: found
    now) is approved only when the operator names it."""
    plain = " ".join(body.split())
    marked = {c["sentence"]: c for c in [*item.contradicted, *fresh]}
    left = [c for c in marked.values() if " ".join(c["sentence"].split()) in plain
            and not injection.named(c["sentence"], confirmations)]
    if left:
        shown = "; ".join(t("«{sentence}» — contradicted by {where}: «{mine}»").format(
            sentence=c["sentence"], where=f"{c['title']}, p. {c['page']}" if c.get("page") else c["title"],
            mine=c["mine"]) for c in left)
        raise ContradictedNotConfirmed(t(
            "The entry of review {review_id} holds {n} sentence(s) that your own material states otherwise: "
            "{sentences}. Correct or remove them (biny review approve {review_id} --edit FILE), or approve naming "
            "each: --confirm-contradicted \"SENTENCE\".").format(review_id=item.review_id, n=len(left),
                                                                  sentences=shown))


def _mark_unused(turn: _Turn, ranked: list[_Paragraph]) -> set[str]:
    """The read pages with a paragraph that passed the judge's cut; every other read page is marked "read, not
    used", with its nearest paragraph's distance and cut (issue 60)."""
    used = {p.page.url for p in ranked if p.passed}
    for src in turn.sources:
        if src.read and src.url not in used:
            near = [p for p in ranked if p.page.url == src.url and p.distance < 2.0]
            best = min(near, key=lambda p: p.distance) if near else None
            src.used = False
            src.error = (t("read, not used: no paragraph came close enough to the question (nearest {distance}, "
                           "its cut {cut})").format(distance=f"{best.distance:.3f}", cut=f"{best.cut:.3f}")
                         if best is not None and best.cut is not None else
                         t("read, not used: no paragraph came close enough to the question"))
    return used


def _search_failed(lang: str, exc: SearchFailed) -> Answer:
    """Said in the answer itself, not only in a note: a failed search is no "not in your material" (issue 60)."""
    reason = t("public search failed: {reason}").format(reason=exc)
    text = SEARCH_FAILED.get(lang, SEARCH_FAILED["en"]).format(reason=exc)
    return Answer(text, "none", [], [], lang, note=reason, note_kind="search_failed", web_error=reason)


def _none_read(lang: str, turn: _Turn) -> Answer:
    """Public results found, none of them read: said, each result listed with why."""
    why = "; ".join(sorted({s.error for s in turn.sources if s.error}))
    text = COULD_NOT_READ.get(lang, COULD_NOT_READ["en"]).format(n=len(turn.sources), why=why)
    answer = Answer(text, "web", [], [], lang, note="public results found, none read; nothing cited",
                    note_kind="web_unread")
    answer.sources = [s.to_dict() for s in turn.sources]
    return answer
