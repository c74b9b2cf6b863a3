"""No chunk is embedded twice when a killed ingest runs again (issue 58).

``StagedEmbedder`` stands in for the model while one document (or one table's batch of rows) is ingested: each
text it is asked to embed is looked up first among the vectors staged for that document by an earlier run; only
the others reach the model, and their vectors are staged (store/staging.py) as soon as the model returns them —
before the next batch starts — so a kill, a Ctrl-C or a power loss loses at most the batch in the model's hands.
Passages and their sentences (issue 57) go through the same call and are kept alike.

A vector is found by the key of its exact input (the model's id and the text: a changed passage, header or note is a
new key, embedded again). In an encrypted space each staged file is sealed under the space's key and bound to its
document's group (crypto/space.py), and the group is named by a digest of the document's stored path (itself a keyed
digest there), so neither text, vector, key nor file name reaches the disk in the clear.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Any

import numpy as np

from biny.core.crypto.space import SpaceCrypto
from biny.core.embed.base import Embedder, Vectors
from biny.core.errors import DataTampered
from biny.core.store.writer import StoreWriter

_MAGIC = b"STG1"
_HEAD = struct.Struct("<4s32sII")  # magic, SHA-256 of the body, count, dimension
_KEY = 32  # bytes of an input's key


def input_digest(model_id: str, text: str) -> bytes:
    """What a vector depends on: the model and the exact text it embedded (job.input_key, as bytes)."""
    return hashlib.sha256(f"{model_id}\0{text}".encode()).digest()


def pack(keys: list[bytes], vectors: Vectors) -> bytes:
    body = b"".join(keys) + np.ascontiguousarray(vectors, dtype="<f4").tobytes()
    return _HEAD.pack(_MAGIC, hashlib.sha256(body).digest(), len(keys), vectors.shape[1]) + body


def unpack(blob: bytes, dim: int) -> dict[bytes, Vectors]:
    """A staged file's keys and vectors; empty when it is not whole, not ours, or of another dimension."""
    if len(blob) < _HEAD.size:
        return {}
    magic, digest, n, size = _HEAD.unpack_from(blob)
    body = blob[_HEAD.size :]
    if magic != _MAGIC or size != dim or len(body) != n * (_KEY + 4 * dim) or hashlib.sha256(body).digest() != digest:
        return {}
    vecs = np.frombuffer(body, dtype="<f4", offset=n * _KEY).reshape(n, dim).astype(np.float32)
    return {body[i * _KEY : (i + 1) * _KEY]: vecs[i] for i in range(n)}


def group_of(stored_path: str) -> str:
    """The staging group of the document stored at ``stored_path`` (a digest: no path reaches the disk)."""
    return hashlib.sha256(f"staged\0{stored_path}".encode()).hexdigest()[:32]


def forget_committed(writer: StoreWriter, space_id: str, stored_path: str) -> None:
    """A document found already stored: what a run staged for it is stale. A run killed between the document's commit
    and dropping its staged vectors left them, and no later run would embed it again to drop them."""
    writer.docs.unstage(space_id, group_of(stored_path))


class Stage:
    """One document's staged vectors: read once when it starts, one file added per batch, dropped at its commit."""

    def __init__(self, writer: StoreWriter, crypto: SpaceCrypto, stored_path: str, model_id: str, dim: int) -> None:
        self.writer, self.crypto, self.model_id, self.dim = writer, crypto, model_id, dim
        self.group = group_of(stored_path)
        self.known: dict[bytes, Vectors] = {}
        for blob in writer.docs.staged(crypto.space_id, self.group):
            try:
                self.known.update(unpack(crypto.open_staged(self.group, blob), dim))
            except DataTampered:
                continue  # altered or another space's: embedded again, never trusted
        self.reused = 0  # texts answered from what an earlier run staged

    def key(self, text: str) -> bytes:
        return input_digest(self.model_id, text)

    def put(self, keys: list[bytes], vectors: Vectors) -> None:
        sealed = self.crypto.seal_staged(self.group, pack(keys, vectors))
        self.writer.docs.stage(self.crypto.space_id, self.group, sealed)

    def drop(self) -> None:
        """The document committed: its staged vectors are in the space now."""
        self.writer.docs.unstage(self.crypto.space_id, self.group)


class StagedEmbedder:
    """The model, asked only for what ``stage`` does not hold; what it returns is staged before it is used."""

    def __init__(self, inner: Embedder, stage: Stage) -> None:
        self.inner = inner
        self.stage = stage

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    def embed_queries(self, texts: list[str]) -> Vectors:
        return self.inner.embed_queries(texts)

    def token_count(self, text: str) -> int:
        return self.inner.token_count(text)

    def embed_passages(self, texts: list[str]) -> Vectors:
        keys = [self.stage.key(t) for t in texts]
        # What the model is asked is what it was asked before, less what is staged (a text twice in one call is
        # embedded twice, as it was: the callers dedupe where they mean to).
        missing = [i for i, key in enumerate(keys) if key not in self.stage.known]
        self.stage.reused += len(texts) - len(missing)
        if not missing:
            return np.array([self.stage.known[k] for k in keys], dtype=np.float32).reshape(len(texts), self.dim)
        made = np.asarray(self.inner.embed_passages([texts[i] for i in missing]), dtype=np.float32)
        if made.ndim != 2 or made.shape != (len(missing), self.dim):
            return made  # the caller refuses it, naming the file; nothing staged
        if np.isfinite(made).all():  # a vector the caller will refuse is never kept for the next run
            self.stage.put([keys[i] for i in missing], made)
        if len(missing) == len(texts):
            return made
        out = np.array([self.stage.known.get(k, np.zeros(self.dim, np.float32)) for k in keys], dtype=np.float32)
        out[missing] = made
        return out

    def __getattr__(self, name: str) -> Any:
        # A runtime's own attributes (a remote model's endpoint, a test embedder's counters) stay reachable.
        return getattr(self.inner, name)
