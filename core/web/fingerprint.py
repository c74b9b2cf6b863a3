"""W7: a rejected page is recognised again — by its address, its text, or text nearly the same.

The fingerprint is the normalised URL, the SHA-256 of the page's main text, and a 64-bit
SimHash (Charikar) of its word 3-shingles; two texts within ``NEAR_BITS`` bits are the same
page for review purposes (a mirror, a re-published copy, a reflowed version).
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

NEAR_BITS = 6
_TRACKING = re.compile(r"^(utm_|fbclid$|gclid$|mc_|ref$|spm$)")
_WORDS = re.compile(r"[\w']+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def normalise_url(url: str) -> str:
    """Scheme and host lowercased, default port, fragment and tracking parameters dropped, no trailing slash."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = f":{parts.port}" if parts.port and parts.port not in {80, 443} else ""
    query = urlencode(sorted((k, v) for k, v in parse_qsl(parts.query) if not _TRACKING.match(k)))
    path = parts.path.rstrip("/") or "/"
    return urlunsplit(("https", host + port, path, query, ""))


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    for w in _WORDS.findall(text.casefold()):
        out += list(w) if _CJK.search(w) else [w]  # Chinese and Japanese: characters as tokens
    return out


def simhash(text: str) -> int:
    tokens = _tokens(text)
    shingles = [" ".join(tokens[i : i + 3]) for i in range(max(1, len(tokens) - 2))]
    weights = [0] * 64
    for sh in shingles:
        h = int.from_bytes(hashlib.blake2b(sh.encode("utf-8"), digest_size=8).digest(), "big")
        for bit in range(64):
            weights[bit] += 1 if h >> bit & 1 else -1
    value = sum(1 << bit for bit in range(64) if weights[bit] > 0)
    return value - (1 << 64) if value >= 1 << 63 else value  # signed: fits a BIGINT column


def distance(a: int, b: int) -> int:
    return bin((a ^ b) & ((1 << 64) - 1)).count("1")


def near(a: int, b: int) -> bool:
    return distance(a, b) <= NEAR_BITS
