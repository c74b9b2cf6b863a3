"""The web reader fetches only public addresses and keeps a total deadline (issue 59).

A loopback server plays a public site ("public.test", resolved to 127.0.0.1 by a patched resolver and
allowed by name); what it redirects to, and names resolving to loopback, must be refused before any
connection is made. Every address the process connects to is recorded.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from biny.core.config import Settings, WebSettings
from biny.core.web.fetch import fetch, is_public


class Site(BaseHTTPRequestHandler):
    port = 0
    hits: list[str] = []  # noqa: RUF012

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        Site.hits.append(self.path)
        moves = {"/to-loopback": f"http://127.0.0.1:{Site.port}/internal",
                 "/to-metadata": "http://169.254.169.254/latest/meta-data/",
                 "/to-mapped": f"http://[::ffff:127.0.0.1]:{Site.port}/internal",
                 "/to-intranet": f"http://intranet.example:{Site.port}/internal",
                 "/to-page": "/page"}
        if self.path in moves:
            self.send_response(302)
            self.send_header("Location", moves[self.path])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path == "/drip":  # one byte at a time, each well within the per-wait timeout
            body = b"The lighthouse was built in 1872 and still works today." * 2
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                for b in body:
                    self.wfile.write(bytes([b]))
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass  # the reader hung up at its deadline
            return
        body = (b"INTERNAL-ONLY-SECRET admin token" if self.path == "/internal"
                else b"The Old Point Lighthouse was built in 1872 by the harbour board.")
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def site() -> Iterator[int]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    Site.port = httpd.server_address[1]
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield Site.port
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def net(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """A resolver that answers 127.0.0.1 for *.test and *.example names (as a hostile DNS would), and a record
    of every name looked up and every address connected to."""
    seen: dict[str, list[Any]] = {"lookups": [], "connects": []}
    real_lookup, real_connect = socket.getaddrinfo, socket.socket.connect

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        seen["lookups"].append(host)
        if isinstance(host, str) and host.endswith((".test", ".example")):
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", int(port or 80)))]
        return real_lookup(host, port, *args, **kwargs)

    def connect(self: socket.socket, address: Any) -> Any:
        seen["connects"].append(address)
        return real_connect(self, address)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)
    return seen


def _cfg(**kw: Any) -> WebSettings:
    return WebSettings(**{"allow_private": ["public.test"], "timeout_s": 5.0, **kw})


def test_every_non_public_range_is_refused_and_public_addresses_pass() -> None:
    refused = ["127.0.0.1", "127.8.9.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1", "169.254.169.254",
               "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255", "0.0.0.0", "::1", "::",
               "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
               "::ffff:169.254.169.254", "2002:7f00:1::1", "64:ff9b::a9fe:a9fe", "2001:db8::1"]
    for a in refused:
        assert not is_public(ipaddress.ip_address(a)), a
    for a in ["93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]:
        assert is_public(ipaddress.ip_address(a)), a


def test_a_redirect_to_loopback_is_refused_before_connecting(site: int, net: dict[str, list[Any]]) -> None:
    Site.hits.clear()
    page = fetch(f"http://public.test:{site}/to-loopback", _cfg())
    assert not page.read and page.error.startswith("refused: 127.0.0.1 is not a public address")
    assert "allow_private" in page.error  # says how to allow it on purpose
    assert Site.hits == ["/to-loopback"] and "/internal" not in Site.hits
    for path in ("/to-mapped", "/to-intranet"):  # loopback inside IPv6, a name resolving to loopback
        page = fetch(f"http://public.test:{site}{path}", _cfg())
        assert page.error.startswith("refused"), (path, page.error)
    assert "/internal" not in Site.hits
    # The same hop, allowed: redirects are followed (here, to a page on the same site).
    assert fetch(f"http://public.test:{site}/to-page", _cfg()).read


def test_a_redirect_to_the_metadata_service_is_never_connected_to(site: int, net: dict[str, list[Any]]) -> None:
    page = fetch(f"http://public.test:{site}/to-metadata", _cfg())
    assert page.error.startswith("refused: 169.254.169.254")
    assert [a for a in net["connects"] if isinstance(a, tuple) and a[0] == "169.254.169.254"] == []


def test_a_name_resolving_to_loopback_is_refused_and_looked_up_once_when_allowed(
        site: int, net: dict[str, list[Any]]) -> None:
    Site.hits.clear()
    page = fetch(f"http://intranet.example:{site}/internal", _cfg())
    assert page.error.startswith("refused: intranet.example") and Site.hits == []
    assert net["connects"] == []  # refused after the lookup, before any connection
    net["lookups"].clear()
    page = fetch(f"http://intranet.example:{site}/internal", _cfg(allow_private=["intranet.example"]))
    assert page.read and "INTERNAL-ONLY" in page.text
    # One lookup, checked, and the connection went to that address: no second resolution to rebind.
    assert net["lookups"].count("intranet.example") == 1
    assert [a[0] for a in net["connects"] if isinstance(a, tuple)] == ["127.0.0.1"]
    # A network in the list allows every address in it.
    assert fetch(f"http://127.0.0.1:{site}/page", _cfg(allow_private=["127.0.0.0/8"])).read


def test_ipv6_loopback_is_refused(net: dict[str, list[Any]]) -> None:
    try:
        httpd = ThreadingHTTPServer.__new__(ThreadingHTTPServer)
        httpd.address_family = socket.AF_INET6
        ThreadingHTTPServer.__init__(httpd, ("::1", 0), Site)
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        port = httpd.server_address[1]
        Site.hits.clear()
        assert fetch(f"http://[::1]:{port}/page", _cfg()).error.startswith("refused: ::1")
        assert Site.hits == [] and net["connects"] == []
        assert fetch(f"http://[::1]:{port}/page", _cfg(allow_private=["::1"])).read  # listed: read
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_trickling_page_is_cut_at_its_total_deadline(site: int, net: dict[str, list[Any]]) -> None:
    # Each byte arrives within the 5 s per-wait timeout, so only a total deadline stops it.
    page = fetch(f"http://public.test:{site}/drip", _cfg(page_deadline_s=1.0))
    assert not page.read and page.error.startswith("deadline passed"), page.error
    # The question's deadline, shorter than the page's, is the one kept.
    page = fetch(f"http://public.test:{site}/drip", _cfg(page_deadline_s=60.0), time.monotonic() + 0.5)
    assert page.error.startswith("deadline passed"), page.error


def test_the_allowance_is_a_setting_with_a_checked_type(tmp_path: Any) -> None:
    from biny.core.config import load_settings
    from biny.core.errors import ConfigError

    path = tmp_path / "config.toml"
    path.write_text('[web]\nallow_private = ["wiki.intranet", "10.0.0.0/8"]\n', encoding="utf-8")
    assert load_settings(path).web.allow_private == ["wiki.intranet", "10.0.0.0/8"]
    assert Settings().web.allow_private == []  # nothing private is read unless listed
    path.write_text("[web]\nallow_private = [1]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="list of strings"):
        load_settings(path)
