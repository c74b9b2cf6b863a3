"""The index's tools (SPEC S5): count, filter, group, top/bottom and lookup, as parameterised SQL.

A ``ToolCall`` names fields; only names of the index's spec compile (the whitelist), and
every value travels as a parameter. Nothing here accepts SQL text from anyone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from biny.core.calls import Condition as Condition
from biny.core.calls import ToolCall as ToolCall
from biny.core.calls import ToolResult as ToolResult
from biny.core.calls import describe as describe
from biny.core.store.structured import QueryTable
from biny.core.structured.spec import IndexSpec
from biny.core.structured.values import number_of, split_items

TOOLS = ("count", "filter", "group", "top", "lookup")
_WHOLE = re.compile(r"^\s*([-+]?\d+)\.0+\s*$")
OPS = ("=", "<", "<=", ">", ">=", "between", "contains", "in")
# Rows a filter or top call returns at most: a bound on the answer's size, not tuned.
MAX_ROWS = 50
# Groups a group call returns beside its winner, most frequent first: a bound on the answer's list, not tuned.
_GROUPS_SHOWN = 20


class ToolError(ValueError):
    """A tool call that names an unknown field or operator, or has the wrong shape."""


def q(name: str) -> str:
    """A quoted identifier; names come from the spec only."""
    return '"' + name.replace('"', '""') + '"'


def num_col(name: str) -> str:
    return f"{name} #n"


def key_col(name: str) -> str:
    return f"{name} #key"


def items_col(name: str) -> str:
    return f"{name} #items"


def keys_col(name: str) -> str:
    return f"{name} #keys"


def build_table(spec: IndexSpec, rows: Sequence[tuple[str, int, str, dict[str, str]]]) -> QueryTable:
    """Typed columns from (doc_id, revision, document title, values) rows."""
    cols: dict[str, pa.Array] = {
        "doc_id": pa.array([r[0] for r in rows], pa.string()),
        "revision": pa.array([r[1] for r in rows], pa.int32()),
        "title": pa.array([values.get(spec.title_field) or title for _, _, title, values in rows], pa.string()),
    }
    for f in spec.fields:
        vals = [values.get(f.name) for _, _, _, values in rows]
        if f.type in {"year", "integer"}:  # "1989.0" as a spreadsheet wrote it is the year 1989 (issue 49)
            vals = [None if v is None else _WHOLE.sub(r"\1", v) for v in vals]
        cols[f.name] = pa.array(vals, pa.string())
        if f.numeric:
            cols[num_col(f.name)] = pa.array([None if v is None else number_of(v, f.type) for v in vals],
                                             pa.float64())
        if f.type == "list":
            items = [None if v is None else split_items(v, f.separator) for v in vals]
            cols[items_col(f.name)] = pa.array(items, pa.list_(pa.string()))
            cols[keys_col(f.name)] = pa.array(
                [None if i is None else [x.casefold() for x in i] for i in items], pa.list_(pa.string()))
        else:
            cols[key_col(f.name)] = pa.array([None if v is None else v.casefold().strip() for v in vals], pa.string())
    return QueryTable(cols)


def _where(spec: IndexSpec, conds: Sequence[Condition]) -> tuple[str, list[Any]]:
    parts: list[str] = []
    params: list[Any] = []
    for c in conds:
        f = spec.get(c.field)
        if f is None:
            raise ToolError(f"unknown field {c.field!r}; the index has: {', '.join(spec.names)}")
        if c.op not in OPS:
            raise ToolError(f"unknown operator {c.op!r}; allowed: {', '.join(OPS)}")
        if c.op in {"<", "<=", ">", ">=", "between"}:
            if not f.numeric:
                raise ToolError(f"{f.name!r} is {f.type}, not a number: it cannot be compared with {c.op}")
            if c.op == "between":
                low, high = (float(x) for x in c.value)
                parts.append(f"{q(num_col(f.name))} BETWEEN ? AND ?")
                params += [min(low, high), max(low, high)]
            else:
                parts.append(f"{q(num_col(f.name))} {c.op} ?")
                params.append(float(c.value))
        elif f.numeric and c.op == "=":
            parts.append(f"{q(num_col(f.name))} = ?")
            params.append(float(c.value))
        elif f.type == "list":
            values = [str(v).casefold() for v in (c.value if isinstance(c.value, list) else [c.value])]
            if c.op == "contains":
                parts.append(f"len(list_filter({q(keys_col(f.name))}, lambda x: contains(x, ?))) > 0")
                params.append(values[0])
            else:
                parts.append(f"list_has_any({q(keys_col(f.name))}, ?)")
                params.append(values)
        else:
            values = [str(v).casefold().strip() for v in (c.value if isinstance(c.value, list) else [c.value])]
            if c.op == "contains":
                parts.append(f"contains({q(key_col(f.name))}, ?)")
                params.append(values[0])
            else:
                parts.append(f"{q(key_col(f.name))} IN (SELECT unnest(?))")
                params.append(values)
    return (" WHERE " + " AND ".join(parts)) if parts else "", params


def _field(spec: IndexSpec, name: str | None, tool: str) -> Any:
    f = spec.get(name or "")
    if f is None:
        raise ToolError(f"{tool} needs a field of the index ({', '.join(spec.names)}); got {name!r}")
    return f


def _rows(table: QueryTable, spec: IndexSpec, doc_ids: list[str]) -> list[dict[str, Any]]:
    if not doc_ids:
        return []
    cols = ", ".join(q(n) for n in spec.names)
    found = table.query(f"SELECT doc_id, title, {cols} FROM idx WHERE doc_id IN (SELECT unnest(?))", [doc_ids])
    by_id = {r[0]: {"doc_id": r[0], "title": r[1], "fields": {
        n: v for n, v in zip(spec.names, r[2:], strict=True) if v is not None}} for r in found}
    return [by_id[d] for d in doc_ids if d in by_id]


def run(table: QueryTable, spec: IndexSpec, call: ToolCall) -> ToolResult:
    result = _run(table, spec, call)
    result.over = len(table)
    for name in dict.fromkeys(c.field for c in call.conditions):
        missing = int(table.query(f"SELECT count(*) FROM idx WHERE {q(name)} IS NULL")[0][0])
        if missing:
            result.lacking[name] = missing
    return result


def _run(table: QueryTable, spec: IndexSpec, call: ToolCall) -> ToolResult:
    if call.tool not in TOOLS:
        raise ToolError(f"unknown tool {call.tool!r}; the tools are {', '.join(TOOLS)}")
    where, params = _where(spec, call.conditions)
    order = "ASC" if call.order == "asc" else "DESC"
    if call.tool == "count":
        sql = f"SELECT count(*) FROM idx{where}"
        n = int(table.query(sql, params)[0][0])
        ids = [r[0] for r in table.query(f"SELECT doc_id FROM idx{where} ORDER BY title LIMIT {MAX_ROWS}", params)]
        return ToolResult(call, sql, params, n, _rows(table, spec, ids), n)
    if call.tool == "filter":
        sql = f"SELECT doc_id, title FROM idx{where} ORDER BY title, doc_id"
        found = table.query(sql, params)
        return ToolResult(call, sql, params, [r[1] for r in found[:MAX_ROWS]],
                          _rows(table, spec, [r[0] for r in found[:MAX_ROWS]]), len(found))
    if call.tool == "group":
        f = _field(spec, call.field, "group")
        if f.type == "list":
            inner = f"SELECT unnest({q(items_col(f.name))}) AS k FROM idx{where}"
        else:
            cond = f"{q(f.name)} IS NOT NULL"
            inner = f"SELECT {q(f.name)} AS k FROM idx" + (f"{where} AND {cond}" if where else f" WHERE {cond}")
        sql = f"SELECT k, count(*) AS n FROM ({inner}) GROUP BY k ORDER BY n {order}, k"
        groups = [(str(k), int(n)) for k, n in table.query(sql, params)]
        if not groups:
            return ToolResult(call, sql, params, None, [], 0)
        ties = [k for k, n in groups[1:] if n == groups[0][1]]
        return ToolResult(call, sql, params, groups[0][0], [], len(groups), groups[:_GROUPS_SHOWN], ties)
    if call.tool == "top":
        f = _field(spec, call.field, "top")
        if not f.numeric:
            raise ToolError(f"top needs a numeric field; {f.name!r} is {f.type}")
        cond = f"{q(num_col(f.name))} IS NOT NULL"
        sql = (f"SELECT doc_id, title, {q(num_col(f.name))} FROM idx"
               + (f"{where} AND {cond}" if where else f" WHERE {cond}")
               + f" ORDER BY {q(num_col(f.name))} {order}, title LIMIT 10")
        found = table.query(sql, params)
        if not found:
            return ToolResult(call, sql, params, None, [], 0)
        ties = [r[1] for r in found[1:] if r[2] == found[0][2]]
        return ToolResult(call, sql, params, found[0][1], _rows(table, spec, [r[0] for r in found]),
                          len(found), ties=ties)
    f = _field(spec, call.field, "lookup")
    sql = f"SELECT doc_id, title, {q(f.name)} FROM idx WHERE doc_id = ?"
    if not call.doc_id:
        raise ToolError("lookup needs the row (doc_id) the question names")
    found = table.query(sql, [call.doc_id])
    value = found[0][2] if found else None
    return ToolResult(call, sql, [call.doc_id], value, _rows(table, spec, [call.doc_id] if found else []),
                      len(found))
