"""A space's view of encryption: seal and open records and metadata, blind lookups.

For an unencrypted space (created only with an explicit flag) every method is the
identity, so the rest of the engine has one code path.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Protocol, TypeVar

from biny.core.crypto.blind import BlindIndex
from biny.core.crypto.cipher import open_sealed, seal
from biny.core.crypto.keys import SpaceKeys
from biny.core.errors import BinyError, DataTampered
from biny.core.i18n import N_, t


# What sealing reads and writes of a stored row, by shape: the stores' rows (a chunk record, a document row) sit
# above this module, so it names their fields, not their classes (issue 56: layers hold for type imports too).
class SealableChunk(Protocol):
    chunk_id: str
    doc_id: str
    text: str
    heading_path: list[str]
    ids: list[str]
    terms: list[str]
    aspects: list[str]
    ct: bytes
    sentence_vectors: bytes


class SealableMeta(Protocol):
    doc_id: str
    path: str
    title: str
    warnings: list[str]
    meta_ct: str


C = TypeVar("C", bound=SealableChunk)
M = TypeVar("M", bound=SealableMeta)


# Marks chunk ciphertext whose associated data names its document as well as the space and the chunk
# (issue 22): moving a passage to another document, or changing its doc_id, then fails to open.
# Ciphertext without the mark was sealed before and opens with the older associated data.
_BOUND = b"\x00bd2"
_SENTENCES = b"|sentences"  # the associated data's domain for a chunk's sealed sentence vectors (issue 57)


@dataclass(slots=True)
class SpaceCrypto:
    space_id: str
    keys: SpaceKeys | None
    # The key of the space's row codes (store/rowmac.py, issue 59), set by the key session; None: unknown here.
    mac_key: bytes | None = None

    @property
    def encrypted(self) -> bool:
        return self.keys is not None

    @property
    def blind(self) -> BlindIndex:
        return BlindIndex(self.keys.index_key if self.keys else None)

    def _aad(self, record_id: str) -> bytes:
        return f"{self.space_id}|{record_id}".encode()

    # ---- chunks ----------------------------------------------------------------------------
    def seal_record(self, rec: C) -> C:
        if self.keys is None:
            return rec
        payload = json.dumps({"text": rec.text, "heading_path": rec.heading_path}, ensure_ascii=False)
        rec.ct = _BOUND + seal(self.keys.data_key, payload.encode("utf-8"), self._chunk_aad(rec.chunk_id, rec.doc_id))
        rec.text = ""
        rec.heading_path = []
        rec.ids, rec.terms, rec.aspects = self.seal_keys(rec.ids, rec.terms, rec.aspects)
        rec.sentence_vectors = self.seal_sentences(rec.chunk_id, rec.doc_id, rec.sentence_vectors)
        return rec

    def seal_sentences(self, chunk_id: str, doc_id: str, blob: bytes) -> bytes:
        """A passage's sentence vectors as stored (issue 57): sealed like its text, under the same binding to its
        space, document and chunk, in a domain of their own (neither opens as the other). A sentence's vector says
        much of what the sentence says; with their offsets they outline the text. Empty stays empty (none made)."""
        if self.keys is None or not blob:
            return blob
        return seal(self.keys.data_key, blob, self._chunk_aad(chunk_id, doc_id) + _SENTENCES)

    def open_sentences(self, chunk_id: str, doc_id: str, blob: bytes) -> bytes:
        if self.keys is None or not blob:
            return blob
        return open_sealed(self.keys.data_key, blob, self._chunk_aad(chunk_id, doc_id) + _SENTENCES,
                           N_("Chunk {id}"), chunk_id)

    def seal_keys(self, ids: list[str], terms: list[str],
                  aspects: list[str]) -> tuple[list[str], list[str], list[str]]:
        """A passage's key lists as stored: blinded in an encrypted space (I8), as they are otherwise."""
        if self.keys is None:
            return ids, terms, aspects
        blind = self.blind
        return blind.ids(ids), blind.many(terms), sorted(blind.aspect(a) for a in aspects)

    def open_record(self, rec: C) -> C:
        if self.keys is None:
            return rec
        payload = json.loads(self._open_chunk(rec.chunk_id, rec.doc_id, rec.ct))
        rec.text = payload["text"]
        rec.heading_path = payload["heading_path"]
        rec.sentence_vectors = self.open_sentences(rec.chunk_id, rec.doc_id, rec.sentence_vectors)
        return rec

    def log_message(self, stored_path: str, message: str) -> str:
        """An ingest-log message as stored: sealed in encrypted spaces (it names files and their faults)."""
        return self.seal_note(f"log:{stored_path}", message) if message else message

    def open_log(self, stored_path: str, message: str) -> str:
        try:
            return self.open_note(f"log:{stored_path}", message)
        except BinyError:
            return t("(sealed message that no longer opens)")

    def open_text(self, chunk_id: str, doc_id: str, text: str, ct: bytes) -> str:
        """A chunk's text from its stored columns (plaintext, or opened from ``ct``)."""
        if self.keys is None or not ct:
            return text
        return str(json.loads(self._open_chunk(chunk_id, doc_id, ct))["text"])

    def _chunk_aad(self, chunk_id: str, doc_id: str) -> bytes:
        return f"{self.space_id}|{doc_id}|{chunk_id}".encode()

    def _open_chunk(self, chunk_id: str, doc_id: str, ct: bytes) -> bytes:
        assert self.keys is not None
        what = N_("Chunk {id}")
        if ct.startswith(_BOUND):
            try:
                return open_sealed(self.keys.data_key, ct[len(_BOUND):], self._chunk_aad(chunk_id, doc_id), what,
                                   chunk_id)
            except DataTampered:
                pass  # an older ciphertext whose random nonce began with the mark (2⁻³²): tried below
        return open_sealed(self.keys.data_key, ct, self._aad(chunk_id), what, chunk_id)

    # ---- document metadata -----------------------------------------------------------------
    def stored_path(self, path: str) -> str:
        return "bi:" + self.blind("path:" + path) if self.keys else path

    def stored_hash(self, digest: str) -> str:
        return self.blind("hash:" + digest) if self.keys else digest

    def seal_meta(self, doc: M, plain_path: str) -> M:
        if self.keys is None:
            return doc
        meta = json.dumps({"title": doc.title, "path": plain_path, "warnings": doc.warnings}, ensure_ascii=False)
        doc.meta_ct = base64.b64encode(
            seal(self.keys.data_key, meta.encode("utf-8"), self._aad("doc:" + doc.doc_id))).decode()
        doc.title = ""
        doc.warnings = []
        doc.path = self.stored_path(plain_path)
        return doc

    def open_meta(self, doc: M) -> M:
        if self.keys is None or not doc.meta_ct:
            return doc
        meta = json.loads(open_sealed(self.keys.data_key, base64.b64decode(doc.meta_ct),
                                      self._aad("doc:" + doc.doc_id), N_("Document {id}"), doc.doc_id))
        doc.title, doc.path, doc.warnings = meta["title"], meta["path"], meta["warnings"]
        return doc

    # ---- vectors staged for a document not committed yet (store/staging.py, issue 58) -------
    def seal_staged(self, group: str, blob: bytes) -> bytes:
        """A staged batch (its inputs' keys and vectors): sealed like the passages it is of — a vector says much
        of what its text says, and an input's key confirms a guessed text — and bound to its group."""
        if self.keys is None:
            return blob
        return seal(self.keys.data_key, blob, self._aad(f"staged:{group}"))

    def open_staged(self, group: str, blob: bytes) -> bytes:
        if self.keys is None:
            return blob
        return open_sealed(self.keys.data_key, blob, self._aad(f"staged:{group}"), N_("Staged vectors {id}"), group)

    # ---- cached situating notes (chunking/notes.py) ----------------------------------------
    def seal_note(self, key: str, note: str) -> str:
        if self.keys is None:
            return note
        blob = seal(self.keys.data_key, note.encode("utf-8"), self._aad(f"note:{key}"))
        return "enc:" + base64.b64encode(blob).decode()

    def open_note(self, key: str, value: str) -> str:
        if not value.startswith("enc:") or self.keys is None:
            return value
        return open_sealed(self.keys.data_key, base64.b64decode(value[4:]), self._aad(f"note:{key}"),
                           N_("A cached situating note")).decode("utf-8")
