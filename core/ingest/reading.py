"""Reading what is drawn: a vision model when one is configured, else local OCR (SPEC I2–I4).

The reader is a protocol with two implementations behind one call, ``VisualReader.read``:

- a configured vision model (``visual.vision_model`` on ``llm.base_url``) gets the rendered page
  or figure with its caption and nearby text in the prompt; a model that fails falls back to
  OCR for that item, and the document's warnings say so;
- local OCR runs in a child process (rendering and OCR both touch untrusted bytes) with a time
  limit per page; progress is reported per page.

One call per spec, and specs are at most one per page (visual.plan_pages), so the calls per
document never exceed its information-bearing pages (the cost guard).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from biny.core.document import Block, ParsedDocument
from biny.core.errors import DocumentError
from biny.core.i18n import t
from biny.core.ingest.child import spawned
from biny.core.ingest.lines import join_lines
from biny.core.ingest.ocr import engine_available
from biny.core.ingest.visual import VisualSpec, mupdf
from biny.core.llm.base import ChatModel, LLMError, Message

_SCAN_PROMPT = ("Transcribe all text on this page exactly as written, in reading order and in its original "
                "language. Keep numbers, units and names verbatim. Output only the text.")
_FIGURE_PROMPT = ("Describe this figure for a search index in 2–6 sentences, in the language of the nearby text: "
                  "what it shows, then every label, value, axis title and legend entry verbatim. Output only "
                  "the description.")
# Two failed vision calls in a row: the endpoint is down; the rest of the document goes to OCR.
_VISION_GIVE_UP = 2


@dataclass(slots=True)
class ReadResult:
    texts: list[str]
    warnings: list[str] = field(default_factory=list)
    # OCR: each spec's text lines as (x0, y0, x1, y1, text) in PDF points on its page (an image's: none); what
    # the source viewer draws over a scanned page and places a cited span on (issue 61).
    boxes: dict[int, list[tuple[float, float, float, float, str]]] = field(default_factory=dict)
    vision_calls: int = 0
    ocr_calls: int = 0


def _render(doc: Any, spec: tuple[int, Any, bytes | None], dpi: int) -> bytes:
    pymupdf = mupdf()

    page_no, clip, image = spec
    if image is not None:
        return image
    page = doc[page_no - 1]
    rect = pymupdf.Rect(clip) if clip else page.rect
    # Keep the longest side of a rendering at or under ~2000 px: OCR detection works at that size
    # and a poster-sized page must not become a 100-megapixel image.
    scale = min(dpi / 72, 2000 / max(1.0, rect.width, rect.height))
    pix = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), clip=rect, alpha=False)
    return bytes(pix.tobytes("png"))


def _worker(path: str | None, specs: list[tuple[int, Any, bytes | None]], mode: str, engine: str, dpi: int,
            conn: Connection) -> None:
    """Child body: per spec send ("item", i, png | text); then ("done",) or ("error", message)."""
    try:
        from biny.core.ingest.ocr import decode_image, forbid_network, layout_text, make_box_engine

        forbid_network()
        doc = None
        if path is not None:
            pymupdf = mupdf()

            doc = pymupdf.open(path)
            if doc.needs_pass:
                doc.authenticate("")
        read = make_box_engine(engine) if mode == "ocr" else None
        for i, spec in enumerate(specs):
            png = _render(doc, spec, dpi)
            if read is None:
                conn.send(("item", i, png))
                continue
            try:
                image = decode_image(png)
                boxes = read(image)
            except Exception as exc:  # noqa: BLE001 — one unreadable image fails itself, not the document
                image, boxes = None, []
                conn.send(("warn", i, f"{type(exc).__name__}: {exc}"))
            conn.send(("item", i, {"text": layout_text(boxes), "boxes": _in_points(doc, spec, image, boxes)}))
        conn.send(("done",))
    except Exception as exc:  # noqa: BLE001 — report anything to the parent, never die silently
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _in_points(doc: Any, spec: tuple[int, Any, bytes | None], image: Any,
               boxes: list[tuple[float, float, float, float, str]]) -> list[tuple[float, float, float, float, str]]:
    """A rendered page's OCR boxes from the image's pixels to the page's points (a picture's: none, no page)."""
    page_no, clip, picture = spec
    if doc is None or picture is not None or image is None or not boxes:
        return []
    rect = mupdf().Rect(clip) if clip else doc[page_no - 1].rect
    sx, sy = image.shape[1] / max(1.0, rect.width), image.shape[0] / max(1.0, rect.height)
    return [(rect.x0 + x0 / sx, rect.y0 + y0 / sy, rect.x0 + x1 / sx, rect.y0 + y1 / sy, text)
            for x0, y0, x1, y1, text in boxes]


def _run(path: Path | None, specs: list[tuple[int, Any, bytes | None]], mode: str, engine: str, dpi: int,
         timeout_s: float, on_item: Callable[[int, Any], None], on_warn: Callable[[int, str], None]) -> None:
    """Run the child; ``timeout_s`` bounds each page (the first also pays for loading the engine)."""
    with spawned(_worker, str(path) if path else None, specs, mode, engine, dpi) as (proc, conn):
        first = True
        while True:
            if not conn.poll(timeout_s + (60 if first else 0)):
                raise DocumentError(t("reading a page took longer than {timeout_s:.0f} s and was stopped "
                                      "(visual.page_timeout_s)").format(timeout_s=timeout_s))
            first = False
            try:
                msg = conn.recv()
            except EOFError as exc:
                raise DocumentError(t("the OCR process stopped (exit code {exitcode})")
                                    .format(exitcode=proc.exitcode)) from exc
            if msg[0] == "item":
                on_item(msg[1], msg[2])
            elif msg[0] == "warn":
                on_warn(msg[1], msg[2])
            elif msg[0] == "error":
                raise DocumentError(t("OCR failed: {msg}").format(msg=msg[1]))
            else:
                return


@dataclass(slots=True)
class VisualReader:
    engine: str = "rapidocr"
    dpi: int = 150
    page_timeout_s: float = 60.0
    vision: ChatModel | None = None
    vision_timeout_s: float = 60.0
    progress: Callable[[int, int], None] | None = None
    kinds: tuple[str, ...] = ("scan", "figure")  # visual.read_pages / visual.read_figures

    def read(self, source: Path | None, specs: list[VisualSpec]) -> ReadResult:
        """One text per spec ("" when nothing could be read), in order."""
        result = ReadResult([""] * len(specs))
        if not specs:
            return result
        jobs = [(s.page, s.clip, s.image) for s in specs]
        todo = list(range(len(specs)))
        if self.vision is not None:
            todo = self._vision(source, specs, jobs, result)
        if todo:
            self._ocr(source, specs, [jobs[i] for i in todo], todo, result)
        return result

    def _tick(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(done, total)

    def _ocr(self, source: Path | None, specs: list[VisualSpec], jobs: list[tuple[int, Any, bytes | None]],
             index: list[int], result: ReadResult) -> None:
        done = 0

        def item(i: int, read: Any) -> None:
            nonlocal done
            result.texts[index[i]] = str(read["text"])
            if read["boxes"]:
                result.boxes[index[i]] = [tuple(b) for b in read["boxes"]]
            result.ocr_calls += 1
            done += 1
            self._tick(done, len(jobs))

        def warn(i: int, message: str) -> None:
            result.warnings.append(t("{value}: could not be read by OCR ({message})")
                                    .format(value=_where(specs[index[i]]), message=message))

        _run(source, jobs, "ocr", self.engine, self.dpi, self.page_timeout_s, item, warn)

    def _vision(self, source: Path | None, specs: list[VisualSpec], jobs: list[tuple[int, Any, bytes | None]],
                result: ReadResult) -> list[int]:
        """Describe every spec with the model; returns the indices left for OCR."""
        assert self.vision is not None
        failed: list[int] = []
        streak = 0

        def item(i: int, png: Any) -> None:
            nonlocal streak
            spec = specs[i]
            if streak >= _VISION_GIVE_UP:
                failed.append(i)
                return
            prompt = _SCAN_PROMPT if spec.kind == "scan" else _FIGURE_PROMPT
            if spec.context:
                prompt += f"\n\nCaption and nearby text:\n{spec.context}"
            try:
                assert self.vision is not None
                text = self.vision.complete([Message("user", prompt, images=[bytes(png)])], max_tokens=800,
                                            timeout_s=self.vision_timeout_s)
                result.vision_calls += 1
                result.texts[i] = text.strip()
                streak = 0
                self._tick(i + 1, len(specs))
            except LLMError as exc:
                streak += 1
                failed.append(i)
                result.warnings.append(t("{value}: the vision model failed ({detail}); read by local OCR instead")
                                        .format(value=_where(spec), detail=exc))

        _run(source, jobs, "render", self.engine, self.dpi, self.page_timeout_s, item, lambda i, m: None)
        if streak >= _VISION_GIVE_UP and len(failed) > streak:
            result.warnings.append(t("the vision model failed {streak} times in a row; the other {value} item(s) "
                                     "were read by local OCR without asking it")
                                    .format(streak=streak, value=len(failed) - streak))
        return failed


def _where(spec: VisualSpec) -> str:
    return f"page {spec.page}" if spec.image is None else f"image {spec.page}"


def _norm(text: str) -> str:
    return re.sub(r"\W+", "", text).casefold()


def _paragraphs(text: str) -> list[str]:
    return [p for p in (join_lines(part.split("\n")) for part in re.split(r"\n\s*\n", text)) if p]


def add_readings(doc: ParsedDocument, specs: list[VisualSpec], result: ReadResult) -> None:
    """Insert what was read at its place: a scanned page's text replaces that page's (missing or
    garbled) layer; a figure's reading goes after the text above it, marked as figure text. OCR
    lines a figure shares with the page's text layer are dropped (a vector figure's labels are
    usually already text), so nothing is indexed twice."""
    scans = {s.page for s, t in zip(specs, result.texts, strict=True) if s.kind == "scan" and t.strip()}
    inserts: dict[int, list[Block]] = {}
    page_text: dict[int | None, str] = {}
    for b in doc.blocks:
        page_text[b.page] = page_text.get(b.page, "") + _norm(b.text)
    for n, (spec, text) in enumerate(zip(specs, result.texts, strict=True)):
        where = None if spec.image is not None else spec.page
        if not text.strip():
            continue
        if spec.kind == "scan":
            doc.ocr_pages.append(spec.page)
            doc.ocr_boxes[spec.page] = result.boxes.get(n, [])
            inserts.setdefault(spec.after_block, []).extend(Block(p, page=where) for p in _paragraphs(text))
            continue
        doc.figure_pages.append(spec.page)
        known = page_text.get(where, "")
        lines = [ln for ln in text.split("\n") if _norm(ln) and _norm(ln) not in known]
        body = " ".join(_paragraphs("\n".join(lines)))
        if body:
            label = f"Figure (page {spec.page})" if spec.image is None else "Figure"
            inserts.setdefault(spec.after_block, []).append(Block(f"[{label}] {body}", page=where))
    out: list[Block] = list(inserts.get(-1, []))
    for i, block in enumerate(doc.blocks):
        if block.page not in scans:
            out.append(block)
        out.extend(inserts.get(i, []))
    doc.blocks = out
    doc.pages_ocr, doc.figures_described = len(doc.ocr_pages), len(doc.figure_pages)
    doc.warnings.extend(result.warnings)


def read_into(doc: ParsedDocument, source: Path | None, specs: list[VisualSpec], reader: VisualReader | None) -> None:
    """Read the specs the reader is set to read and fold them into ``doc``. A reading that fails
    as a whole (the OCR child stopped, a page over its time limit) leaves the text layer as it is
    and says so: the document still ingests what it has."""
    wanted = [s for s in specs if reader is not None and s.kind in reader.kinds]
    if reader is None or not wanted:
        return
    missing = None if reader.vision is not None else engine_available(reader.engine)
    if missing:
        # A configured engine that is not installed: the text layer is kept and the report says what to do.
        doc.warnings.append(f"{len(wanted)} page(s)/figure(s) were not read: OCR engine {reader.engine!r} is not "
                            f"available ({missing}; or set visual.ocr_engine)")
        return
    try:
        result = reader.read(source, wanted)
    except DocumentError as exc:
        doc.warnings.append(t("{count} page(s)/figure(s) could not be read: {detail}")
                             .format(count=len(wanted), detail=exc))
        return
    add_readings(doc, wanted, result)
