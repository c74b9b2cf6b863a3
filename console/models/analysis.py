"""The Analysis screen's presentation model (issue 47): every measurement asked of the engine off the UI thread.

Events: ``question`` ((StarMap, (distances, reference, cut))), ``collection`` (Collection, or None for a space
with no chunks yet), ``run`` (an evaluation run to show), ``runs`` (the space's earlier runs), ``compared``
((old id, new id, diff)), ``eval_failed`` and ``error`` ((message, detail)). ``pending`` counts work still running.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from biny.console.models.base import Observable, Runner, Work
from biny.core import Engine


class AnalysisModel(Observable):
    def __init__(self, engine: Engine, run: Runner) -> None:
        super().__init__()
        self.engine = engine
        self._run = run
        self.pending = 0

    def _op(self, work: Work, event: str, on_failure: Callable[[BaseException, str], None] | None = None) -> None:
        self.pending += 1

        def finished() -> None:
            self.pending -= 1

        self._run(work, on_success=lambda value: self.emit(event, value),
                  on_failure=on_failure or (lambda e, d: self.emit("error", str(e), d)), on_finished=finished)

    def measure(self, space: str, question: str) -> None:
        """The star map and every chunk's distance to ``question``."""
        engine = self.engine
        self._op(lambda _p, _c: (engine.analysis.star_map(space, question), engine.analysis.distances(space, question)),
                 "question")

    def collection(self, space: str, question: str | None, color_by: str) -> None:
        engine = self.engine

        def work(_: Any, __: Any) -> Any:
            if engine.space(space).chunks == 0:
                return None  # nothing to map yet: said on the canvas, not in an error box
            return engine.analysis.collection(space, question=question, color_by=color_by)

        self._op(work, "collection")

    def evaluate(self, space: str, path: Path) -> None:
        """Run a question set (full, then each stage off); the run is shown and the list of runs read again."""
        engine = self.engine

        def done(run: Any) -> None:
            self.emit("run", run)
            self.runs(space)

        self.pending += 1

        def finished() -> None:
            self.pending -= 1

        self._run(lambda _p, _c: engine.analysis.evaluate(space, path), on_success=done,
                  on_failure=lambda e, d: self.emit("eval_failed", str(e), d), on_finished=finished)

    def runs(self, space: str) -> None:
        engine = self.engine
        self._op(lambda _p, _c: engine.analysis.runs(space), "runs")

    def open_run(self, run_id: str) -> None:
        engine = self.engine
        self._op(lambda _p, _c: engine.analysis.run(run_id), "run")

    def compare(self, old: str, new: str) -> None:
        engine = self.engine
        self._op(lambda _p, _c: (old, new, engine.analysis.compare(old, new)), "compared")
