"""Peak memory and time of reading hostile or extreme single inputs (issue 22: ≤ 1 GB RSS for any input).

Run: ``python bench/hostile_inputs.py``. Each input is built in a temporary folder, then parsed and
chunked (what ingest does before embedding) in a fresh child process; the child's own peak resident
memory (VmHWM) and wall time are printed with the outcome. Embedding is left out: its memory does not
depend on the input's size (batches of 16 passages).

The inputs that hung ``ingest`` (issue 59: a named pipe, links to /dev/zero and /dev/urandom, a table
10,000 columns wide, 5 MB of one word, an over-deep JSONL row, a PDF whose only page is a 20000×20000
picture, a note mentioning "%PDF-") go through the whole ``Engine.ingest`` — the bundled model included —
in a fresh child each; the seconds are those of the ingest call, until its outcome.
"""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT.parent / "shared" / "corpora" / "docx" / "word_sample.docx"

CHILD = r"""
import re, sys, time
from pathlib import Path
from biny.core.config import LimitSettings
from biny.core.chunking.splitter import assemble, split
from biny.core.errors import BinyError
from biny.core.ingest import parse_file
t0 = time.perf_counter()
try:
    doc = parse_file(Path(sys.argv[1]), LimitSettings())
    chunks = split(assemble(doc.blocks), target_tokens=200, overlap_tokens=30)
    outcome = f"read: {len(doc.blocks)} blocks, {len(chunks)} chunks" + (f"; {doc.warnings[0]}" if doc.warnings else "")
except BinyError as exc:
    outcome = f"refused: {exc}"
hwm = int(re.search(r"VmHWM:\s+(\d+)", Path("/proc/self/status").read_text()).group(1)) // 1024
print(f"{hwm}\t{time.perf_counter() - t0:.1f}\t{outcome}")
"""


def docx_with(path: Path, members: list[tuple[str, bytes]], replace: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(TEMPLATE) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            dst.writestr(item, (replace or {}).get(item.filename, src.read(item.filename)))
        for name, data in members:
            dst.writestr(name, data)
    return path


def lying_zip(path: Path) -> Path:
    docx_with(path, [("word/media/filler.bin", bytes(300 * 1024 * 1024))])
    raw = bytearray(path.read_bytes())
    name = b"word/media/filler.bin"
    at = 0
    while (at := raw.find(b"PK\x01\x02", at)) >= 0:
        length = struct.unpack_from("<H", raw, at + 28)[0]
        if raw[at + 46:at + 46 + length] == name:
            struct.pack_into("<I", raw, at + 24, 1024)
            struct.pack_into("<I", raw, struct.unpack_from("<I", raw, at + 42)[0] + 22, 1024)
        at += 4
    path.write_bytes(bytes(raw))
    return path


def pixel_bomb(path: Path) -> Path:
    import docx
    from PIL import Image

    png = io.BytesIO()
    Image.new("RGB", (11000, 10000), (250, 250, 250)).save(png, "PNG", optimize=True)
    d = docx.Document()
    d.add_paragraph("A document with one very large picture.")
    d.add_picture(io.BytesIO(png.getvalue()))
    d.save(str(path))
    return path


def entity_bomb(path: Path) -> Path:
    entities = ['<!ENTITY l0 "lol">'] + [f'<!ENTITY l{i} "{("&l" + str(i - 1) + ";") * 10}">' for i in range(1, 10)]
    body = (f'<?xml version="1.0"?><!DOCTYPE w:document [{"".join(entities)}]>'
            '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
            '<w:p><w:r><w:t>&l9;</w:t></w:r></w:p></w:body></w:document>')
    return docx_with(path, [], {"word/document.xml": body.encode()})


def many_paragraphs(path: Path, n: int = 100_000) -> Path:
    import docx

    d = docx.Document()
    para = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. " * 2
    for i in range(n):
        d.add_paragraph(f"{i} {para}")
    d.save(str(path))
    return path


def big_text(path: Path, mb: int = 19) -> Path:
    line = "The quick brown fox jumps over the lazy dog; 敏捷的棕色狐狸跳过了懒狗。\n"
    path.write_text(line * (mb * 1024 * 1024 // len(line.encode())), encoding="utf-8")
    return path


def nested_html(path: Path, depth: int = 100_000) -> Path:
    path.write_text("<html><body>" + "<div>" * depth + "<p>The one paragraph of this page.</p>" + "</div>" * depth
                    + "</body></html>", encoding="utf-8")
    return path


CHILD_INGEST = r"""
import re, sys, tempfile, time
from pathlib import Path
from biny.core.config import Settings
from biny.core.engine import Engine
with tempfile.TemporaryDirectory() as home:
    with Engine.open(Path(home) / "home", settings=Settings()) as eng:
        eng.create_space("s", encrypted=False)
        eng.models.embedder.embed_passages(["warm up"])  # the model's load is not the input's time
        t0 = time.perf_counter()
        f = eng.ingest("s", [Path(sys.argv[1])]).files[0]
        secs = time.perf_counter() - t0
hwm = int(re.search(r"VmHWM:\s+(\d+)", Path("/proc/self/status").read_text()).group(1)) // 1024
print(f"{hwm}\t{secs:.1f}\t{f.outcome}: {f.message}")
"""


def fifo(path: Path) -> Path:
    import os

    os.mkfifo(path)
    return path


def link_to(device: str) -> Callable[[Path], Path]:
    def make(path: Path) -> Path:
        path.symlink_to(device)
        return path
    return make


def wide_csv(path: Path, columns: int = 10_000, rows: int = 3) -> Path:
    lines = [",".join(f"field {c}" for c in range(columns))]
    lines += [",".join(f"value {r}.{c}" for c in range(columns)) for r in range(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def one_word(path: Path, mb: int = 5) -> Path:
    path.write_text("lorem " * (mb * 1024 * 1024 // 6), encoding="utf-8")
    return path


def deep_jsonl(path: Path) -> Path:
    rows = ['{"name": "Lamp", "price": "12"}', "[" * 200_000 + "]" * 200_000, '{"name": "Desk", "price": "140"}']
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def huge_picture_pdf(path: Path, side: int = 20_000) -> Path:
    import pymupdf
    from PIL import Image

    png = io.BytesIO()
    Image.new("1", (side, side), 1).save(png, "PNG", optimize=True)  # bilevel: 50 MB in memory, small on disk
    pdf = pymupdf.open()
    page = pdf.new_page(width=612, height=612)
    page.insert_image(page.rect, stream=png.getvalue())
    pdf.save(str(path), deflate=True)
    pdf.close()
    return path


def pdf_magic_note(path: Path) -> Path:
    path.write_text("# Formats\n\nA PDF begins with %PDF-1.7; this note only says so.\n", encoding="utf-8")
    return path


def main() -> int:
    cases = [("DOCX, one 110-megapixel PNG (39 KB)", pixel_bomb, "pixels.docx"),
             ("DOCX, a member 300× larger than its header says", lying_zip, "liar.docx"),
             ("DOCX, an entity bomb (10⁹ 'lol')", entity_bomb, "entities.docx"),
             ("DOCX, 100k paragraphs (26 MB of XML, 335 KB)", many_paragraphs, "paragraphs.docx"),
             ("text, 19 MB (under the 20 MB limit)", big_text, "big.txt"),
             ("HTML, 100k nested divs", nested_html, "nested.html")]
    print(f"{'input':<52}{'file':>9}{'peak MB':>9}{'s':>7}  outcome")
    with tempfile.TemporaryDirectory() as tmp:
        for label, make, name in cases:
            path = make(Path(tmp) / name)
            out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True)
            if out.returncode != 0:
                print(f"{label:<52} child failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            hwm, secs, outcome = out.stdout.strip().split("\t", 2)
            size = path.stat().st_size
            print(f"{label:<52}{size / 1e6:>8.2f}M{hwm:>9}{secs:>7}  {outcome[:110]}")
    return 0


def main_ingest() -> int:
    ingest_cases = [("a named pipe (FIFO) named .txt", fifo, "pipe.txt"),
                    ("a link to /dev/zero named .txt", link_to("/dev/zero"), "zeros.txt"),
                    ("a link to /dev/urandom named .txt", link_to("/dev/urandom"), "random.txt"),
                    ("CSV, 10,000 columns × 3 rows", wide_csv, "wide.csv"),
                    ("CSV, 1,000 columns × 3 rows (at the limit)", lambda p: wide_csv(p, 1000), "wide1000.csv"),
                    ("text, 5 MB of one word repeated", one_word, "one-word.txt"),
                    ("JSONL, one row nested 200,000 deep", deep_jsonl, "deep.jsonl"),
                    ("PDF, one page = a 20000×20000 picture", huge_picture_pdf, "picture.pdf"),
                    ("Markdown mentioning %PDF-", pdf_magic_note, "formats.md")]
    print(f"\nthrough Engine.ingest (issue 59)\n{'input':<52}{'file':>9}{'peak MB':>9}{'s':>7}  outcome")
    with tempfile.TemporaryDirectory() as tmp:
        for label, make, name in ingest_cases:
            path = make(Path(tmp) / name)
            out = subprocess.run([sys.executable, "-c", CHILD_INGEST, str(path)], capture_output=True, text=True,
                                 timeout=900)
            if out.returncode != 0:
                print(f"{label:<52} child failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            hwm, secs, outcome = out.stdout.strip().splitlines()[-1].split("\t", 2)
            size = path.stat().st_size if path.is_file() else 0
            print(f"{label:<52}{size / 1e6:>8.2f}M{hwm:>9}{secs:>7}  {outcome[:150]}", flush=True)
    return 0


if __name__ == "__main__":
    # ``--ingest``: only the cases through Engine.ingest (issue 59); ``--read``: only the parse + chunk ones.
    sys.exit((main() if "--ingest" not in sys.argv else 0) or (main_ingest() if "--read" not in sys.argv else 0))
