"""Parsers on real files, and every bad input giving a clear, typed error (SPEC I1)."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pymupdf
import pytest

from biny.core.config import LimitSettings
from biny.core.errors import (
    CorruptDocument,
    DocumentTooLarge,
    EmptyDocument,
    EncryptedDocument,
    ParserCrashed,
    UnsupportedFormat,
)
from biny.core.ingest import parse_file
from biny.core.ingest.pdf import join_lines
from tests.conftest import corpus

LIMITS = LimitSettings(parse_timeout_s=60)


def test_markdown_law_keeps_articles_title_and_headings() -> None:
    doc = parse_file(corpus("cn_laws", "民法典__继承编.md"), LIMITS)
    assert doc.title == "中华人民共和国民法典 继承编"
    assert doc.kind == "markdown"
    texts = [b.text for b in doc.blocks]
    assert any(t.startswith("第一千一百二十三条") for t in texts)
    assert all("INFO END" not in t for t in texts)  # HTML comments are not content
    assert any(b.heading_level == 2 and "法定继承" in b.text for b in doc.blocks)


def test_rst_pep_title_from_header_block() -> None:
    doc = parse_file(corpus("python_peps", "pep-0484.rst"), LIMITS)
    assert doc.title == "PEP 484 – Type Hints"
    assert any(b.heading_level and b.text == "Abstract" for b in doc.blocks)


@pytest.mark.parametrize("encoding", ["gbk", "shift_jis", "utf-16"])
def test_non_utf8_text_is_decoded(tmp_path: Path, encoding: str) -> None:
    text = {
        "gbk": "第十八条 成年人为完全民事行为能力人，可以独立实施民事法律行为。\n\n第二段：合同自成立时生效。",
        "shift_jis": "リセットボタンを十秒間押し続けてください。\n\n設定は消去されます。",
        "utf-16": "Grüße aus Köln — ¥329 per month.\n\nSecond paragraph.",
    }[encoding]
    path = tmp_path / f"{encoding}.txt"
    path.write_bytes(text.encode(encoding))
    doc = parse_file(path, LIMITS)
    assert "\n\n".join(b.text for b in doc.blocks) == text


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    with pytest.raises(EmptyDocument, match="empty"):
        parse_file(path, LIMITS)


def test_whitespace_only_file(tmp_path: Path) -> None:
    path = tmp_path / "blank.md"
    path.write_text("\n\n   \n", encoding="utf-8")
    with pytest.raises(EmptyDocument):
        parse_file(path, LIMITS)


def test_exe_renamed_pdf(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(b"MZ\x90\x00\x03\x00\x00\x00" + bytes(200))
    with pytest.raises(UnsupportedFormat, match="Windows executable"):
        parse_file(path, LIMITS)


def test_random_binary_named_pdf(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes(b"just some text, not a pdf")
    with pytest.raises(UnsupportedFormat, match="PDF header"):
        parse_file(path, LIMITS)


def test_truncated_pdf(tmp_path: Path) -> None:
    src = corpus("pdfs", "NS4150B.pdf").read_bytes()
    path = tmp_path / "truncated.pdf"
    path.write_bytes(src[: len(src) // 2])
    with pytest.raises(CorruptDocument, match=r"truncated|damaged|cannot be opened"):
        parse_file(path, LIMITS)


def test_pdf_with_real_password(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Confidential board minutes")
    path = tmp_path / "locked.pdf"
    doc.save(str(path), encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="s3cret", owner_pw="owner")
    doc.close()
    with pytest.raises(EncryptedDocument, match="password"):
        parse_file(path, LIMITS)


def test_pdf_encrypted_with_empty_user_password_opens() -> None:
    doc = parse_file(corpus("pdfs", "CH32V00x Evaluation Board Reference-EN.pdf"), LIMITS)
    assert doc.pages > 0
    assert sum(len(b.text) for b in doc.blocks) > 500


def test_pdf_text_layer_pages_and_cjk() -> None:
    doc = parse_file(corpus("pdfs", "CH32V00x评估板说明书.pdf"), LIMITS)
    assert doc.kind == "pdf"
    assert {b.page for b in doc.blocks} <= set(range(1, doc.pages + 1))
    joined = "".join(b.text for b in doc.blocks)
    assert "评估板" in joined


def test_pdf_parse_time_limit(tmp_path: Path) -> None:
    with pytest.raises(ParserCrashed, match="longer than"):
        parse_file(corpus("pdfs", "redp5110_sampled.pdf"), LimitSettings(parse_timeout_s=0))


def test_pdf_page_limit() -> None:
    with pytest.raises(DocumentTooLarge, match="pages"):
        parse_file(corpus("pdfs", "redp5110_sampled.pdf"), LimitSettings(max_pages=2))


def test_join_lines_cjk_latin_and_hyphens() -> None:
    assert join_lines(["中华人民", "共和国"]) == "中华人民共和国"
    assert join_lines(["inter-", "national law"]) == "international law"
    assert join_lines(["two", "lines"]) == "two lines"


def _docx_with_member(path: Path, member: str, data: bytes) -> None:
    template = corpus("docx", "word_sample.docx").read_bytes()
    with zipfile.ZipFile(io.BytesIO(template)) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            dst.writestr(item, src.read(item.filename))
        dst.writestr(member, data)


def test_docx_zip_bomb(tmp_path: Path) -> None:
    path = tmp_path / "bomb.docx"
    _docx_with_member(path, "word/media/filler.bin", bytes(60 * 1024 * 1024))
    assert path.stat().st_size < 1024 * 1024  # tiny on disk, huge unpacked
    with pytest.raises(DocumentTooLarge, match="zip bomb"):
        parse_file(path, LIMITS)


def test_docx_total_unzipped_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.docx"
    _docx_with_member(path, "word/media/filler.bin", bytes(3 * 1024 * 1024))
    with pytest.raises(DocumentTooLarge, match="expands to"):
        parse_file(path, LimitSettings(max_unzipped_mb=2))


def test_docx_paragraphs_and_tables_in_order() -> None:
    doc = parse_file(corpus("docx", "word_sample.docx"), LIMITS)
    assert doc.kind == "docx"
    assert doc.blocks
    tables = [b for b in doc.blocks if " | " in b.text]
    assert tables, "table rows are kept as lines"


def test_damaged_docx(tmp_path: Path) -> None:
    path = tmp_path / "broken.docx"
    path.write_bytes(corpus("docx", "word_sample.docx").read_bytes()[:3000])
    with pytest.raises((UnsupportedFormat, CorruptDocument)):
        parse_file(path, LIMITS)


def test_html_main_text_not_menus() -> None:
    folder = corpus("html_pages", "readability", "mozilla-1")
    doc = parse_file(folder / "source.html", LIMITS)
    text = "\n".join(b.text for b in doc.blocks)
    assert doc.kind == "html"
    assert "Firefox" in text
    # Navigation/footer boilerplate of the saved page stays out.
    assert "Skip to main content" not in text
    assert len(text) < len((folder / "source.html").read_text(encoding="utf-8")) / 4


def test_excel_refused_with_advice(tmp_path: Path) -> None:
    path = tmp_path / "sheet.docx"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("xl/workbook.xml", "<workbook/>")
    with pytest.raises(UnsupportedFormat, match="Excel"):
        parse_file(path, LIMITS)


def test_html_inside_markdown_is_stored_as_its_text() -> None:
    """Issue 55: passages are clean text. FastAPI's front page carries a tab widget in HTML; it was stored — and
    given as an answer — as ``<button class="fastapi-opinions__tab" …>``. Its words stay, its tags go; code keeps
    its tags as written; a heading's attribute list ("{ #opinions }") is an anchor, not words."""
    doc = parse_file(corpus("fastapi_docs", "en", "index.md"), LIMITS)
    text = "\n".join(b.text for b in doc.blocks)
    assert "<button" not in text and "fastapi-opinions__tab" not in text and "<strong>" not in text
    assert "ML services at Microsoft" in text  # the quote's words stay
    assert "Opinions" in [b.text for b in doc.blocks if b.heading_level]
    from biny.core.ingest.text import markdown_without_html

    kept = markdown_without_html("Use `<b>x</b>` here.\n```html\n<div>kept</div>\n```\nA <https://x.org> link, a < b.")
    assert kept == "Use `<b>x</b>` here.\n```html\n<div>kept</div>\n```\nA <https://x.org> link, a < b."


def test_a_docs_sites_includes_and_block_fences_are_no_text() -> None:
    """Issue 55: half of FastAPI's passages carried "{* ../../docs_src/… *}" includes and "/// tip" fences, and one
    was given as an answer. An include goes; a fence goes but for its title; code keeps them as written."""
    doc = parse_file(corpus("fastapi_docs", "en", "tutorial__handling-errors.md"), LIMITS)
    text = "\n".join(b.text for b in doc.blocks)
    assert "{*" not in text and "docs_src" not in text and not re.search(r"^/{3,}", text, re.M)
    assert "Technical Details" in text  # "/// note | Technical Details": the title is the block's first words
    from biny.core.ingest.text import markdown_without_html

    src = ('/// tip\n\nA tip.\n\n///\n\n!!! warning "Mind the gap"\n    Body.\n\n--8<-- "part.md"\n\n'
           '```text\n/// in code\n{* in code *}\n```\nA path a/b///c stays.')
    assert markdown_without_html(src) == ("\nA tip.\n\n\nMind the gap\n    Body.\n\n\n"
                                          "```text\n/// in code\n{* in code *}\n```\nA path a/b///c stays.")
