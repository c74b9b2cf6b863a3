"""The structured index of a space (SPEC S1–S7): propose, build, keep in step, answer.

Values are read from the documents' stored text (chunks put back together by their
character spans), so building or changing the index embeds nothing (S3). Rows are
kept in step with ingest, archive and delete by ``sync``; queries run on a typed
in-memory table cached per index generation.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from biny.core.crypto.space import SpaceCrypto
from biny.core.errors import BinyError, DataTampered
from biny.core.i18n import t
from biny.core.services.folder import DataFolder
from biny.core.services.integrity import index_tampered
from biny.core.services.keys import KeySession
from biny.core.services.models import Models
from biny.core.store.catalog import SpaceRef, SpaceRow
from biny.core.store.structured import IndexCheck, QueryTable, check_rows
from biny.core.structured.lint import LintItem, lint_chunk
from biny.core.structured.model_route import model_route
from biny.core.structured.propose import DocHeader, DocText, headers, propose, row_values, select
from biny.core.structured.route import Routed, Router
from biny.core.structured.spec import IndexSpec, Proposal
from biny.core.structured.tools import ToolCall, ToolError, ToolResult, build_table, q, run
from biny.core.structured.vocabulary import key

__all__ = ["IndexInfo", "NoIndex", "StructuredIndex"]


class NoIndex(BinyError):
    """The space has no structured index (S4), with the reason."""


@dataclass(slots=True)
class IndexInfo:
    space: str
    spec: IndexSpec
    rows: int  # documents carrying at least one indexed field
    documents: int  # active documents
    embedded: int = 0  # S3: building never embeds
    seconds: float = 0.0
    preview: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"space": self.space, "rows": self.rows, "documents": self.documents, "embedded": self.embedded,
                "title_field": self.spec.title_field, "generation": self.spec.generation,
                "fields": [{"name": f.name, "type": f.type, "exact": f.exact, "coverage": f.coverage}
                           for f in self.spec.fields],
                "seconds": round(self.seconds, 3), "preview": self.preview}


@dataclass(slots=True)
class _Loaded:
    generation: int
    spec: IndexSpec
    table: QueryTable
    router: Router
    rows: int


class StructuredIndex:
    def __init__(self, folder: DataFolder, keys: KeySession, models: Models | None = None) -> None:
        self.folder = folder
        self.keys = keys
        self.models = models
        self._loaded: dict[str, _Loaded] = {}
        self._lock = threading.Lock()

    # ---- reading the documents back -------------------------------------------------------------
    def _texts(self, row: SpaceRow, crypto: SpaceCrypto, doc_ids: set[str]) -> list[DocText]:
        """Each document's text, put back together from its chunks (exact slices with overlaps)."""
        if not doc_ids or self.folder.chunks.count(row.space_id) == 0:
            return []
        cols = self.folder.chunks.scan(row.space_id, ["chunk_id", "doc_id", "char_start", "text", "ct"])
        pieces: dict[str, list[tuple[int, str]]] = {d: [] for d in doc_ids}
        for cid, did, start, text, ct in zip(*(cols.column(c).to_pylist() for c in cols.column_names), strict=True):
            if did in pieces:
                pieces[did].append((start, crypto.open_text(cid, did, text, ct)))
        docs = {d.doc_id: d for d in self.folder.catalog.docs.of(row.space_id, ("active",)) if d.doc_id in doc_ids}
        out = []
        for did, parts in pieces.items():
            text = ""
            for start, piece in sorted(parts):
                if start + len(piece) > len(text):
                    text = text[:start].ljust(start) + piece
            doc = docs.get(did)
            if doc is not None:
                out.append(DocText(did, doc.revision, crypto.open_meta(doc).title, text))
        return sorted(out, key=lambda d: d.doc_id)

    def _active(self, row: SpaceRow) -> set[str]:
        return self.folder.catalog.docs.active_ids(row.space_id)

    # ---- proposal and build ----------------------------------------------------------------------
    def propose(self, space: str) -> Proposal:
        row = self.folder.catalog.spaces.named(space)
        return propose(self._texts(row, self.keys.crypto(row), self._active(row)))

    def _stored_rows(self, heads: list[DocHeader], spec: IndexSpec, crypto: SpaceCrypto) -> list[tuple[str, int, str]]:
        out = []
        for h in heads:
            data = json.dumps({"title": h.title, "values": row_values(h, spec)}, ensure_ascii=False)
            out.append((h.doc_id, h.revision, crypto.seal_note(f"sidx:{h.doc_id}", data)))
        return out

    def build(self, space: str, fields: list[str] | None = None, exact: list[str] | None = None) -> IndexInfo:
        """Build (or rebuild) the index from the proposal; ``fields``/``exact`` as the curator chose."""
        t0 = time.perf_counter()
        row = self.folder.catalog.spaces.named(space)
        crypto = self.keys.crypto(row)
        docs = self._texts(row, crypto, self._active(row))
        proposal = propose(docs)
        if not fields and not proposal.kept:
            raise NoIndex(t("Space {space!r}: {reason}").format(space=space, reason=proposal.reason))
        try:
            spec = select(proposal, fields, exact)
        except ValueError as exc:
            raise BinyError(t("Space {space!r}: {detail}.").format(space=space, detail=exc)) from exc
        old = self.folder.structured.spec(row.space_id)
        spec.generation = (old[1] if old else 0) + 1
        if old is not None:  # a curator's synonyms outlive a rebuild, for the fields still indexed
            kept = IndexSpec.from_json(crypto.open_note("sidx-spec", old[0])).extra.get("synonyms") or {}
            kept = {name: words for name, words in kept.items() if spec.get(name) is not None}
            if kept:
                spec.extra["synonyms"] = kept
        spec.built_at = time.strftime("%Y-%m-%dT%H:%M:%S")
        heads = headers(docs)
        self.folder.writer.save_index(row.space_id, crypto.seal_note("sidx-spec", spec.to_json()), spec.generation,
                                      self._stored_rows(heads, spec, crypto))
        loaded = self._load(space)
        assert loaded is not None
        return IndexInfo(space, loaded.spec, loaded.rows, len(docs), 0, time.perf_counter() - t0)

    def drop(self, space: str) -> None:
        row = self.folder.catalog.spaces.named(space)
        self.folder.writer.drop_index(row.space_id)
        self._loaded.pop(row.space_id, None)

    def sync(self, space: str) -> int:
        """After ingest or a status change: rows for new active documents, none for the others."""
        row = self.folder.catalog.spaces.named(space)
        stored = self.folder.structured.spec(row.space_id)
        if stored is None:
            return 0
        crypto = self.keys.crypto(row)
        spec = IndexSpec.from_json(crypto.open_note("sidx-spec", stored[0]))
        have = self.folder.structured.row_ids(row.space_id)
        active = self._active(row)
        drop = [d for d in have if d not in active]
        add = self._stored_rows(headers(self._texts(row, crypto, active - set(have))), spec, crypto)
        if drop or add:
            self.folder.writer.update_index(row.space_id, drop, add, stored[1] + 1)
        return len(drop) + len(add)

    def refresh_rows(self, space: str, doc_ids: list[str]) -> int:
        """After a curator changed these documents' passages (issue 61: an edited table row, a note, an undo):
        their rows read again from the passages as they now are. Nothing else is re-read; no index, nothing done."""
        row = self.folder.catalog.spaces.named(space)
        stored = self.folder.structured.spec(row.space_id)
        if stored is None:
            return 0
        crypto = self.keys.crypto(row)
        spec = IndexSpec.from_json(crypto.open_note("sidx-spec", stored[0]))
        wanted = set(doc_ids) & self._active(row)
        add = self._stored_rows(headers(self._texts(row, crypto, wanted)), spec, crypto)
        if add:
            self.folder.writer.update_index(row.space_id, [], add, stored[1] + 1)
        return len(add)

    # ---- the query side --------------------------------------------------------------------------
    def _load(self, space: SpaceRef) -> _Loaded | None:
        row = self.folder.catalog.spaces.resolve(space)
        stored = self.folder.structured.spec(row.space_id)
        if stored is None:
            return None
        # The cached table holds opened values: it is used only while the space's key is held.
        crypto = self.keys.crypto(row)
        with self._lock:
            cached = self._loaded.get(row.space_id)
            if cached is not None and cached.generation == stored[1]:
                return cached
            # Read once, the codes checked before anything is opened or answered from (issue 59).
            mark, coded = self.folder.structured.coded(row.space_id)
            if crypto.mac_key is not None:
                found = check_rows(crypto.mac_key, row.space_id, stored, mark, coded)
                if not found.sound:
                    raise self._tampered(row, crypto, found)
            spec = IndexSpec.from_json(crypto.open_note("sidx-spec", stored[0]))
            rows = []
            for doc_id, revision, data, _ in coded:
                payload = json.loads(crypto.open_note(f"sidx:{doc_id}", data))
                if payload["values"]:
                    rows.append((doc_id, revision, payload["title"], payload["values"]))
            table = build_table(spec, rows)
            loaded = _Loaded(stored[1], spec, table, Router(spec, table), len(rows))
            if cached is not None:
                cached.table.close()
            self._loaded[row.space_id] = loaded
            return loaded

    def _tampered(self, row: SpaceRow, crypto: SpaceCrypto, found: IndexCheck) -> DataTampered:
        titles = []
        for doc_id in found.bad_rows:
            doc = self.folder.catalog.docs.get(doc_id)
            titles.append(repr(crypto.open_meta(doc).title if doc is not None else doc_id))
        return index_tampered(row.name, not found.spec, titles)

    def forget(self, space_id: str) -> None:
        with self._lock:
            gone = self._loaded.pop(space_id, None)
        if gone is not None:
            gone.table.close()

    def info(self, space: SpaceRef, preview: int = 0) -> IndexInfo | None:
        row = self.folder.catalog.spaces.resolve(space)
        loaded = self._load(row)
        if loaded is None:
            return None
        names = ", ".join(q(n) for n in ["title", *loaded.spec.names])
        sample = loaded.table.query(f"SELECT doc_id, {names} FROM idx ORDER BY title LIMIT ?", [preview]) \
            if preview else []
        rows = [{"doc_id": r[0], "title": r[1], "fields": dict(zip(loaded.spec.names, r[2:], strict=True))}
                for r in sample]
        return IndexInfo(row.name, loaded.spec, loaded.rows, len(self._active(row)), 0, 0.0, rows)

    # ---- a curator's words for fields (issue 64) ------------------------------------------------------------
    def synonyms(self, space: str) -> dict[str, list[str]]:
        """Per field, the words a curator added; every field of the index is listed (most with none)."""
        loaded = self._load(space)
        if loaded is None:
            raise NoIndex(t("Space {space!r} has no structured index; build one with `biny index build`.")
                          .format(space=space))
        added = loaded.spec.extra.get("synonyms") or {}
        return {f.name: list(added.get(f.name, [])) for f in loaded.spec.fields}

    def builtin_synonyms(self, space: str) -> dict[str, list[str]]:
        """Per field, the words that name it already: its name's words and the bundled synonym files'."""
        loaded = self._load(space)
        if loaded is None:
            return {}
        out: dict[str, list[str]] = {f.name: [] for f in loaded.spec.fields}
        yours = {name: {key(w) for w in words} for name, words in (loaded.spec.extra.get("synonyms") or {}).items()}
        for surface, owners in loaded.router.vocabulary.surfaces.items():
            for name, _, _ in owners:
                if surface not in out[name] and surface not in yours.get(name, set()):
                    out[name].append(surface)
        return {n: sorted(ws) for n, ws in out.items()}

    def set_synonyms(self, space: str, field_name: str, words: list[str]) -> list[str]:
        """Replace a field's curator synonyms (stored, sealed, with the index spec); returns them as kept."""
        row = self.folder.catalog.spaces.named(space)
        stored = self.folder.structured.spec(row.space_id)
        if stored is None:
            raise NoIndex(t("Space {space!r} has no structured index; build one with `biny index build`.")
                          .format(space=space))
        crypto = self.keys.crypto(row)
        spec = IndexSpec.from_json(crypto.open_note("sidx-spec", stored[0]))
        if spec.get(field_name) is None:
            raise BinyError(t("The index of {space!r} has no field {field!r}; its fields: {names}.").format(
                space=space, field=field_name, names=", ".join(spec.names)))
        kept: list[str] = []
        for w in words:
            w = " ".join(w.split())
            if not w:
                continue
            if len(w) > 60:
                raise BinyError(t("A synonym is a word or a short phrase (60 characters at most): {word!r}.")
                                .format(word=w[:70]))
            if w.casefold() not in {k.casefold() for k in kept}:
                kept.append(w)
        synonyms = dict(spec.extra.get("synonyms") or {})
        if kept:
            synonyms[field_name] = kept
        else:
            synonyms.pop(field_name, None)
        spec.extra["synonyms"] = synonyms
        spec.generation = stored[1] + 1
        self.folder.writer.save_index_spec(row.space_id, crypto.seal_note("sidx-spec", spec.to_json()),
                                           spec.generation)
        return kept

    def route(self, space: SpaceRef, question: str) -> Routed | None:
        """None when the space has no index; else the routed call (or none) and its evidence."""
        loaded = self._load(space)
        return None if loaded is None else loaded.router.route(question)

    def run(self, space: SpaceRef, call: ToolCall) -> ToolResult:
        row = self.folder.catalog.spaces.resolve(space)
        loaded = self._load(row)
        if loaded is None:
            raise NoIndex(t("Space {space!r} has no structured index; build one with `biny index build`.")
                           .format(space=row.name))
        t0 = time.perf_counter()
        if call.tool == "lookup" and loaded.spec.get(call.field or "") is None \
                and call.field in (loaded.spec.extra.get("unindexed") or []):
            result = self._left_out(row, loaded, call)
            result.ms = (time.perf_counter() - t0) * 1000
            return result
        try:
            result = run(loaded.table, loaded.spec, call)
        except ToolError as exc:
            raise BinyError(t("Space {space!r}: {detail}.").format(space=row.name, detail=exc)) from exc
        result.ms = (time.perf_counter() - t0) * 1000
        result.documents = len(self._active(row))
        return result

    def _left_out(self, row: SpaceRow, loaded: _Loaded, call: ToolCall) -> ToolResult:
        """A field the rows hold but the index leaves out (too rare to filter on: "Product Dimensions" in 16 of 300
        rows), asked of one named row: read from that row's own text by the header reader the index uses, verbatim;
        None when this row gives none (issue 64)."""
        crypto = self.keys.crypto(row)
        text = ""
        for rec in (crypto.open_record(r) for r in self.folder.chunks.doc_chunks(row.space_id, call.doc_id or "")):
            if rec.char_start + len(rec.text) > len(text):
                text = text[: rec.char_start].ljust(rec.char_start) + rec.text
        title = next((r[0] for r in loaded.table.query("SELECT title FROM idx WHERE doc_id = ?", [call.doc_id])), "")
        head = headers([DocText(call.doc_id or "", 0, title or "", text)])[0].fields.get(call.field or "")
        value = head.value if head is not None and head.value else None
        rows = [{"doc_id": call.doc_id, "title": title, "fields": {call.field: value} if value else {}}] if title \
            else []
        result = ToolResult(call, "", [], value, rows, len(rows))
        result.over = len(loaded.table)
        result.documents = len(self._active(row))
        return result

    def answer(self, space: SpaceRef, question: str) -> tuple[Routed | None, ToolResult | None]:
        """Rules first; a configured model only for a question that names the index but no rule routed."""
        row = self.folder.catalog.spaces.resolve(space)
        routed = self.route(row, question)
        llm = self.models.llm if self.models is not None else None
        if routed is not None and routed.call is None and routed.touched and llm is not None:
            loaded = self._load(row)
            assert loaded is not None
            by_model = model_route(llm, loaded.spec, loaded.router, question, self._examples(loaded))
            routed = Routed(by_model.call, routed.evidence + by_model.evidence)
        if routed is not None and routed.call is None and routed.refusal is None and routed.absent_row is not None:
            loaded = self._load(row)
            if loaded is not None and loaded.rows >= len(self._active(row)):
                # Nothing but the table's rows in the space: no passage could name it either (issue 64).
                routed.refusal = routed.absent_row
        if routed is None or routed.call is None:
            return routed, None
        return routed, self.run(row, routed.call)

    @staticmethod
    def _examples(loaded: _Loaded) -> dict[str, list[str]]:
        out = {}
        for f in loaded.spec.fields:
            if not f.exact:
                name = q(f.name)
                rows = loaded.table.query(f"SELECT DISTINCT {name} FROM idx WHERE {name} IS NOT NULL LIMIT 3")
                out[f.name] = [str(r[0])[:60] for r in rows]
        return out

    def other_rows(self, space: SpaceRef, named: str, doc_ids: list[str]) -> set[str]:
        """Of ``doc_ids``, the table's rows other than ``named``: another row's text never answers a question about
        the named one (issue 64)."""
        loaded = self._load(space)
        if loaded is None or not doc_ids:
            return set()
        found = loaded.table.query("SELECT doc_id FROM idx WHERE doc_id IN (SELECT unnest(?))", [doc_ids])
        return {r[0] for r in found} - {named}

    def exact_values(self, space: SpaceRef, doc_ids: list[str]) -> dict[str, dict[str, str]]:
        """S6: the exact fields' verbatim values of these documents (for placeholders in answers)."""
        loaded = self._load(space)
        if loaded is None or not loaded.spec.exact_names or not doc_ids:
            return {}
        names = ", ".join(q(n) for n in loaded.spec.exact_names)
        found = loaded.table.query(f"SELECT doc_id, {names} FROM idx WHERE doc_id IN (SELECT unnest(?))", [doc_ids])
        return {r[0]: {n: v for n, v in zip(loaded.spec.exact_names, r[1:], strict=True) if v} for r in found}

    def lint(self, space: str, limit: int = 200) -> tuple[int, list[LintItem]]:
        """S7: (chunks flagged, the first ``limit`` of them with a suggested sentence).

        A table's rows are not listed: each is bare values by nature, its source (a CSV cell) has no place for a
        sentence, and questions about its fields go to this index — flagging all 2,000 rows of a table helped no
        one (issue 49). Pages that open with a header and say nothing more in words are what S7 is about."""
        row = self.folder.catalog.spaces.named(space)
        if self.folder.chunks.count(row.space_id) == 0:
            return 0, []
        crypto = self.keys.crypto(row)
        titles = {d.doc_id: crypto.open_meta(d).title for d in self.folder.catalog.docs.of(row.space_id, ("active",))
                  if d.kind != "row"}
        cols = self.folder.chunks.scan(row.space_id, ["chunk_id", "doc_id", "text", "ct"])
        flagged: list[LintItem] = []
        count = 0
        for cid, did, text, ct in zip(*(cols.column(c).to_pylist() for c in cols.column_names), strict=True):
            if did not in titles:
                continue
            item = lint_chunk(cid, did, titles[did], crypto.open_text(cid, did, text, ct))
            if item is not None:
                count += 1
                if len(flagged) < limit:
                    flagged.append(item)
        return count, flagged
