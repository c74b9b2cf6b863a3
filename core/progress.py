"""Progress values and cancel tokens for long jobs (ARCHITECTURE: long work reports progress)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from biny.core.errors import Cancelled
from biny.core.i18n import t


@dataclass(frozen=True, slots=True)
class Progress:
    """One step of a long job. ``total`` is 0 when unknown.

    ``done``/``total`` count the current stage's units (files for ``file``/``file_done``/
    ``done``, passages for ``embed``). Ingest fills the structured fields so a UI never
    parses ``detail``: which file (``file``, ``file_index`` of ``file_count``) and, on
    ``file_done``, its ``outcome``.
    """

    done: int
    total: int
    stage: str
    detail: str = ""
    file: str = ""
    file_index: int = 0
    file_count: int = 0
    outcome: str = ""  # file_done: ingested | unchanged | failed

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0


ProgressCallback = Callable[[Progress], None]


def no_progress(_: Progress) -> None:
    """Default callback: ignore progress."""


class CancelToken:
    """Thread-safe flag a UI or signal handler sets; jobs poll it between steps."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled(t("Cancelled by the user; nothing from this job was kept."))
