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

from biny.core import state


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


# The memos hold index keys and plaintext terms: they live as long as the session whose keys made them
# (core/state.py SESSION).
state.register("biny.core.crypto.blind._blind", state.SESSION, _blind.cache_clear)
state.register("biny.core.crypto.blind._template", state.SESSION, _template.cache_clear)


def on_forget(clear: Callable[[], None]) -> None:
    """Another memo of blinded values or of the terms they blind (text/terms.py's stems): kept in the registry with
    the same lifetime, dropped with these."""
    owner = getattr(clear, "__self__", clear)  # an lru_cache's cache_clear: named by the function it caches
    state.register(f"{owner.__module__}.{getattr(owner, '__qualname__', type(owner).__qualname__)}", state.SESSION,
                   clear)


def forget_blinded() -> None:
    """Drop every session memo (index keys and plaintext terms): called when a session locks."""
    state.forget(state.SESSION)


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
