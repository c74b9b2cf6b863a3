"""Storage failures (OS, LanceDB, DuckDB) told apart and named for the user (issue 22).

LanceDB reports I/O failures as ``RuntimeError``/``OSError`` with the OS message inside, DuckDB as
``duckdb.IOException`` and friends; neither says "disk full" in a type. These map what the stores
raise to one of three errors that say what to do — only I/O and corruption, by errno, by DuckDB's I/O types or by
the words LanceDB uses for them; anything else stays what it was (a bug).
"""

from __future__ import annotations

import errno

import duckdb

from biny.core.errors import BinyError, StorageFull, StorageReadOnly, StoreDamaged
from biny.core.i18n import t

_FULL = ("no space left", "os error 28", "disk full", "not enough space", "disk quota exceeded")
_READ_ONLY = ("read-only file system", "os error 30", "permission denied", "os error 13")
# What says the stored bytes could not be read back. Not "not found" or any DuckDB error: a binder or catalog error
# is a bug in biny, and calling it a damaged data folder sent users to restore backups they did not need.
# LanceDB's words for a data file cut short (issue 59: a truncated fragment was reported as a bug in biny).
_DAMAGED = ("corrupt", "checksum", "not a valid", "invalid manifest", "unexpected end of file", "failed to read",
            "could not read", "no such file", "failed to fill whole buffer", "unexpected eof",
            "invalid range")
# DuckDB's own types for reading and writing the file itself.
_DUCKDB_IO = (duckdb.IOException, duckdb.SerializationException, duckdb.FatalException)


def storage_problem(exc: BaseException) -> BinyError | None:
    """The user-facing error for a store failure, or None when ``exc`` is not one (then it is a bug: exit 3 with the
    traceback in the log)."""
    if isinstance(exc, BinyError):
        return None
    text = str(exc).lower()
    code = exc.errno if isinstance(exc, OSError) else None
    if not isinstance(exc, (OSError, RuntimeError, duckdb.Error)):
        return None
    if code in (errno.ENOSPC, errno.EDQUOT) or any(s in text for s in _FULL):
        return StorageFull(t("The disk holding the data folder is full. Free some space and run the command again; "
                             "nothing already stored was lost."))
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) or isinstance(exc, duckdb.PermissionException) \
            or any(s in text for s in _READ_ONLY):
        return StorageReadOnly(t("The data folder cannot be written (read-only or no permission: {detail}). Open it "
                                 "where you may write, or fix its permissions.").format(detail=exc))
    if isinstance(exc, duckdb.Error):
        damaged = isinstance(exc, _DUCKDB_IO) or (isinstance(exc, duckdb.InvalidInputException)
                                                  and any(s in text for s in _DAMAGED))
    else:
        damaged = code in (errno.EIO, errno.ENOENT) or any(s in text for s in _DAMAGED)
    if damaged:
        return StoreDamaged(t("The data folder could not be read ({kind}: {detail}). Run `biny doctor --deep` to check "
                              "it, and restore from a backup if it cannot repair it.").format(kind=type(exc).__name__,
                                                                                              detail=exc))
    return None
