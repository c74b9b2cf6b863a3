"""Per-space keys: a random data key, stored only wrapped by a passphrase-derived key.

* data key (32 random bytes) seals chunk text and document metadata (AES-256-GCM);
* index key = HKDF(data key, "biny blind index") keys the blind index (HMAC);
* the data key is wrapped with AES-GCM under scrypt(passphrase, per-space salt),
  associated data binding it to the space and its owner (tenant/user).

Changing the passphrase re-wraps the data key only; no chunk is re-encrypted.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from biny.core.errors import WrongPassphrase
from biny.core.i18n import t

SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1


@dataclass(frozen=True, slots=True)
class SpaceKeys:
    data_key: bytes
    index_key: bytes

    @classmethod
    def from_data_key(cls, data_key: bytes) -> SpaceKeys:
        index = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"biny blind index").derive(data_key)
        return cls(data_key, index)


def _kek(passphrase: str, params: dict[str, int | str]) -> bytes:
    salt = bytes.fromhex(str(params["salt"]))
    return Scrypt(salt=salt, length=32, n=int(params["n"]), r=int(params["r"]), p=int(params["p"])).derive(
        passphrase.encode("utf-8")
    )


def _aad(space_id: str, tenant: str, owner: str) -> bytes:
    return f"biny-space-key|{space_id}|{tenant}|{owner}".encode()


def new_wrapped_key(passphrase: str, space_id: str, tenant: str, owner: str) -> tuple[SpaceKeys, str, bytes]:
    """A fresh data key and its wrapped form. Returns (keys, kdf params JSON, wrapped bytes)."""
    data_key = os.urandom(32)
    kdf, wrapped = wrap(data_key, passphrase, space_id, tenant, owner)
    return SpaceKeys.from_data_key(data_key), kdf, wrapped


# A passphrase protects every space of its owner; fewer characters than this are refused when a key is wrapped
# (a new space, a changed passphrase) — issue 59. Existing spaces still open with the one they have.
MIN_PASSPHRASE = 8


def wrap(data_key: bytes, passphrase: str, space_id: str, tenant: str, owner: str) -> tuple[str, bytes]:
    if not passphrase:
        raise WrongPassphrase(t("An empty passphrase cannot protect a space; choose one."))
    if len(passphrase) < MIN_PASSPHRASE:
        raise WrongPassphrase(t("A passphrase must have at least {n} characters; this one has {length}. A few "
                                "words are easier to remember than symbols.").format(n=MIN_PASSPHRASE,
                                                                                    length=len(passphrase)))
    params: dict[str, int | str] = {"kdf": "scrypt", "n": SCRYPT_N, "r": SCRYPT_R, "p": SCRYPT_P,
                                    "salt": os.urandom(16).hex()}
    nonce = os.urandom(12)
    wrapped = nonce + AESGCM(_kek(passphrase, params)).encrypt(nonce, data_key, _aad(space_id, tenant, owner))
    return json.dumps(params), wrapped


def unwrap(passphrase: str, kdf_json: str, wrapped: bytes, space_id: str, tenant: str, owner: str,
           space_name: str) -> SpaceKeys:
    params = json.loads(kdf_json)
    try:
        data_key = AESGCM(_kek(passphrase, params)).decrypt(wrapped[:12], wrapped[12:], _aad(space_id, tenant, owner))
    except InvalidTag:
        raise WrongPassphrase(
            t("The passphrase does not open space {name} (owner {owner}). Nothing was changed; check the passphrase, "
              "or the BINY_PASSPHRASE / keyring entry in use.").format(name=repr(space_name), owner=f"{tenant}/{owner}")
        ) from None
    return SpaceKeys.from_data_key(data_key)
