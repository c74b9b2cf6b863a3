"""Local OCR engines, run in a child process with a time limit per page (SPEC I2, I3).

Two engines, chosen by measurement (``bench/ocr.py``; figures in bench/README.md):

- ``rapidocr`` (default): PP-OCR detection + recognition models for Chinese, English and
  Japanese, shipped inside the pip wheel and run by onnxruntime.
- ``tesseract``: Debian's ``tesseract-ocr`` with ``chi_sim``/``jpn``/``eng``, through PyMuPDF.

Neither may reach the network: the child forbids sockets before it loads an engine, so a
library that tried to download a model would fail loudly instead of phoning home.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import numpy as np

from biny.core.i18n import t
from biny.core.ingest.lines import join_lines
from biny.core.ingest.visual import mupdf

ENGINES = ("rapidocr", "tesseract")


class NetworkForbidden(RuntimeError):
    """Raised inside the OCR child on any attempt to open a connection."""


def forbid_network() -> None:
    """Make every outbound connection in this process fail (I2: OCR is offline by construction)."""

    def refuse(*_: Any, **__: Any) -> Any:
        raise NetworkForbidden(t("OCR tried to open a network connection; models must come from the install."))

    socket.socket.connect = refuse  # type: ignore[method-assign]
    socket.socket.connect_ex = refuse  # type: ignore[method-assign]
    socket.getaddrinfo = refuse
    socket.create_connection = refuse


def layout_text(boxes: list[tuple[float, float, float, float, str]]) -> str:
    """Boxes (x0, y0, x1, y1, text) → lines (boxes sharing a baseline band, left to right) →
    paragraphs (split at a vertical gap larger than one line height). Lines stay on their own
    line ("\n") so a caller can compare them with a text layer; paragraphs are split by "\n\n"."""
    items = sorted((b for b in boxes if b[4].strip()), key=lambda b: ((b[1] + b[3]) / 2, b[0]))
    lines: list[list[tuple[float, float, float, float, str]]] = []
    for box in items:
        cy, h = (box[1] + box[3]) / 2, box[3] - box[1]
        if lines:
            last = lines[-1]
            lcy = sum((b[1] + b[3]) / 2 for b in last) / len(last)
            lh = min(b[3] - b[1] for b in last)
            if abs(cy - lcy) <= 0.5 * min(h, lh):
                last.append(box)
                continue
        lines.append([box])
    paragraphs: list[str] = []
    current = ""
    prev_bottom: float | None = None
    heights = sorted(b[3] - b[1] for b in items) or [0.0]
    gap = 1.2 * heights[len(heights) // 2]
    for line in lines:
        line.sort(key=lambda b: b[0])
        text = join_lines([b[4] for b in line])  # left to right; CJK neighbours join without a space
        top = min(b[1] for b in line)
        if prev_bottom is not None and top - prev_bottom > gap and current:
            paragraphs.append(current)
            current = ""
        current = f"{current}\n{text}" if current else text
        prev_bottom = max(b[3] for b in line)
    if current:
        paragraphs.append(current)
    return "\n\n".join(paragraphs)


Box = tuple[float, float, float, float, str]  # x0, y0, x1, y1 in the image's pixels, and the line's text


def _rapidocr() -> Callable[[np.ndarray[Any, Any]], list[Box]]:
    from rapidocr import RapidOCR

    # Models are the ones inside the wheel (Chinese+English+Japanese PP-OCR); no font is needed
    # because nothing is drawn.
    engine = RapidOCR(params={"Global.log_level": "error"})

    def read(image: np.ndarray[Any, Any]) -> list[Box]:
        out: Any = engine(image)
        if out.boxes is None or out.txts is None:
            return []
        boxes = []
        for quad, text in zip(out.boxes, out.txts, strict=False):
            xs, ys = [p[0] for p in quad], [p[1] for p in quad]
            boxes.append((float(min(xs)), float(min(ys)), float(max(xs)), float(max(ys)), str(text)))
        return boxes

    return read


def _tesseract() -> Callable[[np.ndarray[Any, Any]], list[Box]]:
    pymupdf = mupdf()

    langs = "+".join(lang for lang in ("chi_sim", "jpn", "eng") if _has_tessdata(lang))

    def read(image: np.ndarray[Any, Any]) -> list[Box]:
        h, w = image.shape[:2]
        pix = pymupdf.Pixmap(pymupdf.csRGB, w, h, np.ascontiguousarray(image[:, :, :3]).tobytes(), False)
        page = pymupdf.open("pdf", pix.pdfocr_tobytes(language=langs or "eng"))[0]
        sx, sy = w / max(1.0, page.rect.width), h / max(1.0, page.rect.height)  # the OCR page's points → pixels
        return [(b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy, " ".join(b[4].split()))
                for b in page.get_text("blocks") if b[6] == 0]

    return read


def _has_tessdata(lang: str) -> bool:
    import os

    pymupdf = mupdf()

    try:
        return os.path.exists(os.path.join(pymupdf.get_tessdata(), f"{lang}.traineddata"))
    except Exception:  # noqa: BLE001 — no Tesseract installed
        return False


def engine_available(name: str) -> str | None:
    """None if the engine can run here, else what to install."""
    if name == "rapidocr":
        import importlib.util

        # Looked up, not imported: the import (OpenCV, onnxruntime) belongs in the OCR child.
        if importlib.util.find_spec("rapidocr") is None or importlib.util.find_spec("onnxruntime") is None:
            return "pip install rapidocr onnxruntime"
        return None
    if name == "tesseract":
        return None if _has_tessdata("eng") else "apt-get install tesseract-ocr tesseract-ocr-chi-sim tesseract-ocr-jpn"
    return f"unknown OCR engine {name!r}; use one of {', '.join(ENGINES)}"


def make_box_engine(name: str) -> Callable[[np.ndarray[Any, Any]], list[Box]]:
    """The engine's reading of an image as its text lines' boxes (what a scanned page's viewer draws, issue 61)."""
    return _tesseract() if name == "tesseract" else _rapidocr()


def make_engine(name: str) -> Callable[[np.ndarray[Any, Any]], str]:
    """The engine's reading of an image as text: its lines laid out (``layout_text``)."""
    boxes = make_box_engine(name)
    return lambda image: layout_text(boxes(image))


def decode_image(data: bytes) -> np.ndarray[Any, Any]:
    """PNG/JPEG/GIF/BMP/TIFF bytes → RGB array of at most ``MAX_DECODE_PIXELS`` (palette and alpha
    flattened on white). ValueError for a picture that cannot be decoded within bounds."""
    from PIL import Image

    from biny.core.ingest.visual import open_bounded

    img = open_bounded(data)
    if img is None:
        raise ValueError("the picture cannot be decoded within the size limit")
    if img.mode in ("RGBA", "LA", "P"):
        rgba = img.convert("RGBA")
        canvas = Image.new("RGB", rgba.size, "white")
        canvas.paste(rgba, mask=rgba.split()[3])
        return np.asarray(canvas)
    return np.asarray(img.convert("RGB"))