"""biny.core — the engine: ingest, chunk, embed, store, retrieve. Never imports Qt.

The public API is re-exported lazily so that importing a small module (say the
chunker) does not load LanceDB, DuckDB and the embedding model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from biny.core.engine import AskResult, Engine, IngestReport
    from biny.core.errors import BinyError

__all__ = ["AskResult", "BinyError", "Engine", "IngestReport"]


def __getattr__(name: str) -> Any:
    if name in {"AskResult", "Engine", "IngestReport"}:
        from biny.core import engine

        return getattr(engine, name)
    if name == "BinyError":
        from biny.core.errors import BinyError

        return BinyError
    raise AttributeError(name)
