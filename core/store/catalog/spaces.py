"""The ``spaces`` table (one row per space: its model, encryption and web switch) and ``memory_keys``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from biny.core.errors import SpaceExists, SpaceNotFound, StoreDamaged
from biny.core.i18n import t
from biny.core.store.catalog.table import Db, Table
from biny.core.store.guard import mutation, write_stamp

_SPACE_COLS = "space_id, name, created_at, embed_model, dim, encrypted, tenant, owner, kdf, wrapped_key"


@dataclass(slots=True)
class SpaceRow:
    space_id: str
    name: str
    created_at: datetime
    embed_model: str
    dim: int
    encrypted: bool
    tenant: str = "default"
    owner: str = ""
    kdf: str = ""
    wrapped_key: bytes | None = None


# A space as a call names it: by name from outside, or the row a caller already resolved (issue 56: a space is
# looked up once per call and its row handed down, so every step of the call reads the same space).
SpaceRef = str | SpaceRow


class SpaceTable(Table):
    def __init__(self, db: Db) -> None:
        super().__init__(db)
        self._named: dict[str, tuple[int, SpaceRow]] = {}
        # Set at open when chunk tables are on disk that no space row lists (a lost or replaced catalog file,
        # issue 59): what a lookup of a missing space says instead of only "no space named".
        self.unlisted = ""

    def forget(self) -> None:
        """Drop the rows kept for ``named`` (the catalog file was swapped)."""
        self._named.clear()

    def all(self) -> list[SpaceRow]:
        return [SpaceRow(*r) for r in self._rows(f"SELECT {_SPACE_COLS} FROM spaces ORDER BY name")]

    def named(self, name: str) -> SpaceRow:
        # Asked several times per question; a DuckDB point query costs ~0.7 ms, so rows are kept until
        # the next write (issue 23: ask overhead). Callers must not modify the row.
        stamp = write_stamp()
        cached = self._named.get(name)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        row = self._row(f"SELECT {_SPACE_COLS} FROM spaces WHERE name = ?", [name])
        if row is None:
            spaces = self.all()
            if self.unlisted and not spaces:
                raise StoreDamaged(self.unlisted)
            known = ", ".join(s.name for s in spaces) or t("none yet")
            raise SpaceNotFound(
                t("No space named {name} (spaces: {known}). Create it with `biny space create {plain}`.").format(
                    name=repr(name), known=known, plain=name) + (" " + self.unlisted if self.unlisted else ""))
        found = SpaceRow(*row)
        self._named[name] = (stamp, found)
        return found

    def resolve(self, space: SpaceRef) -> SpaceRow:
        """The row of ``space``: looked up when named, as is when a caller already resolved it."""
        return space if isinstance(space, SpaceRow) else self.named(space)

    def by_id(self, space_id: str) -> SpaceRow:
        """The space a stored row (review item, evaluation run) belongs to."""
        row = self._row(f"SELECT {_SPACE_COLS} FROM spaces WHERE space_id = ?", [space_id])
        if row is None:
            raise SpaceNotFound(t("The space {id} no longer exists.").format(id=space_id))
        return SpaceRow(*row)

    @mutation
    def insert(self, row: SpaceRow) -> None:
        with self.db.lock:
            if self._row("SELECT 1 FROM spaces WHERE name = ?", [row.name]):
                raise SpaceExists(t("A space named {name!r} already exists.").format(name=row.name))
            self._run(f"INSERT INTO spaces ({_SPACE_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      [row.space_id, row.name, row.created_at, row.embed_model, row.dim, row.encrypted,
                       row.tenant, row.owner, row.kdf, row.wrapped_key])

    @mutation
    def set_wrapped_key(self, space_id: str, kdf: str, wrapped: bytes) -> None:
        self._run("UPDATE spaces SET kdf = ?, wrapped_key = ? WHERE space_id = ?", [kdf, wrapped, space_id])

    @mutation
    def set_model(self, space_id: str, model: str, dim: int) -> None:
        self._run("UPDATE spaces SET embed_model = ?, dim = ? WHERE space_id = ?", [model, dim, space_id])

    # ---- row codes (store/rowmac.py) ------------------------------------------------------
    def row_key(self, space_id: str) -> bytes | None:
        """A plaintext space's row-code key (None: not made yet; encrypted spaces derive theirs)."""
        row = self._row("SELECT row_key FROM spaces WHERE space_id = ?", [space_id])
        return bytes(row[0]) if row and row[0] else None

    def binding(self, space_id: str) -> str:
        """The mark recorded once every passage of the space carries a code ('' before)."""
        row = self._row("SELECT rows_bound FROM spaces WHERE space_id = ?", [space_id])
        return str(row[0] or "") if row else ""

    @mutation
    def set_row_key(self, space_id: str, key: bytes) -> None:
        self._run("UPDATE spaces SET row_key = ? WHERE space_id = ?", [key, space_id])

    @mutation
    def set_binding(self, space_id: str, mark: str) -> None:
        self._run("UPDATE spaces SET rows_bound = ? WHERE space_id = ?", [mark, space_id])

    def web_enabled(self, space_id: str) -> bool:
        row = self._row("SELECT web FROM spaces WHERE space_id = ?", [space_id])
        return bool(row and row[0])

    @mutation
    def set_web(self, space_id: str, on: bool) -> None:
        self._run("UPDATE spaces SET web = ? WHERE space_id = ?", [on, space_id])


class MemoryKeyTable(Table):
    """Each memory owner's key (SPEC M), wrapped like a space's data key."""

    def get(self, tenant: str, owner: str) -> tuple[str, bytes] | None:
        """(kdf params, wrapped key) of an owner's memory key, if one was made."""
        row = self._row("SELECT kdf, wrapped_key FROM memory_keys WHERE tenant = ? AND owner = ?", [tenant, owner])
        return None if row is None else (str(row[0]), bytes(row[1]))

    @mutation
    def set(self, tenant: str, owner: str, kdf: str, wrapped: bytes) -> None:
        self._run("INSERT OR REPLACE INTO memory_keys VALUES (?, ?, ?, ?)", [tenant, owner, kdf, wrapped])

    def binding(self, tenant: str, owner: str) -> str:
        """The mark recorded once every memory fact of the owner carries a code (issue 59; '' before)."""
        row = self._row("SELECT value FROM meta WHERE key = ?", [f"facts_bound|{tenant}/{owner}"])
        return str(row[0] or "") if row else ""

    @mutation
    def set_binding(self, tenant: str, owner: str, mark: str) -> None:
        self._run("INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                  [f"facts_bound|{tenant}/{owner}", mark])
