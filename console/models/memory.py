"""The Memory screen's state (SPEC C6): scopes, the facts of a scope, the last recall test."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from biny.console.models.base import Fetching, Runner
from biny.core import CancelToken, Engine, Fact, Progress, RecallResult

STATUS_FILTERS = {"active + archived": ("active", "archived"), "active": ("active",),
                  "archived": ("archived",), "deleted": ("deleted",)}


@dataclass(slots=True)
class MemorySnapshot:
    scopes: list[str] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)


class MemoryModel(Fetching):
    def __init__(self, engine: Engine, run: Runner) -> None:
        super().__init__(run)
        self.engine = engine
        self.scope = ""
        self.status_filter = "active + archived"
        self.state = MemorySnapshot()
        self.result: RecallResult | None = None
        self.recalling = False

    def fact(self, fact_id: str) -> Fact | None:
        return next((f for f in self.state.facts if f.fact_id == fact_id), None)

    def _then_refresh(self, action: Callable[[], object]) -> None:
        engine, scope, statuses = self.engine, self.scope.strip() or None, STATUS_FILTERS[self.status_filter]

        def work(_: Callable[[Progress], None], __: CancelToken) -> MemorySnapshot:
            action()  # embedding a fact and opening the memory key happen here, off the UI thread
            return MemorySnapshot(engine.memory.scopes(), engine.memory.facts(scope, statuses))

        self.fetch(work, self._apply)

    def _apply(self, snap: MemorySnapshot) -> None:
        self.state = snap
        self.emit("changed")

    def refresh(self, scope: str | None = None, status_filter: str | None = None) -> None:
        if scope is not None:
            self.scope = scope
        if status_filter is not None:
            self.status_filter = status_filter
        self._then_refresh(lambda: None)

    def add(self, text: str, scope: str) -> None:
        self.scope = scope
        engine = self.engine
        self._then_refresh(lambda: engine.memory.add(text, scope, source="console"))

    def edit(self, fact_id: str, text: str) -> None:
        engine = self.engine
        self._then_refresh(lambda: engine.memory.edit(fact_id, text))

    def set_status(self, fact_id: str, status: str) -> None:
        engine = self.engine
        self._then_refresh(lambda: engine.memory.set_status(fact_id, status))

    def recall(self, question: str) -> bool:
        scope = self.scope.strip()
        if not question or not scope or self.recalling:
            return False
        self.recalling = True
        engine = self.engine

        def work(_: Callable[[Progress], None], __: CancelToken) -> RecallResult:
            return engine.memory.recall(question, scope)

        def done(result: RecallResult) -> None:
            self.result = result
            self.emit("recalled", result)

        def finished() -> None:
            self.recalling = False
            self.emit("changed")

        self._run(work, on_success=done, on_failure=lambda e, d: self.emit("error", str(e), d),
                  on_finished=finished)
        return True
