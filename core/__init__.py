"""biny.core — the engine: ingest, chunk, embed, store, retrieve. Never imports Qt.

The public API is the ``Engine`` facade and the types it hands back; the console and
the CLI import only these names (tests/test_public_api.py pins the list). They are
re-exported lazily so that importing a small module (say the chunker) does not load
LanceDB, DuckDB and the embedding model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from biny.core.analysis.fonts import has_cjk_font
    from biny.core.analysis.plots import (
        collection_figure,
        distances_table,
        histogram_figure,
        message_figure,
        save_figure,
        save_table,
        star_map_figure,
    )
    from biny.core.calls import Routed, ToolResult
    from biny.core.config import EDITABLE_SETTINGS, Settings
    from biny.core.demo import build_demo
    from biny.core.engine import Engine, default_home
    from biny.core.errors import (
        BinyError,
        Cancelled,
        ConfigError,
        CorruptDocument,
        DataFolderInUse,
        DataTampered,
        DocumentError,
        DocumentTooLarge,
        EmptyDocument,
        EncryptedDocument,
        ModelMismatch,
        ModelUnavailable,
        ObjectStoreUnavailable,
        ParserCrashed,
        PassphraseRequired,
        ReadOnlyFolder,
        SecretStoreUnavailable,
        SpaceExists,
        SpaceNotFound,
        StorageFull,
        StorageReadOnly,
        StoreDamaged,
        UnsupportedFormat,
        WrongPassphrase,
    )
    from biny.core.i18n import os_reason, set_language
    from biny.core.memory.facts import Fact, FactNotFound
    from biny.core.memory.recall import DroppedFact, RecalledFact, RecallResult, Step
    from biny.core.progress import CancelToken, Figures, Progress, ProgressCallback, ProgressMeter
    from biny.core.results import (
        Answer,
        AskResult,
        Citation,
        FileOutcome,
        Hit,
        IngestReport,
        PassageChange,
        SourceView,
        SpaceInfo,
    )
    from biny.core.retrieve.baseline import Baselines, Distribution
    from biny.core.retrieve.candidates import RetrievalParams
    from biny.core.services.structured import IndexInfo, NoIndex
    from biny.core.structured.lint import LintItem
    from biny.core.structured.spec import Proposal, ProposedField
    from biny.core.text.scripts import script_name
    from biny.core.trace import Dropped, Stage, Trace
    from biny.core.trace.records import (
        PoolRecord,
        RelevanceRecord,
        RewriteRecord,
        SentencesRecord,
        ThresholdRecord,
    )
    from biny.core.views import DocumentView, PassageView

# name → module it lives in (one source of truth for the lazy re-export and for __all__)
_EXPORTS: dict[str, str] = {
    "Engine": "engine", "default_home": "engine", "Settings": "config", "EDITABLE_SETTINGS": "config",
    "Answer": "results", "Citation": "results", "AskResult": "results",
    "FileOutcome": "results", "Hit": "results", "IngestReport": "results",
    "SpaceInfo": "results", "SourceView": "results", "PassageChange": "results",  # issue 61
    "CancelToken": "progress", "Progress": "progress", "ProgressCallback": "progress",
    "ProgressMeter": "progress", "Figures": "progress",
    "Trace": "trace", "Stage": "trace", "Dropped": "trace",
    # The stages' typed records the Inspector reads (issue 47).
    **{name: "trace.records" for name in ("PoolRecord", "RelevanceRecord", "RewriteRecord", "SentencesRecord",
                                             "ThresholdRecord")},
    "Baselines": "retrieve.baseline", "Distribution": "retrieve.baseline",
    "RetrievalParams": "retrieve.candidates",
    # Stored documents and passages as the console and CLI see them, never the storage rows (issue 56).
    "DocumentView": "views", "PassageView": "views",
    "IndexInfo": "services.structured", "NoIndex": "services.structured", "LintItem": "structured.lint",
    "Routed": "calls", "Proposal": "structured.spec", "ProposedField": "structured.spec",
    "ToolResult": "calls",
    # Analysts' figures (matplotlib, no Qt): the console draws them on its canvas, the CLI saves them.
    **{name: "analysis.plots" for name in ("collection_figure", "distances_table", "histogram_figure",
                                           "message_figure", "save_figure", "save_table", "star_map_figure")},
    # Whether a font draws Chinese (fontconfig's answer): the figures and the console's preflight share the rule.
    "has_cjk_font": "analysis.fonts",
    "Fact": "memory.facts", "FactNotFound": "memory.facts",
    "RecallResult": "memory.recall", "RecalledFact": "memory.recall", "DroppedFact": "memory.recall",
    "Step": "memory.recall",
    **{name: "errors" for name in (
        "BinyError", "Cancelled", "ConfigError", "CorruptDocument", "DataFolderInUse", "DataTampered",
        "DocumentError", "DocumentTooLarge", "EmptyDocument", "EncryptedDocument", "ModelMismatch",
        "ModelUnavailable", "ParserCrashed", "PassphraseRequired", "SecretStoreUnavailable", "SpaceExists",
        "SpaceNotFound", "StorageFull", "StorageReadOnly", "StoreDamaged", "UnsupportedFormat", "WrongPassphrase",
        "ReadOnlyFolder", "ObjectStoreUnavailable")},
    # The interface language of the engine's words (issue 21) and the demo space the console's self-test builds.
    "set_language": "i18n", "os_reason": "i18n", "build_demo": "demo", "script_name": "text.scripts",
}

# Written out for linters and readers; tests/test_public_api.py checks it equals _EXPORTS.
__all__ = [
    "EDITABLE_SETTINGS",
    "Answer",
    "AskResult",
    "Baselines",
    "BinyError",
    "CancelToken",
    "Cancelled",
    "Citation",
    "ConfigError",
    "CorruptDocument",
    "DataFolderInUse",
    "DataTampered",
    "Distribution",
    "DocumentError",
    "DocumentTooLarge",
    "DocumentView",
    "Dropped",
    "DroppedFact",
    "EmptyDocument",
    "EncryptedDocument",
    "Engine",
    "Fact",
    "FactNotFound",
    "Figures",
    "FileOutcome",
    "Hit",
    "IndexInfo",
    "IngestReport",
    "LintItem",
    "ModelMismatch",
    "ModelUnavailable",
    "NoIndex",
    "ObjectStoreUnavailable",
    "ParserCrashed",
    "PassageChange",
    "PassageView",
    "PassphraseRequired",
    "PoolRecord",
    "Progress",
    "ProgressCallback",
    "ProgressMeter",
    "Proposal",
    "ProposedField",
    "ReadOnlyFolder",
    "RecallResult",
    "RecalledFact",
    "RelevanceRecord",
    "RetrievalParams",
    "RewriteRecord",
    "Routed",
    "SecretStoreUnavailable",
    "SentencesRecord",
    "Settings",
    "SourceView",
    "SpaceExists",
    "SpaceInfo",
    "SpaceNotFound",
    "Stage",
    "Step",
    "StorageFull",
    "StorageReadOnly",
    "StoreDamaged",
    "ThresholdRecord",
    "ToolResult",
    "Trace",
    "UnsupportedFormat",
    "WrongPassphrase",
    "build_demo",
    "collection_figure",
    "default_home",
    "distances_table",
    "has_cjk_font",
    "histogram_figure",
    "message_figure",
    "os_reason",
    "save_figure",
    "save_table",
    "script_name",
    "set_language",
    "star_map_figure",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'biny.core' has no attribute {name!r}")
    return getattr(importlib.import_module(f"biny.core.{module}"), name)
