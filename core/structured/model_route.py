"""A model maps a question the rules could not route to one tool call — as JSON, validated (S5).

The model never writes SQL. It sees the index's field names, types and a few examples of
non-exact fields (exact values are never shown to it, S6), and answers with a JSON tool
call; every field must be one of the index's, every operator one of the tools', a lookup's
item must be a row the title index knows. Anything else is rejected with the reason, and
the question goes to retrieval as if no model were configured.
"""

from __future__ import annotations

import json
import re
from typing import Any

from biny.core.i18n import msg
from biny.core.llm.base import ChatModel, LLMError, Message
from biny.core.structured.route import Routed, Router
from biny.core.structured.spec import IndexSpec
from biny.core.structured.tools import OPS, TOOLS, Condition, ToolCall
from biny.core.structured.vocabulary import key

# The model maps one question to one short JSON call: seconds waited for it before the question goes to retrieval,
# and tokens its reply may take (a call with a few conditions). Bounds, no measurement is recorded.
TIMEOUT_S = 5.0
MAX_TOKENS = 300
# Example values shown per non-exact field (the "few examples" above): a bound on the prompt, not tuned.
_EXAMPLES = 3
_JSON = re.compile(r"\{.*\}", re.S)
_NUMERIC_OPS = {"<", "<=", ">", ">=", "between"}

SYSTEM = (
    "You map a question about a table to ONE tool call, or to none.\n"
    "Tools: count (how many rows match), filter (list the rows that match), group (the most or least "
    "frequent value of a field), top (the row with the highest or lowest value of a numeric field), "
    "lookup (one field of the row named by its title).\n"
    "Operators: =, <, <=, >, >=, between (value [low, high]), contains, in (value: list).\n"
    "Reply with JSON only, no prose: {\"tool\": ..., \"field\": ..., \"order\": \"asc\"|\"desc\", "
    "\"item\": the title as written in the question (lookup only), \"conditions\": [{\"field\": ..., "
    "\"op\": ..., \"value\": ...}]}. Use only the fields listed. If the question is not answered by "
    "counting, listing, grouping, ranking or looking up a field, reply {\"tool\": null}."
)


def _schema(spec: IndexSpec, examples: dict[str, list[str]]) -> str:
    lines = []
    for f in spec.fields:
        shown = "" if f.exact else "; e.g. " + ", ".join(json.dumps(e, ensure_ascii=False) for e in examples.get(
            f.name, [])[:_EXAMPLES])
        lines.append(f"- {json.dumps(f.name, ensure_ascii=False)} ({f.type}{', exact' if f.exact else ''}){shown}")
    return "Fields of the table (title field: " + json.dumps(spec.title_field, ensure_ascii=False) + "):\n" + \
        "\n".join(lines)


def _validate(data: Any, spec: IndexSpec, router: Router) -> tuple[ToolCall | None, str]:
    """The call, or None and why it was rejected."""
    if not isinstance(data, dict):
        return None, "the reply is not a JSON object"
    tool = data.get("tool")
    if tool is None:
        return None, "the model says no tool answers this"
    if tool not in TOOLS:
        return None, f"unknown tool {tool!r}"
    names = set(spec.names)
    fld = data.get("field")
    if tool in {"group", "top", "lookup"} and fld not in names:
        return None, f"unknown field {fld!r}"
    top = spec.get(fld) if tool == "top" and isinstance(fld, str) else None
    if tool == "top" and (top is None or not top.numeric):
        return None, f"top needs a numeric field; {fld!r} is not"
    conds = []
    for c in data.get("conditions") or []:
        if not isinstance(c, dict) or c.get("field") not in names:
            return None, f"unknown field in a condition: {c.get('field') if isinstance(c, dict) else c!r}"
        if c.get("op") not in OPS:
            return None, f"unknown operator {c.get('op')!r}"
        value = c.get("value")
        if c["op"] in _NUMERIC_OPS:
            if not spec.get(c["field"]).numeric:  # type: ignore[union-attr]
                return None, f"{c['field']!r} is not numeric; {c['op']} does not apply"
            ok = (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int | float) for v in value)
                  if c["op"] == "between" else isinstance(value, int | float))
            if not ok:
                return None, f"bad value {value!r} for {c['op']}"
        elif not isinstance(value, str | int | float | list):
            return None, f"bad value {value!r}"
        conds.append(Condition(c["field"], c["op"], value))
    order = "asc" if data.get("order") == "asc" else "desc"
    if tool == "lookup":
        item = data.get("item")
        ids = router.vocabulary.titles.get(key(str(item))) if isinstance(item, str) else None
        if not ids:
            return None, f"no row is titled {item!r}"
        return ToolCall("lookup", fld, doc_id=ids[0], matched=str(item)), ""
    return ToolCall(tool, fld if tool in {"group", "top"} else None, conds, order), ""


def model_route(model: ChatModel, spec: IndexSpec, router: Router, question: str,
                examples: dict[str, list[str]]) -> Routed:
    messages = [Message("system", SYSTEM), Message("user", f"{_schema(spec, examples)}\n\nQuestion: {question}")]
    try:
        reply = model.complete(messages, max_tokens=MAX_TOKENS, timeout_s=TIMEOUT_S)
    except LLMError as exc:
        return Routed(None, [f"model not used ({exc.kind}): {exc}"])
    m = _JSON.search(reply or "")
    try:
        data = json.loads(m.group(0)) if m else None
    except json.JSONDecodeError:
        data = None
    call, why = _validate(data, spec, router)
    if call is None:
        return Routed(None, [f"model reply rejected: {why}"])
    return Routed(call, [msg("mapped by {name} to {value}; validated against the index's fields and operators")
                          .format(name=model.name, value=json.dumps(call.to_dict(), ensure_ascii=False))])
