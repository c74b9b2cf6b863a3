"""The extractive answer over a table's row passages (issue 64): the asked field of the named row, or nothing.

A row passage is a table row ingested as a document: one "Field: value" line per field ("Product Name: Tallow Leak
Puck", "Price: $24.00", "Product Url: https://…"). Scored as sentences, the line that shares the most words with
the question wins — and the words a question shares with every row are the field names, so "What is the price of
the Leak Puck?" was answered by another row's "Product Url:" line. Here, before sentences are scored:

* the row the question names is found among the row passages (structured/naming.py: its distinctive words,
  misspellings, shortenings), and the field it asks for by the field's name or what people call it (the
  per-language synonym files); the answer is that one line, cited to its row;
* a row the question does not name is no answer: its lines leave the context (another row's value is a wrong
  answer, not a lesser one), and when only rows were found the answer says the material does not hold it;
* a link line is never an answer unless a link was asked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from biny.core.structured import lexicon as lx
from biny.core.structured.naming import NameMatcher, fold
from biny.core.text.question import sentence_language as answer_language

_LINE = re.compile(r"^\s*([^:：\n]{1,80}?)\s*[:：]\s?(.*)$")
_URL = re.compile(r"^(?:https?://|www\.)\S+$", re.I)
_UNIT = re.compile(r"\s*[(（][^()（）]*[)）]\s*$")
_WORD = re.compile(r"[^\W\d_]+")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")
_LINK_WORDS = lx.CONCEPTS.get("url", frozenset())
# A passage reads as a table's row only with at least 3 distinct "Field: value" lines, so that prose with a
# "Note: …" line or two is never read as one (set by hand, not fitted).
_MIN_LINES = 3
# Rows named in a "which one?" reply before "…": a display bound.
_NAMED_ROWS = 3
# A field named in the question by its whole name (or the name without its unit) outranks any partial surface,
# whatever their lengths: an order, not a weight.
_WHOLE_NAME = 100


@dataclass(slots=True)
class Row:
    passage: int  # 0-based in the context
    lines: list[tuple[str, str, str]]  # (field, value, the line as written)
    name: str


@dataclass(slots=True)
class Pick:
    """``lines``: the answer — (1-based passage, line) — or [] when only rows were found and none is asked about;
    None when the ordinary sentence scoring goes on over ``passages`` (row passages narrowed)."""

    lines: list[tuple[int, str]] | None
    passages: list[str]


def row_of(passage: int, text: str) -> Row | None:
    """A passage made only of "Field: value" lines (three or more), with the field naming its row."""
    found: list[tuple[str, str, str]] = []
    lines = [ln for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        m = _LINE.match(ln)
        if m is None:
            return None
        found.append((m.group(1).strip(), m.group(2).strip(), ln.strip()))
    if len(found) < _MIN_LINES or len({f for f, _, _ in found}) < len(found):
        return None
    titles = {t.casefold() for t in lx.TITLE_NAMES}
    name = next((v for f, v, _ in found if f.casefold() in titles), "")
    if not name:  # the first field that reads as words, not a number, code or link
        name = next((v for f, v, _ in found if _WORD.search(v) and not _URL.match(v) and len(v) > 2), "")
    return Row(passage, found, name)


def _surfaces(field: str) -> set[str]:
    """How a question may name a field: its name, its words (not a bracketed unit), the words of its concept."""
    words = {w.casefold() for w in _WORD.findall(_UNIT.sub("", field))} - lx.WEAK_WORDS - lx.COUNT_WORDS
    out = {fold(field), fold(_UNIT.sub("", field))} | {w for w in words if len(w) > 1}
    for group in lx.SYNONYM_GROUPS:
        if fold(field) in group or fold(_UNIT.sub("", field)) in group or words & group:
            out |= group
    return {s for s in out if s}


def _found(question: str, surface: str) -> tuple[int, int] | None:
    if _HAN.search(surface) or _KANA.search(surface):
        at = question.find(surface)
    else:
        m = re.search(rf"(?<![^\W_]){re.escape(surface)}(?![^\W_])", question)
        at = m.start() if m else -1
    return (at, at + len(surface)) if at >= 0 else None


def asked_fields(question: str, fields: list[str]) -> tuple[list[str], list[tuple[int, int]]]:
    """The fields the question names, best first (the longest words naming them), and where it names them."""
    qf = fold(question)
    if len(qf) != len(question):
        qf = question.casefold()
    hits: list[tuple[int, int, str]] = []
    spans: list[tuple[int, int]] = []
    for f in fields:
        best = 0
        for s in _surfaces(f):
            where = _found(qf, s)
            if where is not None:
                spans.append(where)
                best = max(best, len(s) + (_WHOLE_NAME if s == fold(f) or s == fold(_UNIT.sub("", f)) else 0))
        if best:
            hits.append((best, -fields.index(f), f))
    if not hits and lx.WHEN_QUESTION.search(qf):  # "When did the Glass Break come out?": the row's year
        dated = [f for f in fields if re.search(r"year|date|released|published|年|日期|jahr|datum", f, re.I)]
        hits = [(1, 0, dated[0])] if len(dated) == 1 else []
    return [f for _, _, f in sorted(hits, reverse=True)], spans


def lacking(question: str, fields: list[str]) -> str:
    """The question's word for an attribute none of the rows' fields is ("weight", 颜色), or ""."""
    held = set().union(*(_surfaces(f) for f in fields)) if fields else set()
    qf = fold(question)
    for words in lx.CONCEPTS.values():
        if words & held:
            continue
        for w in sorted(words, key=len, reverse=True):
            if _found(qf, w) is not None:
                return w
    return ""


def pick(question: str, passages: list[str]) -> Pick:
    rows = [r for i, text in enumerate(passages) if (r := row_of(i, text)) is not None and r.name]
    if not rows:
        return Pick(None, passages)
    fields = list(dict.fromkeys(f for r in rows for f, _, _ in r.lines))
    asked, spans = asked_fields(question, fields)
    link_asked = any(_found(fold(question), w) for w in _LINK_WORDS)
    reading = NameMatcher([r.name for r in rows], lx.STOPWORDS, context=True).read(question, spans)
    named = rows[reading.named.row] if reading.named is not None else None
    if named is not None:
        for f in asked:
            line = next((ln for fld, v, ln in named.lines if fld == f and v), None)
            if line is not None and (link_asked or not _URL.match(line.split(":", 1)[-1].strip())):
                return Pick([(named.passage + 1, line)], passages)
        if not asked and lacking(question, fields):
            return Pick([], passages)  # "the weight of the Leak Puck" where no row gives a weight: said so
    narrowed = list(passages)
    for r in rows:
        if named is not None and r is not named:
            narrowed[r.passage] = ""  # another row's values answer another question
        elif named is None:
            narrowed[r.passage] = ""  # the question names no row found: none of their values is its answer
        elif not link_asked:
            narrowed[r.passage] = "\n".join(ln for _, v, ln in r.lines if not _URL.match(v))
    if not any(p.strip() for p in narrowed):
        return Pick([], passages)
    return Pick(None, narrowed)


_NONE_OF = {
    "en": "That is not in your material: the rows found ({names}) are not the one asked about{near}.",
    "zh": "你的资料里没有这个：找到的条目（{names}）都不是所问的那一个{near}。",
    "ja": "お手元の資料にはありません。見つかった行（{names}）は質問の対象ではありません{near}。",
    "de": "Das steht nicht in Ihrem Material: Die gefundenen Zeilen ({names}) sind nicht die gefragte{near}.",
}
# The question comes near no row's name ("What comes in the box?" over a product table): the rows were only the
# nearest passages, and "not the one asked about" would say it asked about a row (issue 55).
_NONE_NEAR = {
    "en": "That is not in your material: the nearest passages are rows of a table ({names}), and none of them "
          "answers it.",
    "zh": "你的资料里没有这个：最接近的是表中的条目（{names}），都不能回答这个问题。",
    "ja": "お手元の資料にはありません。最も近いのは表の行（{names}）で、どれもこの質問には答えていません。",
    "de": "Das steht nicht in Ihrem Material: Am nächsten kamen Zeilen einer Tabelle ({names}); keine davon "
          "beantwortet die Frage.",
}
_LACKS = {
    "en": "That is not in your material: {row}'s row gives no {asked} (it gives: {fields}).",
    "zh": "你的资料里没有这个：{row} 的条目中没有{asked}（它有：{fields}）。",
    "ja": "お手元の資料にはありません。{row} の行に{asked}はありません（あるのは：{fields}）。",
    "de": "Das steht nicht in Ihrem Material: Die Zeile von {row} nennt kein(e) {asked} (sie nennt: {fields}).",
}
_ONLY_OTHERS = {
    "en": "That is not in your material: what was found is other rows of the table, and {row}'s own row says "
          "nothing of it.",
    "zh": "你的资料里没有这个：找到的是表中的其他条目，{row} 自己的条目里没有提到。",
    "ja": "お手元の資料にはありません。見つかったのは表の別の行で、{row} の行には書かれていません。",
    "de": "Das steht nicht in Ihrem Material: Gefunden wurden andere Zeilen der Tabelle; die Zeile von {row} sagt "
          "dazu nichts.",
}
_NEAR = {"en": " (the closest is {name})", "zh": "（最接近的是 {name}）", "ja": "（最も近いのは {name}）",
         "de": " (am nächsten kommt {name})"}


def only_others(question: str, row: str) -> str:
    """Said when the question names one row, asks what no field holds, and retrieval found only other rows."""
    return _ONLY_OTHERS[answer_language(question)].format(row=row)


def refusal_due(question: str, passages: list[str]) -> bool:
    """Were only rows found, none of them asked about?"""
    return pick(question, passages).lines == []


def refusal(question: str, passages: list[str]) -> str:
    """Said when only rows were found and the question names none of them — never a row's values (issue 63) — or
    names one and asks what no row gives."""
    rows = [r for i, text in enumerate(passages) if (r := row_of(i, text)) is not None and r.name]
    lang = answer_language(question)
    fields = list(dict.fromkeys(f for r in rows for f, _, _ in r.lines))
    asked = lacking(question, fields)
    reading = NameMatcher([r.name for r in rows], lx.STOPWORDS, context=True).read(
        question, asked_fields(question, fields)[1])
    if asked and reading.named is not None:
        concept = lx.concept_of(asked)  # "weigh" is the weight, 多少钱 the price: named so in the question's language
        return _LACKS[lang].format(asked=lx.said_as(concept, lang) if concept else asked,
                                   row=rows[reading.named.row].name,
                                   fields=("、" if lang in {"zh", "ja"} else ", ").join(fields))
    sep = "、" if lang in {"zh", "ja"} else "; "
    names = sep.join(r.name for r in rows[:_NAMED_ROWS]) + ("…" if len(rows) > _NAMED_ROWS else "")
    near = NameMatcher([r.name for r in rows]).closest(question) if rows else None
    if near is None:
        return _NONE_NEAR[lang].format(names=names)
    return _NONE_OF[lang].format(names=names, near=_NEAR[lang].format(name=rows[near].name))
