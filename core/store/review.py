"""The review queue's storage (SPEC W5–W7): items with their payload, and rejected pages' fingerprints.

Tables live in the catalog (store/catalog/schema.py); every write goes through the writer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from biny.core.store.catalog import Catalog, now
from biny.core.store.guard import mutation

_ITEM_COLS = "review_id, space_id, created_at, status, payload, decided_at, decided_by, reason, doc_id"


@dataclass(slots=True)
class ReviewRow:
    review_id: str
    space_id: str
    created_at: datetime
    status: str
    payload: str
    decided_at: datetime | None = None
    decided_by: str = ""
    reason: str = ""
    doc_id: str | None = None


@dataclass(frozen=True, slots=True)
class Rejection:
    review_id: str
    url_key: str
    content_hash: str
    simhash: int


class ReviewStore:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def items(self, space_id: str, statuses: tuple[str, ...] = ("pending",)) -> list[ReviewRow]:
        marks = ", ".join("?" for _ in statuses)
        with self.catalog.lock:
            rows = self.catalog.con.execute(
                f"SELECT {_ITEM_COLS} FROM review_items WHERE space_id = ? AND status IN ({marks}) "
                "ORDER BY created_at, review_id", [space_id, *statuses]).fetchall()
        return [ReviewRow(*r) for r in rows]

    def item(self, review_id: str) -> ReviewRow | None:
        with self.catalog.lock:
            row = self.catalog.con.execute(f"SELECT {_ITEM_COLS} FROM review_items WHERE review_id = ?",
                                           [review_id]).fetchone()
        return ReviewRow(*row) if row else None

    def rejections(self, space_id: str) -> list[Rejection]:
        with self.catalog.lock:
            rows = self.catalog.con.execute(
                "SELECT review_id, url_key, content_hash, simhash FROM review_rejections WHERE space_id = ?",
                [space_id]).fetchall()
        return [Rejection(str(a), str(b), str(c), int(d)) for a, b, c, d in rows]

    @mutation
    def add(self, row: ReviewRow) -> None:
        with self.catalog.lock:
            self.catalog.con.execute(
                f"INSERT INTO review_items ({_ITEM_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [row.review_id, row.space_id, row.created_at, row.status, row.payload, row.decided_at,
                 row.decided_by, row.reason, row.doc_id])

    @mutation
    def decide(self, review_id: str, status: str, by: str, reason: str, doc_id: str | None,
               payload: str | None = None) -> None:
        """Set an item's status (``pending`` clears the decision: undo)."""
        decided: Any = None if status == "pending" else now()
        with self.catalog.lock:
            self.catalog.con.execute(
                "UPDATE review_items SET status = ?, decided_at = ?, decided_by = ?, reason = ?, doc_id = ?, "
                "payload = coalesce(?, payload) WHERE review_id = ?",
                [status, decided, by if decided else "", reason if decided else "", doc_id, payload, review_id])

    @mutation
    def reject_pages(self, space_id: str, review_id: str, pages: list[tuple[str, str, int]]) -> None:
        with self.catalog.lock:
            for url_key, content_hash, sim in pages:
                self.catalog.con.execute("INSERT INTO review_rejections VALUES (?, ?, ?, ?, ?, ?)",
                                         [space_id, review_id, url_key, content_hash, sim, now()])

    @mutation
    def forget_rejection(self, review_id: str) -> None:
        with self.catalog.lock:
            self.catalog.con.execute("DELETE FROM review_rejections WHERE review_id = ?", [review_id])
