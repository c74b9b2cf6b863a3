"""The chat-model protocol and its failure kinds.

Every stage that uses a model has a no-model path; a model failure (timeout,
connection, HTTP status, malformed reply) is a distinct, logged error that the
caller turns into its fallback — never a crashed turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from biny.core.errors import BinyError


class LLMError(BinyError):
    """A model call failed; ``kind`` says how."""

    kind = "error"


class LLMUnavailable(LLMError):
    kind = "unavailable"


class LLMTimeout(LLMError):
    kind = "timeout"


class LLMConnectionError(LLMError):
    kind = "connection"


class LLMHTTPError(LLMError):
    kind = "http"


class LLMMalformedReply(LLMError):
    kind = "malformed"


@dataclass(slots=True)
class Message:
    role: str  # system | user | assistant
    content: str
    images: list[bytes] = field(default_factory=list)  # PNG/JPEG bytes, for vision-capable models


class ChatModel(Protocol):
    name: str

    def complete(self, messages: list[Message], *, max_tokens: int, timeout_s: float) -> str:
        """One chat completion; raises an ``LLMError`` subclass on any failure."""
        ...


_FENCE = re.compile(r"<\s*/?\s*passages\s*>", re.I)


def as_data(text: str) -> str:
    """Text shown to a model inside a ``<passages>`` block, with any fence of that block written inside it removed:
    a document must not close the block and speak as the user (document text is data, never instructions)."""
    return _FENCE.sub(" ", text)
