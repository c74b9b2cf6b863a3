"""Identifiers are identity, not meaning (SPEC R4).

「第 18 条」, 第十八条, "Article 18", "RFC 9110", "ISO/IEC 29500-2", "PEP 484", "NS4150B"
name an object. They are extracted from questions *and* from chunks at ingest,
normalised to canonical keys (Chinese numerals → Arabic, spacing and case folded),
and matched as keys — so 第十八条 never matches 第一百一十八条 or 第十八条之一.

A chunk carries a key in one of two tiers:
* ``def`` — the identifier opens a line (an article heading, a table row, a header
  field) or names the chunk's document (its title);
* ``ref`` — it is mentioned elsewhere in the text.
Lookups prefer defining occurrences and fall back to mentions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Traditional characters beside the simplified ones (兩, 萬; 條, 項, 節, 編 below): 「第十八條」 is article 18 too.
_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
              "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000, "萬": 10000}
_CN_NUM = "零〇一二两兩三四五六七八九十百千万萬"


def cn_to_int(text: str) -> int | None:
    """Chinese numerals (or Arabic digits, full-width too) → int; None if not a number."""
    text = text.strip().translate(str.maketrans("０１２３４５６７８９", "0123456789"))
    if text.isdigit():
        return int(text)
    total, section, digit = 0, 0, 0
    for ch in text:
        if ch in _CN_DIGITS:
            digit = _CN_DIGITS[ch]
        elif ch in _CN_UNITS:
            unit = _CN_UNITS[ch]
            if unit == 10000:
                total += (section + digit) * unit
                section = 0
            else:
                section += (digit or 1) * unit
            digit = 0
        else:
            return None
    return total + section + digit


_NUM = rf"([0-9０-９]+|[{_CN_NUM}]+)"
# Chinese structural references: 第十八条之一, 第 3 款, 第二章, 第五编 …
_CN_REF = re.compile(rf"第\s*{_NUM}\s*(条|條|款|项|項|章|节|節|编|編|部分)(?:\s*之\s*{_NUM})?")
_CN_KIND = {"条": "art", "條": "art", "款": "para", "项": "item", "項": "item", "章": "chap", "节": "sec", "節": "sec",
            "编": "book", "編": "book", "部分": "part"}
# Western structural references.
_EN_REF = re.compile(
    r"(?<![A-Za-z])(Article|Art\.|Section|Sec\.|§|Part|Chapter|Clause|Paragraph|Annex|Appendix)\s*"
    r"(\d+(?:\.\d+)*[a-z]?)(?![0-9A-Za-z])",
    re.I,
)
_EN_KIND = {"article": "art", "art.": "art", "section": "sec", "sec.": "sec", "§": "sec", "part": "part",
            "chapter": "chap", "clause": "clause", "paragraph": "para", "annex": "annex", "appendix": "annex"}
# Standards and numbered series: ISO 9408, ISO/IEC 29500-2, RFC 9110, PEP 484, IEEE 802.11, EN 1090-2.
_STD = re.compile(
    r"(?<![A-Za-z0-9])((?:ISO|IEC|IEEE|RFC|PEP|EN|DIN|JIS|GB|GB/T|ANSI|ASTM|BS|NIST|SP|CVE|ECMA|ITU-T|STD|BCP)"
    r"(?:/(?:IEC|IEEE|ASTM|T))?)\s?:?\s?(\d{1,6}(?:[-.:]\d+)*)(?![0-9])"
)
# Part numbers / model codes: letters and digits mixed, e.g. NS4150B, CH32V003, WS2812B, TH-200, ESP32-C6.
_PART = re.compile(r"(?<![A-Za-z0-9])([A-Z]{1,6}-?\d{2,}[A-Z0-9]*(?:-[A-Z0-9]+)*)(?![A-Za-z0-9])")
# A model code with one digit, hyphenated: "DC-4", "LD-2", "TP-1". Too short to index as a part number (``_PART``
# wants two digits: "F-1" is seldom a part), but a question naming one is about that model: an answer's sentence
# writing it says so (answer/extractive.py, issue 55).
_SHORT_CODE = re.compile(r"(?<![\w-])([A-Z]{1,6}-\d[A-Z0-9]*)(?![\w-])")
_LINE_START = re.compile(r"(?:^|\n)[ \t>*#\-•·(（\[]*$")


@dataclass(frozen=True, slots=True)
class Identifier:
    key: str  # canonical, e.g. "art:18", "art:120-1", "std:RFC9110", "part:NS4150B"
    surface: str  # as written
    start: int


def _std_key(prefix: str, number: str) -> str:
    return "std:" + prefix.upper().replace(" ", "") + number


def extract(text: str) -> list[Identifier]:
    """All identifiers in ``text`` with canonical keys, in order of appearance."""
    out: list[Identifier] = []
    taken: list[tuple[int, int]] = []

    def add(key: str, m: re.Match[str]) -> None:
        if any(s <= m.start() < e for s, e in taken):
            return
        taken.append((m.start(), m.end()))
        out.append(Identifier(key, m.group(0), m.start()))

    for m in _CN_REF.finditer(text):
        n = cn_to_int(m.group(1))
        if n is None:
            continue
        key = f"{_CN_KIND[m.group(2)]}:{n}"
        if m.group(3):
            sub = cn_to_int(m.group(3))
            if sub is not None:
                key += f"-{sub}"
        add(key, m)
    for m in _EN_REF.finditer(text):
        add(f"{_EN_KIND[m.group(1).lower()]}:{m.group(2).lower()}", m)
    for m in _STD.finditer(text):
        add(_std_key(m.group(1), m.group(2)), m)
    for m in _PART.finditer(text):
        code = m.group(1)
        if sum(c.isdigit() for c in code) >= 2 and any(c.isalpha() for c in code):
            add("part:" + code.replace("-", ""), m)
    out.sort(key=lambda i: i.start)
    return out


def _defines(text: str, ident: Identifier) -> bool:
    return bool(_LINE_START.search(text[max(0, ident.start - 8) : ident.start])) or ident.start == 0


def chunk_keys(text: str, title: str) -> list[str]:
    """Keys a chunk carries, each prefixed by its tier: ``def|art:18`` or ``ref|std:RFC9110``.

    The title's identifiers are defining for every chunk of the document. A bare
    number opening a line defines ``<scheme><number>`` when the title names the
    scheme (an "RFC INDEX" row "9110 HTTP Semantics…" defines RFC 9110).
    """
    keys: dict[str, str] = {}
    for ident in extract(title):
        keys[ident.key] = "def"
    for ident in extract(text):
        tier = "def" if _defines(text, ident) else "ref"
        if keys.get(ident.key) != "def":
            keys[ident.key] = tier
    title_upper = title.upper()
    schemes = [s for s in ("RFC", "PEP", "ISO", "CVE", "BCP", "STD") if re.search(rf"\b{s}\b", title_upper)]
    if schemes:
        for m in re.finditer(r"(?:^|\n)(\d{1,5})(?=[ \t])", text):
            for s in schemes:
                keys[_std_key(s, str(int(m.group(1))))] = "def"
    return [f"{tier}|{key}" for key, tier in keys.items()]


def question_keys(question: str) -> list[Identifier]:
    """Identifiers named by a question (de-duplicated by key, first occurrence kept)."""
    seen: set[str] = set()
    out = []
    for ident in extract(question):
        if ident.key not in seen:
            seen.add(ident.key)
            out.append(ident)
    return out


def model_codes(text: str) -> list[str]:
    """The hyphenated model codes a question names, part numbers (``_PART``) and short ones (``_SHORT_CODE``), as
    written: "DC-4", "TH-200", "ESP32-C6"."""
    found = [m.group(1) for rx in (_PART, _SHORT_CODE) for m in rx.finditer(text) if "-" in m.group(1)]
    return list(dict.fromkeys(found))
