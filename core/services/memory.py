"""``engine.memory``: facts per scope with status and revision, sealed at rest, and recall (M1–M7)."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import numpy as np

from biny.core.crypto.memory import MemoryCrypto
from biny.core.embed.base import Vectors
from biny.core.errors import BinyError
from biny.core.i18n import t
from biny.core.memory.facts import STATUSES, Fact, FactNotFound, check_scope
from biny.core.memory.recall import RecallResult, recall, reference_distance
from biny.core.retrieve import baseline as baseline_mod
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.services.models import Models
from biny.core.store import rowmac
from biny.core.store.catalog import now
from biny.core.store.facts import FactRow, FactTable, fact_key, facts_mark


class Memory:
    def __init__(self, folder: DataFolder, models: Models, keys: KeySession) -> None:
        self.folder = folder
        self.models = models
        self.keys = keys
        self._table: FactTable | None = None
        self._lock = threading.Lock()

    def _open(self, *, create: bool = False) -> tuple[FactTable, MemoryCrypto] | None:
        """The fact table and the owner's memory key; legacy rows sealed once.

        None for a read before anything was ever stored (no key yet): memory is empty.
        """
        cat = self.folder.catalog
        # Legacy plaintext rows are sealed at the first open; after that only ``create`` matters.
        legacy = self._table is None and FactTable.legacy_rows(cat.con, cat.lock) > 0
        crypto = self.keys.memory_crypto(create=create or legacy)
        if crypto is None:
            return None
        with self._lock:
            if self._table is None:
                table = FactTable(lambda: cat.con, cat.lock, self.models.embedder.dim, crypto.owner)
                table.mac_key = fact_key(crypto)  # before sealing: legacy rows are coded as they are sealed
                self.folder.writer.memory.migrate_facts(table)
                self.folder.writer.memory.seal_legacy_memory(table, crypto)
                self._bind(table)
                self._table = table
            return self._table, crypto

    def _bind(self, table: FactTable) -> None:
        """Facts stored before codes (issue 59) get theirs once; from then on a fact without one is a mismatch."""
        assert table.mac_key is not None
        tenant, user = self.keys.owner
        mark = facts_mark(table.mac_key, table.owner)
        if not rowmac.same(self.folder.catalog.memory_keys.binding(tenant, user), mark):
            self.folder.writer.memory.bind_facts(table, tenant, user, mark)
        table.bound = True

    def _writable(self) -> tuple[FactTable, MemoryCrypto]:
        opened = self._open(create=True)
        assert opened is not None  # create=True makes the key or raises
        return opened

    def _fact(self, row: FactRow, crypto: MemoryCrypto) -> Fact:
        if row.ct is None:  # sealed at first open (writer.memory.seal_legacy_memory); never shown in plaintext
            raise FactNotFound(t("No fact with id {fact_id}.").format(fact_id=row.fact_id))
        opened = crypto.open_fact(row.fact_id, row.ct)
        return Fact(row.fact_id, opened["scope"], opened["text"], row.status, row.revision, row.created_at,
                    row.updated_at, opened.get("source", ""))

    def _embed(self, text: str) -> list[float]:
        return [float(x) for x in self.models.embedder.embed_passages([text])[0]]

    def add(self, text: str, scope: str, source: str = "") -> Fact:
        text = text.strip()
        if not text:
            raise BinyError(t("A fact needs some text."))
        scope = check_scope(scope)
        table, crypto = self._writable()
        fact_id = uuid.uuid4().hex[:12]
        ts = now()
        row = FactRow(fact_id, crypto.scope_key(scope), "active", 1, ts, ts, self.models.embedder.model_id,
                      crypto.seal_fact(fact_id, text, scope, source))
        self.folder.writer.memory.insert_fact(table, row, self._embed(text))
        return self.get(fact_id)

    def get(self, fact_id: str) -> Fact:
        opened = self._open()
        row = opened[0].get(fact_id) if opened else None
        if row is None or opened is None:
            raise FactNotFound(t("No fact with id {fact_id}.").format(fact_id=fact_id))
        return self._fact(row, opened[1])

    def facts(self, scope: str | None = None, statuses: tuple[str, ...] = ("active", "archived")) -> list[Fact]:
        opened = self._open()
        if opened is None:
            return []
        table, crypto = opened
        key = crypto.scope_key(check_scope(scope)) if scope is not None else None
        return [self._fact(r, crypto) for r in table.rows(statuses, key)]

    def scopes(self) -> list[str]:
        return sorted({f.scope for f in self.facts(None, ("active", "archived"))})

    def edit(self, fact_id: str, text: str) -> Fact:
        """A new revision: text, vector and revision change together."""
        text = text.strip()
        if not text:
            raise BinyError(t("A fact needs some text."))
        current = self.get(fact_id)
        if current.status == "deleted":
            raise FactNotFound(t("Fact {fact_id} was deleted.").format(fact_id=fact_id))
        table, crypto = self._writable()
        ct = crypto.seal_fact(fact_id, text, current.scope, current.source)
        model = self.models.embedder.model_id
        self.folder.writer.memory.update_fact(table, fact_id, ct, self._embed(text), model, now())
        return self.get(fact_id)

    def set_status(self, fact_id: str, status: str) -> Fact:
        if status not in STATUSES:
            raise BinyError(t("Unknown fact status {status!r}.").format(status=status))
        self.get(fact_id)
        table, _ = self._writable()
        self.folder.writer.memory.set_fact_status(table, fact_id, status, now())
        return self.get(fact_id)

    # ---- the recall chain's view of the store (memory/recall.py: FactSource) ------------------
    def candidates(self, scope: str) -> tuple[list[tuple[str, int]], Vectors]:
        opened = self._open()
        if opened is None:
            return [], np.zeros((0, self.models.embedder.dim), dtype=np.float32)
        table, crypto = opened
        return table.candidates(crypto.scope_key(check_scope(scope)), self.models.embedder.model_id)

    def current(self, fact_ids: list[str]) -> dict[str, Fact]:
        opened = self._open()
        if opened is None:
            return {}
        table, crypto = opened
        return {fid: self._fact(r, crypto) for fid, r in table.current(fact_ids).items() if r.ct is not None}

    def all_vectors(self) -> Vectors:
        opened = self._open()
        if opened is None:
            return np.zeros((0, self.models.embedder.dim), dtype=np.float32)
        return opened[0].all_vectors(self.models.embedder.model_id)

    def recall(self, question: str, scope: str, *, conversation_id: str | None = None,
               history: list[str] | None = None, k: int = 5, threshold: float = 0.1, max_chars: int = 12000,
               between_rank_and_check: Any = None) -> RecallResult:
        """M1–M7 for ``question`` in ``scope``; the result's reference block is for this turn only."""
        if conversation_id is not None and history is None:
            history = [c for role, c in self.conversation(conversation_id) if role == "user"]
        _, qvecs = baseline_mod.question_vectors(self.models.embedder, self.folder.cache_dir)
        return recall(question, scope, store=self, embedder=self.models.embedder,
                      d_ref=reference_distance(self, qvecs), history=history, model=self.models.llm, k=k,
                      threshold=threshold, max_chars=max_chars, between_rank_and_check=between_rank_and_check)

    # ---- canonical conversation history (M7: the reference block is never stored here) ---------
    def add_turn(self, conversation_id: str, role: str, content: str) -> None:
        table, crypto = self._writable()
        key = crypto.conversation_key(conversation_id)
        self.folder.writer.memory.add_turn(table, key, role, crypto.seal_turn(key, content), now())

    def conversation(self, conversation_id: str) -> list[tuple[str, str]]:
        opened = self._open()
        if opened is None:
            return []
        table, crypto = opened
        key = crypto.conversation_key(conversation_id)
        return [(role, crypto.open_turn(key, ct)) for role, ct, _ in table.turns(key) if ct is not None]
