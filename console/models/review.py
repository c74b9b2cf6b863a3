"""The Review queue's state (SPEC C5): items, the current one, decisions that can be undone.

Decisions are applied to the screen at once (the next item shows in the same event) and
carried out in the background, in order; the last ten can be undone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from biny.console.models.base import Fetching, Runner
from biny.core import CancelToken, Engine, Hit, Progress

UNDO_DEPTH = 10
FILTERS = {"waiting": ("pending",), "all": ("pending", "approved", "rejected")}


@dataclass(slots=True)
class Decision:
    review_id: str
    action: str  # approved | rejected


@dataclass(slots=True)
class ReviewSnapshot:
    space: str = ""
    items: list[Any] = field(default_factory=list)  # ReviewItem


class ReviewModel(Fetching):
    def __init__(self, engine: Engine, run: Runner) -> None:
        super().__init__(run)
        self.engine = engine
        self.space = ""
        self.filter = "waiting"
        self.state = ReviewSnapshot()
        self.current = 0
        self.decisions: list[Decision] = []  # most recent last, at most UNDO_DEPTH
        self.nearest: dict[str, tuple[list[Hit], bool]] = {}
        self.working = 0  # decisions still being carried out
        self._queue: list[tuple[Callable[..., Any], bool]] = []

    # ---- reading -----------------------------------------------------------------------------------
    def set_space(self, space: str) -> None:
        self.space, self.current, self.decisions = space, 0, []
        self.state = ReviewSnapshot(space)
        self.emit("changed")
        self.refresh()

    def refresh(self) -> None:
        if not self.space:
            return
        engine, space, statuses = self.engine, self.space, FILTERS[self.filter]

        def work(_: Callable[[Progress], None], __: CancelToken) -> ReviewSnapshot:
            return ReviewSnapshot(space, engine.web.items(space, statuses))

        self.fetch(work, self._apply)

    def _apply(self, snap: ReviewSnapshot) -> None:
        if snap.space != self.space:
            return
        self.state = snap
        self.current = min(self.current, max(len(snap.items) - 1, 0))
        self.emit("changed")

    def item(self) -> Any | None:
        items = self.state.items
        return items[self.current] if 0 <= self.current < len(items) else None

    def move(self, step: int) -> None:
        if self.state.items:
            self.current = max(0, min(len(self.state.items) - 1, self.current + step))
            self.emit("changed")

    def load_nearest(self, review_id: str) -> None:
        """Where the entry would land (its nearest chunks), fetched once per item."""
        if review_id in self.nearest:
            return
        engine = self.engine

        def work(_: Callable[[Progress], None], __: CancelToken) -> tuple[str, tuple[list[Hit], bool]]:
            return review_id, engine.web.nearest(review_id)

        def done(result: tuple[str, tuple[list[Hit], bool]]) -> None:
            self.nearest[result[0]] = result[1]
            self.emit("nearest", result[0])

        self._run(work, on_success=done, on_failure=lambda e, d: self.emit("error", str(e), d))

    # ---- deciding ----------------------------------------------------------------------------------
    def decide(self, action: str, *, edited: str | None = None, reason: str = "",
               confirm_contradicted: tuple[str, ...] = ()) -> bool:
        """Approve or reject the current item: it leaves the list now, the engine works after."""
        item = self.item()
        if item is None or item.status != "pending":
            return False
        engine, rid = self.engine, item.review_id

        def work(_: Callable[[Progress], None], __: CancelToken) -> Any:
            if action == "approved":
                return engine.web.approve(rid, edited, confirm_contradicted=confirm_contradicted)
            return engine.web.reject(rid, reason)

        self._carry_out(work)
        self.decisions = [*self.decisions, Decision(rid, action)][-UNDO_DEPTH:]
        if self.filter == "waiting":
            self.state.items = [i for i in self.state.items if i.review_id != rid]
            self.current = min(self.current, max(len(self.state.items) - 1, 0))
        self.emit("changed")
        return True

    def undo(self) -> bool:
        """Take the last decision back; the item returns to the queue."""
        if not self.decisions:
            return False
        last = self.decisions.pop()
        engine = self.engine
        self._carry_out(lambda _p, _c: engine.web.undo(last.review_id), then_refresh=True)
        self.emit("changed")
        return True

    def _carry_out(self, work: Callable[..., Any], *, then_refresh: bool = False) -> None:
        """Decisions run one after another, in the order made (an undo never overtakes its decision)."""
        self._queue.append((work, then_refresh))
        self.working += 1
        if self.working == 1:
            self._next()

    def _next(self) -> None:
        work, then_refresh = self._queue.pop(0)

        def finished() -> None:
            self.working -= 1
            if self._queue:
                self._next()
            elif then_refresh or self.working == 0:
                self.refresh()
            self.emit("changed")
            self.emit("written")  # an approval adds a document: the other screens read again

        self._run(work, on_failure=lambda e, d: self.emit("error", str(e), d), on_finished=finished)
