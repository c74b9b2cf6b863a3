"""Peak memory and time of reading hostile or extreme single inputs (issue 22: ≤ 1 GB RSS for any input).

Run: ``python bench/hostile_inputs.py``. Each input is built in a temporary folder, then parsed and
chunked (what ingest does before embedding) in a fresh child process; the child's own peak resident
memory (VmHWM) and wall time are printed with the outcome. Embedding is left out: its memory does not
depend on the input's size (batches of 16 passages).
"""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import tempfile
import zipfile
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


if __name__ == "__main__":
    sys.exit(main())
