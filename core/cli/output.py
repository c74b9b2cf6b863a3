"""What the command line prints: JSON lines for scripts, plain text for people."""

from __future__ import annotations

import json
import re
import shutil
import sys
from typing import Any, TextIO

from biny.core.answer.compose import EXTRACTED_NOTE
from biny.core.cli import index as cli_index
from biny.core.i18n import Msg, t
from biny.core.progress import Progress, ProgressMeter


def _json_default(obj: object) -> Any:
    if isinstance(obj, Msg):  # core's words, put into the reader's language now (issue 56)
        return str(obj)
    if hasattr(obj, "isoformat"):
        return obj.isoformat()
    raise TypeError(type(obj).__name__)


def _dump(data: object, out: TextIO) -> None:
    out.write(json.dumps(data, ensure_ascii=False, default=_json_default) + "\n")


# What a terminal acts on instead of showing (issue 59): C0 controls but newline and tab (ESC starts the sequences
# that clear the screen or retitle the window, CR rewrites a line, BEL rings), DEL, the C1 controls (U+009B is a
# one-character CSI on some terminals) and the bidirectional overrides that reorder what is shown.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(m: re.Match[str]) -> str:
    # \uXXXX: readable on a terminal, and still valid inside a JSON string (json.dumps leaves C1 and DEL raw).
    return f"\\u{ord(m.group()):04x}"


def safe_text(text: str) -> str:
    """``text`` with every control a terminal would act on written as a visible escape; newlines and tabs kept."""
    return _UNSAFE.sub(_escaped, text)


class SafeStream:
    """A text stream that escapes, in everything written through it, what ``safe_text`` escapes: the command line
    writes document text, titles and file names through it, so no document can drive the terminal. ``unfiltered``
    is the stream beneath, for the progress bar's own control sequences."""

    def __init__(self, stream: TextIO) -> None:
        self.unfiltered = stream

    def write(self, text: str) -> int:
        self.unfiltered.write(safe_text(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unfiltered, name)


def _shown(path: str) -> str:
    """A file name for a terminal line: control characters (a newline in a name) written as escapes."""
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode() for c in path)


def _print_answer(answer: Any) -> None:
    label = {"extractive": t("Answer (extracted from your material, no model):"),
             "web": t("Answer from PUBLIC web pages — not your material:")}.get(answer.mode, t("Answer:"))
    print(f"{label}\n  " + answer.text.replace("\n", "\n  "))
    if answer.untraced_numbers:
        print("  ! " + t("numbers not found in the cited sources: {numbers}").format(
            numbers=", ".join(answer.untraced_numbers)))
    if answer.removed_citations or answer.removed_placeholders:
        print("  ! " + t("removed: {items}").format(
            items=", ".join(answer.removed_citations + answer.removed_placeholders)))
    # The label already says an extracted answer is extracted; a note says more only when something went wrong.
    if answer.mode not in ("none", "model") and answer.note and answer.note != t(EXTRACTED_NOTE):
        print("  " + t("note: {message}").format(message=answer.note))
    for s in answer.sources:  # W4: read pages and results only found, both listed
        print(f"  {'[read] ' if s['read'] else '[found]'} {s['url']}" + (f" — {s['error']}" if s["error"] else ""))
    if answer.review_id:
        print(f"  queued for review: biny review show {answer.review_id}")
    print()


def _print_closest(closest: Any) -> None:
    """Issue 55: a refusal names what came closest — evidence, never an answer."""
    if closest is None:
        return
    where = closest.document + (" › " + " › ".join(closest.heading) if closest.heading else "")
    beyond = closest.beyond
    how = t("distance {d}").format(d=f"{closest.distance:.3f}") + (
        ", " + t("{b} beyond its cut {cut}").format(b=f"{beyond:.3f}", cut=f"{closest.cut:.3f}") if beyond is not None
        and beyond > 0 else ", " + t("inside its cut {cut}, dropped by the checks").format(cut=f"{closest.cut:.3f}")
        if closest.cut is not None else "")
    print("  " + t("closest, not an answer: {where} ({how})").format(where=where, how=how) + "\n")


def _print_result(result: Any) -> None:
    if result.structured is not None:
        if result.answer is not None:
            print(t("Answer:") + f"\n  {result.answer.text}\n")
            if result.answer.citations:  # a looked-up row is the cited source (issue 64)
                print(t("Sources:") + "".join(f"\n  [{c.n}] {c.document}" for c in result.answer.citations) + "\n")
        cli_index.print_structured(result)
        return
    if result.refused is not None and result.answer is None:  # the table lacks the row or field asked
        why = result.routed.evidence[-1] if result.routed is not None and result.routed.evidence else ""
        print(t("Not in the structured index: {why}").format(why=why))
        if result.refused.closest:
            print("  " + t("closest: {name}").format(name=result.refused.closest))
        return
    if result.answer is not None:
        _print_answer(result.answer)
        if result.answer.mode == "none":
            _print_closest(result.closest)
            return
        print(t("Sources:"))
    if not result.chunks:
        print(t("No passage is close enough to answer this: it is probably not in this space."))
        _print_closest(result.closest)
    # Issue 61: an answer lists the sources it cites; a kept passage it does not cite is shown apart.
    cited = {c.n for c in result.answer.citations} if result.answer is not None else set()
    order = sorted(range(1, len(result.chunks) + 1), key=lambda n: bool(cited) and n not in cited)
    for n in order:
        h = result.chunks[n - 1]
        if cited and n not in cited and (n == order[0] or order[order.index(n) - 1] in cited):
            print(t("Also retrieved (not cited by the answer):"))
        pin = " [" + t("pinned") + "]" if h.pinned else ""
        cal = ", " + t("{s} vs baseline").format(s=f"{h.calibrated:+.2f}") if h.calibrated is not None else ""
        page = " " + t("p.{n}").format(n=h.page) if h.page else ""
        print(f"[{n}] {_shown(h.document)}{page} — " + t("distance {d}").format(d=f"{h.distance:.3f}") + f"{cal}{pin}")
        print("    " + h.text.replace("\n", "\n    ")[:800])
    cut = f"{result.max_distance:.3f}" if result.max_distance is not None else t("none")
    print(t("(cut {cut} from {reference} reference)").format(cut=cut, reference=result.reference))


def _asdict(obj: Any) -> dict[str, Any]:
    from dataclasses import asdict, is_dataclass

    if is_dataclass(obj) and not isinstance(obj, type):
        return asdict(obj)
    return dict(obj)


class _Bar:
    """A terminal progress line on stderr, drawn by tqdm (issue 58): which file of how many, the step within it,
    its units done of total (pages read, rows or chunks embedded), their rate and the time left — the figures the
    console shows (core/progress.py ProgressMeter). Shown on a terminal only, unless ``enabled`` forces it either
    way (``--progress`` on; ``--json`` off)."""

    def __init__(self, enabled: bool | None = None) -> None:
        from tqdm import tqdm

        err = getattr(sys.stderr, "unfiltered", sys.stderr)  # the bar draws with control sequences of its own
        on = err.isatty() if enabled is None else enabled
        self._meter = ProgressMeter()
        self._bar = tqdm(total=None, file=err, leave=False, disable=not on, mininterval=0.2, bar_format="{desc}")

    def __call__(self, p: Progress) -> None:
        if self._bar.disable:
            return
        fig = self._meter.update(p)
        total, done = (fig.total, fig.done) if fig.total else (fig.files_total, fig.files_done)
        text = (_shown(fig.step_text())[:50] + "  " + fig.rate_text()).replace("{", "{{").replace("}", "}}")
        self._bar.bar_format = text + (" |{bar:20}|" if total else "")
        self._bar.total = total or None
        self._bar.n = min(done, total) if total else done
        # The terminal's width now (it may be resized); a terminal that reports none (0 columns) gets 100, not an
        # empty line.
        self._bar.ncols = shutil.get_terminal_size((100, 24)).columns or 100
        self._bar.refresh()

    def close(self) -> None:
        self._bar.close()
