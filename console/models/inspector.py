"""The Retrieval Inspector's presentation model (issue 47): the space, the conversation, the result on display.

The screen renders; this asks the engine, one question at a time, off the UI thread. Events: ``answered``
(AskResult), ``more`` (the next batch of the same pool, R6), ``streamed`` (a model's provisional text), ``chunk``
(one stored chunk opened from elsewhere, with its note), ``idle`` (a question or batch finished) and ``error``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from biny.console.models.base import Observable, Runner
from biny.core import AskResult, CancelToken, Engine, Progress


class InspectorModel(Observable):
    def __init__(self, engine: Engine, run: Runner) -> None:
        super().__init__()
        self.engine = engine
        self._run = run
        self.space: str | None = None
        self.result: AskResult | None = None
        self.busy = False
        self.turns: list[str] = []  # the conversation's questions, oldest first (R1: follow-ups read them)

    def set_space(self, name: str) -> bool:
        """Follow the selected space; True when that starts a new conversation."""
        changed = name != self.space
        if changed:
            self.turns = []
        self.space = name
        return changed

    def ask(self, question: str, k: int, cut: float | None) -> bool:
        """Ask in the background; False when there is nothing to ask or a question is already running."""
        question = question.strip()
        if not question or not self.space or self.busy:
            return False
        self.busy = True
        history, self.turns = list(self.turns), [*self.turns, question]
        engine, space = self.engine, self.space

        def work(progress: Callable[[Progress], None], _: CancelToken) -> AskResult:
            # A model's reply streams in as provisional text; the checked answer replaces it.
            return engine.answer(space, question, k=k, max_distance=cut, history=history,
                                 on_text=lambda text: progress(Progress(0, 0, "answer", text)))

        self._run(work, on_success=self._answered, on_failure=self._failed, on_finished=self._idle,
                  on_progress=lambda p: self.emit("streamed", p.detail) if p.stage == "answer" else None)
        return True

    def more(self) -> bool:
        """R6: the next batch of the same ranked pool for the result on display."""
        if self.result is None or self.busy:
            return False
        self.busy = True
        engine, turn = self.engine, self.result.turn_id
        self._run(lambda _p, _c: engine.more_material(turn), on_success=self._more, on_failure=self._failed,
                  on_finished=self._idle)
        return True

    def open_chunk(self, space: str, doc_id: str, chunk_id: str, note: str = "") -> None:
        """One stored chunk (from the star map or the collection), read in the background."""
        engine = self.engine

        def work(_: Any, __: CancelToken) -> Any:
            return next((c for c in engine.document_chunks(space, doc_id) if c.chunk_id == chunk_id), None)

        self._run(work, on_success=lambda chunk: self.emit("chunk", chunk, note), on_failure=self._failed)

    def _answered(self, result: AskResult) -> None:
        self.result = result
        self.emit("answered", result)

    def _more(self, more: AskResult) -> None:
        if self.result is not None:
            self.result.chunks.extend(more.chunks)
        self.emit("more", more)

    def _failed(self, exc: BaseException, detail: str) -> None:
        self.emit("error", exc, detail)

    def _idle(self) -> None:
        self.busy = False
        self.emit("idle")
