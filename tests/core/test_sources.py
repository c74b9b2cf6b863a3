"""Citations you can check (issue 61): a cited passage at its place in its source.

Real LanceDB/DuckDB, the real bundled model, the shared PDFs: every rectangle the source view gives is read back
with PyMuPDF's own text extraction inside it and compared with the cited passage.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

import pymupdf
import pytest

from biny.core.engine import Engine
from biny.core.ingest.locate import normalise, text_pieces
from tests.conftest import corpus

# zh, en and ja PDFs of the shared corpora (its manifest describes them): small enough to ingest in well under a
# minute together.
PDFS = ["CH32V00x Evaluation Board Reference-EN.pdf", "CH32V00x评估板说明书.pdf", "kampo.pdf"]


def _files(tmp_path: Path, names: list[str]) -> list[Path]:
    out = []
    for name in names:
        dst = tmp_path / "src" / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(corpus("pdfs", name).read_bytes())
        out.append(dst)
    return out


def _in_order(found: str, wanted: str) -> int:
    """How many characters of ``wanted`` appear, in order, in ``found``."""
    return sum(m.size for m in difflib.SequenceMatcher(None, found, wanted, autojunk=False).get_matching_blocks())


def _inside(path: str, rects: dict[int, list[tuple[float, float, float, float]]]) -> str:
    with pymupdf.open(path) as doc:
        if doc.needs_pass:
            doc.authenticate("")
        return "".join(doc[p - 1].get_textbox(pymupdf.Rect(r)) for p, rs in sorted(rects.items()) for r in rs)


def _question(text: str) -> str:
    """A question made of a passage's longest line (what a reader would ask it about)."""
    lines = sorted((ln.strip() for ln in text.split("\n") if ln.strip()), key=len, reverse=True)
    return lines[0][:80]


@pytest.fixture(scope="module")
def pdf_space(tmp_path_factory: pytest.TempPathFactory) -> Engine:  # type: ignore[misc]
    from biny.core.config import Settings
    from tests.conftest import CountingEmbedder

    tmp = tmp_path_factory.mktemp("sources")
    settings = Settings()
    settings.limits.parse_timeout_s = 120
    settings.visual.read_figures = False  # a figure's reading is text of an image: it has no place on the page
    engine = Engine.open(tmp / "home", settings=settings, embedder=CountingEmbedder())
    engine.create_space("pdfs")
    report = engine.ingest("pdfs", _files(tmp, PDFS))
    assert report.ok, [f.message for f in report.files]
    yield engine
    engine.close()


def test_twenty_cited_answers_are_highlighted_where_their_text_is(pdf_space: Engine) -> None:
    engine = pdf_space
    docs = engine.documents("pdfs")
    chunks = {d.doc_id: engine.document_chunks("pdfs", d.doc_id) for d in docs}
    seen: list[tuple[str, str]] = []
    # Round the documents, a question from each passage in turn, until 20 distinct passages are cited (every
    # citation of an answer counts).
    for n in range(max(len(c) for c in chunks.values())):
        for doc in docs:
            if n >= len(chunks[doc.doc_id]) or len(seen) >= 20:
                continue
            result = engine.answer("pdfs", _question(chunks[doc.doc_id][n].text))
            assert result.answer is not None
            seen += [(c.document, c.chunk_id) for c in result.answer.citations
                     if (c.document, c.chunk_id) not in seen]
    assert len(seen) >= 20
    recalls = []
    languages = set()
    for title, chunk_id in seen:
        view = engine.source("pdfs", chunk_id)
        languages.add("ja" if "kampo" in view.path else "zh" if re.search(r"[\u4e00-\u9fff]", view.text) else "en")
        assert view.kind == "pdf" and view.present and view.page is not None
        assert view.rects, (title, view.page)
        assert view.rect_page in view.page_sizes
        wanted = "".join(text_pieces(view.text))
        found = normalise(_inside(view.path, view.rects))
        recall = _in_order(found, wanted) / len(wanted)
        precision = _in_order(wanted, found) / max(1, len(found))
        recalls.append(recall)
        # The rectangles hold the cited text, and little else (vertical Japanese pulls in some neighbours).
        assert recall >= 0.75, (title, view.page, recall, view.text[:200])
        assert precision >= 0.7, (title, view.page, precision)
        assert abs(recall - view.coverage) < 0.1 if view.coverage is not None else False
    assert sum(recalls) / len(recalls) >= 0.9
    assert languages == {"zh", "en", "ja"}


def test_the_view_gives_the_surrounding_text_and_writes_nothing(pdf_space: Engine) -> None:
    engine = pdf_space
    doc = next(d for d in engine.documents("pdfs") if "EN" in Path(d.path).name)
    chunks = engine.document_chunks("pdfs", doc.doc_id)
    mid = chunks[len(chunks) // 2]

    def snapshot() -> dict[str, tuple[int, int]]:
        return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in engine.home.rglob("*") if p.is_file()
                and "logs" not in p.parts}

    before = snapshot()
    view = engine.source(None, mid.chunk_id[:10])  # a prefix, every space looked in
    assert snapshot() == before  # opened in memory: nothing written (the space is encrypted)
    assert engine.space("pdfs").encrypted
    assert view.chunk_id == mid.chunk_id and view.text == mid.text
    assert view.span == (mid.char_start, mid.char_end)
    prev, nxt = chunks[len(chunks) // 2 - 1], chunks[len(chunks) // 2 + 1]
    # The text before the span ends as the passage before it does, unless the two overlap past it.
    assert view.before and (prev.text.endswith(view.before[-50:]) or view.before[-50:] in prev.text + mid.text)
    assert view.after and view.after[:50] in nxt.text
    data = view.to_dict()
    assert data["char_start"] == mid.char_start and data["rects"] and data["page"] == mid.page


def test_a_changed_original_is_said_and_not_placed(pdf_space: Engine, tmp_path: Path) -> None:
    engine = pdf_space  # the module's engine (no model loaded again), a space and a copy of its own
    engine.create_space("one", encrypted=False)
    (path,) = _files(tmp_path, ["kampo.pdf"])
    engine.ingest("one", [path])
    doc = engine.documents("one")[0]
    chunk = engine.document_chunks("one", doc.doc_id)[0]
    assert engine.source("one", chunk.chunk_id).rects
    os.chmod(path, 0o644)
    path.write_bytes(path.read_bytes() + b"\n% changed\n")
    view = engine.source("one", chunk.chunk_id)
    assert not view.present and not view.rects and view.text == chunk.text
    path.unlink()
    assert not engine.source("one", chunk.chunk_id).present


def test_a_table_row_shows_its_fields(pdf_space: Engine, tmp_path: Path) -> None:
    engine = pdf_space
    engine.create_space("rows")
    table = tmp_path / "parts.csv"
    table.write_text("name,price,stock\nwidget,12.50,7\ngadget,3.20,0\n", encoding="utf-8")
    engine.ingest("rows", [table])
    doc = next(d for d in engine.documents("rows") if d.title == "gadget")
    chunk = engine.document_chunks("rows", doc.doc_id)[0]
    view = engine.source("rows", chunk.chunk_id)
    assert view.kind == "row"
    assert ("price", "3.20") in view.fields and ("name", "gadget") in view.fields


SCANNED = ["Orbital survey report. The Kestrel probe mapped eleven craters near the southern basin.",
           "Fuel ledger. Tanks held nine hundred litres of hydrazine after the third burn.",
           "Crew roster. Commander Dana Whitfield relieved pilot Osei Mensah in October.",
           "Archive note. Telemetry tapes are filed under code ST-0042-MAR in vault seven."]


def _scanned_pdf(path: Path) -> pymupdf.Document:
    """A one-page 'scan': paragraphs drawn as text on a page, the page rendered to an image, the image the only
    content of the saved page. The text page is returned: it knows where each word was drawn."""
    text = pymupdf.open()
    page = text.new_page(width=612, height=380)  # no bigger than the paragraphs: OCR time grows with the pixels
    for n, para in enumerate(SCANNED):
        assert page.insert_textbox(pymupdf.Rect(72, 80 + 70 * n, 523, 140 + 70 * n), para, fontsize=13) >= 0
    scan = pymupdf.open()
    img = scan.new_page(width=page.rect.width, height=page.rect.height)
    img.insert_image(img.rect, stream=page.get_pixmap(dpi=200, alpha=False).tobytes("png"))
    scan.save(path)
    return text


def test_a_scanned_page_places_the_cited_words_on_its_ocr_lines(pdf_space: Engine, tmp_path: Path) -> None:
    engine = pdf_space
    src = tmp_path / "scanned-report.pdf"
    drawn = _scanned_pdf(src)[0]
    assert not pymupdf.open(src)[0].get_text().strip()  # no text layer: only OCR reads it
    chunking = engine.settings.chunking
    was = chunking.target_tokens, chunking.overlap_tokens
    chunking.target_tokens, chunking.overlap_tokens = 30, 0  # a passage a paragraph
    try:
        engine.create_space("scan")  # encrypted: the kept OCR lines are sealed
        assert engine.ingest("scan", [src]).ok
    finally:
        chunking.target_tokens, chunking.overlap_tokens = was
    doc = engine.documents("scan")[0]
    assert doc.pages_ocr == 1
    chunks = engine.document_chunks("scan", doc.doc_id)
    target = next((c for c in chunks if "hydrazine" in c.text), None)
    assert target is not None, [c.text for c in chunks]
    view = engine.source("scan", target.chunk_id)
    assert view.scanned and view.words.get(1) and view.rects.get(1), view.to_dict()
    assert view.coverage is not None and view.coverage >= 0.9
    read = " ".join(w[4] for w in view.words[1])
    assert "hydrazine" in read and "Whitfield" in read  # the page's words, as OCR read them, with their boxes
    # A word drawn once on the page is covered by a highlighted rectangle exactly when the passage holds it.
    cited = set(re.findall(r"\w+", target.text.casefold()))
    rects = [pymupdf.Rect(x0 - 2, y0 - 2, x1 + 2, y1 + 2) for x0, y0, x1, y1 in view.rects[1]]
    inside = outside = hits = misses = 0
    drawn_words = [(*w[:4], re.sub(r"\W", "", w[4].casefold())) for w in drawn.get_text("words")]
    once = {k for k in (w[4] for w in drawn_words) if [v[4] for v in drawn_words].count(k) == 1}
    for x0, y0, x1, y1, key in drawn_words:
        if key not in once:
            continue
        centre = pymupdf.Point((x0 + x1) / 2, (y0 + y1) / 2)
        covered = any(centre in r for r in rects)
        if key in cited:
            inside += 1
            hits += covered
        else:
            outside += 1
            misses += covered
    assert inside and hits / inside >= 0.9, (hits, inside)
    assert outside >= 20 and misses / outside <= 0.1, (misses, outside)
    data = view.to_dict()
    assert data["words"]["1"] and data["rects"]["1"]
    # Sealed: neither the catalog file nor any other file of the folder holds a word OCR read from the page.
    assert not any(b"Whitfield" in p.read_bytes() for p in engine.home.rglob("*") if p.is_file())
