"""One vocabulary across core and console (issue 56): every stage name, document kind, status and answer mode the
core can hand out is one the console names in words, and the console names nothing the core never says.

Fast: the tables are compared, nothing is ingested or asked. The core's side is its Literal types (core/trace's
StageName, core/document.py's SourceKind, core/views.py's ListedKind and DocumentStatus, core/results.py's
AnswerMode); a stage's name is checked when the stage is made as well.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import pytest

from biny.console.screens.inspector import ANSWER_MODES, STAGES
from biny.console.screens.library import KINDS, STATUSES
from biny.core.document import SOURCE_KINDS
from biny.core.results import AnswerMode
from biny.core.trace import STAGE_NAMES, Stage
from biny.core.views import DocumentStatus, ListedKind

ROOT = Path(__file__).resolve().parents[2]


def _flat(alias: object) -> set[str]:
    """The strings of a Literal, unions of Literals included."""
    out: set[str] = set()
    for arg in get_args(alias):
        out |= {arg} if isinstance(arg, str) else _flat(arg)
    return out


def test_the_inspector_names_every_stage_the_core_can_emit_and_no_other() -> None:
    assert set(STAGES) == set(STAGE_NAMES)


def test_every_stage_the_core_makes_is_in_the_vocabulary() -> None:
    """Read from the source: each ``Stage("name", …)`` and each stage-name default of core/ (so a new stage is caught
    here, before any question reaches it); a name outside the vocabulary is refused when the stage is made."""
    made: dict[str, str] = {}
    for path in (ROOT / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Stage" and node.args \
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                made[node.args[0].value] = f"{path.relative_to(ROOT)}:{node.lineno}"
            if isinstance(node, ast.FunctionDef) and node.name.endswith("_stage"):
                made.update({d.value: f"{path.relative_to(ROOT)}:{node.lineno}" for d in node.args.defaults
                             if isinstance(d, ast.Constant) and isinstance(d.value, str)})
    assert {"pool", "answer", "budget", "gate_sentences"} <= set(made)
    assert {name: where for name, where in made.items() if name not in STAGE_NAMES} == {}
    with pytest.raises(ValueError, match="unknown trace stage 'integrity'"):
        Stage("integrity", "a stage the engine no longer makes")


def test_the_library_names_every_kind_and_status_a_listed_document_can_have() -> None:
    assert set(KINDS) == _flat(ListedKind) == {*SOURCE_KINDS, "table"}
    assert set(STATUSES) == _flat(DocumentStatus)


def test_the_inspector_names_every_answer_mode() -> None:
    assert set(ANSWER_MODES) == _flat(AnswerMode)
