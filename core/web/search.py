"""Search providers (SPEC W1): a protocol, and SearXNG's JSON API as the first implementation."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Protocol

from biny.core.errors import BinyError
from biny.core.i18n import os_reason, t
from biny.core.web.fetch import DeadlinePassed, read_body

MAX_REPLY = 4 * 1024 * 1024  # a search reply larger than this is not a list of results


class SearchFailed(BinyError):
    """The search endpoint could not be asked or answered badly; says which and why."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    url: str
    title: str
    snippet: str


class SearchProvider(Protocol):
    name: str

    def search(self, query: str, limit: int) -> list[SearchResult]: ...


def _why(exc: BaseException) -> str:
    """The operating system's reason behind an HTTP client error, in the interface's language where it is a common
    one ("connection refused"), else the error's own words."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno:
            return os_reason(seen)
        seen = seen.__cause__ or seen.__context__
    text = str(exc)
    if "Errno 111" in text or "Connection refused" in text:
        return t("connection refused (is the server running?)")
    return text


class SearxngSearch:
    """``GET {search_url}?q=…&format=json`` → ``{"results": [{"url", "title", "content"}]}``."""

    name = "searxng"

    def __init__(self, search_url: str, *, timeout_s: float = 8.0, user_agent: str = "biny",
                 deadline_s: float = 20.0) -> None:
        self.search_url = search_url
        self.timeout_s = timeout_s
        self.deadline_s = deadline_s
        self.user_agent = user_agent

    def search(self, query: str, limit: int) -> list[SearchResult]:
        import httpx  # loaded when a search runs, not with every command (issue 58: start-up)

        # The endpoint is the operator's own (often on this machine), so its address is not restricted; its
        # answer has the same total deadline as a page (issue 59: a trickling reply must not hold the question).
        deadline = time.monotonic() + max(self.timeout_s, self.deadline_s)
        try:
            with httpx.Client(timeout=self.timeout_s) as client, client.stream(
                    "GET", self.search_url, params={"q": query, "format": "json"},
                    headers={"User-Agent": self.user_agent, "Accept": "application/json"}) as r:
                r.raise_for_status()
                data = json.loads(read_body(r, MAX_REPLY, deadline))
        except (httpx.TimeoutException, DeadlinePassed) as exc:
            raise SearchFailed(t("The search endpoint {search_url} did not answer within {timeout_s:g} s.")
                                .format(search_url=self.search_url, timeout_s=self.timeout_s)) from exc
        except httpx.HTTPStatusError as exc:
            raise SearchFailed(t("The search endpoint answered HTTP {status}; check [web] search_url and that its "
                                 "JSON format is enabled.").format(status=exc.response.status_code)) from exc
        except (httpx.HTTPError, ValueError) as exc:
            raise SearchFailed(t("The search endpoint {search_url} could not be used ({detail}).")
                                .format(search_url=self.search_url, detail=_why(exc))) from exc
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            raise SearchFailed(t("The search endpoint's reply has no \"results\" list (is it SearXNG with "
                                 "format=json enabled?)."))
        out: list[SearchResult] = []
        for item in results:
            if isinstance(item, dict) and isinstance(item.get("url"), str) and item["url"].startswith("http"):
                out.append(SearchResult(item["url"], str(item.get("title") or item["url"]),
                                        str(item.get("content") or "")))
            if len(out) == limit:
                break
        return out
