"""Chinese in one written form for every embedder (issue 20: many written forms).

The same question written in Traditional characters sits farther from Simplified passages than written in
Simplified ones: measured on XQuAD zh (8 articles, 225 questions; bench/README.md) — with terms already folded
(core/text/terms.py), answers 0.907 in Traditional against 0.982 in Simplified, all of the difference in the
distance cut; with the questions converted, 0.982. So whatever the model, passages and questions reach it with
Traditional characters as Simplified ones. Japanese (text with kana) goes as written: its kanji are not
Traditional Chinese, and the model reads them best as they are.
"""

from __future__ import annotations

import re
from typing import Any

from biny.core.embed.base import Embedder, Vectors
from biny.core.text.terms import simplified

_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")


def one_form(text: str) -> str:
    """``text`` with its Chinese characters in Simplified form (Japanese, and text without them, as is)."""
    return simplified(text) if _HAN.search(text) and not _KANA.search(text) else text


class OneHanForm:
    """An embedder fed ``one_form`` of every text; everything else is the wrapped embedder's."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    def embed_passages(self, texts: list[str]) -> Vectors:
        return self.inner.embed_passages([one_form(t) for t in texts])

    def embed_queries(self, texts: list[str]) -> Vectors:
        return self.inner.embed_queries([one_form(t) for t in texts])

    def token_count(self, text: str) -> int:
        return self.inner.token_count(one_form(text))

    def __getattr__(self, name: str) -> Any:
        # A runtime's own attributes (a remote model's endpoint, a test embedder's counters) stay reachable.
        return getattr(self.inner, name)
