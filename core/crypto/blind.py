"""Keyed blind index: HMACs of normalised identifiers, terms and aspects.

The lookups of R3/R4 compare keys, never text, so an encrypted space stores
``HMAC(index_key, value)`` instead of the value: equal inputs still match, and
nothing readable is on disk. The question's keys are HMAC'd the same way.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Callable


@functools.lru_cache(maxsize=16)
def _template(key: bytes) -> hmac.HMAC:
    return hmac.new(key, digestmod=hashlib.sha256)


@functools.lru_cache(maxsize=1 << 16)
def _blind(key: bytes, value: str) -> str:
    # A copy of the keyed state skips re-padding the key; the memo serves the terms every question
    # repeats (measured: blinding was 0.6 ms of an ask at 12k chunks, issue 23).
    mac = _template(key).copy()
    mac.update(value.encode("utf-8"))
    return mac.hexdigest()[:32]


# Other memos of blinded values (retrieve/lexical.py's last question) register here to be dropped too.
_OTHER_MEMOS: list[Callable[[], None]] = []


def on_forget(clear: Callable[[], None]) -> None:
    _OTHER_MEMOS.append(clear)


def forget_blinded() -> None:
    """Drop the memo (it holds index keys and plaintext terms): called when a session locks."""
    _blind.cache_clear()
    _template.cache_clear()
    for clear in _OTHER_MEMOS:
        clear()


class BlindIndex:
    def __init__(self, index_key: bytes | None) -> None:
        self._key = index_key

    @property
    def active(self) -> bool:
        return self._key is not None

    def __call__(self, value: str) -> str:
        if self._key is None:
            return value
        return _blind(self._key, value)

    def ids(self, items: list[str]) -> list[str]:
        """``tier|key`` entries: the tier stays readable (def/ref), the key is blinded."""
        out = []
        for item in items:
            tier, key = item.split("|", 1)
            out.append(f"{tier}|{self(key)}")
        return out

    def many(self, values: list[str] | set[str] | frozenset[str]) -> list[str]:
        return sorted(self(v) for v in values)

    def aspect(self, name: str) -> str:
        return self("aspect:" + name) if self.active else name
