"""biny.core's public API: the facade and every type the console and CLI use (STYLE: httpx's exported members)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import biny.core

ROOT = Path(__file__).resolve().parents[1]

PUBLIC = {
    "EDITABLE_SETTINGS",
    "Answer", "AskResult", "Baselines", "BinyError", "Citation", "CancelToken", "Cancelled", "ConfigError",
    "CorruptDocument", "DataFolderInUse", "DataTampered", "Distribution", "DocumentError",
    "DocumentTooLarge", "Dropped", "DroppedFact", "EmptyDocument", "EncryptedDocument", "Engine", "Fact",
    "FactNotFound", "FileOutcome", "Hit", "IngestReport", "ModelMismatch", "ModelUnavailable", "ParserCrashed",
    "PassphraseRequired", "Progress", "ProgressCallback", "RecallResult", "RecalledFact", "RetrievalParams",
    "SecretStoreUnavailable", "Settings", "SpaceExists", "SpaceInfo", "SpaceNotFound", "Stage", "Step",
    "StorageFull", "StorageReadOnly", "StoreDamaged", "Trace", "UnsupportedFormat", "WrongPassphrase", "default_home",
    # The structured index (S1–S7).
    "IndexInfo", "LintItem", "NoIndex", "Proposal", "ProposedField", "Routed", "ToolResult",
    # Team spaces, the interface language and the demo space (issue 21).
    "ReadOnlyFolder", "ObjectStoreUnavailable", "set_language", "build_demo", "script_name",
    # The retrieval stages' typed records the Inspector reads (issue 47).
    "PoolRecord", "RelevanceRecord", "RewriteRecord", "SentencesRecord", "ThresholdRecord",
    # An ingest's figures, the same on the command line and in the console (issue 58).
    "Figures", "ProgressMeter",
    # Analysts' figures (SPEC C3).
    "collection_figure", "histogram_figure", "message_figure", "save_figure", "star_map_figure", "has_cjk_font",
    # The figures behind them, as CSV (issue 60).
    "distances_table", "save_table",
    # A citation at its place and a curator's corrections (issue 61).
    "SourceView", "PassageChange",
    # Stored documents and passages as views, not the storage rows (issue 56).
    "DocumentView", "PassageView",
    # The operating system's common reasons in the interface's language (issue 60).
    "os_reason",
}


def test_the_exported_names_are_pinned_and_each_resolves() -> None:
    assert set(biny.core.__all__) == PUBLIC
    assert set(biny.core._EXPORTS) == PUBLIC  # the lazy table and __all__ agree
    for name in PUBLIC:
        obj = getattr(biny.core, name)
        if isinstance(obj, type) or (callable(obj) and hasattr(obj, "__module__") and name != "ProgressCallback"):
            assert obj.__name__ == name  # the real thing, not a stand-in of another name


def test_the_console_imports_only_the_public_api_from_core() -> None:
    """The console talks to the facade and the public result types, never to stores or stages."""
    offenders = []
    for path in (ROOT / "console").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("biny.core"):
                if node.module != "biny.core":
                    offenders.append(f"{path.relative_to(ROOT)}: from {node.module} import …")
                else:
                    offenders += [f"{path.relative_to(ROOT)}: {a.name}" for a in node.names if a.name not in PUBLIC]
    assert offenders == []


def test_unknown_names_fail_clearly() -> None:
    with pytest.raises(AttributeError, match="NoSuchThing"):
        importlib.import_module("biny.core").__getattr__("NoSuchThing")


def test_screens_are_built_by_small_constructors() -> None:
    """Issue 47: no console constructor runs over 60 lines — a screen's parts are built by named methods, its work
    done by its model or helpers, so a change to one part does not mean reading all of them."""
    import ast

    long = []
    for path in sorted((ROOT / "console").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name == "__init__":
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > 60:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} ({lines} lines)")
    assert long == []


def _store_types() -> set[str]:
    """The classes the storage layer defines (core/store/): rows, records, stores."""
    return {node.name for path in (ROOT / "core" / "store").rglob("*.py")
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.ClassDef)}


def test_no_storage_row_reaches_the_public_api_or_the_console() -> None:
    """Issue 56: the facade hands out views (core/views.py), never a store's rows — they carry sealed fields, blinded
    keys and bookkeeping — and the console neither imports nor builds one (it once built a fake DocumentRow for a
    table)."""
    from dataclasses import fields

    store = _store_types()
    assert {"DocumentRow", "ChunkRecord", "SpaceRow"} <= store
    leaked = [name for name in PUBLIC if name in store
              or str(getattr(getattr(biny.core, name), "__module__", "")).startswith("biny.core.store")]
    assert leaked == []
    offenders = []
    for path in (ROOT / "console").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        if "biny.core.store" in source:
            offenders.append(f"{where}: names biny.core.store")
        for node in ast.walk(ast.parse(source)):
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if name in store:
                offenders.append(f"{where}:{node.lineno}: {name}")
    assert offenders == []
    stored_only = {"meta_ct", "ct", "ids", "terms", "aspects", "sentence_vectors", "keys_version", "chunk_digest",
                   "content_hash", "space_id"}
    for view in (biny.core.DocumentView, biny.core.PassageView):
        assert not stored_only & {f.name for f in fields(view)}, view.__name__
