"""Tables as row documents (SPEC S1): CSV, TSV, JSONL and XLSX, one document per row.

The header names the fields; each row becomes a document whose text is "field: value"
lines (empty cells left out) titled by the row's title-like field, so the row is
retrieved like any passage *and* its header is read back verbatim by the structured
index. Values are kept as written; only line breaks inside a cell become spaces, so a
value stays on its own line.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

from biny.core.config import LimitSettings
from biny.core.document import Block, ParsedDocument
from biny.core.errors import CorruptDocument, DocumentTooLarge, EmptyDocument
from biny.core.i18n import t
from biny.core.ingest.text import decode_bytes
from biny.core.structured.lexicon import TITLE_NAMES

_SPACES = re.compile(r"\s+")
# One cell may be long (a product description); beyond this the csv module refuses it.
_MAX_CELL = 8 * 1024 * 1024


@dataclass(slots=True)
class RowTable:
    fields: list[str]
    rows: list[list[str]]  # aligned with ``fields``; "" for an empty cell
    title_field: int  # index into ``fields``; -1 when no column names the rows
    skipped: int = 0  # malformed lines (JSONL) left out, reported as a warning


def _names(raw: list[str]) -> list[str]:
    """Header names as written; blank ones numbered, repeats made distinct."""
    out: list[str] = []
    for i, name in enumerate(raw):
        name = _SPACES.sub(" ", (name or "").strip().lstrip("\ufeff")) or f"column {i + 1}"
        base, n = name, 2
        while name in out:
            name, n = f"{base} ({n})", n + 1
        out.append(name)
    return out


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, list):
        return ", ".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return _SPACES.sub(" ", str(value)).strip()


def _title_index(fields: list[str], rows: list[list[str]]) -> int:
    folded = [f.casefold() for f in fields]
    for want in TITLE_NAMES:
        if want in folded:
            return folded.index(want)
    for i, f in enumerate(folded):
        if "title" in f or f.endswith("name") or "名" in f:
            return i
    for i in range(len(fields)):  # else the first column of distinct, non-numeric text
        vals = [r[i] for r in rows[:500] if r[i]]
        if vals and len(set(vals)) >= 0.9 * len(vals) and not all(v.replace(".", "").isdigit() for v in vals):
            return i
    return -1


def _check_width(name: str, width: int, rows: int, limits: LimitSettings) -> None:
    """A table wider, or larger in cells, than the limits is refused before its rows become documents."""
    if width > limits.max_table_columns:
        raise DocumentTooLarge(t("{name} has {width} columns, over the limit of {limit} (limits.max_table_columns). "
                                 "A table this wide is not one record per row: transpose or split it, or raise the "
                                 "limit.").format(name=name, width=width, limit=limits.max_table_columns))
    if width * rows > limits.max_table_cells:
        raise DocumentTooLarge(t("{name} has more than {limit} cells (limits.max_table_cells). Split it into smaller "
                                 "tables, or raise the limit.").format(name=name, limit=limits.max_table_cells))


def _delimited(text: str, suffix: str, name: str, limits: LimitSettings) -> tuple[list[str], list[list[str]]]:
    csv.field_size_limit(_MAX_CELL)
    delimiter = "\t" if suffix == ".tsv" else ","
    if suffix == ".csv":
        try:
            delimiter = csv.Sniffer().sniff(text[:20000], delimiters=",;\t|").delimiter
        except csv.Error:
            delimiter = ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header = next(reader)
        _check_width(name, len(header), 0, limits)
        rows = []
        cells = 0
        for row in reader:
            cells += len(row)
            _check_width(name, len(row), 0, limits)  # a row wider than its header is as wide
            if cells > limits.max_table_cells:
                _check_width(name, 1, cells, limits)
            if any(v.strip() for v in row):
                rows.append([_cell(v) for v in row])
    except StopIteration:
        return [], []
    except csv.Error as exc:
        raise CorruptDocument(t("line {line_num}: {detail}. Check the quoting of that line.")
                               .format(line_num=reader.line_num, detail=exc)) from exc
    width = len(header)
    rows = [(r + [""] * width)[:width] for r in rows]
    return header, rows


def _jsonl(text: str, name: str, limits: LimitSettings) -> tuple[list[str], list[list[str]], int]:
    fields: list[str] = []
    objects: list[dict[str, object]] = []
    skipped = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):  # malformed, or nested past what the parser can hold: that row only
            skipped += 1
            continue
        if not isinstance(obj, dict):
            skipped += 1
            continue
        known = set(fields)
        fields += [str(k) for k in obj if str(k) not in known]
        objects.append({str(k): v for k, v in obj.items()})
        _check_width(name, len(fields), len(objects), limits)
    return fields, [[_cell(o.get(f)) for f in fields] for o in objects], skipped


def _xlsx(path: Path, limits: LimitSettings) -> tuple[list[str], list[list[str]]]:
    import openpyxl  # only for spreadsheets

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a damaged file
        raise CorruptDocument(t("{name} could not be opened as a spreadsheet ({detail}).")
                               .format(name=path.name, detail=exc)) from exc
    try:
        sheet = book.worksheets[0]
        it = sheet.iter_rows(values_only=True)
        header = [_cell(v) for v in next(it, ())]
        _check_width(path.name, len(header), 0, limits)
        rows = []
        for r in it:
            if any(v is not None for v in r):
                rows.append([_cell(v) for v in r][: len(header)])
                _check_width(path.name, len(header), len(rows), limits)
    finally:
        book.close()
    return header, [(r + [""] * len(header))[: len(header)] for r in rows]


def read_rows(path: Path, limits: LimitSettings) -> RowTable:
    from biny.core.ingest.sniff import sniff

    sniff(path, limits)  # empty, too large, binary renamed .csv: refused with the same messages
    suffix = path.suffix.lower()
    skipped = 0
    if suffix == ".xlsx":
        from biny.core.ingest.sniff import check_zip_bomb

        check_zip_bomb(path, limits)
        header, rows = _xlsx(path, limits)
    else:
        text = decode_bytes(path.read_bytes(), path.name)
        if suffix in {".jsonl", ".ndjson"}:
            header, rows, skipped = _jsonl(text, path.name, limits)
        else:
            try:
                header, rows = _delimited(text, suffix, path.name, limits)
            except CorruptDocument as exc:
                raise CorruptDocument(f"{path.name}: {exc}") from exc
    if not header or not rows:
        raise EmptyDocument(t("{name} has no rows under a header line; nothing to ingest.").format(name=path.name))
    fields = _names(header)
    return RowTable(fields, rows, _title_index(fields, rows), skipped)


def row_document(table: RowTable, index: int, fallback: str) -> ParsedDocument:
    """Row ``index`` (0-based) as a document: "field: value" lines, titled by its title field."""
    values = table.rows[index]
    lines = [f"{name}: {value}" for name, value in zip(table.fields, values, strict=True) if value]
    title = values[table.title_field] if table.title_field >= 0 and values[table.title_field] else (
        f"{fallback} row {index + 1}")
    return ParsedDocument(title=title, kind="row", blocks=[Block("\n".join(lines))])
