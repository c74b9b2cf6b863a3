"""Progress values and cancel tokens for long jobs (ARCHITECTURE: long work reports progress)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from biny.core.errors import Cancelled
from biny.core.i18n import N_, t


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
    # What ``done``/``total`` count: "pages" (read), "rows" (a table's rows embedded), "chunks" (passages
    # embedded), "files"; empty when the stage does not say (issue 58: a UI names the unit, never guesses it).
    unit: str = ""

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


# The units a long step counts and the steps of an ingest, as a UI names them (issue 58).
UNITS = {"pages": N_("pages"), "rows": N_("rows"), "chunks": N_("chunks"), "files": N_("files")}
STAGES = {"read": N_("reading pages and figures"), "parse": N_("reading"), "embed": N_("embedding"),
          "file": N_("starting"), "file_done": N_("finished"), "done": N_("done")}


@dataclass(frozen=True, slots=True)
class Figures:
    """What a UI shows of a long job at one moment (issue 58): the same figures on the command line and in the
    console. ``rate`` is the current step's units per second since it started (0 until measurable) and ``eta_s``
    the seconds it still needs at that rate (None when unknown)."""

    files_done: int
    files_total: int
    file: str
    stage: str
    unit: str
    done: int
    total: int
    rate: float
    eta_s: float | None

    def step_text(self) -> str:
        """"file 2/5 report.pdf: embedding" — which file of how many, and the step within it."""
        where = t("file {n}/{total}").format(n=min(self.files_done + 1, self.files_total), total=self.files_total) \
            if self.files_total and self.stage != "done" else ""
        step = t(STAGES.get(self.stage, self.stage))
        return " ".join(x for x in (where, self.file + ":" if self.file else "", step) if x)

    def rate_text(self) -> str:
        """"120/400 chunks, 35.2 chunks/s, 0:07 left" — whatever of it is known."""
        unit = t(UNITS.get(self.unit, self.unit)) if self.unit else ""
        parts = []
        if self.total:
            parts.append(f"{self.done}/{self.total} {unit}".rstrip())
        if self.rate > 0 and unit:
            parts.append(t("{rate} {unit}/s").format(rate=f"{self.rate:.1f}", unit=unit))
        if self.eta_s is not None:
            parts.append(t("{eta} left").format(eta=clock(self.eta_s)))
        return ", ".join(parts)


def clock(seconds: float) -> str:
    """0:07, 12:30, 1:02:03."""
    s = max(0, round(seconds))
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


class ProgressMeter:
    """Turns a job's ``Progress`` events into ``Figures``: files n of N, the current step's units, its rate and
    ETA. The rate is measured from the step's first event, so a step resumed half-done (a table whose first rows
    were unchanged) is not credited with work it skipped."""

    def __init__(self, clock_s: Callable[[], float] = time.monotonic) -> None:
        self._now = clock_s
        # (time, done) at each step's first event, by (file, stage, unit): the next file's pages are read ahead
        # while this one embeds (services/documents.py), so two steps report in turn.
        self._starts: dict[tuple[str, str, str], tuple[float, int]] = {}
        self._files = (0, 0)

    def update(self, p: Progress) -> Figures:
        now = self._now()
        if p.file_count and p.stage in ("file", "file_done", "done"):
            done = p.file_index + (p.stage == "file_done")
            self._files = (p.file_count if p.stage == "done" else done, p.file_count)
        if p.stage == "file_done":
            self._starts = {k: v for k, v in self._starts.items() if k[0] != p.file}
        t0, d0 = self._starts.setdefault((p.file, p.stage, p.unit), (now, p.done))
        elapsed, gained = now - t0, p.done - d0
        rate = gained / elapsed if elapsed > 0.2 and gained > 0 else 0.0
        eta = (p.total - p.done) / rate if rate > 0 and p.total >= p.done else None
        unit = p.unit or ("files" if p.stage in ("file", "file_done", "done") and p.file_count else "")
        return Figures(self._files[0], self._files[1], p.file, p.stage, unit, p.done, p.total, rate, eta)
