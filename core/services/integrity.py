"""Answers only from passages that are as they were written (issue 59).

Whatever fails an integrity check — a row whose code does not match (store/rowmac.py), a document whose stored
passages are not the ones it was committed with (store/integrity.py), a vector that is not a number, a ciphertext
that does not open, a document marked damaged when the folder opened — stops the question with ``DataTampered``
naming the space and the documents. It is never shown as a refusal or as an answer from what is left: a space
that lost part of itself can answer wrongly with full confidence (a passage's terms emptied turned a price
question into another plan's price).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from biny.core.errors import DataTampered, PassphraseRequired, WrongPassphrase
from biny.core.i18n import N_, t
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.store import rowmac
from biny.core.store.catalog import DocumentRow, SpaceRow
from biny.core.store.vectors import RowCheck, VectorMatrix

NEXT_STEP = N_("Nothing was answered. Run `biny doctor --deep` to see what is damaged, then restore the space from "
               "your export (`biny space import FILE.tar`) or rebuild the documents from their files "
               "(`biny doctor --repair`).")


def row_check(folder: DataFolder, keys: KeySession, row: SpaceRow) -> Callable[[], RowCheck | None]:
    """How the space's matrix checks its rows' codes, when the key is at hand (a locked space's is not)."""
    def check() -> RowCheck | None:
        try:
            key = keys.mac_key(row)
        except (PassphraseRequired, WrongPassphrase):
            return None
        if key is None:
            return None
        return RowCheck(key, rowmac.is_bound(key, row.space_id, folder.catalog.spaces.binding(row.space_id)))
    return check


def tampered(space: str, problems: Mapping[str, str], docs: Mapping[str, DocumentRow]) -> DataTampered:
    """The error for ``problems`` (doc_id → why), documents named by title when known."""
    shown = {d: repr(docs[d].title if d in docs and docs[d].title else d) for d in problems}
    named = "; ".join(f"{shown[d]} — {why}" for d, why in sorted(problems.items(), key=lambda p: shown[p[0]]))
    return DataTampered(t("Space {space} failed its integrity check: the stored passages of {n} document(s) changed "
                          "or were damaged after they were written ({which}).").format(
                              space=repr(space), n=len(problems), which=named) + " " + t(NEXT_STEP))


def gate(folder: DataFolder, row: SpaceRow, vm: VectorMatrix, docs: Mapping[str, DocumentRow],
         open_meta: Callable[[DocumentRow], DocumentRow]) -> None:
    """Raise ``DataTampered`` when anything the matrix left out, or a document marked damaged, says the space is
    not as it was written. ``docs``: the space's documents, opened; ``open_meta`` opens another one's title."""
    problems: dict[str, str] = {}
    named = dict(docs)
    for source in (vm.damaged, vm.tampered):
        for doc_id, why in source.items():
            problems[doc_id] = why if doc_id not in problems else f"{problems[doc_id]}; {why}"
    for doc in folder.catalog.docs.of(row.space_id, ("damaged",)):
        problems.setdefault(doc.doc_id, t("marked damaged when the data folder opened: its stored passages did not "
                                          "match the catalog"))
        named.setdefault(doc.doc_id, open_meta(doc))
    if problems:
        raise tampered(row.name, problems, named)


def unopened(row: SpaceRow, doc_ids: list[str], docs: Mapping[str, DocumentRow]) -> DataTampered:
    """A passage's ciphertext did not open (altered, or moved from another record)."""
    why = t("a passage's ciphertext fails its check when opened (altered, or moved from another record)")
    return tampered(row.name, dict.fromkeys(doc_ids, why), docs)


def uncoded_notice(row: SpaceRow, vm: VectorMatrix) -> str | None:
    """What to say about a space whose passages were stored before row codes and are not yet bound."""
    if not vm.uncoded:
        return None
    return t("Space {space}: {n} passage(s) were stored before integrity codes existed and are not yet covered by "
             "one. Run `biny doctor --repair` once to add them.").format(space=repr(row.name), n=vm.uncoded)


INDEX_STEP = N_("Nothing was answered. Run `biny doctor --deep` to see what is damaged, then build the index again "
                "from the documents (`biny index build --space {space}`) or restore the space from your export.")


def index_tampered(space: str, spec: bool, titles: list[str]) -> DataTampered:
    """The structured index (store/structured.py) failed its codes: its fields or set of rows (``spec``), or the
    rows of the documents ``titles``."""
    what = []
    if spec:
        what.append(t("its fields or its set of rows"))
    if titles:
        what.append(t("the rows of {titles}").format(titles=", ".join(sorted(titles))))
    return DataTampered(t("Space {space} failed its integrity check: its structured index changed after it was "
                          "written ({which}).").format(space=repr(space), which="; ".join(what))
                        + " " + t(INDEX_STEP).format(space=space))
