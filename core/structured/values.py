"""Field types and numeric normalisation (SPEC S2).

A field's values are kept verbatim; numbers, money and years get a normalised numeric
column *derived alongside* for filters and ordering. Types are decided by the share of
values that parse (``TYPE_SHARE``), so one odd value does not demote a column and the
odd ones are reported.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

TYPES = ("integer", "number", "money", "year", "date", "url", "identifier", "list", "text")
NUMERIC = frozenset({"integer", "number", "money", "year", "date"})
# The share of a field's values that must parse as a type for the field to take it.
TYPE_SHARE = 0.9
# Prose fields (descriptions, specifications) are left to retrieval by default.
PROSE_CHARS = 200
# The years a whole number may be read as: back to before the common era (see _year_of), forward somewhat past
# today. Bounds, no measurement is recorded.
_EARLIEST_YEAR = -5000
_LATEST_YEAR = 2200
# A separator splits a list field when at least two values, or this share of them, hold it.
_SEPARATED_SHARE = 0.1
# A list's items are short: their median length is at most this many characters. No measurement is recorded.
_ITEM_CHARS = 40
# A list's items recur across documents (this share of them seen more than once), and a value holds more than one
# item on average (items per value at least _ITEMS_PER_VALUE). No measurement is recorded.
_RECURRING_SHARE = 0.3
_ITEMS_PER_VALUE = 1.15
# A field named as an identifier takes that type when nearly every value is its own (this share distinct); a field
# not so named only when _ID_DISTINCT_UNNAMED are and its first value has a digit. No measurement is recorded.
_ID_DISTINCT = 0.9
_ID_DISTINCT_UNNAMED = 0.95

_NUM = r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?"
_INTEGER = re.compile(r"^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.0+)?$")
_NUMBER = re.compile(rf"^[~≈约]?\s*({_NUM})\s*(%|[A-Za-z]{{1,12}}\.?|[\u4e00-\u9fff]{{1,3}})?$")
_CURRENCY = r"[$€£¥￥₩₹]|US\$|USD|EUR|GBP|CNY|RMB|JPY"
_MONEY = re.compile(
    rf"^(?:(?:{_CURRENCY})\s?({_NUM})(?!\s?\d)|({_NUM})\s?(?:{_CURRENCY}|元|美元|欧元|英镑|日元|円))"
    # A tail after the amount is allowed: a range ("$15.00 - $20.00") or a scraped repeat ("$6.94 $ 6 . 94");
    # the leading amount is the value's number. "$ 19 99" is not read as 19: digits after a space are ambiguous.
    rf"(?:\s*[-–~]\s*.*|\s.*)?$"
)
_URL = re.compile(r"^(?:https?://|www\.)\S+$")
_ISO_DATE = re.compile(r"^(\d{4})[-/.](\d{1,2})(?:[-/.](\d{1,2}))?(?:[T ].*)?$")
_CN_DATE = re.compile(r"^(\d{4})年(?:\d{1,2}月(?:\d{1,2}[日号])?)?$")
_DMY_DATE = re.compile(r"^\d{1,2}[-/ .](?:\d{1,2}|[A-Za-z]{3,9})[-/ .,]+(\d{4})$")
_TEXT_DATE = re.compile(r"^(?:[A-Za-z]{3,9}\.?\s+\d{1,2},?\s+|\d{1,2}\s+[A-Za-z]{3,9}\.?,?\s+)(\d{4})$")
# "9.78034536858e+12" too: a spreadsheet wrote an ISBN-13 as a number; it stays the identifier it names.
_IDENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_./:#+-]{2,63}$")
_ID_WORDS = ("id", "isbn", "asin", "sku", "upc", "ean", "code", "number", "no", "编号", "代码", "编码", "型号")
_YEAR_WORDS = ("year", "年")
_LIST_SEPARATORS = (" | ", "|", "; ", ", ", "、", "，")


@dataclass(frozen=True, slots=True)
class TypeGuess:
    type: str
    separator: str = ""  # list fields: how items are joined
    bad: int = 0  # values that do not fit the type (their numeric column is empty)


def number_of(value: str, kind: str) -> float | None:
    """The normalised number of a verbatim value for a numeric type, or None."""
    v = value.strip()
    if kind in {"year", "date"}:
        return _year_of(v)
    if kind == "money":
        m = _MONEY.match(v)
        raw = (m.group(1) or m.group(2)) if m else None
        if raw is None:
            n = _NUMBER.match(v)
            raw = n.group(1) if n and not n.group(2) else None
        return _float(raw)
    m = _NUMBER.match(v)
    return _float(m.group(1)) if m else None


def _float(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        return float(raw.replace(",", ""))
    except ValueError:
        return None


def _year_of(v: str) -> float | None:
    for rx in (_ISO_DATE, _CN_DATE, _DMY_DATE, _TEXT_DATE):
        m = rx.match(v)
        if m:
            return float(m.group(1))
    n = _float(v) if _INTEGER.match(v) else None
    # Years before the common era appear in catalogues (-720 for the Iliad); keep them.
    return n if n is not None and n == int(n) and _EARLIEST_YEAR <= n <= _LATEST_YEAR else None


def _words(name: str) -> list[str]:
    # "isbn13" is the words isbn and 13: an identifier's name, however numbered.
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=\d)", " ", name)
    return [w for w in re.split(r"[\W_]+", spaced.lower()) if w]


def is_id_name(name: str) -> bool:
    words = _words(name)
    return any(w in _ID_WORDS for w in words) or any(w in name for w in ("编号", "代码", "编码", "型号"))


def split_items(value: str, separator: str) -> list[str]:
    """A list value's items, outside parentheses, stripped; the verbatim items, not retyped."""
    if not separator:
        return [value]
    items: list[str] = []
    buf: list[str] = []
    depth = 0
    i = 0
    while i < len(value):
        ch = value[i]
        if ch in "([（【":
            depth += 1
        elif ch in ")]）】" and depth:
            depth -= 1
        if depth == 0 and value.startswith(separator, i):
            items.append("".join(buf).strip())
            buf = []
            i += len(separator)
            continue
        buf.append(ch)
        i += 1
    items.append("".join(buf).strip())
    # A value continued on the next line ends with its separator ("A, B,"): the comma is no item's.
    items = [x.rstrip(",;|、，；").strip() for x in items]
    return [x for x in items if x]


def _share(values: Sequence[str], ok: int) -> float:
    return ok / max(len(values), 1)


def _list_separator(values: Sequence[str]) -> str:
    """A separator that splits many values into short items that recur across documents."""
    for sep in _LIST_SEPARATORS:
        with_sep = [v for v in values if sep in v]
        if len(with_sep) < max(2, _SEPARATED_SHARE * len(values)):
            continue
        items = [x for v in values for x in split_items(v, sep)]
        if not items or statistics.median(len(x) for x in items) > _ITEM_CHARS:
            continue
        counts = Counter(x.casefold() for x in items)
        recurring = sum(n for n in counts.values() if n > 1) / len(items)
        if recurring >= _RECURRING_SHARE and len(items) >= _ITEMS_PER_VALUE * len(values):
            return sep
    return ""


def guess_type(name: str, values: Sequence[str]) -> TypeGuess:
    """The type most of ``values`` support, helped by the field's name for ids and years."""
    vals = [v.strip() for v in values if v.strip()]
    if not vals:
        return TypeGuess("text")
    urls = sum(bool(_URL.match(v)) for v in vals)
    if _share(vals, urls) >= TYPE_SHARE:
        return TypeGuess("url", bad=len(vals) - urls)
    id_name = is_id_name(name)
    years = sum(_year_of(v) is not None and not _NUMBER.match(v) for v in vals)  # written dates
    integral_years = sum(_INTEGER.match(v) is not None and (_year_of(v) or 0) >= 1000 for v in vals)
    if _share(vals, years) >= TYPE_SHARE:
        return TypeGuess("date", bad=len(vals) - years)
    year_name = any(w in _YEAR_WORDS for w in _words(name)) or "年" in name
    if year_name and _share(vals, sum(_year_of(v) is not None for v in vals)) >= TYPE_SHARE:
        return TypeGuess("year", bad=len(vals) - sum(_year_of(v) is not None for v in vals))
    money = sum(bool(_MONEY.match(v)) for v in vals)
    if money and _share(vals, money) >= TYPE_SHARE:
        return TypeGuess("money", bad=len(vals) - money)
    distinct = len(set(vals)) / len(vals)
    if id_name and distinct >= _ID_DISTINCT and _share(vals, sum(bool(_IDENT.match(v)) for v in vals)) >= TYPE_SHARE:
        return TypeGuess("identifier")
    ints = sum(bool(_INTEGER.match(v)) for v in vals)
    if _share(vals, ints) >= TYPE_SHARE:
        if _share(vals, integral_years) >= TYPE_SHARE and len(set(vals)) < 0.5 * len(vals) + 2:
            return TypeGuess("year", bad=len(vals) - integral_years)
        return TypeGuess("integer", bad=len(vals) - ints)
    nums = sum(number_of(v, "number") is not None for v in vals)
    if _share(vals, nums) >= TYPE_SHARE:
        return TypeGuess("number", bad=len(vals) - nums)
    sep = _list_separator(vals)
    if sep:
        return TypeGuess("list", separator=sep)
    if distinct >= _ID_DISTINCT_UNNAMED and _share(vals, sum(bool(_IDENT.match(v)) for v in vals)) >= TYPE_SHARE \
            and any(ch.isdigit() for ch in vals[0]):
        return TypeGuess("identifier")
    return TypeGuess("text")
