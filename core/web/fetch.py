"""Read a page, don't skim (SPEC W2): fetch with size, time and redirect limits; main text only.

HTML goes through the same reader as ingested pages (trafilatura's main text), PDF through
PyMuPDF, plain text as it is; anything else is "not text". A page that could not be read
says why (timeout, HTTP 404, too large, not text, unreachable) and is never cited.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx

from biny.core.config import LimitSettings, WebSettings
from biny.core.errors import BinyError
from biny.core.i18n import t


@dataclass(slots=True)
class Page:
    url: str
    final_url: str = ""
    title: str = ""
    text: str = ""  # the main text as read (before masking)
    error: str = ""  # why it could not be read; "" when read
    fetched_at: str = ""
    content_hash: str = ""  # sha256 of the main text

    @property
    def read(self) -> bool:
        return not self.error and bool(self.text.strip())


# Markup the HTML reader's Markdown keeps from encyclopedia pages: reference superscripts,
# escaped brackets, bold markers. Noise to a reader, a model and the number check alike.
_NOISE = ((re.compile(r"<sup>.*?</sup>", re.S), ""), (re.compile(r"\\([\[\]*_])"), r"\1"),
          (re.compile(r"\*\*(.+?)\*\*"), r"\1"))


def clean(text: str) -> str:
    for rx, repl in _NOISE:
        text = rx.sub(repl, text)
    return text


def _text_of(body: bytes, kind: str, url: str) -> tuple[str, str]:
    """(title, main text) of a fetched body; raises BinyError when there is none."""
    from biny.core.ingest.html import parse_html_string
    from biny.core.ingest.text import decode_bytes

    name = url.rsplit("/", 1)[-1] or url
    if kind == "pdf":
        from biny.core.ingest.pdf import parse_pdf

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "page.pdf"
            path.write_bytes(body)
            doc = parse_pdf(path, LimitSettings())
    elif kind == "html":
        doc = parse_html_string(decode_bytes(body, name), fallback_title=name, name=name)
    else:
        text = decode_bytes(body, name)
        return name, text
    return doc.title, clean("\n\n".join(b.text for b in doc.blocks))


def _kind(content_type: str, body: bytes) -> str | None:
    ct = content_type.split(";")[0].strip().lower()
    if ct in {"text/html", "application/xhtml+xml"} or body.lstrip()[:15].lower().startswith((b"<!doctype html",
                                                                                                 b"<html")):
        return "html"
    if ct == "application/pdf" or body.startswith(b"%PDF-"):
        return "pdf"
    if ct.startswith("text/"):
        return "text"
    return None


def fetch(url: str, cfg: WebSettings) -> Page:
    page = Page(url, fetched_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    limit = int(cfg.max_page_mb * 1024 * 1024)
    try:
        with httpx.Client(follow_redirects=True, max_redirects=cfg.max_redirects, timeout=cfg.timeout_s,
                          headers={"User-Agent": cfg.user_agent}) as client, client.stream("GET", url) as r:
            page.final_url = str(r.url)
            if r.status_code >= 400:
                page.error = f"HTTP {r.status_code}"
                return page
            declared = r.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > limit:
                page.error = f"too large ({int(declared) / 1e6:.1f} MB, limit {cfg.max_page_mb:g} MB)"
                return page
            body = bytearray()
            for piece in r.iter_bytes():
                body += piece
                if len(body) > limit:  # measured while reading, whatever the header said
                    page.error = f"too large (over {cfg.max_page_mb:g} MB)"
                    return page
            kind = _kind(r.headers.get("content-type", ""), bytes(body))
    except httpx.TimeoutException:
        page.error = f"timeout ({cfg.timeout_s:g} s)"
        return page
    except httpx.TooManyRedirects:
        page.error = f"more than {cfg.max_redirects} redirects"
        return page
    except httpx.HTTPError as exc:
        page.error = f"unreachable ({type(exc).__name__})"
        return page
    if kind is None:
        page.error = t("not text (not HTML, PDF or plain text)")
        return page
    try:
        page.title, page.text = _text_of(bytes(body), kind, page.final_url)
    except BinyError as exc:
        page.error = f"no readable text ({exc})"
        return page
    if not page.text.strip():
        page.error = "no readable text"
    page.content_hash = hashlib.sha256(page.text.encode("utf-8")).hexdigest()
    return page
