"""Per-passage integrity codes (issue 59): everything that decides an answer, bound under one keyed digest.

Each row of a space's chunk table carries ``mac`` = HMAC-SHA256(key, canonical bytes of the row), cut to 16
bytes, over ``MAC_FIELDS``: its ids (chunk, document), position (ordinal, characters, pages), size (tokens),
heading and text or ciphertext, its sentences' vectors (issue 57), key lists (identifiers, terms or blind-index
entries, aspects) and vector. A
changed byte in any of them, or a value moved from one row to another (a vector, a ciphertext, a doc id, an
emptied term list), makes the row's code wrong; the matrix load (store/vectors.py) and ``biny doctor --deep``
recompute and compare them.

The key:

* encrypted spaces: ``derive_key(data_key)`` (HKDF-SHA256, info ``biny row mac``). Without the passphrase nobody
  can compute a valid code, so an edited row cannot be made to pass.
* plaintext spaces: a random per-space key kept in the catalog (``spaces.row_key``). Anyone who can edit the
  data folder can read it and forge codes: here the code finds damage (a failing disk, a bad copy) and edits made
  to the Lance files alone, not a determined attacker with write access to the whole folder — which also holds
  the plaintext itself. Encrypt a space whose answers must resist that.

A space whose every row was given a code records ``bound_mark(key, space_id)`` in the catalog
(``spaces.rows_bound``): from then on a row with an empty code is a mismatch, never trusted. Spaces created by
this version are bound at creation; older plaintext spaces are bound when the writer opens the folder, older
encrypted ones by ``biny doctor --repair`` (which needs the key); until then ``doctor`` reports them and rows with
a code are still checked.

How a writer computes the code (every path that writes or changes a chunk row must): build the rows as they
will be stored and either call ``table_macs(key, table)`` on the Arrow table (one code per row, in order), or
``row_mac(key, row)`` on one row given as a mapping of column name to stored value (``heading_path`` as its
stored JSON text, ``page``/``page_end`` may be None, ``vector`` a sequence of floats). Both give the same bytes.
``ChunkStore.add`` and ``ChunkMaintenance.rekey`` do this themselves when given the key (``StoreWriter`` passes it).
A new column that decides answers must be added to ``MAC_FIELDS`` and to the encoding below, and existing
rows re-coded (``ChunkMaintenance.bind``).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

MAC_BYTES = 16
_VERSION = 1
# Fixed-width fields (one header per row), then variable ones (their lengths are in the header).
_FIXED = ("ordinal", "char_start", "char_end", "page", "page_end", "tokens", "est_tokens")
_BYTES = ("chunk_id", "doc_id", "heading_path", "text", "ct", "sentence_vectors")
_LISTS = ("ids", "terms", "aspects")
MAC_FIELDS: tuple[str, ...] = (*_BYTES[:2], *_FIXED, *_BYTES[2:], *_LISTS, "vector")

_HEADER = np.dtype([("version", "<u2"), ("nulls", "<u2"), ("ordinal", "<i4"), ("char_start", "<i4"),
                    ("char_end", "<i4"), ("page", "<i4"), ("page_end", "<i4"), ("tokens", "<i4"),
                    ("est_tokens", "<f4"), ("lens", "<u4", (len(_BYTES) + len(_LISTS) + 1,))])
_TYPES: dict[str, pa.DataType] = {
    "chunk_id": pa.string(), "doc_id": pa.string(), "ordinal": pa.int32(), "char_start": pa.int32(),
    "char_end": pa.int32(), "page": pa.int32(), "page_end": pa.int32(), "tokens": pa.int32(),
    "est_tokens": pa.float32(), "heading_path": pa.string(), "text": pa.string(), "ct": pa.binary(),
    "sentence_vectors": pa.binary(),
    "ids": pa.list_(pa.string()), "terms": pa.list_(pa.string()), "aspects": pa.list_(pa.string()),
}


def derive_key(data_key: bytes) -> bytes:
    """An encrypted space's row-code key, from its data key (never stored)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"biny row mac").derive(data_key)


def new_plain_key() -> bytes:
    """A plaintext space's row-code key (kept in the catalog: see the module's note on what it protects)."""
    return os.urandom(32)


def bound_mark(key: bytes, space_id: str) -> str:
    """What the catalog records once every row of the space has a code; only the key's holder can make it."""
    return hmac.new(key, f"biny rows bound|{space_id}".encode(), hashlib.sha256).hexdigest()[:32]


def is_bound(key: bytes, space_id: str, mark: str) -> bool:
    return bool(mark) and hmac.compare_digest(mark, bound_mark(key, space_id))


def _offsets(arr: pa.Array) -> tuple[npt.NDArray[np.int64], memoryview]:
    """A string or binary array's value offsets (relative to its own slice) and its data bytes."""
    if pa.types.is_string(arr.type):
        arr = arr.view(pa.binary())
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int32, count=len(arr) + 1, offset=arr.offset * 4).astype(np.int64) \
        if bufs[1] is not None else np.zeros(len(arr) + 1, dtype=np.int64)
    data = memoryview(bufs[2]) if len(bufs) > 2 and bufs[2] is not None else memoryview(b"")
    return offsets, data


def _column(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def _header(cols: dict[str, pa.Array], n: int) -> npt.NDArray[Any]:
    """One fixed-width record per row: the numbers, which of them are null, and every variable part's length."""
    header = np.zeros(n, dtype=_HEADER)
    header["version"] = _VERSION
    nulls = np.zeros(n, dtype=np.uint16)
    for bit, name in enumerate(_FIXED):
        arr = cols[name]
        nulls |= np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=np.uint16) << bit
        header[name] = arr.fill_null(0).to_numpy(zero_copy_only=False)
    header["nulls"] = nulls
    return header


def _part(offsets: npt.NDArray[np.int64], data: Any, n: int) -> pa.Array:
    """Row i's bytes of one part: ``data[offsets[i]:offsets[i + 1]]``, as an Arrow array over the same buffer."""
    return pa.Array.from_buffers(pa.large_binary(), n, [None, pa.py_buffer(np.ascontiguousarray(offsets, np.int64)),
                                                        pa.py_buffer(data)])


def _messages(cols: dict[str, pa.Array], header: npt.NDArray[Any]) -> tuple[list[int], memoryview]:
    """Every row's message — its parts in order — laid end to end by Arrow: row i is ``data[at[i]:at[i + 1]]``.

    The parts' offsets are computed with numpy for all rows at once, and Arrow joins them, so per row there is one
    slice and one HMAC call (15 updates per row before: issue 57, 31 s of a 1M-passage space's first question)."""
    n = len(header)
    lens = header["lens"]
    at = np.arange(n + 1, dtype=np.int64)
    parts: list[pa.Array] = []
    for j, name in enumerate(_BYTES):
        offsets, data = _offsets(cols[name])
        lens[:, j] = np.diff(offsets)
        parts.append(_part(offsets, data, n))
    for j, name in enumerate(_LISTS):
        arr = cols[name]
        outer = np.asarray(arr.offsets.to_numpy(zero_copy_only=False), dtype=np.int64)
        inner, data = _offsets(arr.values)
        lens[:, len(_BYTES) + j] = np.diff(outer)
        parts.append(_part(outer * 4, np.ascontiguousarray(np.diff(inner), dtype="<u4"), n))  # each value's length
        parts.append(_part(inner[outer], data, n))  # then the values
    vectors = cols["vector"]
    width = vectors.type.list_size * 4
    lens[:, -1] = vectors.type.list_size
    parts.append(_part(at * width, np.ascontiguousarray(vectors.flatten().to_numpy(zero_copy_only=False), "<f4"), n))
    # The header goes first; it is made last because the loops above fill in its lengths.
    parts.insert(0, _part(at * _HEADER.itemsize, header, n))
    joined = pc.binary_join_element_wise(*parts, pa.scalar(b"", pa.large_binary()))
    bufs = joined.buffers()
    ends = np.frombuffer(bufs[1], dtype=np.int64, count=n + 1, offset=joined.offset * 8)
    return ends.tolist(), memoryview(bufs[2]) if bufs[2] is not None else memoryview(b"")


# Rows whose codes are computed on a second thread as well (OpenSSL's one-shot HMAC lets go of the GIL): below this
# a batch is hashed on the caller's thread alone.
_SHARED_FROM = 512
_hasher = ThreadPoolExecutor(1, thread_name_prefix="biny-rowmac")


def table_macs(key: bytes, table: pa.Table | pa.RecordBatch) -> list[bytes]:
    """The code of every row of ``table`` (which holds at least ``MAC_FIELDS``), in row order (bench/row_integrity.py
    has the figures)."""
    n = table.num_rows
    if n == 0:
        return []
    cols = {name: _column(table.column(name)) for name in MAC_FIELDS}
    at, data = _messages(cols, _header(cols, n))
    digest = hmac.digest

    def codes(a: int, b: int) -> list[bytes]:
        return [digest(key, data[at[i]:at[i + 1]], "sha256")[:MAC_BYTES] for i in range(a, b)]

    if n < _SHARED_FROM:
        return codes(0, n)
    half = _hasher.submit(codes, n // 2, n)
    return codes(0, n // 2) + half.result()


def row_mac(key: bytes, row: Mapping[str, Any]) -> bytes:
    """The code of one row given as column → stored value (see the module docstring); same as ``table_macs``."""
    vector = np.asarray(row["vector"], dtype=np.float32).reshape(-1)
    arrays = [pa.array([row[name]], type=_TYPES[name]) for name in MAC_FIELDS[:-1]]
    arrays.append(pa.FixedSizeListArray.from_arrays(pa.array(vector, type=pa.float32()), len(vector)))
    return table_macs(key, pa.Table.from_arrays(arrays, names=list(MAC_FIELDS)))[0]


def mismatched(key: bytes, table: pa.Table | pa.RecordBatch, *, bound: bool) -> npt.NDArray[np.bool_]:
    """Per row of ``table`` (``MAC_FIELDS`` and ``mac``): does its stored code disagree with its columns? A row
    without a code counts only in a ``bound`` space (in one not yet bound it was stored before codes existed)."""
    stored = _column(table.column("mac"))
    empty = np.asarray(pc.equal(pc.binary_length(stored), 0).fill_null(True).to_numpy(zero_copy_only=False),
                       dtype=bool)
    expected = table_macs(key, table)
    got = stored.to_pylist()
    bad = np.array([not e and (g != x) for g, x, e in zip(got, expected, empty, strict=True)], dtype=bool)
    return bad | (empty & bound)


def uncoded(table: pa.Table | pa.RecordBatch) -> int:
    """Rows without a code (stored before codes existed)."""
    stored = _column(table.column("mac"))
    return int(pc.sum(pc.equal(pc.binary_length(stored), 0).fill_null(True).cast(pa.int64())).as_py() or 0)


def columns() -> list[str]:
    """What a scan must read to check codes."""
    return [*MAC_FIELDS, "mac"]


# ---- records other than chunk rows (issue 59): structured-index rows, memory facts ----------------------------
def record_mac(key: bytes, domain: str, *parts: str | bytes | int | float | None) -> str:
    """A keyed code over one record outside the chunk table, as 32 hex characters.

    ``domain`` names the kind of record (a structured-index row, its spec, a memory fact), so a code made for one
    never passes as another's. Each part is typed and length-prefixed: bytes cannot move across a boundary, and
    ``None``, ``""`` and ``0`` differ. Callers pass every stored value that decides what is read back (its ids,
    revision, status, text or ciphertext, vector bytes).
    """
    h = hmac.new(key, b"biny record|" + domain.encode(), hashlib.sha256)
    for part in parts:
        if part is None:
            tag, data = b"n", b""
        elif isinstance(part, bytes):
            tag, data = b"b", part
        elif isinstance(part, str):
            tag, data = b"s", part.encode("utf-8")
        elif isinstance(part, bool | int):
            tag, data = b"i", str(int(part)).encode()
        else:
            tag, data = b"f", np.float64(part).tobytes()
        h.update(tag + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()[:32]


def derive_record_key(data_key: bytes, purpose: str) -> bytes:
    """A key for ``record_mac`` from a data key that is not a space's (the owner's memory key)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=f"biny record mac|{purpose}".encode()).derive(data_key)


def same(stored: str, expected: str) -> bool:
    """Constant-time comparison of a stored code with the recomputed one ('' never matches)."""
    return bool(stored) and hmac.compare_digest(stored, expected)
