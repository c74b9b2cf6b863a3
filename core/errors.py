"""Exceptions users see: one class per kind of failure, each saying what to do next.

Every message names what happened and the action that fixes it; the CLI and the
console show ``str(error)`` as is.
"""

from __future__ import annotations


class BinyError(Exception):
    """Base of every error biny raises on purpose."""


class DocumentError(BinyError):
    """A single document could not be ingested; nothing already stored changed."""


class UnsupportedFormat(DocumentError):
    pass


class EmptyDocument(DocumentError):
    pass


class CorruptDocument(DocumentError):
    pass


class EncryptedDocument(DocumentError):
    pass


class DocumentTooLarge(DocumentError):
    """File size, page count or decompressed size over the configured limit."""


class ParserCrashed(DocumentError):
    """The parser process died or hung; only this document is affected."""


class SpaceNotFound(BinyError):
    pass


class SpaceExists(BinyError):
    pass


class DataFolderInUse(BinyError):
    pass


class ModelMismatch(BinyError):
    pass


class ModelUnavailable(BinyError):
    pass


class Cancelled(BinyError):
    """A long job stopped because its cancel token was set; nothing half-done is visible."""


class ConfigError(BinyError):
    pass


class StorageFull(BinyError):
    pass


class StorageReadOnly(BinyError):
    pass


class StoreDamaged(BinyError):
    pass


class ReadOnlyFolder(BinyError):
    """A team space is being written by another machine: this one reads its last published snapshot."""


class ObjectStoreUnavailable(BinyError):
    """The bucket of a team space cannot be reached or refuses this machine's credentials."""


class WrongPassphrase(BinyError):
    pass


class PassphraseRequired(BinyError):
    pass


class DataTampered(BinyError):
    pass


class SecretStoreUnavailable(BinyError):
    pass
