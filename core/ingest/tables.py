"""Key–value tables inside pages, read where their cells are still known (issue 63; SPEC S1, S2).

A product page or a spec sheet states its fields in a two-column table (HTML ``<table>`` with or without
``<th>``, a ``<dl>`` list, a DOCX table, a PDF spec table). Flattened to text, the cells lose their pairing
(trafilatura writes an HTML table as Markdown rows without a rule line, escaping ``|`` in values), so the
parsers read the pairs here, from the cells, and state every key–value table as ``Field: value`` lines —
what the header reader reads, with each value verbatim. The first one is the document's header: it is stated at
the top of the text, where the header reader looks, and carried on ``ParsedDocument.header``. Where a page
holds several, the others stay where they were (as lines) and a note says which one was read.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from biny.core.document import Block, ParsedDocument
from biny.core.i18n import t
from biny.core.structured.header import field_line

MIN_PAIRS = 2  # one row is a caption or a label, not a header
# A name that is only a number, a date or a price ("2019", "$10") makes a data table (year → value), not fields.
_NOT_A_NAME = re.compile(r"^[\d\s.,:/%$€£¥+-]*$")
TITLE_CHARS = 120  # a first block this short, on one line, is read as the page's title
# The kinds whose parsers read key–value tables, and the mark (a DocumentRow.visual_pages key, holding the count of
# tables found) of a document stored since: one stored before it is read again when its file is added again.
READS_TABLES = frozenset({"html", "docx", "pdf"})
TABLES_READ = "header_tables"


def key_values(rows: list[list[str]]) -> list[tuple[str, str]] | None:
    """A table's rows (cells as shown, a merged cell once) as (name, value) pairs, or None if it is no
    key–value table: every row with content has two cells — a row of one cell (a section caption spanning the
    table) is passed over — names are short labels, not numbers, and at least two rows pair up."""
    pairs: list[tuple[str, str]] = []
    seen: set[str] = set()
    for cells in rows:
        cells = [" ".join(c.split()) for c in cells]
        while len(cells) > 1 and not cells[-1]:  # a ragged row's trailing empties (an empty cell inside counts)
            cells.pop()
        if not any(cells):
            continue
        if len(cells) == 1 or (len(cells) == 2 and not cells[1]):
            continue  # a caption row, or a name with nothing stated
        if len(cells) != 2:
            return None
        name, value = cells
        if not name or _NOT_A_NAME.match(name):
            return None
        line = field_line(name, value)
        if line is None:
            return None
        key = line.split(": ", 1)[0]
        if key.casefold() in seen:
            continue  # the first occurrence of a name wins, as in any header
        seen.add(key.casefold())
        pairs.append((key, " ".join(value.split())))
    return pairs if len(pairs) >= MIN_PAIRS else None


def lines_of(pairs: list[tuple[str, str]]) -> str:
    """The pairs as header lines (``key_values`` already checked each one reads back)."""
    out = []
    for name, value in pairs:
        line = field_line(name, value)
        if line is not None:
            out.append(line)
    return "\n".join(out)


def _top(blocks: list[Block]) -> int:
    """Where a header goes: after the leading headings, or after a short first line that reads as a title."""
    i = 0
    while i < len(blocks) and blocks[i].heading_level:
        i += 1
    if i == 0 and blocks and len(blocks[0].text) <= TITLE_CHARS and "\n" not in blocks[0].text.strip():
        i = 1
    return i


def state_header(doc: ParsedDocument, tables: list[tuple[int, list[tuple[str, str]]]]) -> Callable[[int], int]:
    """Given the key–value tables the parser found — (index of the block holding it, pairs), in reading order,
    each block's text already ``lines_of(pairs)`` — move the first to the top as the document's header and
    say so when there were several. Returns where each former block index went (for pictures placed by index)."""
    if not tables:
        return lambda i: i
    at, pairs = tables[0]
    block = doc.blocks.pop(at)
    top = _top(doc.blocks) if at > 0 else 0
    if at > 0 and top > at:  # the table sat right after the title already
        top = at
    doc.blocks.insert(top, Block(block.text, block.page, 0))
    doc.header = list(pairs)
    doc.header_tables = len(tables)
    if len(tables) > 1:
        doc.warnings.append(t("{n} key–value tables; the first one ({fields}) is read as the header, the others "
                              "stay in the text").format(n=len(tables), fields=", ".join(n for n, _ in pairs[:3])))

    def moved(i: int, at: int = at, top: int = top) -> int:
        return top if i == at else i + 1 if top <= i < at else i

    return moved
