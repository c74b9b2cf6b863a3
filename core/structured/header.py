"""Machine-readable headers: the "field: value" lines a document opens with (SPEC S1, S2).

Three shapes are read, all from the document's own stored text so every value is a
verbatim slice of it: RFC 822-style lines at the top (PEPs, RFCs, e-mail, and the row
documents biny writes for CSV/JSONL rows), YAML-style front matter between ``---``
lines, and a leading two-column Markdown table (``| Field | Value |``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A field name: starts with a letter or digit (any script), up to 60 characters of words, spaces and
# light punctuation, then an ASCII or full-width colon. No sentence punctuation, so prose
# ("Note: the value ...") rarely qualifies past the first line.
_FIELD = re.compile(r"^[ \t]*([^\W_][\w .()/#&'+-]{0,59}?)[ \t]*[:：][ \t]*(\S.*?)[ \t]*$")
_TABLE_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^\s*#{1,6}\s")
# Lines scanned before giving up on finding a header at all.
_LEAD_LINES = 4


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
    m = _FIELD.match(line)
    if m is None or len(m.group(1).split()) > 8:
        return None
    return HeaderField(m.group(1).strip(), m.group(2), pos + m.start(2), pos + m.end(2))


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
        if not name or not value or len(name) > 40:
            continue
        start = line.index(value, line.index("|", line.index(name) + len(name))) + pos
        out.append(HeaderField(name, value, start, start + len(value)))
    return out


def read_header(text: str) -> list[HeaderField]:
    """The header fields a document opens with; [] if it has none.

    A header is at least two field lines (one line is too often prose), found within
    the first few non-blank lines after an optional title heading; it ends at the first
    blank or non-field line. The first occurrence of a name wins.
    """
    lines = _lines(text)
    found = _front_matter(lines)
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
            for pos2, line2 in lines[i:]:
                f = _field_at(pos2, line2)
                if f is None:
                    if line2[:1] in {" ", "\t"} and line2.strip() and found:
                        continue  # an RFC 822 continuation line: the field's first line stands for it
                    break
                found.append(f)
            break
    if len(found) < 2:
        return []
    out: dict[str, HeaderField] = {}
    for f in found:
        out.setdefault(f.name, f)
    return list(out.values())
