"""An observable base for presentation models, and the op-runner type they are given."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from biny.core import CancelToken, Progress

Work = Callable[[Callable[[Progress], None], CancelToken], Any]


class Runner(Protocol):
    """Runs ``work`` off the UI thread; callbacks arrive on the UI thread (console/ops.run_op)."""

    def __call__(self, fn: Work, *, on_success: Callable[[Any], None] | None = ...,
                 on_failure: Callable[[BaseException, str], None] | None = ...,
                 on_progress: Callable[[Progress], None] | None = ...,
                 on_finished: Callable[[], None] | None = ...) -> Any: ...


class Observable:
    """Named events with listeners: ``changed`` (state to redraw) and ``error`` (message, detail)."""

    def __init__(self) -> None:
        self._listeners: dict[str, list[Callable[..., None]]] = {}

    def connect(self, event: str, listener: Callable[..., None]) -> None:
        self._listeners.setdefault(event, []).append(listener)

    def emit(self, event: str, *args: Any) -> None:
        for listener in list(self._listeners.get(event, [])):
            listener(*args)


class Fetching(Observable):
    """A model that fetches in the background; a later answer always wins over an earlier one."""

    def __init__(self, run: Runner) -> None:
        super().__init__()
        self._run = run
        self._issued = 0
        self._applied = 0
        self.pending = 0  # background operations of this model still running

    def fetch(self, work: Work, apply: Callable[[Any], None], *, on_progress: Callable[[Progress], None] | None = None,
              ) -> Any:
        self._issued += 1
        seq = self._issued
        self.pending += 1

        def done(result: Any) -> None:
            if seq >= self._applied:  # an older answer arriving late must not overwrite a newer one
                self._applied = seq
                apply(result)

        def failed(exc: BaseException, detail: str) -> None:
            self.emit("error", str(exc), detail)

        def finished() -> None:
            self.pending -= 1
            self.emit("changed")

        return self._run(work, on_success=done, on_failure=failed, on_progress=on_progress, on_finished=finished)
