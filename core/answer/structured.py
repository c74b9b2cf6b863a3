"""Answers from the structured index (SPEC S5, S6): said from the rows, values verbatim.

No model writes these: the number is the count DuckDB returned, a value is the row's
stored value character for character, a title is the row's own title — so a title can
never be paired with another row's link. The text follows the question's language.
"""

from __future__ import annotations

from biny.core.i18n import t
from biny.core.results import Answer
from biny.core.structured.tools import ToolResult, describe
from biny.core.text.question import Question

_SHOWN = 10


def _scope(r: ToolResult, zh: bool) -> str:
    """What a count or list was computed over (issue 48): the index's documents, those whose filtered field is
    empty (they cannot match), and the space's documents with no header (no row at all)."""
    parts = []
    for name, n in r.lacking.items():
        parts.append(f"{n} 份没有{name}，未计入" if zh else f"{n} give no {name} and were not counted")
    outside = r.documents - r.over
    if outside > 0:
        parts.append(f"另有 {outside} 份文档没有可读的字段头，不在索引中" if zh
                     else f"{outside} more documents have no header the index reads and were not counted")
    return ("（" + "；".join(parts) + "）" if zh else " (" + "; ".join(parts) + ")") if parts else ""


def _text(r: ToolResult, zh: bool) -> str:
    call = r.call
    where = describe(call.conditions, zh)
    if call.tool == "count":
        if zh:
            return (f"索引的 {r.over} 份文档中，" + (f"{r.result} 份符合（{where}）" if where else f"共 {r.result} 份")
                    + _scope(r, zh) + "。")
        return (f"{r.result} of the {r.over} documents in the index " + (f"match {where}" if where else "in total")
                + _scope(r, zh) + ".")
    if call.tool == "filter":
        shown = "; ".join(r.result[:_SHOWN]) + ("…" if r.total > _SHOWN else "")
        if zh:
            return f"索引的 {r.over} 份文档中，符合（{where}）的共 {r.total} 份{_scope(r, zh)}" + (
                f"：{shown}" if shown else "") + "。"
        return f"{r.total} of the {r.over} documents match ({where}){_scope(r, zh)}" + (
            f": {shown}" if shown else "") + "."
    if call.tool == "group":
        if r.result is None:
            return "没有可分组的值。" if zh else f"No values of {call.field} to group."
        n = r.groups[0][1]
        ties = f"（并列：{'、'.join(r.ties)}）" if zh and r.ties else (f" (tied with {', '.join(r.ties)})" if r.ties
                                                                         else "")
        most = call.order != "asc"
        if zh:
            return f"{r.result}{'最多' if most else '最少'}，共 {n} 条{ties}。"
        return f"{r.result} — {n} rows, the {'most' if most else 'fewest'} of any {call.field}{ties}."
    if call.tool == "top":
        if r.result is None:
            return "没有可比较的值。" if zh else f"No values of {call.field} to compare."
        value = r.rows[0]["fields"].get(call.field, "") if r.rows else ""
        high = call.order != "asc"
        if zh:
            return f"{r.result}（{call.field}：{value}），{'最高' if high else '最低'}。"
        return f"{r.result} — {call.field} {value}, the {'highest' if high else 'lowest'}."
    title = r.rows[0]["title"] if r.rows else call.matched
    if r.result is None:
        return f"资料中没有给出{title}的{call.field}。" if zh else f"Your material gives no {call.field} for {title}."
    return f"{title}的{call.field}是 {r.result}。" if zh else f"The {call.field} of {title} is {r.result}."


def structured_answer(question: Question, result: ToolResult) -> Answer:
    lang = question.reply_language
    note = t("answered by the structured index ({tool}); no model was asked").format(tool=result.call.tool)
    return Answer(_text(result, lang == "zh"), "structured", [], [], lang, note=note, note_kind="structured")
