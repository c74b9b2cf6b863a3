"""Situating notes (SPEC I7, optional): one short model-written line per chunk.

The note says where a chunk sits in its document ("Clause 7.2 of the bridging-loan
terms, on late payment") and is added to the chunk's *embedding input* only. Notes
are cached by a hash of (model, title, chunk text) so re-ingesting an edited document
only asks for the chunks that changed; in encrypted spaces the cached note is sealed
with the space key. Any model failure means "no note" — never a failed ingest.
"""

from __future__ import annotations

import base64
import hashlib

from biny.core.crypto.space import SpaceCrypto
from biny.core.llm.base import ChatModel, LLMError, Message
from biny.core.store.catalog import Catalog

_SYSTEM = ("Write one short sentence (at most 25 words) that situates the passage within the document: "
           "which part it belongs to and what it is about. Use the document's language. Reply with the "
           "sentence only.")
MAX_TOKENS = 60
TIMEOUT_S = 10.0


def note_key(model: str, title: str, text: str) -> str:
    return hashlib.sha256(f"{model}\n{title}\n{text}".encode()).hexdigest()


class NoteWriter:
    def __init__(self, model: ChatModel, catalog: Catalog, crypto: SpaceCrypto) -> None:
        self.model = model
        self.catalog = catalog
        self.crypto = crypto
        self.calls = 0
        self.cached = 0
        self.failed = 0

    def note(self, title: str, doc_head: str, text: str) -> str:
        key = note_key(self.model.name, title, text)
        stored_key = self.crypto.stored_hash(key)
        hit = self.catalog.get_note(stored_key)
        if hit is not None:
            self.cached += 1
            return self._open(stored_key, hit)
        messages = [Message("system", _SYSTEM),
                    Message("user", f"Document: {title}\nBeginning of the document:\n{doc_head[:1500]}\n\n"
                                    f"Passage:\n{text}")]
        self.calls += 1
        try:
            note = self.model.complete(messages, max_tokens=MAX_TOKENS, timeout_s=TIMEOUT_S).strip()
        except LLMError:
            self.failed += 1
            return ""
        note = " ".join(note.split())[:300]
        self.catalog.put_note(stored_key, self._seal(stored_key, note))
        return note

    def _seal(self, key: str, note: str) -> str:
        if not self.crypto.encrypted or self.crypto.keys is None:
            return note
        from biny.core.crypto.cipher import seal

        blob = seal(self.crypto.keys.data_key, note.encode("utf-8"), f"{self.crypto.space_id}|note:{key}".encode())
        return "enc:" + base64.b64encode(blob).decode()

    def _open(self, key: str, value: str) -> str:
        if not value.startswith("enc:") or self.crypto.keys is None:
            return value
        from biny.core.crypto.cipher import open_sealed

        return open_sealed(self.crypto.keys.data_key, base64.b64decode(value[4:]),
                           f"{self.crypto.space_id}|note:{key}".encode(), "A cached situating note").decode()
