"""Keyed blind index: HMACs of normalised identifiers, terms and aspects.

The lookups of R3/R4 compare keys, never text, so an encrypted space stores
``HMAC(index_key, value)`` instead of the value: equal inputs still match, and
nothing readable is on disk. The question's keys are HMAC'd the same way.
"""

from __future__ import annotations

import hashlib
import hmac


class BlindIndex:
    def __init__(self, index_key: bytes | None) -> None:
        self._key = index_key

    @property
    def active(self) -> bool:
        return self._key is not None

    def __call__(self, value: str) -> str:
        if self._key is None:
            return value
        return hmac.new(self._key, value.encode("utf-8"), hashlib.sha256).hexdigest()[:32]

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
