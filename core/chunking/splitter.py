"""Paragraph-preserving chunker measured in tokens (SPEC I6).

Chunks are exact slices of the assembled document text, so a chunk's character
span locates it in the source, and "chunks minus overlaps" reproduce the document.
Paragraphs accumulate up to the target; only a paragraph that alone exceeds the
target is split — at line breaks (list items, table rows), then sentence ends,
then clause marks, then spaces, then characters. The next chunk starts with the
previous chunk's tail (overlap), beginning at a word or sentence boundary.

Re-chunking an edited document keeps the previous revision's boundaries wherever
they still fit (``Prior``): a greedy splitter alone shifts every boundary after an
edit until a paragraph end happens to re-align them, so one edited paragraph would
re-embed several chunks; with the old boundaries preferred, only the chunks holding
the edit change and the rest keep their vectors (issue 23).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from biny.core.chunking.ratio import estimate_tokens
from biny.core.document import Block

Estimator = Callable[[str], float]

PARAGRAPH_SEP = "\n\n"
# A chunk may grow past the target (to stay near it with whole paragraphs) up to this factor.
CEILING_FACTOR = 1.5

# Boundary levels for splitting an oversized paragraph, strongest first.
_LEVELS: list[re.Pattern[str]] = [
    re.compile(r"\n"),
    re.compile(r"(?<=[。！？；!?;\uff01\uff1f\uff1b])|(?<=[.!?])(?=\s)"),
    re.compile(r"(?<=[，、：,:\uff0c\uff1a])|(?<=[)\]）】」』])(?=\s)"),
    re.compile(r"(?<=\s)(?=\S)"),
]
_WORD_START = re.compile(r"(?<=[\s。！？；，、.!?;,:])(?=\S)|(?<=[\u3000-\u9fff\uac00-\ud7af])")


@dataclass(slots=True)
class AssembledText:
    """A parsed document flattened to one string, with where each block landed."""

    text: str
    block_starts: list[int]
    blocks: list[Block]

    def page_at(self, offset: int) -> int | None:
        i = bisect.bisect_right(self.block_starts, offset) - 1
        return self.blocks[max(i, 0)].page if self.blocks else None


def assemble(blocks: list[Block]) -> AssembledText:
    parts: list[str] = []
    starts: list[int] = []
    pos = 0
    kept: list[Block] = []
    for b in blocks:
        text = b.text.strip("\n")
        if not text.strip():
            continue
        if parts:
            parts.append(PARAGRAPH_SEP)
            pos += len(PARAGRAPH_SEP)
        starts.append(pos)
        parts.append(text)
        pos += len(text)
        kept.append(Block(text, b.page, b.heading_level))
    return AssembledText("".join(parts), starts, kept)


@dataclass(slots=True)
class ChunkSpan:
    ordinal: int
    start: int
    end: int
    # Where the chunk's own (non-overlap) content begins; start..body_start is overlap.
    body_start: int
    page: int | None
    page_end: int | None
    heading_path: list[str] = field(default_factory=list)
    est_tokens: float = 0.0


@dataclass(slots=True)
class Prior:
    """The previous revision's chunk boundaries, located in the new text.

    ``ends`` are offsets where an old chunk ended; ``next_start[e]`` is where the old
    chunk after that end starts (its overlap), when that chunk is still present verbatim.
    """

    ends: set[int] = field(default_factory=set)
    next_start: dict[int, int] = field(default_factory=dict)


def align_prior(text: str, old: list[tuple[str, int, int]]) -> Prior:
    """Locate the old chunks ``(text, char_start, char_end)``, in order, in the new ``text``.

    Only chunks found verbatim count (an edited chunk is not found); matching moves
    forward so repeated passages pair in order. The end of the chunk before a found
    one is known from the old offsets: the overlap both shared is inside the found text.
    """
    prior = Prior()
    cursor = 0
    found: list[int | None] = []
    for body, _, _ in old:
        at = text.find(body, cursor) if body else -1
        found.append(at if at >= 0 else None)
        if at >= 0:
            cursor = at + 1
    for k, ((body, start, _), where) in enumerate(zip(old, found, strict=True)):
        if where is None:
            continue
        prior.ends.add(where + len(body))
        if k > 0:
            end = where + (old[k - 1][2] - start)  # the previous chunk's end, shifted like this one
            if 0 < end <= len(text):
                prior.ends.add(end)
                prior.next_start[end] = where
    return prior


@dataclass(slots=True)
class _Unit:
    start: int
    end: int
    heading: bool
    path: tuple[str, ...]
    tokens: float


def _pieces(
    text: str, start: int, end: int, target: float, level: int, est: Estimator
) -> list[tuple[int, int]]:
    """Split text[start:end] into pieces of at most ``target`` estimated tokens."""
    segment = text[start:end]
    if est(segment) <= target:
        return [(start, end)]
    if level >= len(_LEVELS):
        return _hard_cut(text, start, end, target, est)
    cuts = sorted({m.start() for m in _LEVELS[level].finditer(segment)} - {0, len(segment)})
    if not cuts:
        return _pieces(text, start, end, target, level + 1, est)
    bounds = [start, *[start + c for c in cuts], end]
    raw = [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]
    out: list[tuple[int, int]] = []
    cur_s: int | None = None
    cur_e = start
    for s, e in raw:
        if est(text[s:e]) > target:
            if cur_s is not None:
                out.append((cur_s, cur_e))
                cur_s = None
            out.extend(_pieces(text, s, e, target, level + 1, est))
            continue
        if cur_s is None:
            cur_s, cur_e = s, e
        elif est(text[cur_s:e]) <= target:
            cur_e = e
        else:
            out.append((cur_s, cur_e))
            cur_s, cur_e = s, e
    if cur_s is not None:
        out.append((cur_s, cur_e))
    return out


def _hard_cut(
    text: str, start: int, end: int, target: float, est: Estimator
) -> list[tuple[int, int]]:
    """Last resort for text with no usable boundary: cut by estimated characters."""
    out: list[tuple[int, int]] = []
    s = start
    while s < end:
        lo, hi = s + 1, end
        # Largest e with estimate(text[s:e]) <= target (binary search; estimate is monotone).
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if est(text[s:mid]) <= target:
                lo = mid
            else:
                hi = mid - 1
        out.append((s, lo))
        s = lo
    return out


def _units(doc: AssembledText, target: float, est: Estimator) -> list[_Unit]:
    units: list[_Unit] = []
    path: list[str] = []
    for block, start in zip(doc.blocks, doc.block_starts, strict=True):
        end = start + len(block.text)
        if block.heading_level:
            path = [*path[: block.heading_level - 1], block.text.strip()]
            units.append(_Unit(start, end, True, tuple(path), est(block.text)))
            continue
        for s, e in _pieces(doc.text, start, end, target, 0, est):
            units.append(_Unit(s, e, False, tuple(path), est(doc.text[s:e])))
    return units


_OVERLAP_BOUNDARIES = [
    re.compile(r"(?<=\n)(?=\S)"),
    re.compile(r"(?<=[。！？；!?;\uff01\uff1f\uff1b])(?=\S)|(?<=[.!?])\s+(?=\S)"),
    re.compile(r"(?<=[，、：,:\uff0c\uff1a])(?=\S)"),
    _WORD_START,
]


def _overlap_start(
    text: str, chunk_start: int, chunk_end: int, overlap: float, est: Estimator
) -> int:
    """Where the next chunk's overlap begins: the longest tail within ``overlap`` tokens
    that starts at a line or sentence start (else a clause, else a word)."""
    if overlap <= 0:
        return chunk_end
    segment = text[chunk_start:chunk_end]
    for rx in _OVERLAP_BOUNDARIES:
        best = chunk_end
        starts = [pos for m in rx.finditer(segment)
                  if chunk_start < (pos := chunk_start + (m.end() if m.end() > m.start() else m.start())) < chunk_end]
        # The first boundary whose tail fits: the tail's estimate only shrinks as the boundary moves right, so a
        # binary search finds it with a few estimates instead of one per word (issue 59: a chunk of one word
        # repeated has hundreds of word starts).
        lo, hi = 0, len(starts)
        while lo < hi:
            mid = (lo + hi) // 2
            if est(text[starts[mid]:chunk_end]) <= overlap:
                hi = mid
            else:
                lo = mid + 1
        if lo < len(starts):
            best = starts[lo]
        # Take a boundary of this strength only if it leaves a meaningful overlap.
        if best < chunk_end and est(text[best:chunk_end]) >= overlap / 3:
            while best < chunk_end and text[best].isspace():
                best += 1
            return best
    return chunk_end


def _last_unit(text: str, units: list[_Unit], i: int, start: int, target_tokens: int, ceiling: float,
               est: Estimator) -> int:
    """Accumulate whole units while that brings the size closer to the target (so sizes centre on it), never past
    the ceiling: the index of the chunk's last unit."""
    j = i
    cur = est(text[start : units[j].end])
    while j + 1 < len(units):
        nxt = est(text[start : units[j + 1].end])
        if nxt > ceiling or (nxt > target_tokens and nxt - target_tokens >= target_tokens - cur):
            break
        j += 1
        cur = nxt
    return j


def _not_on_a_heading(text: str, units: list[_Unit], i: int, j: int, start: int, ceiling: float,
                      est: Estimator) -> int:
    """Headings alone do not make a chunk: take the content that follows them — unless a run of long headings would
    carry it past the ceiling; then the headings go first, on their own. And a chunk does not end on a heading: the
    heading belongs to what follows."""
    while j + 1 < len(units) and all(u.heading for u in units[i : j + 1]) \
            and est(text[start : units[j + 1].end]) <= ceiling:
        j += 1
    while j > i and units[j].heading:
        j -= 1
    return j


def split(
    doc: AssembledText,
    *,
    target_tokens: int,
    overlap_tokens: int,
    est: Estimator = estimate_tokens,
    prior: Prior | None = None,
) -> list[ChunkSpan]:
    """Chunk an assembled document by estimated tokens (the cap is enforced separately).

    With ``prior``, a chunk ends at an old boundary when one lies within the size bounds
    (at least half the target, at most the ceiling) and the next chunk starts where its old
    counterpart did, so chunks away from an edit come out identical.
    """
    text = doc.text
    units = _units(doc, float(target_tokens), est)
    ceiling = CEILING_FACTOR * target_tokens
    chunks: list[ChunkSpan] = []
    i = 0
    carry: int | None = None  # overlap start carried into the next chunk
    while i < len(units):
        first = units[i]
        start = carry if carry is not None else first.start
        j = _last_unit(text, units, i, start, target_tokens, ceiling, est)
        if prior is not None:
            j = _prefer_old_end(text, units, i, j, start, target_tokens, ceiling, prior.ends, est)
        j = _not_on_a_heading(text, units, i, j, start, ceiling, est)
        end = units[j].end
        chunks.append(
            ChunkSpan(
                ordinal=len(chunks),
                start=start,
                end=end,
                body_start=first.start,
                page=doc.page_at(first.start),
                page_end=doc.page_at(max(end - 1, first.start)),
                heading_path=list(_content_path(units, i, j)),
                est_tokens=est(text[start:end]),
            )
        )
        i = j + 1
        carry = None
        if i < len(units):
            old_next = prior.next_start.get(end) if prior is not None else None
            carry = old_next if old_next is not None and first.start <= old_next <= end else _overlap_start(
                text, first.start, end, overlap_tokens, est)
        if carry is not None and carry >= end:
            carry = None
    return chunks


def _prefer_old_end(text: str, units: list[_Unit], i: int, j: int, start: int, target: float, ceiling: float,
                    ends: set[int], est: Estimator) -> int:
    """The unit to end on: the greedy choice ``j`` unless an old boundary fits (nearest to ``j`` wins)."""
    if units[j].end in ends:
        return j
    best: int | None = None
    k = i
    while k < len(units):
        size = est(text[start : units[k].end])
        if size > ceiling and k > i:
            break
        if units[k].end in ends and size >= target / 2 and (best is None or abs(k - j) < abs(best - j)):
            best = k
        k += 1
    return j if best is None else best


def _content_path(units: list[_Unit], i: int, j: int) -> tuple[str, ...]:
    for u in units[i : j + 1]:
        if not u.heading:
            return u.path
    return units[i].path


def enforce_cap(
    doc: AssembledText,
    chunks: list[ChunkSpan],
    *,
    max_tokens: int,
    count: Callable[[ChunkSpan], int],
    est: Estimator = estimate_tokens,
) -> tuple[list[ChunkSpan], int]:
    """Re-split any chunk whose real embedding input exceeds ``max_tokens``.

    Returns the new chunk list and how many chunks needed a re-split (the estimate
    was wrong for them). ``count`` measures a chunk's embedding input with the real
    tokenizer, header included.
    """
    out: list[ChunkSpan] = []
    resplits = 0
    for ch in chunks:
        pending = [ch]
        first = True
        while pending:
            c = pending.pop(0)
            if count(c) <= max_tokens or (c.end - c.start < 2):
                out.append(c)
                continue
            if first:
                resplits += 1
                first = False
            if c.end - c.body_start < 2:
                # Only the overlap makes it too long: drop the overlap, keep the content.
                pending.insert(0, ChunkSpan(0, c.body_start, c.end, c.body_start, c.page, c.page_end,
                                            c.heading_path, est(doc.text[c.body_start:c.end])))
                continue
            # Cut inside the chunk's own body so the overlap is never duplicated.
            mid = _best_cut(doc.text, c.body_start, c.end)
            left = ChunkSpan(0, c.start, mid, c.body_start, c.page, doc.page_at(mid - 1),
                             c.heading_path, est(doc.text[c.start:mid]))
            right = ChunkSpan(0, mid, c.end, mid, doc.page_at(mid), c.page_end,
                              c.heading_path, est(doc.text[mid:c.end]))
            pending[:0] = [left, right]
    for n, c in enumerate(out):
        c.ordinal = n
    return out, resplits


def _best_cut(text: str, start: int, end: int) -> int:
    """A boundary near the middle of text[start:end], strongest boundary kind first."""
    segment = text[start:end]
    mid = len(segment) // 2
    window = max(len(segment) // 4, 1)
    for level in _LEVELS:
        cuts = [m.start() for m in level.finditer(segment) if 0 < m.start() < len(segment)]
        near = [c for c in cuts if abs(c - mid) <= window]
        if near:
            return start + min(near, key=lambda c: abs(c - mid))
    return start + mid
