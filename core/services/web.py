"""The public-web fallback (SPEC W1–W7): the switch, the search endpoint, and the Engine's ``engine.web`` namespace.

Issue 56 split it along its responsibilities: a web turn — search, read, judge, compose, propose — is
services/web_turn.py; the review queue and the operator's decisions are services/web_review.py; the marks an
entry carries and what approving it must confirm (flagged and contradicted sentences) are services/web_marks.py.
This class holds the switch (W1) and the search endpoint, and answers for the parts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from biny.core.config import save_settings
from biny.core.errors import BinyError
from biny.core.i18n import t
from biny.core.results import AskResult, Hit, IngestReport
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.services.models import Models
from biny.core.services.retrieval import Retriever
from biny.core.services.web_marks import ContradictedNotConfirmed, EntryMarks, FlaggedNotConfirmed
from biny.core.services.web_review import ReviewItem, ReviewQueue, WebSource
from biny.core.services.web_turn import WebTurn
from biny.core.store.catalog import SpaceRef
from biny.core.text.question import Question
from biny.core.web.search import SearchFailed, SearchProvider, SearchResult, SearxngSearch

__all__ = ["ContradictedNotConfirmed", "FlaggedNotConfirmed", "ReviewItem", "WebFallback", "WebSource"]


class WebFallback:
    """``engine.web``: the switch and search endpoint here, a turn's work in ``turn``, the queue in ``queue``."""

    def __init__(self, folder: DataFolder, models: Models, keys: KeySession, retriever: Retriever,
                 ingest: Callable[..., IngestReport],
                 set_status: Callable[[str, str, str], None]) -> None:
        self.folder = folder
        self.models = models
        self.keys = keys
        self.retriever = retriever
        self.provider: SearchProvider | None = None  # set to use another provider than [web] search_url's
        marks = EntryMarks(retriever, models)
        self.queue = ReviewQueue(folder, keys, retriever, marks, ingest, set_status)
        self.turn = WebTurn(folder, models, keys, retriever, self.queue, marks, self._search)

    # ---- the switch (W1) ----------------------------------------------------------------------------
    def enabled(self, space: SpaceRef) -> bool:
        return self.folder.catalog.spaces.web_enabled(self.folder.catalog.spaces.resolve(space).space_id)

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

    def ready(self, space: SpaceRef) -> bool:
        """Switched on for the space *and* a search endpoint configured; else nothing leaves the machine."""
        return self.enabled(space) and self._search() is not None

    # ---- a web turn (W2–W5) ----------------------------------------------------------------------------
    def answer(self, space: SpaceRef, result: AskResult, history: list[str] | None, asked: Question) -> None:
        """Fill ``result.answer`` from the public web (W2–W4) and queue it for review (W5); ``asked`` is
        ``result.question`` as parsed once by the ask (text/question.py)."""
        self.turn.answer(space, result, history, asked)

    # ---- the queue (W5–W7) -----------------------------------------------------------------------------
    def items(self, space: str, statuses: tuple[str, ...] = ("pending",)) -> list[ReviewItem]:
        return self.queue.items(space, statuses)

    def item(self, review_id: str) -> ReviewItem:
        return self.queue.item(review_id)

    def approve(self, review_id: str, edited: str | None = None, *, confirm_flagged: Sequence[str] = (),
                confirm_contradicted: Sequence[str] = ()) -> ReviewItem:
        """W6: ingest the entry (or the operator's edit) as a document with its provenance; refused while it holds a
        flagged or contradicted sentence the operator did not name (``ReviewQueue.approve``)."""
        return self.queue.approve(review_id, edited, confirm_flagged=confirm_flagged,
                                  confirm_contradicted=confirm_contradicted)

    def reject(self, review_id: str, reason: str = "") -> ReviewItem:
        """W7: fingerprint every read page (URL, text hash, SimHash) so it is not proposed again here."""
        return self.queue.reject(review_id, reason)

    def undo(self, review_id: str) -> ReviewItem:
        """Back to pending: an approval's document is deleted, a rejection's fingerprints forgotten."""
        return self.queue.undo(review_id)

    def nearest(self, review_id: str, k: int = 3) -> tuple[list[Hit], bool]:
        """Where the entry would land: its nearest chunks in the space, and whether it repeats one."""
        return self.queue.nearest(review_id, k)
