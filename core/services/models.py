"""The models a data folder uses: the embedder (loaded once, on first use) and the chat model."""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from biny.core.config import Settings, save_settings
from biny.core.embed.base import Embedder, Vectors
from biny.core.embed.factory import make_embedder
from biny.core.embed.han import OneHanForm
from biny.core.errors import ModelMismatch
from biny.core.i18n import t
from biny.core.llm.base import ChatModel
from biny.core.store.catalog import SpaceRow
from biny.core.store.lance import ChunkStore

_KEYRING_SERVICE = "biny-llm"
QUERY_CACHE = 1024  # questions whose vectors are kept (≈1.6 MB at 384 dimensions)
SENTENCE_CACHE = 8192  # sentences whose vectors are kept (≈12.6 MB at 384 dimensions)


class VectorCache:
    """Vectors of recent texts by (model, digest of the text), least recently used dropped first.

    Keyed by a digest, not the text: what an encrypted space's passages say is not kept here in the clear.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._vectors: OrderedDict[tuple[str, bytes], Any] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, model: str, texts: list[str], embed: Callable[[list[str]], Vectors], dim: int) -> Vectors:
        """One row per text, each embedded once (repeats in ``texts`` too) and kept for the next call."""
        keys = [(model, hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()) for text in texts]
        with self._lock:
            known = {k: self._vectors[k] for k in keys if k in self._vectors}
            for k in known:
                self._vectors.move_to_end(k)
        missing = dict(zip(keys, texts, strict=True))
        for k in known:
            missing.pop(k, None)
        if missing:
            fresh = dict(zip(missing, embed(list(missing.values())), strict=True))
            known |= fresh
            with self._lock:
                self._vectors.update(fresh)
                while len(self._vectors) > self.size:
                    self._vectors.popitem(last=False)
        return np.stack([known[k] for k in keys]) if keys else np.zeros((0, dim), dtype=np.float32)

    def clear(self) -> None:
        with self._lock:
            self._vectors.clear()


class Models:
    def __init__(self, settings: Settings, config_path: Path, embedder: Embedder | None) -> None:
        self.settings = settings
        self.config_path = config_path
        self._embedder = embedder
        self._embedder_lock = threading.Lock()
        self._llm: ChatModel | None = None
        self._llm_override = False
        # Question vectors by (model, text): the Inspector's re-runs, an evaluation's ablations and the
        # star map ask the same question again and again; a repeat costs no embedding.
        self._queries = VectorCache(QUERY_CACHE)
        # Sentence vectors, for the extracted answers: a web page's sentences are read for its answer and again
        # for its proposed entry, a passage's for every question it answers (1.6 s a page on two cores).
        self._sentences = VectorCache(SENTENCE_CACHE)

    @property
    def embedder(self) -> Embedder:
        with self._embedder_lock:
            if self._embedder is None:
                self._embedder = make_embedder(self.settings.embedding.model, self.settings.embedding)
            if not isinstance(self._embedder, OneHanForm):
                self._embedder = OneHanForm(self._embedder)  # Chinese in one written form (embed/han.py)
            return self._embedder

    def embed_queries(self, texts: list[str]) -> Vectors:
        """``embedder.embed_queries`` with a bounded cache of recent questions (exact text, same model)."""
        emb = self.embedder
        return self._queries.vectors(emb.model_id, texts, emb.embed_queries, emb.dim)

    def sentence_distances(self, question: str, sentences: list[str]) -> list[float]:
        """Cosine distance of each sentence to the question, by the space's embedder (answer/extractive.py)."""
        query = self.embed_queries([question])[0]
        emb = self.embedder
        vectors = self._sentences.vectors(emb.model_id, sentences, emb.embed_passages, emb.dim)
        return [float(d) for d in 1.0 - vectors @ query]

    def forget_queries(self) -> None:
        """Drop the cached question and sentence vectors (benchmarks that time questions asked before, cold)."""
        self._queries.clear()
        self._sentences.clear()

    @property
    def loaded(self) -> bool:
        """Has the embedder been loaded (so using it costs no model load)?"""
        return self._embedder is not None

    @property
    def llm(self) -> ChatModel | None:
        """The configured chat model, or None (every use has a no-model path)."""
        if self._llm_override:
            return self._llm
        cfg = self.settings.llm
        if not cfg.base_url or not cfg.model:
            return None
        if self._llm is None:
            from biny.core.llm.openai_compat import OpenAICompatible

            self._llm = OpenAICompatible(cfg.base_url, cfg.model, self._api_key(cfg.base_url))
        return self._llm

    @property
    def vision(self) -> ChatModel | None:
        """The model that reads pages and figures (``visual.vision_model`` on ``llm.base_url``), or None."""
        base, name = self.settings.llm.base_url, self.settings.visual.vision_model
        if not base or not name:
            return None
        from biny.core.llm.openai_compat import OpenAICompatible

        return OpenAICompatible(base, name, self._api_key(base))

    @staticmethod
    def _api_key(base_url: str) -> str | None:
        key = os.environ.get("BINY_LLM_API_KEY")
        if key:
            return key
        from biny.core.crypto.secrets import keyring_status

        if not keyring_status()[0]:
            return None
        import keyring

        found: str | None = keyring.get_password(_KEYRING_SERVICE, base_url)
        return found

    def set_llm(self, model: ChatModel | None) -> None:
        """Use a specific chat model (tests, or a provider the settings can't describe); None = none."""
        self._llm = model
        self._llm_override = model is not None
        if model is None:
            self.settings.llm.base_url = ""

    def configure_llm(self, base_url: str, model: str, api_key: str | None = None) -> str:
        """Save the LLM endpoint to config.toml; the key goes to the OS keyring, never the file."""
        from biny.core.crypto.secrets import keyring_status

        self.settings.llm.base_url = base_url.strip()
        self.settings.llm.model = model.strip()
        save_settings(self.settings, self.config_path)
        self._llm = None
        self._llm_override = False
        if not api_key:
            return t("No API key given (fine for local servers such as Ollama or llama.cpp).")
        usable, name = keyring_status()
        if not usable:
            return (t("No OS keyring on this machine, so the API key was not stored; set BINY_LLM_API_KEY in the "
                      "environment instead."))
        import keyring

        keyring.set_password(_KEYRING_SERVICE, self.settings.llm.base_url, api_key)
        return t("API key stored in the OS keyring ({name}).").format(name=name)

    def check_space(self, space: SpaceRow, chunks: ChunkStore) -> None:
        """Refuse to mix models: a space's vectors and the configured embedder must agree."""
        emb = self.embedder
        if space.embed_model != emb.model_id and chunks.count(space.space_id) > 0:
            raise ModelMismatch(
                t("Space {name!r} was embedded with {embed_model}; the configured model is {model_id}. Run `biny "
                  "space reembed {name}` to re-embed it with the configured model, or set embedding.model back in "
                  "config.toml.").format(name=space.name, embed_model=space.embed_model, model_id=emb.model_id)
            )


def single_threaded_blas() -> None:
    """Keep numpy's BLAS to one thread in this process.

    Measured (bench/query_latency.py, 2 cores): after a matrix product OpenBLAS's
    worker spins for a while, and the embedding model's own threads, which run next,
    slowed from 11 ms to 90–100 ms a query — 80% of ``ask``. The products biny runs
    are matrix × vector and memory-bound: one thread costs ~1.5 ms at 100k chunks.
    """
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")
