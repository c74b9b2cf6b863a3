"""The web reader against hostile pages on loopback (issue 59): seconds until each ends, with the default settings.

Run: ``python bench/web_guard.py``. A loopback server plays a public site (``public.test``, resolved to
127.0.0.1 by a patched resolver and allowed by name, as in tests/core/test_web_guard.py) that redirects to
127.0.0.1 and to 169.254.169.254, and serves a page one byte every 2 s (forever: only a deadline ends it). Each
fetch is timed to its outcome with ``[web]`` as shipped (timeout_s 8 per wait, page_deadline_s 20,
question_deadline_s 45); a question reading three trickling pages shows the question's deadline.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from biny.core.config import WebSettings
from biny.core.web.fetch import fetch


class Site(BaseHTTPRequestHandler):
    port = 0

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        moves = {"/to-loopback": f"http://127.0.0.1:{Site.port}/internal",
                 "/to-metadata": "http://169.254.169.254/latest/meta-data/"}
        if self.path in moves:
            self.send_response(302)
            self.send_header("Location", moves[self.path])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        try:
            while True:  # one byte every 2 s, for ever
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(2)
        except OSError:
            pass


def main() -> int:
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "public.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", int(port or 80)))]
        return real(host, port, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    Site.port = httpd.server_address[1]
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    cfg = WebSettings(allow_private=["public.test"])
    base = f"http://public.test:{Site.port}"
    print(f"{'case':<44}{'s':>7}  outcome")
    for label, path in (("redirect to 127.0.0.1", "/to-loopback"), ("redirect to 169.254.169.254", "/to-metadata"),
                        ("one byte every 2 s (page deadline)", "/drip")):
        t0 = time.perf_counter()
        page = fetch(base + path, cfg)
        print(f"{label:<44}{time.perf_counter() - t0:>7.1f}  {page.error[:100]}", flush=True)
    t0 = time.perf_counter()
    deadline = time.monotonic() + cfg.question_deadline_s
    errors = [fetch(f"{base}/drip?{n}", cfg, deadline).error for n in range(3)]
    print(f"{'three trickling pages (question deadline)':<44}{time.perf_counter() - t0:>7.1f}  "
          f"{'; '.join(e[:40] for e in errors)}")
    httpd.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
