"""Size limits of the code (issue 56): no function over 60 lines, no class over 25 methods, in core/ and console/.

A fast test (the source is parsed, nothing imported). The functions and classes over a limit when it was set are
listed below with their size then: each may shrink, none may grow, and no new one may join them. Splitting one
along its responsibilities removes it from the list.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_FUNCTION_LINES = 60
MAX_METHODS = 25
# (file, name) → its size when the limit was set; to be split, never to grow.
FUNCTION_DEBT = {
    ("console/screens/inspector.py", "show_result"): 106,
}
CLASS_DEBT = {
    ("console/screens/analysis.py", "AnalysisScreen"): 33,
    ("console/screens/inspector.py", "InspectorScreen"): 26,
    ("console/screens/library.py", "LibraryScreen"): 36,
    ("core/structured/route.py", "Router"): 42,
}


def _sizes() -> tuple[dict[tuple[str, str], int], dict[tuple[str, str], int]]:
    functions: dict[tuple[str, str], int] = {}
    classes: dict[tuple[str, str], int] = {}
    for path in sorted([*ROOT.glob("core/**/*.py"), *ROOT.glob("console/**/*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    functions[(rel, node.name)] = max(lines, functions.get((rel, node.name), 0))
            elif isinstance(node, ast.ClassDef):
                methods = sum(isinstance(b, ast.FunctionDef | ast.AsyncFunctionDef) for b in node.body)
                if methods > MAX_METHODS:
                    classes[(rel, node.name)] = methods
    return functions, classes


def test_no_function_grows_over_sixty_lines() -> None:
    functions, _ = _sizes()
    over = {k: n for k, n in functions.items() if n > FUNCTION_DEBT.get(k, MAX_FUNCTION_LINES)}
    assert not over, f"functions over {MAX_FUNCTION_LINES} lines (split them into named steps): {over}"


def test_no_class_grows_over_twenty_five_methods() -> None:
    _, classes = _sizes()
    over = {k: n for k, n in classes.items() if n > CLASS_DEBT.get(k, MAX_METHODS)}
    assert not over, f"classes over {MAX_METHODS} methods (split them along their responsibilities): {over}"


def test_the_debt_lists_name_only_what_is_still_over() -> None:
    """A function or class split below the limit leaves the list, so the list always says what is left."""
    functions, classes = _sizes()
    assert set(FUNCTION_DEBT) <= set(functions), set(FUNCTION_DEBT) - set(functions)
    assert set(CLASS_DEBT) <= set(classes), set(CLASS_DEBT) - set(classes)
