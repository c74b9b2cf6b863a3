"""What the engine hands back: spaces, ingest reports, answers with their hits (SPEC C2).

Plain data, shared by the CLI (``--json``) and the console; no store access.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from biny.core.i18n import N_, Said, t

if TYPE_CHECKING:  # the trace and the index's call values sit below this module (import-linter layers)
    from biny.core.calls import Refusal, Routed, ToolResult
    from biny.core.trace import Trace


__all__ = ["Answer", "AskResult", "Citation", "FileOutcome", "Hit", "IngestReport", "PassageChange", "SourceView",
           "SpaceInfo"]


@dataclass(slots=True)
class FileOutcome:
    path: str
    outcome: str  # ingested | unchanged | failed | empty (yielded no text, nothing stored) | cancelled
    message: str = ""
    doc_id: str | None = None
    title: str = ""
    chunks: int = 0
    # Seconds per stage (parse, chunk, embed, encrypt, write) — for benchmarks and the log.
    timings: dict[str, float] = field(default_factory=dict)
    tokens: int = 0


@dataclass(slots=True)
class SpaceInfo:
    name: str
    space_id: str
    created_at: Any
    embed_model: str
    dim: int
    encrypted: bool
    documents: int
    chunks: int
    tenant: str = "default"
    owner: str = ""
    locked: bool = False  # encrypted and no passphrase available in this session
    web: bool = False  # W1: the public-web fallback is switched on for this space


@dataclass(slots=True)
class IngestReport:
    files: list[FileOutcome] = field(default_factory=list)
    cancelled: bool = False
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)  # about the run, not one file (housekeeping that failed)

    def by(self, outcome: str) -> list[FileOutcome]:
        return [f for f in self.files if f.outcome == outcome]

    @property
    def ok(self) -> bool:
        return not self.by("failed") and not self.by("empty") and not self.cancelled


@dataclass(frozen=True, slots=True)
class Kept:
    """The rule that put a passage in the context (issue 47): set where hits are made (retrieve/kept.py), read by
    the Inspector and ``--json`` — never re-derived from trace keys or translated strings."""

    rule: str  # one of KEPT_RULES
    share: float | None = None  # the share of the question's words (or of their renderings) that kept it
    gate: float | None = None  # the space-wide gate it lies beyond ("gate words")
    band: float | None = None  # the band near the cut the model judged ("judged")
    model: str = ""  # the model that judged it
    source: str = ""  # the public page it came from ("public page")

    def says(self) -> str:
        """The rule in the reader's words."""
        if self.rule == "public page":
            return t("a paragraph of a public page read for this answer ({source}) — not your material").format(
                source=self.source)
        if self.rule == "judged":
            return t("near its distance cut (within {band}), kept because the model ({model}) judged that it answers "
                     "the question").format(band=f"{self.band or 0:.3f}", model=self.model)
        if self.rule == "gate words":
            return t("within its distance cut; beyond the space-wide gate ({gate}), kept because it carries {share} "
                     "of the question's words").format(gate=f"{self.gate or 0:.3f}", share=f"{self.share or 0:.0%}")
        if self.rule == "translated words":
            return t("beyond its distance cut, kept because it holds renderings of {share} of the question's words "
                     "(dictionary)").format(share=f"{self.share or 0:.0%}")
        if self.rule == "relevance judge":
            return t("the relevance judge: {score} that it answers").format(score=f"{self.share or 0:.0%}")
        if self.rule == "words":
            return t("beyond its distance cut, kept because it carries {share} of the question's words").format(
                share=f"{self.share or 0:.0%}")
        return t(KEPT_RULES.get(self.rule, self.rule))

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "share": self.share, "gate": self.gate, "band": self.band, "model": self.model,
                "says": self.says()}


# Rules whose words need no figures; the others are said by Kept.says.
KEPT_RULES = {
    "pinned": N_("pinned: the question names its identifier (R4)"),
    "more material": N_("more material: the next of the same ranked pool (R6)"),
    "within cut": N_("within its distance cut"),
    "second pass or nearest": N_("added by the second pass or as the nearest passage (R3, R5)"),
    "looked up": N_("the row the structured index looked up: the answer's value is its own"),
    "public page": "", "judged": "", "gate words": "", "translated words": "", "words": "", "relevance judge": "",
}


@dataclass(slots=True)
class Hit:
    chunk_id: str
    doc_id: str
    document: str
    source: str
    text: str
    distance: float
    calibrated: float | None
    pinned: bool
    page: int | None
    ordinal: int
    heading_path: list[str]
    char_start: int
    char_end: int
    # The distance this passage had to beat (R2/R9: cuts are per passage); None if none applied.
    cut: float | None = None
    # IDF-weighted share of the question's words this passage carries; None where words were not asked.
    word_share: float | None = None
    # R9 in plain words: the share of the space's unrelated reference questions whose nearest passage
    # is farther than this one is from the question ("closer than 93% of unrelated questions").
    closer_than: float | None = None
    kept: Kept | None = None  # the rule that put it in the context
    # Issue 55: the relevance judge's probability that this passage answers, and each feature's contribution to
    # its log-odds (retrieve/relevance.py); None where the judge did not read it.
    relevance: float | None = None
    contributions: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Closest:
    """What came closest when nothing answered (issue 55): never an answer, the evidence for a refusal."""

    chunk_id: str
    document: str
    heading: list[str]
    distance: float
    cut: float | None  # the distance it had to beat
    relevance: float | None = None  # the judge's probability that it answers, where it read it

    @property
    def beyond(self) -> float | None:
        """How far beyond its cut it lies (negative: inside its cut, dropped by another check)."""
        return None if self.cut is None else self.distance - self.cut

    def to_dict(self) -> dict[str, Any]:
        return {"chunk_id": self.chunk_id, "document": self.document, "heading": self.heading,
                "distance": round(self.distance, 4), "cut": None if self.cut is None else round(self.cut, 4),
                "beyond_cut": None if self.beyond is None else round(self.beyond, 4),
                "relevance": None if self.relevance is None else round(self.relevance, 4)}


@dataclass(slots=True)
class Citation:
    """One numbered source of an answer: which chunk, where in its document."""

    n: int
    chunk_id: str
    document: str
    page: int | None
    span: tuple[int, int]  # character span of the chunk in its document
    sentences: list[str] = field(default_factory=list)  # the cited sentences (extractive), for highlighting
    url: str = ""  # W3: set when the passage came from a public page, not the user's material

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "chunk_id": self.chunk_id, "document": self.document, "page": self.page,
                "span": list(self.span), **({"url": self.url, "public": True} if self.url else {})}


# How an answer was made (issue 56: one vocabulary for core and console, never matched as note text).
AnswerMode = Literal["model", "extractive", "none", "web", "structured"]
# Why it was made so: what the note says, as a value the console renders in its own language.
NoteKind = Literal["extracted", "composed", "model_failed", "model_empty", "nothing_close", "web", "web_unread",
                   "structured", "search_failed"]


@dataclass(slots=True)
class Answer:
    """A grounded answer: built only from the final context, every citation and number checked."""

    text: str
    mode: AnswerMode
    citations: list[Citation]
    untraced_numbers: list[str]
    language: str
    removed_citations: list[str] = field(default_factory=list)  # markers that pointed at no passage
    removed_placeholders: list[str] = field(default_factory=list)  # exact-value slots the model invented
    note: Said = ""  # why this mode (e.g. the model failed and the answer is extracted instead)
    # W3/W4 (mode "web"): every public result, read or found only, and the review item it became.
    sources: list[dict[str, Any]] = field(default_factory=list)
    review_id: str = ""
    note_kind: NoteKind = "extracted"
    web_error: Said = ""  # the public search failed: why, in the interface's language when shown (issue 60)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "mode": self.mode, "citations": [c.to_dict() for c in self.citations],
                "untraced_numbers": self.untraced_numbers, "removed_citations": self.removed_citations,
                "removed_placeholders": self.removed_placeholders, "language": self.language, "note": str(self.note),
                "note_kind": self.note_kind,
                # Pages read but judged too far to use are listed too ("read, not used"), with no answer from them.
                **({"sources": self.sources, "review_id": self.review_id} if self.mode == "web" or self.sources
                   else {}),
                **({"web_error": str(self.web_error)} if self.web_error else {})}


@dataclass(slots=True)
class AskResult:
    question: str
    chunks: list[Hit]
    baseline: float | None
    max_distance: float | None
    reference: str
    trace: Trace
    turn_id: str = ""
    more_available: bool = False
    answer: Answer | None = None  # set by Engine.answer
    # S5: set when the structured index answered (count/filter/group/top/lookup); no passages then.
    structured: ToolResult | None = None
    review_id: str = ""  # W5: the review item a public-web answer became
    # Issue 64: what the table lacks (a row or field), refused instead of another row's value; and, when the
    # index did not answer, how it read the question (the values it looked for, the rows named alike).
    refused: Refusal | None = None
    routed: Routed | None = None
    closest: Closest | None = None  # issue 55: on a refusal, what came closest (never shown as an answer)
    # Issue 55: names the question asks about that no passage of the space mentions (retrieve/mentions.py).
    unmentioned: list[str] = field(default_factory=list)
    # The judged pool's chunk ids, nearest first, and the nearest kept one: what the analyst's star map draws
    # (issue 56: read from the result, never back out of the trace).
    pool: list[str] = field(default_factory=list)
    nearest: str = ""
    pool_nearest: float | None = None  # the nearest pool passage's distance, kept or not

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "chunks": [
                {
                    "text": h.text,
                    "document": h.document,
                    "source": h.source,
                    "distance": round(h.distance, 4),
                    "calibrated": None if h.calibrated is None else round(h.calibrated, 4),
                    "pinned": h.pinned,
                    "page": h.page,
                    "chunk_id": h.chunk_id,
                    "ordinal": h.ordinal,
                    "heading_path": h.heading_path,
                    "cut": None if h.cut is None else round(h.cut, 4),
                    "word_share": None if h.word_share is None else round(h.word_share, 3),
                    "closer_than": None if h.closer_than is None else round(h.closer_than, 3),
                    "kept": None if h.kept is None else h.kept.to_dict(),
                    **({"judge": {"score": round(h.relevance, 4),
                                  "contributions": {k: round(v, 4) for k, v in h.contributions.items()}}}
                       if h.relevance is not None else {}),
                }
                for h in self.chunks
            ],
            "baseline": self.baseline,
            "max_distance": self.max_distance,
            "reference": self.reference,
            "trace": self.trace.to_dict(),
            "turn_id": self.turn_id,
            "more_available": self.more_available,
            "structured": None if self.structured is None else self.structured.to_dict(),
            **({"review_id": self.review_id} if self.review_id else {}),
            **({"refused": self.refused.to_dict()} if self.refused is not None else {}),
            **({"closest": self.closest.to_dict()} if self.closest is not None else {}),
            **({"unmentioned": list(self.unmentioned)} if self.unmentioned else {}),
            **({"answer": self.answer.to_dict()} if self.answer is not None else {}),
            # Issue 61: kept passages the answer does not cite, apart from its sources.
            **({"also_retrieved": self.also_retrieved()} if self.answer is not None else {}),
        }

    def also_retrieved(self) -> list[str]:
        """Chunk ids of the kept passages the answer does not cite (all of them when it cites none)."""
        cited = {c.chunk_id for c in self.answer.citations} if self.answer is not None else set()
        return [h.chunk_id for h in self.chunks if h.chunk_id not in cited]


Rect = tuple[float, float, float, float]


@dataclass(slots=True)
class SourceView:
    """A passage at its place in its source (issue 61): what ``biny show`` prints and the console's source viewer
    draws. Built on demand from the stored passage and, where it is still there unchanged, the original file."""

    space: str
    chunk_id: str
    doc_id: str
    document: str  # the document's title
    kind: str  # pdf | docx | markdown | html | text | row …
    path: str  # the original file as recorded at ingest
    present: bool  # that file is still there with the content that was ingested
    page: int | None
    page_end: int | None
    heading_path: list[str]
    span: tuple[int, int]  # character offsets of the passage in the document's text
    text: str  # the passage as it is stored now (a curator's edit included)
    before: str = ""  # the document's text just before the span, and just after it
    after: str = ""
    # PDF: 1-based page → the passage's line rectangles (PDF points, origin top-left), and each page's size.
    rects: dict[int, list[Rect]] = field(default_factory=dict)
    page_sizes: dict[int, tuple[float, float]] = field(default_factory=dict)
    coverage: float | None = None  # PDF: share of the passage's text-layer characters the rectangles place
    scanned: bool = False  # the page was read by OCR: the passage is placed on the OCR lines ingest kept
    # A scanned page's OCR words, page → (x0, y0, x1, y1, word) in PDF points: drawn over its image.
    words: dict[int, list[tuple[float, float, float, float, str]]] = field(default_factory=dict)
    fields: list[tuple[str, str]] = field(default_factory=list)  # a table row's fields
    disabled: bool = False  # a curator took it out of retrieval (it stays stored)
    edited: bool = False  # its text is a curator's edit; ``original`` is what ingest stored
    note: bool = False  # a note a curator added to the document (no place in the source)
    original: str = ""

    @property
    def rect_page(self) -> int | None:
        """The page that holds most of the highlighted area (where a viewer opens), else the passage's page."""
        if not self.rects:
            return self.page
        return max(sorted(self.rects), key=lambda p: sum((r[2] - r[0]) * (r[3] - r[1]) for r in self.rects[p]))

    def to_dict(self) -> dict[str, Any]:
        return {"space": self.space, "chunk_id": self.chunk_id, "doc_id": self.doc_id, "document": self.document,
                "kind": self.kind, "path": self.path, "present": self.present, "page": self.page,
                "page_end": self.page_end, "heading_path": self.heading_path, "span": list(self.span),
                "char_start": self.span[0], "char_end": self.span[1], "text": self.text, "before": self.before,
                "after": self.after,
                "rects": {str(p): [[round(v, 2) for v in r] for r in rs] for p, rs in self.rects.items()},
                "page_sizes": {str(p): [round(v, 2) for v in wh] for p, wh in self.page_sizes.items()},
                "coverage": None if self.coverage is None else round(self.coverage, 3), "scanned": self.scanned,
                "words": {str(p): [[*(round(v, 2) for v in w[:4]), w[4]] for w in ws] for p, ws in self.words.items()},
                "fields": [list(f) for f in self.fields], "disabled": self.disabled, "edited": self.edited,
                "note": self.note, **({"original": self.original} if self.edited else {})}


@dataclass(frozen=True, slots=True)
class PassageChange:
    """One curator's action on a passage (issue 61), as its history lists it."""

    entry_id: str
    chunk_id: str
    action: str  # disable | enable | edit | note
    author: str
    at: Any  # when (UTC)
    state: str  # done | undone (pending/undoing only while a write is under way)
    before: str = ""  # an edit: the passage's text before it

    def to_dict(self) -> dict[str, Any]:
        return {"entry_id": self.entry_id, "chunk_id": self.chunk_id, "action": self.action, "author": self.author,
                "at": self.at.isoformat() if hasattr(self.at, "isoformat") else self.at, "state": self.state,
                **({"before": self.before} if self.action == "edit" else {})}
