"""The settings reference (``docs/settings.md``), generated from ``core/config.py`` itself.

Each setting is a dataclass field whose comment lines above it say what it does; this module reads
those comments from the source, so the reference cannot say something the code does not (a test
compares the committed page with a fresh rendering). Regenerate with
``python -m biny.core.settings_doc > docs/settings.md``.
"""

from __future__ import annotations

import ast
import inspect
import sys
import typing
from dataclasses import MISSING, fields, is_dataclass
from typing import Any

from biny.core import config

HEADER = """# Settings reference

Every setting lives in `config.toml` in the data folder (written with its defaults the first time the
folder is opened), under the section named here. Unknown keys are refused, so a typo is an error,
not a silent default. This page is generated from `core/config.py`
(`python -m biny.core.settings_doc > docs/settings.md`); a test fails when the two differ.
"""


def _comments(cls: type) -> dict[str, str]:
    """Per field of a dataclass, the comment lines written directly above it, joined."""
    lines = inspect.getsource(cls).splitlines()
    node = ast.parse("\n".join(lines)).body[0]
    assert isinstance(node, ast.ClassDef)
    out: dict[str, str] = {}
    prev: tuple[str, int] | None = None  # the field before, and its last line
    for stmt in node.body:
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        above: list[str] = []
        n = stmt.lineno - 2  # the line before the field, 0-based
        while n >= 0 and lines[n].strip().startswith("#"):
            above.insert(0, lines[n].strip().lstrip("#").strip())
            n -= 1
        # A comment at the end of the field's own line counts too.
        own = lines[stmt.lineno - 1]
        if "#" in own.split("=", 1)[-1]:
            above.append(own.split("#", 1)[1].strip())
        note = " ".join(above)
        if not note and prev is not None and prev[1] == stmt.lineno - 1:
            # A field written directly under another one without a comment of its own belongs to its comment
            # ("answer_timeout_s" / "answer_max_tokens").
            note = f"With `{prev[0]}` above: {out[prev[0]]}" if not out[prev[0]].startswith("With `") \
                else out[prev[0]]
        out[stmt.target.id] = note
        prev = (stmt.target.id, stmt.end_lineno or stmt.lineno)
    return out


def _default(f: Any) -> str:
    if f.default is not MISSING:
        value = f.default
    elif f.default_factory is not MISSING:
        value = f.default_factory()
    else:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def render() -> str:
    """The whole page as Markdown."""
    parts = [HEADER]
    hints = typing.get_type_hints(config.Settings)
    for section in fields(config.Settings):
        cls = hints[section.name]
        if not (isinstance(cls, type) and is_dataclass(cls)):
            continue  # schema_version: written by biny, not a setting
        notes = _comments(cls)
        parts.append(f"\n## [{section.name}]\n")
        doc = inspect.getdoc(cls)
        if doc and not doc.startswith(cls.__name__ + "("):
            parts.append(doc.strip() + "\n")
        parts.append("| key | default | what it does |\n|---|---|---|")
        for f in fields(cls):
            note = notes.get(f.name, "")
            spec = f.metadata.get("editable")
            if spec is not None:  # the console's row for it, from the same declaration (config.editable)
                when = "documents ingested afterwards" if spec.applies == config.RE_INGEST else "the next question"
                note += f" Console: “{spec.label}”, {spec.low:g}–{spec.high:g}; a change applies to {when}."
            note = note.replace("|", "\\|")
            parts.append(f"| `{f.name}` | `{_default(f)}` | {note} |")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
