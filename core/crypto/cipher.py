"""AES-256-GCM sealing of records, bound to where they belong.

Associated data names the space and the record (``space_id|chunk_id``), so a
ciphertext copied onto another record — or another space — fails authentication
instead of decrypting to the wrong text.
"""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from biny.core.errors import DataTampered
from biny.core.i18n import t

NONCE = 12


def seal(key: bytes, plaintext: bytes, aad: bytes) -> bytes:
    nonce = os.urandom(NONCE)  # unique per record: 96-bit random nonces, one key per space
    return nonce + AESGCM(key).encrypt(nonce, plaintext, aad)


def open_sealed(key: bytes, blob: bytes, aad: bytes, what: str, ident: str = "") -> bytes:
    """``what``: an N_-marked name of the record ({id} filled from ``ident``), translated only on failure."""
    try:
        return AESGCM(key).decrypt(blob[:NONCE], blob[NONCE:], aad)
    except (InvalidTag, ValueError) as exc:
        raise DataTampered(
            t("{what} failed its integrity check: the stored bytes were altered or belong to another record. Nothing "
              "was decrypted; restore the space from a backup (biny space export/import).")
            .format(what=t(what).format(id=ident))
        ) from exc
