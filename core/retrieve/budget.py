"""R8 / M6: a character and token budget over whole entries, never cutting one in half.

One function serves the retrieval context, "more material" (R6) and memory recall
(M6): entries are taken in the order given; one that does not fit is left out whole
and the next, smaller one may still fit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(slots=True)
class Budgeted(Generic[T]):
    kept: list[T] = field(default_factory=list)
    over: list[T] = field(default_factory=list)
    chars: int = 0
    tokens: int = 0


def fit_whole(entries: Sequence[T], size: Callable[[T], tuple[int, int]], max_chars: int,
              max_tokens: int) -> Budgeted[T]:
    """Keep entries in order while (characters, tokens) stay within both caps."""
    out: Budgeted[T] = Budgeted()
    for entry in entries:
        chars, tokens = size(entry)
        if out.chars + chars <= max_chars and out.tokens + tokens <= max_tokens:
            out.kept.append(entry)
            out.chars += chars
            out.tokens += tokens
        else:
            out.over.append(entry)
    return out
