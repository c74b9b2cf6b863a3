"""A web turn (SPEC W2–W5): the question searched, the best results read, an answer composed and an entry proposed.

When a web-enabled space has nothing close enough, the question is searched, the best results are *read* (never
answered from snippets), personal data is masked, and text addressed to a model or the reader is left out. The read
pages' paragraphs are judged as the space's own passages are; the answer is composed from those that pass only —
marked by the platform as public, with every source listed read, read-not-used or found-only — and its proposed
entry, read against the space's own material, is queued for review (services/web_review.py).
"""

from __future__ import annotations

import math
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from biny.core.answer.compose import ComposeSettings, compose
from biny.core.crypto.space import SpaceCrypto
from biny.core.i18n import msg, t
from biny.core.results import Answer, AskResult, Hit, Kept
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.services.models import Models
from biny.core.services.retrieval import Retriever
from biny.core.services.web_marks import EntryMarks
from biny.core.services.web_review import Reading, ReviewQueue, WebSource
from biny.core.store.catalog import SpaceRef
from biny.core.text.question import Question
from biny.core.text.scripts import script_of
from biny.core.text.terms import terms_of
from biny.core.web import fingerprint, injection, pii
from biny.core.web.entry import ReadPage, propose_entry
from biny.core.web.fetch import Page, fetch
from biny.core.web.search import SearchFailed, SearchProvider

__all__ = ["WebTurn"]

PASSAGES = 4  # read-page paragraphs given to the composer
PARAGRAPHS_PER_PAGE = 200
EMBEDDED_CANDIDATES = 12  # paragraphs embedded per turn: the lexically best, plus each page's first three
EMBED_CHARS = 600
VECTOR_CACHE = 2000  # paragraph vectors kept for the session
ENTRY_PARAGRAPHS = 8  # the nearest paragraphs a proposed entry's sentences are chosen from (no model)

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



class WebTurn:
    """One question answered from the public web: read, judged, composed, proposed and queued."""

    def __init__(self, folder: DataFolder, models: Models, keys: KeySession, retriever: Retriever,
                 queue: ReviewQueue, marks: EntryMarks, search: Callable[[], SearchProvider | None]) -> None:
        self.folder = folder
        self.models = models
        self.keys = keys
        self.retriever = retriever
        self.queue = queue
        self.marks = marks
        self._search = search  # the provider to use now (set or configured), None: none
        self._vectors: dict[tuple[str, str], Any] = {}

    def answer(self, space: SpaceRef, result: AskResult, history: list[str] | None, asked: Question) -> None:
        """Fill ``result.answer`` from the public web (W2–W4) and queue it for review (W5); ``asked`` is
        ``result.question`` as parsed once by the ask (text/question.py)."""
        row = self.folder.catalog.spaces.resolve(space)
        space = row.name
        crypto = self.keys.crypto(row)
        question = result.question
        if self.queue.rejected_question(question, crypto, row.space_id):
            # The operator rejected a web answer to this question here: the topic is not for this space, so the
            # answer stays "not in your material" instead of reading other pages (issue 49).
            if result.answer is not None:
                result.answer.note += msg("; a public-web answer to this question was rejected in this space "
                                          "(undo that rejection to search again)")
            return
        try:
            reading = self._read(question, crypto, row.space_id)
        except SearchFailed as exc:
            result.answer = search_failed(asked.reply_language, exc)
            return
        if not reading.sources:
            if result.answer is not None:
                result.answer.note += msg("; the public search found nothing")
            return
        lang = asked.reply_language
        if not reading.pages:
            result.answer = none_read(lang, reading)
            return
        ranked = self._ranked(asked, reading)
        self._judge(space, asked, ranked)
        used = _mark_unused(reading, ranked)
        if not used:
            # Pages beyond the judge's cut never reach an answer or the queue (issue 60): the answer stays "not in
            # your material", with what was read listed.
            if result.answer is not None:
                result.answer.sources = [s.to_dict() for s in reading.sources]
                result.answer.note += msg("; {n} public page(s) read, none close enough to the question to use").format(
                    n=sum(s.read for s in reading.sources))
            return
        # A used page is read whole (its nearest paragraphs, as before); a page that did not pass gives nothing.
        reading.pages = [p for p in reading.pages if p.url in used]
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
        as_public(answer, reading.sources)
        result.chunks, result.answer = hits, answer
        entry = propose_entry(asked, reading.pages, self.models.llm, self.models.sentence_distances,
                              self._focus(ranked, reading.pages))
        # The entry read against the space's own material: a sentence it states otherwise is marked (issue 59).
        marked = self.marks.contradicted(space, [s.text for s in entry.sentences])
        result.review_id = self.queue.enqueue(row.space_id, crypto, question, answer, reading, entry, marked)
        answer.review_id = result.review_id

    # ---- reading the results (W2, W3, W6) ---------------------------------------------------------------
    def _read(self, question: str, crypto: SpaceCrypto, space_id: str) -> Reading:
        provider = self._search()
        assert provider is not None
        cfg = self.folder.settings.web
        reading = Reading()
        results = provider.search(question, cfg.results)
        # One deadline for all the pages of this question (issue 59), besides each page's own.
        deadline = time.monotonic() + cfg.question_deadline_s
        rejected = self.folder.review.rejections(space_id)
        urls = {r.url_key for r in rejected}
        for res in results:
            src = WebSource(res.url, res.title, False)
            reading.sources.append(src)
            if crypto.stored_hash("url:" + fingerprint.normalise_url(res.url)) in urls:
                src.error = t("rejected before in this space")
                continue
            if len([s for s in reading.sources if s.fetched_at]) >= cfg.read:
                src.error = t("not read (enough pages were read)")
                continue
            if time.monotonic() >= deadline:
                src.error = t("not read (the question's time for reading pages ran out)")
                continue
            page = fetch(res.url, cfg, deadline)
            src.fetched_at = page.fetched_at
            self._use(page, src, reading, crypto, rejected)
        return reading

    def _use(self, page: Page, src: WebSource, reading: Reading, crypto: SpaceCrypto, rejected: list[Any]) -> None:
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
        reading.pages.append(ReadPage(src.url, src.title, text))
        reading.flagged += flagged

    def _ranked(self, question: Question, reading: Reading) -> list[_Paragraph]:
        """The read pages' paragraphs, nearest the question first.

        Meaning and the question's own words vote together (reciprocal rank fusion): e5 distances
        bunch within one page, and "created in 1998" must not be outranked by its neighbours. Only
        the lexically best and the leading paragraphs are embedded (a page has hundreds), and a
        page's paragraph vectors are kept for the session by its text hash.
        """
        paras: list[_Paragraph] = []
        for page in reading.pages:
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


def _mark_unused(reading: Reading, ranked: list[_Paragraph]) -> set[str]:
    """The read pages with a paragraph that passed the judge's cut; every other read page is marked "read, not
    used", with its nearest paragraph's distance and cut (issue 60)."""
    used = {p.page.url for p in ranked if p.passed}
    for src in reading.sources:
        if src.read and src.url not in used:
            near = [p for p in ranked if p.page.url == src.url and p.distance < 2.0]
            best = min(near, key=lambda p: p.distance) if near else None
            src.used = False
            src.error = (t("read, not used: no paragraph came close enough to the question (nearest {distance}, "
                           "its cut {cut})").format(distance=f"{best.distance:.3f}", cut=f"{best.cut:.3f}")
                         if best is not None and best.cut is not None else
                         t("read, not used: no paragraph came close enough to the question"))
    return used


def as_public(answer: Answer, sources: list[WebSource]) -> None:
    """An answer composed from public pages marked as theirs (W3): its mode, its note naming the domains used, and
    every result, read or not."""
    domains = ", ".join(sorted({s.domain for s in sources if s.read and s.used}))
    answer.mode, answer.note_kind, answer.sources = "web", "web", [s.to_dict() for s in sources]
    answer.note = msg("public sources, not your material ({domains})").format(domains=domains) + "; " + answer.note


def search_failed(lang: str, exc: SearchFailed) -> Answer:
    """Said in the answer itself, not only in a note: a failed search is no "not in your material" (issue 60)."""
    reason = msg("public search failed: {reason}").format(reason=exc)
    text = SEARCH_FAILED.get(lang, SEARCH_FAILED["en"]).format(reason=exc)
    return Answer(text, "none", [], [], lang, note=reason, note_kind="search_failed", web_error=reason)


def none_read(lang: str, reading: Reading) -> Answer:
    """Public results found, none of them read: said, each result listed with why."""
    why = "; ".join(sorted({s.error for s in reading.sources if s.error}))
    text = COULD_NOT_READ.get(lang, COULD_NOT_READ["en"]).format(n=len(reading.sources), why=why)
    answer = Answer(text, "web", [], [], lang, note=msg("public results found, none read; nothing cited"),
                    note_kind="web_unread")
    answer.sources = [s.to_dict() for s in reading.sources]
    return answer
