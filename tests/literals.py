"""The texts a source folder marks for translation: the first argument of every call to one of the marker
functions (``t`` / ``N_`` / ``msg`` in core, ``tr`` / ``QT_TR_NOOP`` in the console), f-strings' insides included."""

from __future__ import annotations

import ast
from pathlib import Path


def marked_texts(folder: Path, markers: tuple[str, ...]) -> set[str]:
    found: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in markers \
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.add(node.args[0].value)
    return found
