"""`biny doctor`: check that the catalog and the vector store agree, and repair what can be (issue 22).

For every space: each listed document must have exactly its recorded number of passages in the
vector store, each with a finite vector; passages of no listed document are orphans. A damaged
document is repaired from its source file when that file is still where it was ingested from: its
passages are removed, it is marked ``damaged`` (so it is never answered from and never counted as
"unchanged"), and the file is ingested again as a new revision. Without the file, the finding says
what to do; nothing is deleted that cannot be rebuilt.

Documents whose passages were keyed (terms, stems, language marks: ingest/keys.py) by an older version are
reported too: found by meaning as before, by words less well. Repair re-keys them from their stored text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from biny.core.crypto.space import SpaceCrypto
from biny.core.errors import BinyError
from biny.core.i18n import t
from biny.core.ingest.keys import KEYS_VERSION, passage_keys
from biny.core.progress import Progress, ProgressCallback, no_progress
from biny.core.results import IngestReport
from biny.core.services import deep as deep_mod
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.store import rowmac
from biny.core.store.catalog import DocumentRow, SpaceRow
from biny.core.store.failures import storage_problem
from biny.core.store.integrity import mismatches
from biny.core.text.terms import index_terms

REKEY_BATCH = 2000  # passages re-keyed per Lance commit: bounds the memory a large space's re-key needs


@dataclass(slots=True)
class Finding:
    space: str
    kind: str  # damaged | tampered | orphans | locked | outdated | unbound | unreadable | unlisted | catalog
    detail: str
    action: str
    doc_id: str | None = None
    title: str = ""
    repaired: bool = False


@dataclass(slots=True)
class DoctorReport:
    spaces: int = 0
    documents: int = 0
    passages: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return all(f.repaired for f in self.findings)


def passage_counts(doc_ids: list[str], vectors: np.ndarray) -> tuple[Counter[str], Counter[str]]:
    """Passages per document, and those of them whose vector is not finite (a flipped byte on disk:
    LanceDB refuses NaN on write, so only damage puts one there)."""
    finite = [bool(ok) for ok in np.asarray(np.isfinite(vectors).all(axis=1))]
    return Counter(doc_ids), Counter(d for d, ok in zip(doc_ids, finite, strict=True) if not ok)


class Doctor:
    def __init__(self, folder: DataFolder, keys: KeySession,
                 ingest: Callable[[str, list[Path]], IngestReport]) -> None:
        self.folder = folder
        self.keys = keys
        self._ingest = ingest

    def check(self, space: str | None = None, *, repair: bool = False, deep: bool = False,
              progress: ProgressCallback = no_progress) -> DoctorReport:
        """``deep`` (issue 59): every row read whole and its code recomputed, every ciphertext opened, the catalog
        read whole (services/deep.py). ``progress`` counts spaces checked (stage ``check``, each named)."""
        report = DoctorReport()
        if space is None:
            self._folder(report, deep)
        rows = [self.folder.catalog.spaces.named(space)] if space else self.folder.catalog.spaces.all()
        for i, row in enumerate(rows):
            progress(Progress(i, len(rows), "check", row.name, unit="spaces"))
            try:
                self._space(row, report, repair)
                self._unbound(row, report, repair)
                if deep:
                    self._deep(row, report, repair)
                self._index(row, report, repair, deep)
            except Exception as exc:
                if storage_problem(exc) is None:
                    raise
                detail, action = deep_mod.describe_unreadable(row, str(exc))
                report.findings.append(Finding(row.name, "unreadable", detail, action))
        progress(Progress(len(rows), len(rows), "check", "", unit="spaces"))
        if deep and space is None:
            for kind, detail, action, repaired in deep_mod.memory_findings(self.folder, self.keys, repair=repair):
                report.findings.append(Finding("(memory)", kind, detail, action, repaired=repaired))
        return report

    def _folder(self, report: DoctorReport, deep: bool) -> None:
        """What lies outside any space: chunk tables no space lists (a lost catalog), the catalog file itself."""
        for name, rows in deep_mod.unlisted(self.folder):
            shown = t("{n} passages").format(n=rows) if rows >= 0 else t("unreadable")
            report.findings.append(Finding(
                name, "unlisted",
                t("the passages and vectors of a space are on disk (lance/{name}.lance, {rows}) but the catalog does "
                  "not list it: catalog.duckdb is missing or was replaced").format(name=name, rows=shown),
                t("restore catalog.duckdb from a backup of this data folder, or import the space's export (`biny "
                  "space import FILE.tar`); remove lance/{name}.lance only if you deleted that space").format(
                      name=name)))
        if deep:
            for problem in self.folder.catalog.read_all():
                report.findings.append(Finding("catalog.duckdb", "catalog",
                                               t("a table of the catalog could not be read: {problem}").format(
                                                   problem=problem),
                                               t("restore catalog.duckdb from a backup of this data folder")))

    def _unbound(self, row: SpaceRow, report: DoctorReport, repair: bool) -> None:
        """A space written before row codes (store/rowmac.py): found by every check, bound by ``--repair``."""
        mark = self.folder.catalog.spaces.binding(row.space_id)
        f = Finding(row.name, "unbound", t("its passages are not all covered by an integrity code (stored before "
                                           "codes existed)"),
                    t("run `biny doctor --repair` to add them"))
        try:
            key = self.keys.mac_key(row)
        except BinyError as exc:
            if not mark:  # a locked space's mark cannot be verified here; without one it is surely unbound
                f.action = deep_mod.locked_action(exc)
                report.findings.append(f)
            return
        if key is not None and rowmac.is_bound(key, row.space_id, mark):
            return
        if key is None:
            f.action = t("open the data folder again: a plaintext space gets its codes when the folder opens")
        elif repair:
            listed = {d.doc_id for d in self.folder.catalog.docs.of(row.space_id, ("active", "archived"))}
            # Ciphertext that does not open is never coded as if it were sound: those documents are repaired first.
            found = deep_mod.read_rows(self.folder, row, key, self.keys.crypto(row), listed)
            if found.problems() or found.unreadable:
                f.action = t("repair or delete the damaged documents first, then run `biny doctor --repair` again")
            else:
                self.folder.writer.upkeep.bind_rows(row, key)
                f.repaired, f.action = True, t("integrity codes added")
        report.findings.append(f)

    def _index(self, row: SpaceRow, report: DoctorReport, repair: bool, deep: bool) -> None:
        """The structured index's codes (store/structured.py): unbound ones coded by ``repair``, failed ones
        (``deep``) named with the rebuild that restores them."""
        try:
            key = self.keys.mac_key(row)
        except BinyError:
            return  # locked: the passages' own finding says so
        for kind, detail, action in deep_mod.index_findings(self.folder, row, key, deep=deep):
            f = Finding(row.name, kind, detail, action)
            if kind == "unbound" and repair and key is not None:
                self.folder.writer.bind_index(row.space_id, key)
                f.repaired, f.action = True, t("integrity codes added")
            report.findings.append(f)

    def _deep(self, row: SpaceRow, report: DoctorReport, repair: bool) -> None:
        """Every row read whole, its code recomputed and its ciphertext opened (``restic check --read-data``)."""
        try:
            key, crypto = self.keys.mac_key(row), self.keys.crypto(row)
        except BinyError as exc:
            report.findings.append(Finding(row.name, "locked", t("its passages were not read (locked)"),
                                           deep_mod.locked_action(exc)))
            return
        listed = {d.doc_id for d in self.folder.catalog.docs.of(row.space_id, ("active", "archived"))}
        found = deep_mod.read_rows(self.folder, row, key, crypto, listed)
        if found.unreadable:
            detail, action = deep_mod.describe_unreadable(row, found.unreadable)
            report.findings.append(Finding(row.name, "unreadable", detail, action))
        for doc_id, why in found.problems().items():
            f = self._damaged(row, doc_id, why, repair)
            f.kind = "tampered" if f.kind == "damaged" else f.kind
            if not f.repaired and f.kind == "tampered" and "restore" not in f.action:
                f.action += t(", or {restore}").format(restore=t(deep_mod.RESTORE))
            report.findings.append(f)

    def _space(self, row: SpaceRow, report: DoctorReport, repair: bool) -> None:
        catalog, chunks = self.folder.catalog, self.folder.chunks
        report.spaces += 1
        docs = catalog.docs.of(row.space_id)
        report.documents += len(docs)
        if not chunks.count(row.space_id):
            for doc in docs:
                if doc.chunks:
                    missing = t("0 of its {chunks} passages are in the vector store").format(chunks=doc.chunks)
                    report.findings.append(self._damaged(row, doc.doc_id, missing, repair))
            self._marked(row, report, repair)
            return
        table = chunks.scan(row.space_id, ["doc_id", "chunk_id", "vector"])
        doc_ids = table.column("doc_id").to_pylist()
        report.passages += len(doc_ids)
        # Arrow → numpy without Python floats: a 100k-passage space is 38M numbers.
        flat = table.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
        vectors = np.asarray(flat, dtype=np.float32).reshape(len(doc_ids), -1)
        have, bad = passage_counts(doc_ids, vectors)
        # Counts and the digest over chunk ids recorded at commit (a passage moved between documents keeps
        # both counts right; only the digest sees it).
        moved = mismatches({d.doc_id: (d.chunks, d.chunk_digest) for d in docs}, doc_ids,
                           table.column("chunk_id").to_pylist())
        listed = {d.doc_id for d in docs}
        orphans = sorted(set(have) - listed - set(catalog.docs.pending_and_retired(row.space_id)[0]))
        if orphans:
            n = sum(have[d] for d in orphans)
            f = Finding(row.name, "orphans", f"{n} passage(s) of {len(orphans)} document(s) no longer listed",
                        "removed" if repair else "run `biny doctor --repair` to remove them")
            if repair:
                self.folder.writer.remove_passages(row.space_id, orphans)
                f.repaired = True
            report.findings.append(f)
        for doc in docs:
            if doc.doc_id not in moved and not bad.get(doc.doc_id):
                continue
            detail = (moved.get(doc.doc_id, t("{have} of its {chunks} passages are stored")
                                .format(have=have.get(doc.doc_id, 0), chunks=doc.chunks))
                      + (t(", {bad} with an invalid vector").format(bad=bad[doc.doc_id]) if bad.get(doc.doc_id)
                         else ""))
            report.findings.append(self._damaged(row, doc.doc_id, detail, repair))
        self._marked(row, report, repair)
        self._outdated(row, report, repair)

    def _marked(self, row: SpaceRow, report: DoctorReport, repair: bool) -> None:
        """Documents already marked damaged (when the folder opened, or by an earlier check)."""
        for doc in self.folder.catalog.docs.of(row.space_id, ("damaged",)):
            report.documents += 1
            report.findings.append(self._damaged(row, doc.doc_id, t("marked damaged: its stored passages did not "
                                                                    "match the catalog"), repair))

    def _outdated(self, row: SpaceRow, report: DoctorReport, repair: bool) -> None:
        """Documents keyed by an older ``KEYS_VERSION``: one finding for the space; repair re-keys them."""
        old = [d for d in self.folder.catalog.docs.of(row.space_id) if d.keys_version < KEYS_VERSION and d.chunks]
        if not old:
            return
        detail = t("{docs} document(s), {n} passage(s) indexed by an older version: questions in other word forms "
                   "or languages find them less well").format(docs=len(old), n=sum(d.chunks for d in old))
        f = Finding(row.name, "outdated", detail,
                    t("run `biny doctor --repair` to index their words again from the stored text (no re-embedding)"))
        if repair:
            try:
                crypto = self.keys.crypto(row)
            except BinyError as exc:
                f.kind, f.action = "locked", t("unlock the space to repair it ({detail})").format(detail=exc)
            else:
                self._rekey(row, old, crypto)
                self.folder.writer.compact(row.space_id)  # the rewritten rows' old fragments
                f.repaired, f.action = True, t("indexed again from the stored text")
        report.findings.append(f)

    def _rekey(self, row: SpaceRow, docs: list[DocumentRow], crypto: SpaceCrypto) -> None:
        """Each passage's keys computed again from its stored (in an encrypted space, opened) text and its
        document's title, as ingest computes them now; read and written in batches of about ``REKEY_BATCH``
        passages — one filtered scan and one Lance commit each, not a scan per document."""
        batch: list[DocumentRow] = []
        for i, doc in enumerate(docs):
            batch.append(doc)
            if sum(d.chunks for d in batch) >= REKEY_BATCH or i == len(docs) - 1:
                self._rekey_batch(row, batch, crypto)
                batch = []

    def _rekey_batch(self, row: SpaceRow, docs: list[DocumentRow], crypto: SpaceCrypto) -> None:
        titles = {d.doc_id: crypto.open_meta(d).title for d in docs}
        title_terms = {d: index_terms(title) for d, title in titles.items()}
        listed = ", ".join(f"'{d}'" for d in titles)  # doc ids are hex: nothing to quote
        stored = self.folder.chunks.scan(row.space_id, ["chunk_id", "doc_id", "text", "ct"], f"doc_id IN ({listed})")
        keys: dict[str, tuple[list[str], list[str], list[str]]] = {}
        for chunk_id, doc_id, text, ct in zip(*(stored.column(c).to_pylist() for c in ("chunk_id", "doc_id", "text",
                                                                                        "ct")), strict=True):
            plain = passage_keys(crypto.open_text(chunk_id, doc_id, text, ct), titles[doc_id], title_terms[doc_id])
            keys[chunk_id] = crypto.seal_keys(plain.ids, plain.terms, plain.aspects)
        self.folder.writer.rekey(row.space_id, keys, list(titles), KEYS_VERSION)

    def _damaged(self, row: SpaceRow, doc_id: str, detail: str, repair: bool) -> Finding:
        doc = self.folder.catalog.docs.get(doc_id)
        assert doc is not None
        try:
            doc = self.keys.crypto(row).open_meta(doc)
        except BinyError as exc:
            return Finding(row.name, "locked", detail, t("unlock the space to repair it ({detail})").format(detail=exc),
                           doc_id)
        source = Path(doc.path)
        f = Finding(row.name, "damaged", detail, "", doc_id, doc.title)
        if not source.is_file():
            f.action = (t("restore {source} and run `biny ingest --space {name} {source}`, or delete the document")
                        .format(source=source, name=row.name))
            return f
        if not repair:
            f.action = t("run `biny doctor --repair` to rebuild it from {source}").format(source=source)
            return f
        # Marked damaged first: its passages go, it is no longer answered from, and its content hash no
        # longer counts as stored, so the source is ingested again instead of being reported unchanged.
        if doc.status != "damaged":
            self.folder.writer.set_statuses(row.space_id, [doc_id], "damaged")
        outcome = self._ingest(row.name, [source]).files[0]
        f.repaired = outcome.outcome == "ingested"
        f.action = f"rebuilt from {source}" if f.repaired else f"re-ingest failed: {outcome.message}"
        return f
