"""Machine-readable headers: the "field: value" lines a document opens with (SPEC S1, S2).

Three shapes are read, all from the document's own stored text so every value is a
verbatim slice of it: RFC 822-style lines at the top (PEPs, RFCs, e-mail, and the row
documents biny writes for CSV/JSONL rows) — also as Markdown writes them, bulleted and bold
(``- **Price:** $10``) — YAML-style front matter between ``---`` lines, and a leading two-column
Markdown table (``| Field | Value |``). A field continued on indented lines is read whole, its
line breaks as spaces; a field with no value ("BDFL-Delegate:") neither counts nor ends the header.

Tables inside pages (HTML two-column tables with or without ``<th>``, ``<dl>`` lists, DOCX two-column tables,
PDF spec tables) are read by their parsers, where the cells are still known: the first key–value table is
stated at the top of the stored text as ``field_line`` lines, so this reader sees it as the header (issue 63).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from biny.core.i18n import N_

# A field name: starts with a letter or digit (any script), up to 60 characters of words, spaces and
# light punctuation, then an ASCII or full-width colon. No sentence punctuation, so prose
# ("Note: the value ...") rarely qualifies past the first line.
# Markdown dresses the same line: a bullet ("- Price: $10") and bold or italic around the name, with the colon
# inside or outside it ("**Price:** $10", "**Price**: $10"). An empty value ("BDFL-Delegate:") is a header line
# with nothing to index; it does not end the header.
_MARK = r"(?:\*\*|__|\*|_)?"
_FIELD = re.compile(rf"^[ \t]*(?:[-*+•][ \t]+)?{_MARK}([^\W_][\w .()/#&'+-]{{0,59}}?){_MARK}[ \t]*[:：]{_MARK}"
                    r"[ \t]*(\S.*?)?[ \t]*$")
_TABLE_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^\s*#{1,6}\s")
# Lines scanned before giving up on finding a header at all.
_LEAD_LINES = 4
# A field name of more than this many words is a sentence ending in a colon, not a name: a bound, no measurement is
# recorded.
_NAME_WORDS = 8
# The longest field name _FIELD reads (a first character and up to 59 more): a longer one would not read back.
_NAME_CHARS = 60
# A leading table's first cell longer than this is no field name and its row is skipped: a bound, no measurement is
# recorded.
_TABLE_NAME_CHARS = 40
# Non-blank lines of a document's top a curator is shown by default: a display bound, not tuned.
_OPENING_LINES = 3


@dataclass(frozen=True, slots=True)
class HeaderField:
    name: str
    value: str
    start: int  # the value's character span in the text: text[start:end] == value
    end: int


def _lines(text: str) -> list[tuple[int, str]]:
    out, pos = [], 0
    for line in text.split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def _field_at(pos: int, line: str) -> HeaderField | None:
    """The field a header line holds; an empty value gives a field whose value is ""."""
    m = _FIELD.match(line)
    if m is None or len(m.group(1).split()) > _NAME_WORDS or m.group(1).endswith(("*", "_")):
        return None
    if m.group(2) is None:
        return HeaderField(m.group(1).strip(), "", pos + len(line), pos + len(line))
    return HeaderField(m.group(1).strip(), m.group(2), pos + m.start(2), pos + m.end(2))


def _continued(text: str, f: HeaderField, end: int) -> HeaderField:
    """An RFC 822 field continued on indented lines: its span runs to ``end``, its value is the whole, with the
    line breaks read as spaces ("Author: A,\n        B" → "A, B")."""
    return HeaderField(f.name, " ".join(text[f.start : end].split()), f.start, end)


def _front_matter(lines: list[tuple[int, str]]) -> list[HeaderField]:
    if not lines or lines[0][1].strip() != "---":
        return []
    out: list[HeaderField] = []
    for pos, line in lines[1:]:
        if line.strip() in {"---", "..."}:
            return out
        f = _field_at(pos, line)
        if f is not None:
            out.append(f)
    return []  # never closed: not front matter


def _table(lines: list[tuple[int, str]], i: int) -> list[HeaderField]:
    """A leading two-column table: header row, rule, then "| name | value |" rows."""
    if i + 2 >= len(lines) or not _TABLE_RULE.match(lines[i + 1][1]):
        return []
    out: list[HeaderField] = []
    for pos, line in lines[i + 2 :]:
        if not _TABLE_ROW.match(line):
            break
        cells = line.strip().strip("|").split("|")
        if len(cells) != 2:
            return []
        name, value = cells[0].strip(), cells[1].strip()
        if not name or not value or len(name) > _TABLE_NAME_CHARS:
            continue
        start = line.index(value, line.index("|", line.index(name) + len(name))) + pos
        out.append(HeaderField(name, value, start, start + len(value)))
    return out


def _run(text: str, lines: list[tuple[int, str]], i: int) -> list[HeaderField]:
    """The field lines from line ``i`` on, up to the first line that is neither a field nor its continuation."""
    found: list[HeaderField] = []
    indent = len(lines[i][1]) - len(lines[i][1].lstrip())
    for pos, line in lines[i:]:
        deeper = len(line) - len(line.lstrip()) > indent
        if deeper and line.strip() and found and found[-1].value:
            found[-1] = _continued(text, found[-1], pos + len(line.rstrip()))
            continue
        f = _field_at(pos, line)
        if f is None:
            break
        found.append(f)
    return found


# What the reader recognises, as the proposer names it when it finds nothing (issue 63).
# Marked with N_: translated where shown.
FORMS = (N_("'Field: value' lines at the top"), N_("Markdown bullets ('- **Field:** value')"),
         N_("front matter between '---' lines"), N_("a two-column Markdown table"),
         N_("an HTML two-column table (with or without <th>)"), N_("an HTML <dl> list"),
         N_("a DOCX two-column table"), N_("a PDF spec table (two columns)"))

_NAME_OUT = re.compile(r"[^\w .()/#&'+-]+")


def field_line(name: str, value: str) -> str | None:
    """A table row stated as a header line this module reads back as (name, value); None if it cannot be.

    The value is kept character for character (its whitespace collapsed, as a cell shows it); the name loses
    what a field name cannot hold here ("Weight, kg:" → "Weight kg"). A name of more than 8 words, or with no
    letter or digit, is not a field name."""
    value = " ".join(value.split())
    name = " ".join(_NAME_OUT.sub(" ", name.strip().rstrip(":：").strip()).split()).strip(" .()/#&'+-")
    if not name or not value or len(name) > _NAME_CHARS or len(name.split()) > _NAME_WORDS:
        return None
    line = f"{name}: {value}"
    f = _field_at(0, line)
    return line if f is not None and f.name == name and f.value == value else None


def key_value_blocks(text: str) -> int:
    """How many separate key–value blocks (paragraphs of two or more field lines) the text states."""
    n = 0
    for para in re.split(r"\n[ \t]*\n", text):
        lines = [ln for ln in para.split("\n") if ln.strip()]
        fields = [ln for ln in lines if _field_at(0, ln) is not None]
        if len(fields) >= 2 and len(fields) >= len(lines) - 1:  # one title line may lead the block
            n += 1
    return n


def opening_lines(text: str, n: int = _OPENING_LINES, width: int = 100) -> list[str]:
    """The first ``n`` non-blank lines, cut to ``width`` characters: what a curator sees of a document's top."""
    out: list[str] = []
    for line in text.split("\n"):
        if line.strip():
            line = " ".join(line.split())
            out.append(line if len(line) <= width else line[: width - 1] + "…")
            if len(out) == n:
                break
    return out


def read_header(text: str) -> list[HeaderField]:
    """The header fields a document opens with; [] if it has none.

    A header is at least two field lines (one line is too often prose), found within
    the first few non-blank lines after an optional title (a heading, or a line that only looks
    like one field); it ends at the first blank or non-field line. The first occurrence of a name wins.
    """
    lines = _lines(text)
    found = [f for f in _front_matter(lines) if f.value]
    if not found:
        seen = 0
        for i, (pos, line) in enumerate(lines):
            if not line.strip() or _HEADING.match(line):
                continue
            seen += 1
            if seen > _LEAD_LINES:
                break
            if _TABLE_ROW.match(line):
                found = _table(lines, i)
                break
            if _field_at(pos, line) is None:
                continue
            # A title that reads like a field ("Pacific Rim: Extinction", its "#" gone in the stored text) is a
            # run of one: the header may still follow it.
            found = [f for f in _run(text, lines, i) if f.value]
            if len(found) >= 2:
                break
    if len(found) < 2:
        return []
    out: dict[str, HeaderField] = {}
    for f in found:
        out.setdefault(f.name, f)
    return list(out.values())
