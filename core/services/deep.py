"""`biny doctor --deep`: read every stored byte and say what is damaged and how to restore it (issue 59).

Modelled on ``restic check --read-data`` and SQLite's ``PRAGMA integrity_check``: where plain ``doctor`` compares
counts and digests, ``--deep`` reads every row of every chunk table whole (a Lance data file cut short fails
here), recomputes every row's code (store/rowmac.py), opens every ciphertext of an encrypted space, reads every
table of the catalog, and lists chunk tables on disk that no space of the catalog lists (a lost catalog). Each
finding names what is damaged and the way back: the document's source file, the space's export, or a backup of
the catalog.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from biny.core.crypto.space import SpaceCrypto
from biny.core.errors import BinyError, DataTampered
from biny.core.i18n import N_, t
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.store import rowmac
from biny.core.store.catalog import SpaceRow, now
from biny.core.store.facts import FactTable, fact_columns, fact_key, facts_mark
from biny.core.store.failures import storage_problem
from biny.core.store.lance import ChunkStore

RESTORE = N_("restore the space from its export (`biny space import FILE.tar` into a fresh data folder) or from a "
             "backup of this data folder")


@dataclass(slots=True)
class RowFindings:
    """What reading a space's rows whole found: per document, rows whose code or ciphertext fails."""

    rows: int = 0
    uncoded: int = 0
    bad_code: Counter[str] = field(default_factory=Counter)
    bad_ct: Counter[str] = field(default_factory=Counter)
    unreadable: str = ""  # the storage error that stopped the read, if one did

    def problems(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for doc_id in sorted(set(self.bad_code) | set(self.bad_ct)):
            parts = []
            if self.bad_code[doc_id]:
                parts.append(t("{n} passage(s) no longer match their integrity code").format(n=self.bad_code[doc_id]))
            if self.bad_ct[doc_id]:
                parts.append(t("{n} passage(s) whose ciphertext does not open").format(n=self.bad_ct[doc_id]))
            out[doc_id] = "; ".join(parts)
        return out


def read_rows(folder: DataFolder, row: SpaceRow, key: bytes | None, crypto: SpaceCrypto | None,
              listed: set[str]) -> RowFindings:
    """Every row of the space read whole, its code recomputed (``key``) and, with ``crypto`` of an encrypted space,
    its ciphertext opened. Rows of documents not in ``listed`` are orphans, reported elsewhere."""
    found = RowFindings()
    bound = key is not None and rowmac.is_bound(key, row.space_id, folder.catalog.spaces.binding(row.space_id))
    try:
        for part in folder.chunks.batches(row.space_id, [*rowmac.columns()]):
            found.rows += part.num_rows
            doc_ids = part.column("doc_id").to_pylist()
            if key is not None:
                bad = rowmac.mismatched(key, part, bound=bound)
                found.bad_code.update(d for d, b in zip(doc_ids, bad, strict=True) if b and d in listed)
                found.uncoded += rowmac.uncoded(part)
            if crypto is not None and crypto.encrypted:
                _open_all(crypto, part, listed, found)
    except Exception as exc:
        problem = storage_problem(exc)
        if problem is None:
            raise
        found.unreadable = str(exc)
    return found


def _open_all(crypto: SpaceCrypto, part: object, listed: set[str], found: RowFindings) -> None:
    cols = [part.column(c).to_pylist() for c in ("chunk_id", "doc_id", "text", "ct")]  # type: ignore[attr-defined]
    for chunk_id, doc_id, text, ct in zip(*cols, strict=True):
        if doc_id not in listed or not ct:
            continue
        try:
            crypto.open_text(chunk_id, doc_id, text, ct)
        except DataTampered:
            found.bad_ct[doc_id] += 1


def unlisted(folder: DataFolder) -> list[tuple[str, int]]:
    """Chunk tables on disk that no space of the catalog lists, with their row counts (−1: unreadable)."""
    listed = {ChunkStore.table_name(s.space_id) for s in folder.catalog.spaces.all()}
    out = []
    for name in sorted(n for n in folder.chunks.versions() if n not in listed):
        try:
            rows = int(folder.chunks.db.open_table(name).count_rows())
        except (OSError, RuntimeError, ValueError):
            rows = -1
        out.append((name, rows))
    return out


def describe_unreadable(row: SpaceRow, error: str) -> tuple[str, str]:
    where = f"lance/{ChunkStore.table_name(row.space_id)}.lance"
    return (t("its passages and vectors could not be read whole ({where}: {error})").format(where=where, error=error),
            t(RESTORE))


def locked_action(exc: BinyError) -> str:
    return t("unlock the space to verify its passages ({detail})").format(detail=exc)


def index_findings(folder: DataFolder, row: SpaceRow, key: bytes | None, *,
                   deep: bool) -> list[tuple[str, str, str]]:
    """(kind, detail, action) for the space's structured index: written before codes ('unbound'), or with ``deep``
    a row or the spec failing its code ('tampered'). The index is derived from the documents: rebuilding it is the
    way back."""
    if key is None or folder.structured.spec(row.space_id) is None:
        return []
    found = folder.structured.check(row.space_id, key)
    rebuild = t("build the index again from the documents (`biny index build --space {space}`)").format(
        space=row.name)
    if found.unbound:
        return [("unbound", t("its structured index is not covered by integrity codes (built before they existed)"),
                 t("run `biny doctor --repair` to add them, or {rebuild}").format(rebuild=rebuild))]
    out = []
    if deep and not found.spec:
        out.append(("tampered", t("its structured index's fields or set of rows no longer match their integrity "
                                  "code"), rebuild))
    if deep and found.bad_rows:
        out.append(("tampered", t("{n} row(s) of its structured index no longer match their integrity code "
                                  "(documents {docs})").format(n=len(found.bad_rows), docs=", ".join(found.bad_rows)),
                    rebuild))
    return out


def memory_findings(folder: DataFolder, keys: KeySession, *, repair: bool) -> list[tuple[str, str, str, bool]]:
    """(kind, detail, action, repaired) for the owner's memory facts (store/facts.py): every fact read and its code
    recomputed; ``repair`` sets failing facts aside (marked deleted: never recalled, nothing removed)."""
    try:
        crypto = keys.memory_crypto(create=False)
    except BinyError as exc:
        return [("locked", t("memory facts were not read (locked)"),
                 t("unlock memory to verify its facts ({detail})").format(detail=exc), False)]
    columns = fact_columns(folder.catalog.con, folder.catalog.lock)
    if crypto is None or not columns:
        return []
    if "mac" not in columns:  # never opened by a version with codes
        return [("unbound", t("memory facts are not covered by integrity codes (stored before codes existed)"),
                 t("use memory once (`biny memory list`): its facts get their codes when it opens"), False)]
    table = FactTable(lambda: folder.catalog.con, folder.catalog.lock, 0, crypto.owner)
    table.mac_key = fact_key(crypto)
    tenant, user = keys.owner
    table.bound = rowmac.same(folder.catalog.memory_keys.binding(tenant, user), facts_mark(table.mac_key, crypto.owner))
    bad, uncoded = table.problems()
    out = []
    if bad:
        detail = t("{n} memory fact(s) no longer match their integrity code ({ids})").format(n=len(bad),
                                                                                         ids=", ".join(sorted(bad)))
        if repair:
            for fact_id in bad:
                folder.writer.memory.set_fact_status(table, fact_id, "deleted", now())
            out.append(("tampered", detail, t("set aside: marked deleted, never recalled"), True))
        else:
            out.append(("tampered", detail, t("restore the data folder from a backup, or run `biny doctor --repair` "
                                              "to set them aside (marked deleted, never recalled)"), False))
    if uncoded and not table.bound:
        out.append(("unbound", t("{n} memory fact(s) are not covered by an integrity code (stored before codes "
                                 "existed)").format(n=uncoded),
                    t("use memory once (`biny memory list`): its facts get their codes when it opens"), False))
    return out


