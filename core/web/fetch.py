"""Read a page, don't skim (SPEC W2): fetch with size, time and redirect limits; main text only.

Only public addresses are read (issue 59): every hop's host is resolved here, each address is checked
(loopback, private, link-local, multicast, reserved, unspecified — IPv4, IPv6 and IPv4 inside IPv6 alike),
and the connection goes to the checked address itself, so a second lookup cannot swap in another one (DNS
rebinding). Redirects are followed here, hop by hop, for the same check. ``[web] allow_private`` lists the
intranet hosts, addresses or networks an operator chose to allow. A page has a total deadline
(``page_deadline_s``) besides the per-wait ``timeout_s``: a server trickling a byte every few seconds is cut
when the deadline passes, not after the last byte.

HTML goes through the same reader as ingested pages (trafilatura's main text), PDF through
PyMuPDF, plain text as it is; anything else is "not text". A page that could not be read
says why (timeout, HTTP 404, too large, not text, unreachable) and is never cited.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
import socket
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from biny.core.config import LimitSettings, WebSettings
from biny.core.errors import BinyError
from biny.core.i18n import t

if TYPE_CHECKING:  # httpx loads when a page is read, not with every command (issue 58: start-up)
    import httpx


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


IP = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_REDIRECTS = {301, 302, 303, 307, 308}


class Refused(Exception):
    """A hop that may not be fetched; the message says why (shown as the page's error)."""


def _embedded(ip: IP) -> IP:
    """The IPv4 address an IPv6 one carries (mapped, 6to4, Teredo, NAT64), which is where it really goes."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip.sixtofour is not None:
            return ip.sixtofour
        if ip.teredo is not None:
            return ip.teredo[1]
        if ip in _NAT64:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def is_public(ip: IP) -> bool:
    """True for an address on the public internet; False for every range that reaches this machine or its
    network (loopback, private, shared, link-local — the cloud metadata service —, multicast, reserved,
    unspecified)."""
    a = _embedded(ip)  # an IPv6 address carrying an IPv4 one is judged by where it leads
    return not (a.is_loopback or a.is_private or a.is_link_local or a.is_multicast or a.is_reserved
                or a.is_unspecified or not a.is_global)


def resolve(host: str, port: int) -> list[IP]:
    """Every address ``host`` resolves to (an address literal is itself)."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise Refused(f"unreachable (name not resolved: {host})") from exc
    out: list[IP] = []
    for info in infos:
        addr = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if addr not in out:
            out.append(addr)
    return out


def _allowed(host: str, ip: IP, allow: list[str]) -> bool:
    for entry in allow:
        entry = entry.strip().lower()
        if not entry:
            continue
        if entry == host.lower().rstrip("."):
            return True
        try:
            if ip in ipaddress.ip_network(entry, strict=False) or _embedded(ip) in ipaddress.ip_network(
                    entry, strict=False):
                return True
        except ValueError:
            continue  # a host name, matched above
    return False


def checked_address(url: str, allow: list[str]) -> tuple[str, IP]:
    """(host, the address to connect to) for ``url``; raises Refused when its scheme is not HTTP(S) or no
    address it resolves to is public (or listed in ``allow``)."""
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise Refused(f"not fetched (only http and https addresses are read: {url[:80]})")
    host = parts.hostname
    port = parts.port or (443 if parts.scheme == "https" else 80)
    addresses = resolve(host, port)
    for ip in addresses:
        if is_public(ip) or _allowed(host, ip, allow):
            return host, ip
    shown = ", ".join(str(a) for a in addresses[:3])
    raise Refused(f"refused: {host} is not a public address ({shown}); list it in [web] allow_private to read it")


def _pinned(url: str, ip: IP) -> tuple[str, dict[str, str], dict[str, Any]]:
    """``url`` rewritten to connect to ``ip`` itself, the Host header it names, and (HTTPS) the name the
    certificate is checked against — so no second name lookup happens between the check and the connection."""
    parts = urlsplit(url)
    literal = f"[{ip}]" if ip.version == 6 else str(ip)
    netloc = literal + (f":{parts.port}" if parts.port else "")
    host_header = parts.netloc.rsplit("@", 1)[-1]
    extensions: dict[str, Any] = {"sni_hostname": parts.hostname} if parts.scheme == "https" else {}
    return parts._replace(netloc=netloc).geturl(), {"Host": host_header}, extensions


class DeadlinePassed(Exception):
    pass


def read_body(r: httpx.Response, limit: int, deadline: float) -> bytes:
    """The response body, at most ``limit`` bytes, before ``deadline`` (time.monotonic()).

    Each wait for bytes is shortened to the time left: httpcore reads the read timeout from the request's
    extensions on every read, so a body trickling one byte every two seconds stops at the deadline instead of
    after its last byte. Raises DeadlinePassed, or ValueError when over ``limit``."""
    import httpx

    timeouts = r.request.extensions.get("timeout")
    body = bytearray()
    stream = r.iter_bytes()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise DeadlinePassed
        if isinstance(timeouts, dict):
            timeouts["read"] = min(timeouts.get("read") or left, left)
        try:
            piece = next(stream)
        except StopIteration:
            return bytes(body)
        except httpx.ReadTimeout:
            if time.monotonic() >= deadline:
                raise DeadlinePassed from None
            raise
        body += piece
        if len(body) > limit:  # measured while reading, whatever the header said
            raise ValueError(len(body))


def fetch(url: str, cfg: WebSettings, deadline: float | None = None) -> Page:
    """Read ``url`` (its public addresses only) by ``deadline`` (time.monotonic(); the question's), and at most
    ``cfg.page_deadline_s`` from now."""
    import httpx

    page = Page(url, fetched_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    limit = int(cfg.max_page_mb * 1024 * 1024)
    started = time.monotonic()
    ends = started + cfg.page_deadline_s
    if deadline is not None:
        ends = min(ends, deadline)
    current = url
    try:
        with httpx.Client(follow_redirects=False, trust_env=False,
                          headers={"User-Agent": cfg.user_agent}) as client:
            for hop in range(cfg.max_redirects + 1):
                _, ip = checked_address(current, cfg.allow_private)
                target, headers, extensions = _pinned(current, ip)
                left = ends - time.monotonic()
                if left <= 0:
                    raise DeadlinePassed
                wait = min(cfg.timeout_s, left)
                with client.stream("GET", target, headers=headers, extensions=extensions,
                                   timeout=httpx.Timeout(wait)) as r:
                    if r.status_code in _REDIRECTS and r.headers.get("location"):
                        if hop == cfg.max_redirects:
                            page.error = f"more than {cfg.max_redirects} redirects"
                            return page
                        current = urljoin(current, r.headers["location"])
                        continue
                    page.final_url = current
                    got = _body(r, page, limit, ends, cfg)
                    if got is None:
                        return page
                    body, kind = got
                    break
            else:  # pragma: no cover — the loop returns or breaks
                page.error = f"more than {cfg.max_redirects} redirects"
                return page
    except Refused as exc:
        page.error = str(exc)
        return page
    except DeadlinePassed:
        page.error = f"deadline passed ({ends - started:.0f} s) before the page was read whole"
        return page
    except httpx.TimeoutException:
        page.error = f"timeout ({cfg.timeout_s:g} s)"
        return page
    except httpx.HTTPError as exc:
        page.error = f"unreachable ({type(exc).__name__})"
        return page
    return _read_text(page, body, kind)


def _body(r: Any, page: Page, limit: int, ends: float, cfg: WebSettings) -> tuple[bytes, str | None] | None:
    """A final response's body and kind, within the size limit by the deadline; None with ``page.error`` set."""
    if r.status_code >= 400:
        page.error = f"HTTP {r.status_code}"
        return None
    declared = r.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        page.error = f"too large ({int(declared) / 1e6:.1f} MB, limit {cfg.max_page_mb:g} MB)"
        return None
    try:
        body = read_body(r, limit, ends)
    except ValueError:
        page.error = f"too large (over {cfg.max_page_mb:g} MB)"
        return None
    return body, _kind(r.headers.get("content-type", ""), body)


def _read_text(page: Page, body: bytes, kind: str | None) -> Page:
    """The fetched body as the page's title and text (or why it has none), and the text's hash."""
    if kind is None:
        page.error = t("not text (not HTML, PDF or plain text)")
        return page
    try:
        page.title, page.text = _text_of(body, kind, page.final_url)
    except BinyError as exc:
        page.error = f"no readable text ({exc})"
        return page
    if not page.text.strip():
        page.error = "no readable text"
    page.content_hash = hashlib.sha256(page.text.encode("utf-8")).hexdigest()
    return page
