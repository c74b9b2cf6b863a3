"""Answers from the structured index (SPEC S5, S6): said from the rows, values verbatim.

No model writes these: the number is the count DuckDB returned, a value is the row's
stored value character for character, a title is the row's own title — so a title can
never be paired with another row's link. The text follows the question's language.
"""

from __future__ import annotations

import re

from biny.core.i18n import msg
from biny.core.results import Answer, Citation, Hit
from biny.core.structured import lexicon as lx
from biny.core.structured.route import Refusal
from biny.core.structured.tools import ToolResult, describe
from biny.core.text.question import Question
from biny.core.text.question import sentence_language as answer_language

# Values listed in a result's sentence before "…": a display bound, not tuned.
_SHOWN = 10
# Fields named when the index looked and found none: a display bound, not tuned.
_LOOKED_FIELDS = 6


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


# A lookup said in the question's language, by what the field is (lexicon concepts), else by the field's name.
_SAID: dict[str, dict[str, str]] = {
    "en": {"price": "{the}{row} costs {value}", "release": "{the}{row} came out in {value}",
           "year": "{the}{row} was published in {value}", "battery": "{the}{row}'s battery lasts {value}",
           "range": "{the}{row} has a range of {value}", "author": "{the}{row} was written by {value}",
           "": "The {field} of {the_}{row} is {value}"},
    "zh": {"price": "{row} 的价格是 {value}", "release": "{row} 于 {value} 年发布", "year": "{row} 出版于 {value} 年",
           "battery": "{row} 的电池续航为 {value}", "range": "{row} 的通信距离为 {value}",
           "author": "{row} 的作者是 {value}",
           "": "{row} 的{field}是 {value}"},
    "ja": {"price": "{row} の価格は {value} です", "release": "{row} は {value} 年に発売されました",
           "year": "{row} は {value} 年に出版されました", "battery": "{row} の電池は {value} 持ちます",
           "range": "{row} の通信距離は {value} です", "author": "{row} の著者は {value} です",
           "": "{row} の{field}は {value} です"},
    "de": {"price": "{row} kostet {value}", "release": "{row} ist {value} erschienen",
           "year": "{row} wurde {value} veröffentlicht", "battery": "Der Akku von {row} hält {value}",
           "range": "{row} hat eine Reichweite von {value}", "author": "{row} wurde von {value} geschrieben",
           "": "{field} von {row}: {value}"},
}
_UNIT = re.compile(r"\s*[(（]([^()（）]{1,20})[)）]\s*$")
def _concept(field: str) -> str:
    words = set(re.findall(r"[^\W\d_]+", _UNIT.sub("", field).casefold()))
    for concept in ("price", "release", "year", "battery", "range", "author"):
        if words & lx.CONCEPTS.get(concept, frozenset()) or field.casefold() in lx.CONCEPTS.get(concept, ()):
            return concept
    return ""


def lookup_text(r: ToolResult, lang: str, cite: str) -> str:
    """ "The Tallow Leak Puck costs $24.00 [1]." / "Tallow Leak Puck 的价格是 $24.00[1]。": the row's value verbatim."""
    call = r.call
    field = call.field or ""
    title = r.rows[0]["title"] if r.rows else call.matched
    unit = _UNIT.search(field)
    value = f"{r.result} {unit.group(1)}" if unit and str(r.result).strip().replace(".", "").isdigit() else r.result
    said = _SAID.get(lang, _SAID["en"])
    concept = _concept(field)
    if concept == "year" and not str(r.result).strip().isdigit():
        concept = ""
    product = lang == "en" and not title.casefold().startswith(("the ", "a ", "an "))
    text = said.get(concept, said[""]).format(
        row=title, value=value, field=_UNIT.sub("", field), the="The " if product and concept else "",
        the_="the " if product else "")
    text = text[0].upper() + text[1:]
    if lang in {"zh", "ja"}:
        return f"{text}{cite}。"
    return f"{text} {cite}." if cite else f"{text}."


def _others(lang: str, others: list[str]) -> str:
    if not others:
        return ""
    names = "、".join(others) if lang in {"zh", "ja"} else "; ".join(others)
    return {"zh": f"（相近的还有：{names}）", "ja": f"（近いもの：{names}）",
            "de": f" (Ähnlich benannt: {names}.)"}.get(lang, f" (Also named alike: {names}.)")


def structured_answer(question: Question, result: ToolResult, hits: list[Hit] | None = None,
                      others: list[str] | None = None) -> Answer:
    lang = question.reply_language
    note = msg("answered by the structured index ({tool}); no model was asked").format(tool=result.call.tool)
    if result.call.tool == "lookup" and result.result is not None and result.rows:
        said = answer_language(question.text)
        # The row is the cited source: its passage is the context's first (issue 64).
        row = next((h for h in hits or [] if h.doc_id == result.rows[0]["doc_id"]), None)
        cite = "[1]" if row is not None else ""
        text = lookup_text(result, said, cite) + _others(said, list(others or []))
        citations = [Citation(1, row.chunk_id, row.document, row.page, (row.char_start, row.char_end),
                              [ln for ln in row.text.splitlines() if str(result.result) in ln][:1])] if row else []
        return Answer(text, "structured", citations, [], said, note=note, note_kind="structured")
    if result.call.tool == "lookup" and result.result is None:
        # The row is there and the field is one the index keeps, but this row's cell is empty: that is "not in
        # your material", said in the question's language, never an answer (issue 64).
        said = answer_language(question.text)
        title = result.rows[0]["title"] if result.rows else result.call.matched
        empty = _EMPTY_CELL[said if said in _EMPTY_CELL else "en"]
        text = empty.format(row=title, field=_UNIT.sub("", result.call.field or ""))
        return Answer(text, "none", [], [], said, note=msg("the row's cell is empty; no model was asked"),
                      note_kind="structured")
    return Answer(_text(result, lang == "zh"), "structured", [], [], lang, note=note, note_kind="structured")


_EMPTY_CELL = {
    "en": "That is not in your material: the table has the column {field}, but its cell for {row} is empty.",
    "zh": "你的资料里没有这个：表中有 {field} 这一列，但 {row} 的这一格是空的。",
    "ja": "お手元の資料にはありません。表には {field} の列がありますが、{row} の欄は空です。",
    "de": "Das steht nicht in Ihrem Material: Die Tabelle hat die Spalte {field}, aber für {row} ist sie leer.",
}


_WHICH = {"en": "Which one do you mean: {names}? Ask again with its name.",
          "zh": "你指的是哪一个：{names}？请写出它的名称再问一次。",
          "ja": "どれのことですか：{names}？名前を書いてもう一度お尋ねください。",
          "de": "Welches meinen Sie: {names}? Fragen Sie bitte mit seinem Namen noch einmal."}
_OR = {"en": " or ", "zh": " 还是 ", "ja": "、", "de": " oder "}
_ROW_ABSENT = {
    "en": "That is not in your material: no row of the table is named “{asked}”{near}.",
    "zh": "你的资料里没有这个：表中没有名为“{asked}”的条目{near}。",
    "ja": "お手元の資料にはありません。表に「{asked}」という行はありません{near}。",
    "de": "Das steht nicht in Ihrem Material: Keine Zeile der Tabelle heißt „{asked}“{near}.",
}
_ROW_NEAR = {"en": " (the closest is {closest})", "zh": "（最接近的是 {closest}）", "ja": "（最も近いのは {closest}）",
             "de": " (am nächsten kommt {closest})"}
_FIELD_ABSENT = {
    "en": "That is not in your material: the table gives no {asked} for {row}{near}.",
    "zh": "你的资料里没有这个：表中没有 {row} 的{asked}{near}。",
    "ja": "お手元の資料にはありません。表に {row} の{asked}はありません{near}。",
    "de": "Das steht nicht in Ihrem Material: Die Tabelle nennt für {row} kein(e) {asked}{near}.",
}
_FIELD_NEAR = {"en": " (the closest field is {closest}; it holds: {fields})",
               "zh": "（最接近的字段是 {closest}；表中有：{fields}）",
               "ja": "（最も近い項目は {closest}。表にあるのは：{fields}）",
               "de": " (am nächsten kommt das Feld {closest}; die Tabelle hat: {fields})"}
_FIELDS = {"en": " (it holds: {fields})", "zh": "（表中有：{fields}）", "ja": "（表にあるのは：{fields}）",
           "de": " (die Tabelle hat: {fields})"}


def refused_answer(question: str, refusal: Refusal, fields: list[str]) -> Answer:
    """ "Not in your material", naming the closest row or field — never another row's value (issue 64)."""
    lang = answer_language(question)
    if refusal.kind == "which":
        names = refusal.closest.split(" / ")
        text = _WHICH[lang].format(names=_OR[lang].join(names))
        return Answer(text, "none", [], [], lang, note=msg("several rows are named alike; no model was asked"),
                      note_kind="structured")
    if refusal.kind == "row":
        near = _ROW_NEAR[lang].format(closest=refusal.closest) if refusal.closest else ""
        text = _ROW_ABSENT[lang].format(asked=refusal.asked, near=near)
    else:
        sep = "、" if lang in {"zh", "ja"} else ", "
        near = (_FIELD_NEAR[lang].format(closest=refusal.closest, fields=sep.join(fields)) if refusal.closest
                else _FIELDS[lang].format(fields=sep.join(fields)))
        # The attribute by its name in the question's language ("weight", not the question's "weigh"; 价格, not
        # 多少钱), else the question's own words.
        asked = lx.said_as(refusal.concept, lang) if refusal.concept else refusal.asked
        text = _FIELD_ABSENT[lang].format(asked=asked, row=refusal.row, near=near)
    note = msg("the structured index holds no such {kind}; no model was asked").format(
        kind=msg("row") if refusal.kind == "row" else msg("field"))
    return Answer(text, "none", [], [], lang, note=note, note_kind="structured")


_LOOKED = {"en": " The index looked for “{words}” among the values of {fields}: none matched.",
           "zh": "索引在 {fields} 的值中查找了“{words}”，没有匹配。",
           "ja": "索引は {fields} の値から「{words}」を探しましたが、一致するものはありませんでした。",
           "de": " Der Index suchte „{words}“ unter den Werten von {fields}: keiner passte."}


def looked_for(question: str, words: str, fields: list[str]) -> str:
    """What the index looked for when it could not answer (issue 63), in the question's language."""
    lang = answer_language(question)
    sep = "、" if lang in {"zh", "ja"} else ", "
    return _LOOKED[lang].format(words=words, fields=sep.join(fields[:_LOOKED_FIELDS]))
