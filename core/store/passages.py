"""A curator's corrections of single passages, as written (issue 61): the order of the two stores' writes, and
what a data folder opened after a kill does with an action caught between them.

Every action is logged in the catalog (``passage_log``) before its Lance write, as ``pending``, and marked ``done``
after it; the Lance write of one passage is one commit (a merge-insert on ``chunk_id``, an append, a delete), so a
kill leaves that row either as it was or as it was meant to be. ``settle`` looks at which, and finishes or drops the
action: no passage is ever half-edited, and no other passage's row is written at all.
"""

from __future__ import annotations

import io
import json

import pyarrow as pa

from biny.core.store.catalog import Catalog
from biny.core.store.catalog.passages import PassageEntry
from biny.core.store.integrity import chunk_digest
from biny.core.store.lance import ChunkRecord, ChunkStore


def row_bytes(rows: pa.Table) -> bytes:
    """Stored rows as bytes (Arrow IPC): an edit's previous revision, exactly as it was on disk."""
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, rows.schema) as writer:
        writer.write_table(rows)
    return sink.getvalue()


def row_table(data: bytes) -> pa.Table:
    return pa.ipc.open_stream(io.BytesIO(data)).read_all()


def row_record(data: bytes) -> ChunkRecord:
    """The first row of ``row_bytes`` as a record (text still sealed in an encrypted space)."""
    row = row_table(data).to_pylist()[0]
    row.pop("vector", None)
    keep = {k: v for k, v in row.items() if k in ChunkRecord.__dataclass_fields__}
    keep["heading_path"] = json.loads(keep["heading_path"])
    return ChunkRecord(**keep)


def _same(a: pa.Table, b: pa.Table) -> bool:
    """Do two stored rows hold the same passage text (plaintext or ciphertext)?"""
    return bool(a.num_rows and b.num_rows and a.column("text")[0] == b.column("text")[0]
                and a.column("ct")[0] == b.column("ct")[0])


def doc_ids_digest(chunks: ChunkStore, space_id: str, doc_id: str) -> tuple[int, str]:
    """A document's stored passage count and chunk-id digest as they are in Lance now."""
    ids = chunks.scan(space_id, ["chunk_id"], f"doc_id = '{doc_id}'").column("chunk_id").to_pylist()
    return len(ids), chunk_digest(ids)


def settle(catalog: Catalog, chunks: ChunkStore, space_id: str) -> list[PassageEntry]:
    """Finish or drop the actions a kill caught between their catalog entry and their Lance write (at open,
    inside the writer's lock, before the passages are checked against the catalog). Returns those settled."""
    unsettled = catalog.passages.unsettled(space_id)
    for e in unsettled:
        current = chunks.rows(space_id, [e.chunk_id]) if chunks.count(space_id) else pa.table({})
        if e.action == "edit":
            before = row_table(e.before or b"")
            back = _same(current, before)  # the row holds the text from before the edit
            if e.state == "pending" and back:  # the edit never reached the row
                catalog.passages.drop(e.entry_id)
            elif e.state == "pending":
                catalog.passages.set_state(e.entry_id, "done")
            else:  # undoing: written back, or not yet
                catalog.passages.set_state(e.entry_id, "undone" if back else "done")
        elif e.action == "note":
            if e.state == "pending":  # the document's count was not raised: the row, if written, goes
                chunks.maintenance.delete_chunks(space_id, [e.chunk_id])
                catalog.passages.drop(e.entry_id)
            elif current.num_rows:  # undoing, the row not yet deleted: the note stays
                catalog.passages.set_state(e.entry_id, "done")
            else:  # undoing, the row deleted: the catalog follows
                count, digest = doc_ids_digest(chunks, space_id, e.doc_id)
                catalog.passages.settle_note(e.entry_id, "undone", e.doc_id, count, digest)
        else:  # disable/enable are one catalog write: nothing can be caught half-way
            catalog.passages.set_state(e.entry_id, "done")
    return unsettled
