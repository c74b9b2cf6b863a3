"""Situating notes (SPEC I7, optional): one short model-written line per chunk.

The note says where a chunk sits in its document ("Clause 7.2 of the bridging-loan
terms, on late payment") and is added to the chunk's *embedding input* only. Notes
are cached by a hash of (model, title, chunk text) so re-ingesting an edited document
only asks for the chunks that changed; in encrypted spaces the cached note is sealed
with the space key. Any model failure means "no note" — never a failed ingest.
"""

from __future__ import annotations

import hashlib
from typing import Protocol

from biny.core.llm.base import ChatModel, LLMError, Message

_SYSTEM = ("Write one short sentence (at most 25 words) that situates the passage within the document: "
           "which part it belongs to and what it is about. Use the document's language. Reply with the "
           "sentence only.")
MAX_TOKENS = 60
TIMEOUT_S = 10.0


class NoteCache(Protocol):
    """Where notes are kept between runs (the engine's is keyed and sealed per space)."""

    def get(self, key: str) -> str | None: ...

    def put(self, key: str, note: str) -> None: ...


def note_key(model: str, title: str, text: str) -> str:
    return hashlib.sha256(f"{model}\n{title}\n{text}".encode()).hexdigest()


class NoteWriter:
    def __init__(self, model: ChatModel, cache: NoteCache) -> None:
        self.model = model
        self.cache = cache
        self.calls = 0
        self.cached = 0
        self.failed = 0

    def note(self, title: str, doc_head: str, text: str) -> str:
        key = note_key(self.model.name, title, text)
        hit = self.cache.get(key)
        if hit is not None:
            self.cached += 1
            return hit
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
        self.cache.put(key, note)
        return note
