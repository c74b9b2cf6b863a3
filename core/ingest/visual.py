"""What is drawn on a PDF page: scanned pages, figures, decorations (SPEC I2, I3, I5).

Runs inside the PDF parser's child process (MuPDF is fed untrusted bytes). For every page
it decides, from measurements rather than assumptions:

- **scan** — the page has ink but no usable text layer: no text, too little text for a page
  covered by a raster, or a layer that is mostly garbled. The whole page is read.
- **figure** — the page has a usable text layer *and* a real figure: a raster of some size, a
  montage of small rasters, or a vector drawing with many curves/diagonals (tables are ruled
  with axis-aligned lines only and are already text). One region per page: the union of its
  figure elements, so calls per document never exceed the pages that carry information.
- **decoration** — an image drawn on many pages (same bytes, or the same perceptual hash), and
  vector frames repeated on many pages: never a figure, counted per page where it was skipped.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# A figure needs this much: raster share of the page, or curve/diagonal segments in vector paths.
MIN_RASTER_SHARE = 0.03
MIN_RASTER_PX = 64
MIN_VECTOR_SEGMENTS = 30
MIN_MONTAGE_IMAGES = 4
MIN_MONTAGE_SHARE = 0.05
# A page with fewer usable characters than this and ink on it is a scan.
MIN_TEXT_CHARS = 20
# A page mostly covered by one raster with little text is a scan with a stray text line (a stamp).
SCAN_RASTER_SHARE = 0.6
SCAN_RASTER_MAX_CHARS = 200
GARBLED_SHARE = 0.3
PHASH_DISTANCE = 4  # bits of 64: near-identical copies of one logo, re-encoded or rescaled
MAX_PHASH_PIXELS = 1_000_000
# Pictures are decoded at most this large (≈12 MB as RGB; OCR reads at ≤ 2000 px a side anyway). A
# 39 KB DOCX holding one 110-megapixel one-colour PNG took 1 GB to open before (issue 22).
MAX_DECODE_PIXELS = 4_000_000
# Above this a picture that cannot be decoded at reduced size (only JPEG can) is not read at all.
MAX_PICTURE_PIXELS = 40_000_000
_CAPTION = re.compile(
    r"^\s*(?:fig(?:ure)?\.?|table|图|圖|図|表|插图|abbildung|tableau)\s*[\dA-Za-z一二三四五六七八九十]", re.I)


def mupdf() -> Any:
    """PyMuPDF, imported where it is used (child processes) and typed as Any: it ships no type hints."""
    import pymupdf

    return pymupdf


@dataclass(slots=True)
class VisualSpec:
    """One thing to read: a page (``kind`` scan) or a region of one (``kind`` figure).

    ``clip`` is (x0, y0, x1, y1) in PDF points, ``None`` for the whole page. ``image`` carries
    the bytes for sources without pages (DOCX). ``after_block`` is the index of the block the
    reading is inserted after (-1: before the first block of the page).
    """

    page: int
    kind: str
    clip: tuple[float, float, float, float] | None = None
    context: str = ""
    after_block: int = -1
    image: bytes | None = None


@dataclass(slots=True)
class VisualPlan:
    specs: list[VisualSpec] = field(default_factory=list)
    decorations: list[int] = field(default_factory=list)  # one entry per (page, decoration) skipped
    blank_pages: list[int] = field(default_factory=list)
    garbled_pages: list[int] = field(default_factory=list)


def decoration_threshold(page_count: int) -> int:
    """Pages an object must appear on to be decoration: 3, or 2 in documents of up to 4 pages."""
    return 2 if page_count <= 4 else 3


def frame_threshold(page_count: int) -> int:
    """Vector paths and text lines count as a running frame/header only on half the pages or more:
    a ruled table continued over three pages repeats its lines too, and is content."""
    return max(decoration_threshold(page_count), (page_count + 1) // 2)


def running_lines(page_blocks: list[list[tuple[Any, str]]], heights: list[float]) -> set[tuple[int, int]]:
    """(page index, block index) of repeats of running headers and footers: a block in the top or bottom tenth of
    its page whose text, digits aside, recurs there on half the pages or more ("ISO/IEC 29500-2:2012(E)",
    "© ISO/IEC 2012 – All rights reserved", "Page 3 of 40")."""
    need = frame_threshold(len(page_blocks))
    seen: dict[str, set[int]] = defaultdict(set)
    keyed: list[tuple[int, int, str]] = []
    for pno, blocks in enumerate(page_blocks):
        h = heights[pno]
        for i, (rect, text) in enumerate(blocks):
            if rect.y1 <= 0.1 * h or rect.y0 >= 0.9 * h:
                # Page numbers (arabic or roman) out entirely — they sit before the text on even pages and
                # after it on odd ones — and spacing too ("©ISO" on one page, "© ISO" on the next).
                key = "".join(re.sub(r"\d+|\b[ivxlc]+\b", "", text.casefold()).split())
                seen[key].add(pno)
                keyed.append((pno, i, key))
    # The first occurrence stays: a title block's maker line or a standard's number is indexed once.
    return {(pno, i) for pno, i, key in keyed
            if len(seen[key]) >= need and len(page_blocks) >= 3 and pno != min(seen[key])}


def open_bounded(blob: bytes, max_pixels: int = MAX_DECODE_PIXELS) -> Any:
    """A Pillow image of ``blob`` that decodes to at most ``max_pixels``, or None.

    The size is read from the header without decoding. JPEG decodes at 1/2–1/8 scale directly
    (``draft``); a larger picture of another format is scaled down after decoding only when its
    full decode stays under ``MAX_PICTURE_PIXELS``, else refused (None). Undecodable bytes → None.
    """
    import io
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # measured and bounded below
            img: Any = Image.open(io.BytesIO(blob))
        w, h = img.size
        if w * h > max_pixels and img.format == "JPEG":
            scale = (max_pixels / (w * h)) ** 0.5
            img.draft("RGB", (max(1, int(w * scale)), max(1, int(h * scale))))
            w, h = img.size
        if w * h > MAX_PICTURE_PIXELS:
            return None
        img.load()
        if w * h > max_pixels:
            scale = (max_pixels / (w * h)) ** 0.5
            img = img.resize((max(1, int(w * scale)), max(1, int(h * scale))))
        return img
    except Exception:  # noqa: BLE001 — EMF/WMF, damaged or hostile bytes: not readable here
        return None


def picture_header(blob: bytes) -> tuple[int, int, str] | None:
    """Width, height and format from a picture's header (nothing decoded); None if unreadable (EMF/WMF, damage)."""
    import io
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # sizes are bounded by the caller
            with Image.open(io.BytesIO(blob)) as img:
                return img.size[0], img.size[1], str(img.format or "")
    except Exception:  # noqa: BLE001 — undecodable bytes
        return None


def picture_fits(blob: bytes) -> bool:
    """Can ``open_bounded`` decode this picture? From its header only (JPEG decodes at up to 1/8 scale)."""
    head = picture_header(blob)
    if head is None:
        return False
    w, h, fmt = head
    return w * h <= MAX_PICTURE_PIXELS or (fmt == "JPEG" and w * h <= 64 * MAX_PICTURE_PIXELS)


def phash64(img: Any) -> int:
    """A picture's 64-bit perceptual hash (DCT; imagehash) as an integer, for vectorised comparison."""
    import imagehash

    bits = np.asarray(imagehash.phash(img).hash, dtype=np.uint8).reshape(-1)
    return int(np.packbits(bits).view(">u8")[0])


def group_by_hash(hashes: dict[Any, int], max_distance: int = PHASH_DISTANCE) -> dict[Any, int]:
    """Key → group id, joining keys whose perceptual hashes differ in at most ``max_distance`` bits.

    Union-find over one vectorised Hamming row per key: a catalogue with thousands of distinct
    pictures stays a fraction of a second."""

    keys = list(hashes)
    values = np.asarray([hashes[k] for k in keys], dtype=np.uint64)
    parent = list(range(len(keys)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(keys) - 1):
        xor = np.bitwise_xor(values[i + 1:], values[i])
        distance = np.unpackbits(xor.view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1)
        for j in np.nonzero(distance <= max_distance)[0]:
            parent[root(i + 1 + int(j))] = root(i)
    return {k: root(i) for i, k in enumerate(keys)}


def _phash(doc: Any, xref: int) -> int | None:
    from PIL import Image

    pymupdf = mupdf()
    try:
        pix = pymupdf.Pixmap(doc, xref)
        if pix.n - pix.alpha >= 4 or pix.alpha:
            pix = pymupdf.Pixmap(pymupdf.csRGB, pix)
        mode = "L" if pix.n == 1 else "RGB"
        return phash64(Image.frombytes(mode, (pix.width, pix.height), pix.samples))
    except Exception:  # noqa: BLE001 — an undecodable image is simply not grouped
        return None


def _image_groups(doc: Any, infos: list[list[dict[str, Any]]]) -> dict[Any, set[int]]:
    """Group id → pages, for images identical by bytes or near-identical by perceptual hash."""
    by_digest: dict[bytes, set[int]] = defaultdict(set)
    xref_of: dict[bytes, int] = {}
    for pno, page_infos in enumerate(infos):
        for info in page_infos:
            key = info.get("digest") or bytes(str(info.get("xref")), "ascii")
            by_digest[key].add(pno)
            # Logos and banners are small; decoding a page-sized scan just to hash it would cost more
            # than the page's OCR. Large pictures are grouped by identical bytes only.
            if info["width"] * info["height"] <= MAX_PHASH_PIXELS:
                xref_of.setdefault(key, int(info.get("xref") or 0))
    hashes = {k: h for k, x in xref_of.items() if x > 0 and (h := _phash(doc, x)) is not None}
    gid = group_by_hash(hashes)
    group_pages: dict[Any, set[int]] = defaultdict(set)
    for key, on in by_digest.items():
        group_pages[gid.get(key, key)] |= on
    return {key: group_pages[gid.get(key, key)] for key in by_digest}


def _segments(paths: list[dict[str, Any]]) -> int:
    """Curve and diagonal segments: what a drawing has and a ruled table has not."""
    n = 0
    for path in paths:
        for item in path["items"]:
            if item[0] == "c":
                n += 1
            elif item[0] == "l":
                a, b = item[1], item[2]
                if abs(a.x - b.x) >= 0.5 and abs(a.y - b.y) >= 0.5:
                    n += 1
    return n


def _path_key(path: dict[str, Any]) -> tuple[Any, ...]:
    r = path["rect"]
    return (round(r.x0), round(r.y0), round(r.x1), round(r.y1), len(path["items"]), path.get("type"))


def _union(rects: list[Any]) -> Any:
    pymupdf = mupdf()

    out = pymupdf.Rect()
    for r in rects:
        out |= r
    return out


def _has_ink(page: Any) -> bool:
    """Does a page without text show anything? A small grey render, dark pixel share ≥ 0.5%."""
    pymupdf = mupdf()


    pix = page.get_pixmap(dpi=24, colorspace=pymupdf.csGRAY)
    samples = np.frombuffer(pix.samples, dtype=np.uint8)
    return int((samples < 200).sum()) >= 0.005 * max(1, samples.size)


def _context(blocks: list[tuple[Any, str]], clip: Any) -> str:
    """Caption and nearby text of a figure, for the vision prompt (captions first)."""
    captions = [t for r, t in blocks if _CAPTION.match(t)]
    near = sorted(blocks, key=lambda b: min(abs(b[0].y1 - clip.y0), abs(b[0].y0 - clip.y1)))
    parts = captions[:2] + [t for _, t in near[:3] if t not in captions[:2]]
    return "\n".join(p[:300] for p in parts)[:900]


def _rasters(page: Any, infos: list[dict[str, Any]], groups: dict[Any, Any], need: int
             ) -> tuple[list[Any], float, int]:
    """A page's raster images: the figure regions (large images, or a montage of small ones), the largest share of
    the page one covers, and how many decorations it holds (images repeated on ``need`` pages or more)."""
    pymupdf = mupdf()
    area = max(1.0, abs(page.rect))
    figure_rects: list[Any] = []
    small = []
    raster_cover = 0.0
    decorated = 0
    for info in infos:
        key = info.get("digest") or bytes(str(info.get("xref")), "ascii")
        rect = pymupdf.Rect(info["bbox"]) & page.rect
        if len(groups.get(key, ())) >= need:
            decorated += 1
            continue
        share = abs(rect) / area
        raster_cover = max(raster_cover, share)
        if share >= MIN_RASTER_SHARE and min(info["width"], info["height"]) >= MIN_RASTER_PX:
            figure_rects.append(rect)
        elif abs(rect) > 0:
            small.append(rect)
    if len(small) >= MIN_MONTAGE_IMAGES and abs(_union(small)) / area >= MIN_MONTAGE_SHARE:
        figure_rects.append(_union(small))
    return figure_rects, raster_cover, decorated


def plan_pages(doc: Any, page_blocks: list[list[tuple[Any, str]]], garbled: list[int]) -> VisualPlan:
    """Decide what to read on each page. ``page_blocks`` are (rect, text) per page, after repair;
    ``garbled`` the characters per page that could not be repaired."""
    pymupdf = mupdf()

    count = doc.page_count
    need = decoration_threshold(count)
    need_frame = frame_threshold(count)
    infos = [page.get_image_info(xrefs=True, hashes=True) for page in doc]
    groups = _image_groups(doc, infos)
    drawings = [page.get_drawings() for page in doc]
    path_pages: dict[tuple[Any, ...], set[int]] = defaultdict(set)
    for pno, paths in enumerate(drawings):
        for path in paths:
            path_pages[_path_key(path)].add(pno)
    plan = VisualPlan()
    block_index = 0
    for pno, page in enumerate(doc):
        blocks = page_blocks[pno]
        first_block = block_index
        block_index += len(blocks)
        chars = sum(len(t.strip()) for _, t in blocks)
        figure_rects, raster_cover, decorated = _rasters(page, infos[pno], groups, need)
        plan.decorations += [pno + 1] * decorated
        own = [p for p in drawings[pno] if len(path_pages[_path_key(p)]) < need_frame]
        if len(own) < len(drawings[pno]) and not decorated:
            plan.decorations.append(pno + 1)  # a repeated vector frame, skipped once per page
        if _segments(own) >= MIN_VECTOR_SEGMENTS:
            # The region is where the curves and diagonals are, not every ruled line of the page.
            figure_rects.append(_union([p["rect"] for p in own if _segments([p])]) & page.rect)
        if garbled[pno] >= GARBLED_SHARE * max(1, chars):
            plan.garbled_pages.append(pno + 1)
        # Ink that is not decoration: a non-repeated raster or drawing, or (a page with neither) dark pixels.
        bare = not infos[pno] and not drawings[pno]
        # A ruled grid (axis-aligned lines only) is not text waiting to be read; curves may be outlined text.
        inked = raster_cover > 0 or _segments(own) > 0 or (bare and _has_ink(page))
        scan = (chars < MIN_TEXT_CHARS and inked) or (
            raster_cover >= SCAN_RASTER_SHARE and chars < SCAN_RASTER_MAX_CHARS) or pno + 1 in plan.garbled_pages
        if scan:
            plan.specs.append(VisualSpec(pno + 1, "scan", None, "", first_block - 1))
        elif chars < MIN_TEXT_CHARS:
            plan.blank_pages.append(pno + 1)
        elif figure_rects:
            u = _union(figure_rects)
            clip = pymupdf.Rect(u.x0 - 12, u.y0 - 12, u.x1 + 12, u.y1 + 12) & page.rect  # labels at the edges
            above = [i for i, (r, _) in enumerate(blocks) if r.y1 <= clip.y1]
            after = first_block + (above[-1] if above else -1)
            plan.specs.append(VisualSpec(pno + 1, "figure", (clip.x0, clip.y0, clip.x1, clip.y1),
                                         _context(blocks, clip), after))
    return plan
