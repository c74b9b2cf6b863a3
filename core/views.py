"""What the facade shows of stored documents and passages (issue 56): views, not storage rows.

The catalog's ``DocumentRow`` and the chunk store's ``ChunkRecord`` carry what only the stores need — sealed
metadata and text (``meta_ct``, ``ct``), the blinded lookup keys (``ids``, ``terms``, ``aspects``), the sentence
vectors, the keys version. The console and the CLI read these views instead: the plain fields a person reads, made
from an opened row, frozen so that nothing written to them can reach a store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal

from biny.core.document import SourceKind

__all__ = ["DocumentStatus", "DocumentView", "ListedKind", "PassageView", "group_tables"]

# A document's status as listed; "mixed" is a table whose rows do not all share one (some archived).
DocumentStatus = Literal["active", "archived", "damaged", "pending", "deleted", "mixed"]
# What a listed entry was read from: a source kind, or "table" for a table's rows listed as one entry.
ListedKind = SourceKind | Literal["table"]


@dataclass(frozen=True, slots=True)
class DocumentView:
    doc_id: str  # a table listed as one entry (``group_tables``): "table:<file>"
    path: str
    title: str
    kind: ListedKind
    revision: int
    status: DocumentStatus
    bytes: int
    ingested_at: datetime
    pages: int = 0
    pages_without_text: int = 0
    pages_ocr: int = 0
    figures_described: int = 0
    decorations_skipped: int = 0
    # I5 report: counter name → the 1-based pages it counts (DOCX: image ordinals, 0 = header/footer).
    visual_pages: Mapping[str, list[int]] = field(default_factory=dict)
    chunks: int = 0
    chars: int = 0
    chars_per_token: float = 0.0
    cjk_share: float = 0.0
    resplits: int = 0
    warnings: tuple[str, ...] = ()
    rows: tuple[str, ...] = ()  # a table listed as one entry: its rows' doc ids, which status changes act on


@dataclass(frozen=True, slots=True)
class PassageView:
    chunk_id: str
    doc_id: str
    ordinal: int
    text: str
    char_start: int
    char_end: int
    page: int | None
    page_end: int | None
    heading_path: tuple[str, ...]
    tokens: int


def group_tables(docs: Iterable[DocumentView]) -> list[DocumentView]:
    """A table's rows (one document each) listed as one entry: "books.csv — 10,000 rows", sorted by title.

    Thousands of rows would otherwise fill a list (and a 10,000-line table takes the console's UI thread a second
    to draw); the entry's ``rows`` are what archive, restore and delete act on.
    """
    out: list[DocumentView] = []
    members: dict[str, list[DocumentView]] = {}
    for d in docs:
        if d.kind == "row":
            members.setdefault(d.path.rsplit("#", 1)[0], []).append(d)
        else:
            out.append(d)
    for path, rows in members.items():
        statuses: set[DocumentStatus] = {r.status for r in rows}
        out.append(DocumentView(
            doc_id="table:" + path, path=path, title=Path(path).name, kind="table",
            revision=max(r.revision for r in rows), status=statuses.pop() if len(statuses) == 1 else "mixed",
            bytes=sum(r.bytes for r in rows), chunks=sum(r.chunks for r in rows), chars=sum(r.chars for r in rows),
            ingested_at=max(r.ingested_at for r in rows), rows=tuple(r.doc_id for r in rows)))
    return sorted(out, key=lambda d: d.title.casefold())
