"""The Structured index screen's state (SPEC C4): proposal, built index, preview, S7 lint, a tried question."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from biny.console.models.base import Fetching, Runner
from biny.core import CancelToken, Engine, IndexInfo, LintItem, Progress, Proposal, Routed, ToolResult

PREVIEW_ROWS = 100
LINT_ROWS = 100


@dataclass(slots=True)
class IndexSnapshot:
    space: str = ""
    proposal: Proposal | None = None
    info: IndexInfo | None = None
    lint_count: int = 0
    lint: list[LintItem] = field(default_factory=list)
    # Issue 64: per indexed field, the curator's own words for it and the words that name it already.
    synonyms: dict[str, list[str]] = field(default_factory=dict)
    builtin: dict[str, list[str]] = field(default_factory=dict)


@dataclass(slots=True)
class Tried:
    question: str
    routed: Routed | None
    result: ToolResult | None


class IndexModel(Fetching):
    def __init__(self, engine: Engine, run: Runner) -> None:
        super().__init__(run)
        self.engine = engine
        self.space = ""
        self.state = IndexSnapshot()
        self.tried: Tried | None = None
        self.building = False

    def _load(self, space: str, action: Callable[[], object] = lambda: None) -> Callable[..., IndexSnapshot]:
        engine = self.engine

        def work(_: Callable[[Progress], None], __: CancelToken) -> IndexSnapshot:
            action()
            count, lint = engine.index.lint(space, LINT_ROWS)
            info = engine.index.info(space, preview=PREVIEW_ROWS)
            synonyms = engine.index.synonyms(space) if info is not None else {}
            builtin = engine.index.builtin_synonyms(space) if info is not None else {}
            return IndexSnapshot(space, engine.index.propose(space), info, count, lint, synonyms, builtin)

        return work

    def _apply(self, snap: IndexSnapshot) -> None:
        if snap.space == self.space:  # a space switched away from meanwhile: its answer is stale
            self.state = snap
            self.emit("changed")

    def set_space(self, space: str, *, load: bool = True) -> None:
        """``load``: read the proposal and lint now; the screen passes False while hidden and refreshes when shown
        (issue 57: both read every passage's text, 40 s of a 1M-passage console's start-up on the Library)."""
        self.space = space
        self.state = IndexSnapshot(space)
        self.tried = None
        self.emit("changed")
        if space and load:
            self.fetch(self._load(space), self._apply)

    def refresh(self) -> None:
        if self.space:
            self.fetch(self._load(self.space), self._apply)

    def build(self, fields: list[str], exact: list[str]) -> None:
        """Build with the curator's choice of fields and exact fields; the screen refreshes after."""
        if not self.space or self.building:
            return
        self.building = True
        engine, space = self.engine, self.space

        def finished(snap: IndexSnapshot) -> None:
            self.building = False
            self._apply(snap)
            self.emit("written")

        def failed(exc: BaseException, detail: str) -> None:
            self.building = False
            self.emit("error", str(exc), detail)
            self.emit("changed")

        self._run(self._load(space, lambda: engine.index.build(space, fields, exact)), on_success=finished,
                  on_failure=failed)
        self.emit("changed")

    def drop(self) -> None:
        if self.space:
            engine, space = self.engine, self.space
            self.fetch(self._load(space, lambda: engine.index.drop(space)), self._apply)

    def set_synonyms(self, field_name: str, words: list[str]) -> None:
        """A curator's words for a field (issue 64): stored with the index; the screen refreshes after."""
        if not self.space or self.state.info is None:
            return
        engine, space = self.engine, self.space
        self.fetch(self._load(space, lambda: engine.index.set_synonyms(space, field_name, words)), self._apply)

    def try_question(self, question: str) -> bool:
        """Route and run a question live: the tool, its SQL, the rows and the result (or why not routed)."""
        question = question.strip()
        if not question or not self.space:
            return False
        engine, space = self.engine, self.space

        def work(_: Callable[[Progress], None], __: CancelToken) -> Tried:
            routed, result = engine.index.answer(space, question)
            return Tried(question, routed, result)

        def done(tried: Tried) -> None:
            if space != self.space:  # asked of a space switched away from since: not this space's answer (issue 60)
                return
            self.tried = tried
            self.emit("tried", tried)

        self._run(work, on_success=done, on_failure=lambda e, d: self.emit("error", str(e), d))
        return True
