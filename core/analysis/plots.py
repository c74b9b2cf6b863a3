"""Figures for analysts (matplotlib, no pyplot and no Qt): the CLI saves them, the console shows them.

Colour-blind-safe colours (Okabe–Ito) and distinct shapes per status; every figure can be
written as PNG or SVG. CJK labels render with the CJK font fontconfig names (analysis/fonts.py).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any, cast

import numpy as np
from matplotlib import font_manager, rcParams
from matplotlib.figure import Figure
from matplotlib.projections.polar import PolarAxes

from biny.core.analysis import fonts
from biny.core.analysis.starmap import StarMap
from biny.core.i18n import N_, t
from biny.core.text.scripts import script_name

STYLE = {  # status → (colour, marker, label)
    "kept": ("#0072B2", "o", N_("kept")),
    "pinned": ("#D55E00", "*", N_("pinned (identifier)")),
    "nearest": ("#009E73", "D", N_("kept as nearest")),
    "dropped": ("#999999", "x", N_("dropped")),
}
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000", "#999999",
           "#882255"]
_cjk_family: str | None = None
_scanned = False


def cjk_family() -> str | None:
    """The family matplotlib draws Chinese with: the first font fontconfig says covers it (fonts.cjk_fonts, the
    preflight's rule). Matplotlib caches its font list on first use, so a font installed afterwards (the console's
    preflight installs one) is added from its file; looked up once per process."""
    global _cjk_family, _scanned
    if not _scanned:
        _scanned = True
        for font in fonts.cjk_fonts():
            try:
                font_manager.fontManager.addfont(font.path)
                # The name matplotlib reads from the file, which can differ from fontconfig's spelling.
                _cjk_family = font_manager.FontProperties(fname=font.path).get_name()
                break
            except (OSError, RuntimeError, ValueError):  # an unreadable font file: try the next one
                continue
    return _cjk_family


def _fonts() -> None:
    """Prefer an installed CJK font after the default, so Chinese titles are not drawn as boxes."""
    cjk = cjk_family()
    # A list of families (not "sans-serif") makes matplotlib fall back glyph by glyph.
    if cjk and rcParams["font.family"] != ["DejaVu Sans", cjk]:
        rcParams["font.family"] = ["DejaVu Sans", cjk]


def _figure(fig: Figure | None, size: tuple[float, float]) -> Figure:
    """A cleared figure laid out by matplotlib's constrained layout: titles, outside legends and tick labels are
    given room inside the canvas — the console's view and every export (issue 49: "29 chunks" for 329)."""
    fig = fig or Figure(figsize=size)
    fig.clear()
    fig.set_layout_engine("constrained")
    return fig


def _wrap(text: str, width: int) -> str:
    """Each line of ``text`` wrapped at ``width`` columns (a CJK character is two), at spaces where there are."""
    out: list[str] = []
    for line in text.split("\n"):
        current, used = "", 0
        # A CJK character is a token of its own, also right after Latin text ("→拉丁字母" breaks before "拉").
        for token in re.findall(r"[\u3000-\u9fff\uff00-\uffef]|[^\s\u3000-\u9fff\uff00-\uffef]+\s*|\s+", line):
            cost = 2 if len(token) == 1 and ord(token) >= 0x3000 else len(token.rstrip())
            if used + cost > width and current.strip():
                out.append(current.rstrip())
                current, used = "", 0
            current += token
            used += len(token) if cost != 2 else 2
        out.append(current.rstrip())
    return "\n".join(out)


def _theme(fig: Figure, dark: bool) -> tuple[str, str]:
    fg, bg = ("#e9ecef", "#1e1e1e") if dark else ("#212529", "#ffffff")
    fig.set_facecolor(bg)
    return fg, bg


def _style_axes(ax: Any, fg: str, bg: str) -> None:
    ax.set_facecolor(bg)
    ax.tick_params(colors=fg)
    for spine in ax.spines.values():
        spine.set_color(fg)
    ax.xaxis.label.set_color(fg)
    ax.yaxis.label.set_color(fg)
    ax.title.set_color(fg)


def _legend(ax: Any, fg: str, **kw: Any) -> None:
    leg = ax.legend(fontsize=kw.pop("fontsize", 8), frameon=False, **kw)
    for text in leg.get_texts():
        text.set_color(fg)
        # A long entry is wrapped, not cut at the canvas's edge (issue 60: "model unrelated median (Latin-scrip").
        text.set_text(_wrap(text.get_text(), 30))


def message_figure(message: str, *, dark: bool = False, fig: Figure | None = None) -> Figure:
    """A figure holding only a message (what to do before there is anything to draw), in the console's colours and
    with the CJK font, so a Chinese message is not drawn as boxes."""
    _fonts()
    fig = _figure(fig, (7, 6))
    fg, _bg = _theme(fig, dark)
    fig.text(0.5, 0.5, _wrap(message, 90), ha="center", va="center", color=fg, alpha=0.6, fontsize=11)
    return fig


def star_map_figure(sm: StarMap, *, dark: bool = False, fig: Figure | None = None) -> Figure:
    _fonts()
    fig = _figure(fig, (7.5, 6.5))
    fg, bg = _theme(fig, dark)
    ax = fig.add_subplot(projection="polar")
    _style_axes(ax, fg, bg)
    theta = np.linspace(0, 2 * np.pi, 200)
    ref = {r.name: r.radius for r in sm.rings if r.kind == "reference"}
    if "unrelated p10" in ref and "unrelated p90" in ref:
        ax.fill_between(theta, ref["unrelated p10"], ref["unrelated p90"], color="#adb5bd", alpha=0.25,
                        label=t("unrelated questions p10–p90"))
    if "unrelated median" in ref:
        ax.plot(theta, np.full_like(theta, ref["unrelated median"]), color=fg, lw=1, ls="--",
                label=t("unrelated median"))
    for r in (r for r in sm.rings if r.kind == "model"):
        label = (t("model unrelated median ({pair})").format(pair=script_name(sm.model_band["pair"]))
                 if sm.model_band else r.name)
        ax.plot(theta, np.full_like(theta, r.radius), color="#CC79A7", lw=1.2, ls="-.", label=label)
    for n, cut in enumerate(sorted({round(r.radius, 4) for r in sm.rings if r.kind == "cut"})):
        ax.plot(theta, np.full_like(theta, cut), color="#E69F00", lw=0.8, ls=":",
                label=t("a kept passage's cut") if n == 0 else None)
    for status in ("dropped", "kept", "nearest", "pinned"):
        pts = [p for p in sm.points if p.status == status]
        if pts:
            colour, marker, label = STYLE[status]
            ax.scatter([p.angle for p in pts], [p.radius for p in pts], c=colour, marker=marker,
                       s=70 if status == "pinned" else 28, label=t(label), zorder=3, picker=True)
    ax.plot([0], [0], marker="P", color=fg, ms=10, label=t("the question"))
    top = max([p.radius for p in sm.points] + [r.radius for r in sm.rings] + [0.1])
    ax.set_ylim(0, top * 1.05)
    ax.set_xticklabels([])
    # The radius labels go where the fewest points lie, not across them (issue 49).
    angles = np.asarray([p.angle for p in sm.points], dtype=np.float64)
    crowd = [int((np.abs((angles - a + np.pi) % (2 * np.pi) - np.pi) < np.deg2rad(12)).sum())
             for a in np.deg2rad(np.arange(0, 360, 15))]
    at = 15 * int(np.argmin(crowd))
    cast(PolarAxes, ax).set_rlabel_position(at)
    _ring_labels(fig, ax, sm, top * 1.05, at, fg)
    ax.set_title(_wrap(sm.question[:160], 60) + "\n" + _wrap(t(
        "radius = true cosine distance · angles keep {share:.0%} of 5-nearest neighbours").format(
        share=sm.preservation), 60), fontsize=9, color=fg)
    _legend(ax, fg, loc="upper left", bbox_to_anchor=(1.05, 1.0))
    return fig


# Percentiles keep their names in every language; the median is a word.
RING_NAMES = {"unrelated p10": "p10", "unrelated median": N_("median"), "unrelated p90": "p90"}
RING_FONT = 7.0


def _ring_labels(fig: Figure, ax: Any, sm: StarMap, rmax: float, tick_angle: float, fg: str) -> None:
    """Each ring named with its radius, across the map from the scale; rings closer than a label's height share one
    label ("p90 0.213 · 2 cuts 0.205–0.210"), and a scale tick a ring's line would strike through is left out (issue
    60: the 0.20 tick was struck through, three rings' labels lay on top of each other)."""
    fig.draw_without_rendering()  # the laid-out axes: how many pixels one unit of distance is
    box = ax.get_window_extent()
    per_px = rmax / max(min(box.width, box.height) / 2, 1.0)
    gap = RING_FONT * fig.dpi / 72 * 1.4 * per_px  # a label's height, in distance
    rings = sorted(((r.radius, r) for r in sm.rings), key=lambda x: x[0])
    groups: list[list[Any]] = [[ring] for _, ring in rings]
    merged = True
    while merged:  # neighbouring labels (each at its rings' mean radius) closer than a label's height are one
        merged = False
        for i in range(len(groups) - 1):
            if np.mean([r.radius for r in groups[i + 1]]) - np.mean([r.radius for r in groups[i]]) < gap:
                groups[i:i + 2] = [groups[i] + groups[i + 1]]
                merged = True
                break
    ticks = [v for v in ax.get_yticks() if 0 < v < rmax and all(abs(v - r) >= gap * 0.6 for r, _ in rings)]
    ax.set_yticks(ticks)
    ax.set_yticklabels([f"{v:.2f}" for v in ticks], fontsize=8)
    # Straight up (or down, when the scale is there): labels of neighbouring radii are then a line apart, not side
    # by side along the same line.
    up = abs(((tick_angle - 90) + 180) % 360 - 180) > 45
    angle = np.deg2rad(90 if up else 270)
    for group in groups:
        names: list[str] = []
        cuts = sorted({round(r.radius, 4) for r in group if r.kind == "cut"})
        for r in group:
            if r.kind == "reference":
                names.append(f"{t(RING_NAMES.get(r.name, r.name))} {r.radius:.3f}")
            elif r.kind == "model":
                names.append(t("model median {radius:.3f}").format(radius=r.radius))
        if len(cuts) == 1:
            names.append(t("cut {cut:.3f}").format(cut=cuts[0]))
        elif cuts:
            names.append(t("{n} cuts {low:.3f}–{high:.3f}").format(n=len(cuts), low=min(cuts), high=max(cuts)))
        mid = float(np.mean([r.radius for r in group]))
        ax.text(angle, mid, " · ".join(names), fontsize=RING_FONT, color=fg, ha="center", va="center",
                gid="ring_label", bbox={"boxstyle": "round,pad=0.15", "fc": ax.get_facecolor(), "ec": "none",
                                        "alpha": 0.8})


def histogram_figure(distances: np.ndarray, reference: Any, cut: float | None, title: str, *,
                     dark: bool = False, fig: Figure | None = None, label: str | None = None) -> Figure:
    _fonts()
    fig = _figure(fig, (7, 4))
    fg, bg = _theme(fig, dark)
    ax = fig.add_subplot()
    _style_axes(ax, fg, bg)
    top = max([float(np.max(distances))] if len(distances) else [0.3])
    if reference is not None and reference.values:
        top = max(top, max(reference.values))
    bins = np.linspace(0, top * 1.08, 60).tolist()
    ax.hist(distances, bins=bins, color="#0072B2", alpha=0.7, label=label or t("this question's distances"),
            density=True)
    if reference is not None and reference.values:
        ax.hist(reference.values, bins=bins, histtype="step", color="#D55E00", lw=1.5, density=True,
                label=t("unrelated questions → nearest passage"))
        # Every line drawn is in the legend (issue 60: the dashed median was not).
        ax.axvline(reference.median, color="#D55E00", ls="--", lw=1,
                   label=t("unrelated questions' median {median:.3f}").format(median=reference.median))
    if cut is not None:
        ax.axvline(cut, color="#009E73", lw=1.5, label=t("cut {cut:.3f}").format(cut=cut))
    ax.set_xlabel(t("cosine distance"))
    ax.set_ylabel(t("density"))
    ax.set_title(_wrap(title[:200], 56), fontsize=9)  # the console's half-width canvas holds ~56 columns
    _legend(ax, fg)
    return fig


def collection_figure(coords: np.ndarray, groups: list[str], question: np.ndarray | None, title: str,
                      legend_note: str, *, dark: bool = False, fig: Figure | None = None) -> Figure:
    _fonts()
    fig = _figure(fig, (7.5, 6))
    fg, bg = _theme(fig, dark)
    ax = fig.add_subplot()
    _style_axes(ax, fg, bg)
    names = list(dict.fromkeys(groups))
    for n, name in enumerate(names):
        sel = np.asarray([g == name for g in groups])
        ax.scatter(coords[sel, 0], coords[sel, 1], s=6, color=PALETTE[n % len(PALETTE)], label=name[:40],
                   alpha=0.8, picker=True)
    if question is not None:
        ax.scatter([question[0]], [question[1]], marker="P", s=160, color=fg, label=t("the question"), zorder=4)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(_wrap(f"{title}\n{legend_note}", 60), fontsize=9)
    _legend(ax, fg, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def distances_table(distances: np.ndarray, reference: Any, cut: float | None) -> tuple[list[str], list[list[Any]]]:
    """The figures behind the distance histogram: each chunk's distance, the reference's values and the cut."""
    rows: list[list[Any]] = [["chunk", round(float(d), 6)] for d in np.asarray(distances).tolist()]
    if reference is not None:
        rows += [["unrelated question", round(float(v), 6)] for v in reference.values]
        rows.append(["unrelated median", round(float(reference.median), 6)])
    if cut is not None:
        rows.append(["cut", round(float(cut), 6)])
    return ["series", "distance"], rows


def save_table(header: list[str], rows: list[list[Any]], path: Path) -> Path:
    """A table as CSV (UTF-8 with a byte-order mark, so a spreadsheet reads Chinese text right); None as empty."""
    if path.suffix.lower() != ".csv":
        raise ValueError(f"{path.name}: write .csv")
    with path.open("w", encoding="utf-8-sig", newline="") as f:
        out = csv.writer(f)
        out.writerow(header)
        out.writerows([["" if v is None else v for v in row] for row in rows])
    return path


def save_figure(fig: Figure, path: Path) -> Path:
    """PNG or SVG by the file's suffix."""
    fmt = path.suffix.lower().lstrip(".") or "png"
    if fmt not in {"png", "svg"}:
        raise ValueError(f"{path.name}: write .png or .svg")
    path.parent.mkdir(parents=True, exist_ok=True)  # the README's walkthrough writes into its own folder
    # "tight": legends and titles placed outside the axes are inside the file, not clipped at its edge.
    fig.savefig(path, format=fmt, dpi=120, facecolor=fig.get_facecolor(), bbox_inches="tight", pad_inches=0.2)
    return path
