"""Storage failures (OS, LanceDB, DuckDB) told apart and named for the user (issue 22).

LanceDB reports I/O failures as ``RuntimeError``/``OSError`` with the OS message inside, DuckDB as
``duckdb.IOException`` and friends; neither says "disk full" in a type. These map what the stores
raise to one of three errors that say what to do; anything else stays what it was (a bug).
"""

from __future__ import annotations

import errno

import duckdb

from biny.core.errors import BinyError, StorageFull, StorageReadOnly, StoreDamaged
from biny.core.i18n import t

_FULL = ("no space left", "os error 28", "disk full", "not enough space", "disk quota exceeded")
_READ_ONLY = ("read-only file system", "os error 30", "permission denied", "os error 13")
_DAMAGED = ("corrupt", "checksum", "not a valid", "invalid manifest", "manifest", "unexpected end of file",
            "failed to read", "could not read", "no such file", "not found")


def storage_problem(exc: BaseException) -> BinyError | None:
    """The user-facing error for a store failure, or None when ``exc`` is not one."""
    if isinstance(exc, BinyError):
        return None
    text = str(exc).lower()
    code = exc.errno if isinstance(exc, OSError) else None
    store_error = isinstance(exc, (OSError, RuntimeError, duckdb.Error))
    if not store_error:
        return None
    if code in (errno.ENOSPC, errno.EDQUOT) or any(s in text for s in _FULL):
        return StorageFull(t("The disk holding the data folder is full. Free some space and run the command again; "
                             "nothing already stored was lost."))
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) or any(s in text for s in _READ_ONLY):
        return StorageReadOnly(t("The data folder cannot be written (read-only or no permission: {detail}). Open it "
                                 "where you may write, or fix its permissions.").format(detail=exc))
    if isinstance(exc, duckdb.Error) or any(s in text for s in _DAMAGED):
        return StoreDamaged(t("The data folder could not be read ({kind}: {detail}). Run `biny doctor` to check it, "
                              "and restore from a backup if it cannot repair it.").format(kind=type(exc).__name__,
                                                                                          detail=exc))
    return None
