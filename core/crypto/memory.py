"""Sealing memory facts and conversation turns with the owner's memory key (I8 applied to M).

The memory key is a data key like a space's, wrapped by the owner's passphrase and
stored in the catalog (``memory_keys``). Scopes and conversation ids are kept as
keyed hashes so lookups need no plaintext; text is AES-GCM sealed, bound by its
associated data to the owner and the record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from biny.core.crypto.blind import BlindIndex
from biny.core.crypto.cipher import open_sealed, seal
from biny.core.crypto.keys import SpaceKeys
from biny.core.i18n import N_

MEMORY_KEY_ID = "memory"  # the "space id" the memory key is wrapped under


@dataclass(slots=True)
class MemoryCrypto:
    owner: str  # "tenant/user"
    keys: SpaceKeys

    def _aad(self, record: str) -> bytes:
        return f"biny-memory|{self.owner}|{record}".encode()

    def scope_key(self, scope: str) -> str:
        return BlindIndex(self.keys.index_key)("scope:" + scope)

    def conversation_key(self, conversation_id: str) -> str:
        return BlindIndex(self.keys.index_key)("conversation:" + conversation_id)

    def seal_fact(self, fact_id: str, text: str, scope: str, source: str) -> bytes:
        payload = json.dumps({"text": text, "scope": scope, "source": source}, ensure_ascii=False)
        return seal(self.keys.data_key, payload.encode("utf-8"), self._aad("fact:" + fact_id))

    def open_fact(self, fact_id: str, ct: bytes) -> dict[str, Any]:
        plain = open_sealed(self.keys.data_key, ct, self._aad("fact:" + fact_id), N_("Memory fact {id}"), fact_id)
        opened: dict[str, Any] = json.loads(plain)
        return opened

    def seal_turn(self, conversation_key: str, content: str) -> bytes:
        return seal(self.keys.data_key, content.encode("utf-8"), self._aad("turn:" + conversation_key))

    def open_turn(self, conversation_key: str, ct: bytes) -> str:
        return open_sealed(self.keys.data_key, ct, self._aad("turn:" + conversation_key),
                           N_("A conversation turn")).decode("utf-8")
