"""A passage's sentence vectors, made once at ingest beside its vector (issue 57).

The no-model answer reads each sentence of its context by meaning (answer/extractive.py). Embedding them at question
time cost p50 ≈ 550 ms an answer; they are made when the passage is, from exactly the units the answer reads
(text/units.py), and stored with it (the chunk table's ``sentence_vectors`` column, store/lance.py; sealed in an
encrypted space like the passage's text, crypto/space.py). A sentence read with the one before it is the normalised
weighted mean of the two vectors (``placed``), not a second embedding.

Stored form: 8-bit scalar quantisation, one float32 scale per sentence — 388 bytes a sentence against 768 as float16
and 1,536 as float32; the gold-in-answer change against float16 and against embedding at question time is in
bench/README.md (issue 57). A blob holds the units' character offsets in the passage beside the vectors, so a reader
can tell which text each vector is of. An empty blob: none made (a space stored before them; filled lazily or by
``biny space reembed``).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from biny.core.embed.base import Embedder, Vectors
from biny.core.text.units import units_of

_MAGIC = b"SV1"
INT8, FLOAT16 = 1, 2
STORAGE = INT8  # measured against FLOAT16 (bench/README.md, issue 57)
_HEAD = struct.Struct("<3sBHH")  # magic, form, sentences, dimension

Offsets = npt.NDArray[np.uint32]  # (n, 2): start and end of each unit in the passage


def sentence_texts(passage_text: str) -> tuple[list[str], list[tuple[int, int]]]:
    """The units the answer reads (text/units.py), as embedded, with their offsets in the passage."""
    found = units_of(passage_text)
    return [u.text for u in found], [(u.start, u.end) for u in found]


def sentence_vectors_for(passage_text: str, embedder: Embedder) -> tuple[list[tuple[int, int]], Vectors]:
    """The offsets and vectors of a passage's sentences, as ingest stores them (a passage edited later is refreshed
    through this). No sentence: no embedding, an empty (0, dim) array."""
    return sentence_vectors_many([passage_text], embedder)[0]


def sentence_vectors_many(texts: Sequence[str], embedder: Embedder, batch: int = 64,
                          progress: Callable[[int, int], None] | None = None
                          ) -> list[tuple[list[tuple[int, int]], Vectors]]:
    """``sentence_vectors_for`` over many passages, their sentences embedded in batches (``progress(done, total)``
    in sentences after each)."""
    split = [sentence_texts(t) for t in texts]
    flat = [s for texts_, _ in split for s in texts_]
    out = np.zeros((len(flat), embedder.dim), dtype=np.float32)
    for start in range(0, len(flat), max(1, batch)):
        out[start : start + batch] = embedder.embed_passages(flat[start : start + batch])
        if progress is not None:
            progress(min(start + batch, len(flat)), len(flat))
    result: list[tuple[list[tuple[int, int]], Vectors]] = []
    at = 0
    for texts_, offsets in split:
        result.append((offsets, out[at : at + len(texts_)]))
        at += len(texts_)
    return result


# The sentence before weighs this much in the pair (issue 57): against the two embedded as one text (previous
# first), 0.6 tracks the question's similarities a little closer than the plain mean (correlation 0.906 vs 0.903 on
# 250 XQuAD pairs), and gold in the answer: en 0.945 / zh 0.915 against 0.940 / 0.910 (bench/README.md).
PREVIOUS_WEIGHT = 0.6


def placed_all(vectors: Vectors) -> Vectors:
    """``placed`` for every sentence after the first at once: row i is sentence i + 1 read after sentence i."""
    mean = PREVIOUS_WEIGHT * vectors[:-1] + (1 - PREVIOUS_WEIGHT) * vectors[1:]
    norms = np.linalg.norm(mean, axis=1, keepdims=True)
    return (mean / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def placed_similarities(vectors: Vectors, query: Vectors) -> Vectors:
    """``placed_all(vectors) @ query`` without making the placed vectors: each pair's similarity is the weighted mean
    of its two sentences' similarities over the norm of their weighted mean, which needs only each row's norm and
    the dot product of neighbours (issue 57: the judge reads a question's whole pool so, ≈1,500 sentences)."""
    v = np.asarray(vectors, dtype=np.float32)
    if len(v) < 2:
        return np.zeros(0, dtype=np.float32)
    w = PREVIOUS_WEIGHT
    sims = v @ np.asarray(query, dtype=np.float32).reshape(-1)
    squares = np.einsum("ij,ij->i", v, v)
    beside = np.einsum("ij,ij->i", v[:-1], v[1:])
    norms = np.sqrt(np.maximum(w * w * squares[:-1] + (1 - w) ** 2 * squares[1:] + 2 * w * (1 - w) * beside, 0.0))
    return ((w * sims[:-1] + (1 - w) * sims[1:]) / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def placed(before: Vectors, vector: Vectors) -> Vectors:
    """A sentence read with the one before it: the normalised weighted mean of their vectors, instead of embedding
    the two as one text (issue 57, measured in bench/README.md)."""
    mean = PREVIOUS_WEIGHT * np.asarray(before, dtype=np.float32) + \
        (1 - PREVIOUS_WEIGHT) * np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(mean))
    return (mean / norm if norm > 0 else mean).astype(np.float32)


def encode(offsets: Sequence[tuple[int, int]], vectors: Vectors, form: int = STORAGE) -> bytes:
    """The stored blob: header, offsets (uint32 pairs), then the vectors in ``form``."""
    vecs = np.asarray(vectors, dtype=np.float32).reshape(len(offsets), -1) if len(offsets) else \
        np.zeros((0, vectors.shape[1] if vectors.ndim == 2 else 0), dtype=np.float32)
    n, dim = vecs.shape
    head = _HEAD.pack(_MAGIC, form, n, dim)
    spans = np.asarray(offsets, dtype="<u4").reshape(n, 2).tobytes()
    if form == FLOAT16:
        return head + spans + vecs.astype("<f2").tobytes()
    scale = np.abs(vecs).max(axis=1) / 127.0 if n else np.zeros(0, dtype=np.float32)
    scale = np.where(scale > 0, scale, 1.0).astype("<f4")
    q = np.clip(np.rint(vecs / scale[:, None]), -127, 127).astype(np.int8)
    return head + spans + scale.tobytes() + q.tobytes()


def decode(blob: bytes) -> tuple[Offsets, Vectors] | None:
    """(offsets, unit-length float32 vectors) from a stored blob; None when none was made or it is not one."""
    if len(blob) < _HEAD.size or blob[:3] != _MAGIC:
        return None
    _, form, n, dim = _HEAD.unpack_from(blob)
    at = _HEAD.size
    offsets = np.frombuffer(blob, dtype="<u4", count=2 * n, offset=at).reshape(n, 2)
    at += 8 * n
    if form == FLOAT16:
        vecs = np.frombuffer(blob, dtype="<f2", count=n * dim, offset=at).astype(np.float32).reshape(n, dim)
    elif form == INT8:
        scale = np.frombuffer(blob, dtype="<f4", count=n, offset=at)
        q = np.frombuffer(blob, dtype=np.int8, count=n * dim, offset=at + 4 * n).reshape(n, dim)
        vecs = q.astype(np.float32) * scale[:, None]
    else:
        return None
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    return offsets, (vecs / np.where(norms > 0, norms, 1.0)).astype(np.float32)
