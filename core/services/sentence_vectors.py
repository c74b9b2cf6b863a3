"""The stored sentence vectors of a final context, for the no-model answer (issue 57).

Made at ingest (embed/sentences.py) and stored in the passage's row, sealed like its text in an encrypted space: the
answer takes them for its K passages (one take), opens and decodes them, and reads its sentences by meaning without a
model call. A passage stored before them (an older space) has its sentences embedded on first use and kept in
memory — a read never writes (the matrix, views and readers would reload after every question); ``biny space
reembed`` stores them, with its progress shown (``fill``).
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Callable

from biny.core.embed.base import Vectors
from biny.core.embed.sentences import decode, encode, sentence_texts, sentence_vectors_many
from biny.core.errors import DataTampered
from biny.core.i18n import t
from biny.core.progress import CancelToken, Progress, ProgressCallback, no_progress
from biny.core.results import Hit
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.services.models import Models
from biny.core.store.catalog import SpaceRow
from biny.core.store.vectors import VectorMatrix

CACHE = 4096  # passages whose opened sentence vectors stay in memory (~4–6 KB each as float32)
FILL_BATCH = 256  # passages filled per write by ``fill``


class StoredSentences:
    def __init__(self, folder: DataFolder, models: Models, keys: KeySession) -> None:
        self.folder = folder
        self.models = models
        self.keys = keys
        self._cache: OrderedDict[tuple[str, str], Vectors | None] = OrderedDict()
        # The judge's, apart: read without the text, so not checked against its split as ``for_hits`` checks.
        self._judged: OrderedDict[tuple[str, str], Vectors | None] = OrderedDict()
        self._lock = threading.Lock()
        # space → (matrix generation, chunk id → stored row): a final context's rows are taken, not scanned for.
        self._rows: dict[str, tuple[int, dict[str, int]]] = {}

    def forget(self, space_id: str) -> None:
        with self._lock:
            for cache in (self._cache, self._judged):
                for key in [k for k in cache if k[0] == space_id]:
                    del cache[key]
            self._rows.pop(space_id, None)

    def _stored_rows(self, space_id: str, vm: VectorMatrix) -> dict[str, int]:
        cached = self._rows.get(space_id)
        if cached is None or cached[0] != vm.generation:
            cached = (vm.generation, {cid: int(vm.stored[r]) for r, cid in enumerate(vm.chunk_ids)})
            self._rows[space_id] = cached
        return cached[1]

    def for_hits(self, row: SpaceRow, vm: VectorMatrix, hits: list[Hit]) -> tuple[list[Vectors | None], int]:
        """Per hit, its sentences' vectors (as text/units.py splits its text), and how many passages had none
        stored and were embedded now."""
        keys = [(row.space_id, h.chunk_id) for h in hits]
        known = self._known(self._cache, keys)
        wanted = [h for h, k in zip(hits, keys, strict=True) if k not in known]
        made = 0
        if wanted:
            # The judge opened the pool's vectors a moment ago (``for_rows``): the hits are among them, and are not
            # read and unsealed again (issue 57). Checked against the text alike.
            judged = self._known(self._judged, [(row.space_id, h.chunk_id) for h in wanted])
            opened = {cid: v for (_, cid), v in judged.items()}
            unread = [(h.chunk_id, h.doc_id) for h in wanted if h.chunk_id not in opened]
            if unread:
                opened.update(self._opened(row, vm, unread))
            missing: list[Hit] = []
            for h in wanted:
                found = opened[h.chunk_id]
                if found is not None and len(found) == len(sentence_texts(h.text)[0]):
                    known[(row.space_id, h.chunk_id)] = found
                else:
                    missing.append(h)  # none stored, or split otherwise than its text is now: embedded below
            if missing:
                emb = self.models.embedder
                for h, (_, vectors) in zip(missing, sentence_vectors_many([h.text for h in missing], emb), strict=True):
                    known[(row.space_id, h.chunk_id)] = vectors
                made = len(missing)
            self._remember(self._cache, keys, known)
        return [known[k] for k in keys], made

    def for_rows(self, row: SpaceRow, vm: VectorMatrix, rows: list[int],
                 texts: Callable[[list[int]], list[str]] | None = None) -> list[Vectors | None]:
        """Per matrix row, its sentences' vectors as stored, for the relevance judge's best-sentence feature
        (issue 55): only the sealed vectors are opened, never the passage's text (R7). A passage stored without
        them (an older space) is embedded from ``texts`` once and kept in memory; without ``texts``, None."""
        keys = [(row.space_id, vm.chunk_ids[r]) for r in rows]
        known = self._known(self._judged, keys)
        wanted = [r for r, k in zip(rows, keys, strict=True) if k not in known]
        if wanted:
            opened = self._opened(row, vm, [(vm.chunk_ids[r], vm.doc_ids[r]) for r in wanted])
            missing = [r for r in wanted if opened[vm.chunk_ids[r]] is None]
            known.update(((row.space_id, vm.chunk_ids[r]), opened[vm.chunk_ids[r]]) for r in wanted)
            if missing and texts is not None:
                made = sentence_vectors_many(texts(missing), self.models.embedder)
                for r, (_, vectors) in zip(missing, made, strict=True):
                    known[(row.space_id, vm.chunk_ids[r])] = vectors
            self._remember(self._judged, keys, known)
        return [known.get(k) for k in keys]

    def _known(self, cache: OrderedDict[tuple[str, str], Vectors | None],
               keys: list[tuple[str, str]]) -> dict[tuple[str, str], Vectors | None]:
        with self._lock:
            return {k: cache[k] for k in keys if k in cache}

    def _remember(self, cache: OrderedDict[tuple[str, str], Vectors | None], keys: list[tuple[str, str]],
                  known: dict[tuple[str, str], Vectors | None]) -> None:
        with self._lock:
            cache.update((k, known[k]) for k in keys if k in known)
            while len(cache) > CACHE:
                cache.popitem(last=False)

    def _opened(self, row: SpaceRow, vm: VectorMatrix, wanted: list[tuple[str, str]]) -> dict[str, Vectors | None]:
        """Chunk id → its stored sentence vectors, opened (None: none stored, or its seal does not open — never
        another passage's vectors), taken at the passages' stored rows."""
        stored = self._stored_rows(row.space_id, vm)
        ids = [cid for cid, _ in wanted]
        offsets = [stored[c] for c in ids if c in stored]
        blobs = self.folder.chunks.views.sentence_blobs(row.space_id, ids, offsets if len(offsets) == len(ids) else [])
        crypto = self.keys.crypto(row)
        out: dict[str, Vectors | None] = {}
        for cid, doc_id in wanted:
            try:
                found = decode(crypto.open_sentences(cid, doc_id, blobs.get(cid, b"")))
            except DataTampered:
                found = None
            out[cid] = found[1] if found is not None else None
        return out

    def fill(self, row: SpaceRow, *, progress: ProgressCallback = no_progress,
             cancel: CancelToken | None = None) -> int:
        """Make and store the sentence vectors of every passage stored without them (an older space); returns how
        many passages were filled. Progress in passages, stage ``embed``."""
        cancel = cancel or CancelToken()
        crypto = self.keys.crypto(row)
        chunks = self.folder.chunks
        todo = []
        for doc in self.folder.catalog.docs.of(row.space_id):
            for rec in chunks.doc_chunks(row.space_id, doc.doc_id):
                if not rec.sentence_vectors:
                    todo.append(crypto.open_record(copy.copy(rec)))
        emb = self.models.embedder
        batch = max(1, self.folder.settings.embedding.batch_size)
        for start in range(0, len(todo), FILL_BATCH):
            cancel.raise_if_cancelled()
            part = todo[start : start + FILL_BATCH]
            made = sentence_vectors_many([r.text for r in part], emb, batch)
            blobs = {r.chunk_id: crypto.seal_sentences(r.chunk_id, r.doc_id, encode(offsets, vectors))
                     for r, (offsets, vectors) in zip(part, made, strict=True)}
            self.folder.writer.store_sentence_vectors(row.space_id, blobs)
            progress(Progress(start + len(part), len(todo), "embed", t("{name} (sentences)").format(name=row.name)))
        self.forget(row.space_id)
        return len(todo)
