"""Size limits of the code (issue 56): no function over 60 lines, no class over 25 methods, in core/ and console/;
no tuned number inline in retrieval and answering, and a reason beside every named one.

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
FUNCTION_DEBT: dict[tuple[str, str], int] = {}
CLASS_DEBT: dict[tuple[str, str], int] = {}


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


# Retrieval and answering decide what a user is told: every number there that could have been otherwise is a named
# constant (or a setting) with its reason beside it, never a literal in a function (issue 56).
TUNED_FOLDERS = ("core/retrieve", "core/answer", "core/structured")
# Not tuned: identities, halves, percent and milliseconds.
PLAIN_NUMBERS = {0, 1, -1, 2, 0.5, 100, 1000}


def _literals_in_functions(tree: ast.Module) -> list[tuple[int, float]]:
    digits = {id(n.args[1]) for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id == "round" and len(n.args) == 2}  # round(x, 3): a display precision
    found = set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            for n in ast.walk(fn):
                if isinstance(n, ast.Constant) and type(n.value) in (int, float) and n.value not in PLAIN_NUMBERS \
                        and id(n) not in digits and not 0 < abs(n.value) < 1e-5:  # an epsilon against 0/0
                    found.add((n.lineno, n.value))
    return sorted(found)


def _uncommented_constants(tree: ast.Module, lines: list[str]) -> list[int]:
    """Module-level numeric constants with no comment on their line or above their block of assignments."""
    bare = []
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else \
            node.target if isinstance(node, ast.AnnAssign) and node.value is not None else None
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if not (isinstance(target, ast.Name) and target.id.lstrip("_").isupper() and isinstance(value, ast.Constant)
                and type(value.value) in (int, float)):
            continue
        at = node.lineno - 2  # the line above, then up through a block of assignments
        while at >= 0 and " = " in lines[at] and not lines[at].lstrip().startswith("#") and "#" not in lines[at]:
            at -= 1
        above = lines[at] if at >= 0 else ""
        if "#" not in lines[node.end_lineno - 1] and "#" not in above:
            bare.append(node.lineno)
    return bare


def test_no_tuned_number_inline_and_each_named_one_has_its_reason() -> None:
    inline: dict[str, list[tuple[int, float]]] = {}
    bare: dict[str, list[int]] = {}
    for folder in TUNED_FOLDERS:
        for path in sorted((ROOT / folder).glob("**/*.py")):
            rel = path.relative_to(ROOT).as_posix()
            text = path.read_text("utf-8")
            tree = ast.parse(text)
            if found := _literals_in_functions(tree):
                inline[rel] = found
            if missing := _uncommented_constants(tree, text.splitlines()):
                bare[rel] = missing
    assert not inline, f"numbers inline (name them at module level, with their reason): {inline}"
    assert not bare, f"named numbers with no reason beside them (line numbers): {bare}"


def test_the_constant_check_can_fail() -> None:
    tree = ast.parse("X = 3\n\ndef f(a):\n    return a > 0.37\n")
    assert _literals_in_functions(tree) == [(4, 0.37)]
    assert _uncommented_constants(tree, ["X = 3", "", "def f(a):", "    return a > 0.37"]) == [1]
    commented = ["# why", "X = 3", "Y = 4"]
    assert _uncommented_constants(ast.parse("\n".join(commented)), commented) == []
