"""The ``eval_runs`` table: the analysts' evaluation runs, their metrics and per-question payload."""

from __future__ import annotations

from datetime import datetime

from biny.core.store.catalog.schema import now
from biny.core.store.catalog.table import Table
from biny.core.store.guard import mutation


class EvalRunTable(Table):
    @mutation
    def add(self, run_id: str, space_id: str, name: str, metrics: str, payload: str) -> None:
        self._run("INSERT INTO eval_runs VALUES (?, ?, ?, ?, ?, ?)", [run_id, space_id, now(), name, metrics, payload])

    def of(self, space_id: str) -> list[tuple[str, datetime, str, str]]:
        """(run_id, created_at, name, metrics JSON), newest first."""
        rows = self._rows("SELECT run_id, created_at, name, metrics FROM eval_runs WHERE space_id = ? "
                          "ORDER BY created_at DESC", [space_id])
        return [(str(a), b, str(c), str(d)) for a, b, c, d in rows]

    def get(self, run_id: str) -> tuple[str, str, str, str] | None:
        """(space_id, name, metrics, payload) of one run."""
        row = self._row("SELECT space_id, name, metrics, payload FROM eval_runs WHERE run_id = ?", [run_id])
        return None if row is None else (str(row[0]), str(row[1]), str(row[2]), str(row[3]))
