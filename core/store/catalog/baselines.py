"""The ``baselines`` table: each space's measured distance distributions (R2: unrelated pairs, nearest questions)."""

from __future__ import annotations

import json
from typing import Any

from biny.core.store.catalog.schema import now
from biny.core.store.catalog.table import Table
from biny.core.store.guard import mutation


class BaselineTable(Table):
    @mutation
    def save(self, space_id: str, kind: str, chunk_count: int, dist: dict[str, Any]) -> None:
        self._run("INSERT OR REPLACE INTO baselines VALUES (?, ?, ?, ?, ?)",
                  [space_id, kind, now(), chunk_count, json.dumps(dist)])

    def of(self, space_id: str) -> dict[str, dict[str, Any]]:
        """kind → {chunk_count, and the distribution's n, median, quantiles, values}."""
        rows = self._rows("SELECT kind, chunk_count, dist FROM baselines WHERE space_id = ?", [space_id])
        return {r[0]: {"chunk_count": r[1], **json.loads(r[2])} for r in rows}
