"""Issue 60: every line a figure draws is in its legend, ring labels never lie on top of each other or of the scale,
and every figure's numbers can be written as CSV. Measured with the fonts' own metrics (matplotlib's text extents),
not by looking at pixels."""

from __future__ import annotations

import csv
from itertools import combinations
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg

from biny.core import distances_table, histogram_figure, save_table, star_map_figure
from biny.core.analysis.starmap import Ring, StarMap, StarPoint
from biny.core.retrieve.baseline import Distribution


def _crowded_map() -> StarMap:
    """Three rings within 0.01 of each other near 0.21 (a reference percentile and two passages' cuts), and the
    0.20 scale tick between them — what the analyst saw."""
    rng = np.random.default_rng(3)
    points = [StarPoint(f"c{i}", "d", f"doc {i}", float(d), float(d), float(a), "kept" if d < 0.2 else "dropped",
                        None, "", 0.205 if d < 0.2 else None)
              for i, (d, a) in enumerate(zip(rng.uniform(0.08, 0.3, 40), rng.uniform(0, 2 * np.pi, 40),
                                             strict=True))]
    rings = [Ring("unrelated p10", 0.16, "reference"), Ring("unrelated median", 0.2, "reference"),
             Ring("unrelated p90", 0.212, "reference"), Ring("cut of a", 0.205, "cut"),
             Ring("cut of b", 0.2085, "cut"), Ring("model unrelated median (latin→latin)", 0.25, "model")]
    return StarMap("What does the Team plan cost?", points, rings, 0.8, "latin", {})


def _drawn(fig):  # type: ignore[no-untyped-def]
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def test_ring_labels_do_not_overlap_each_other_or_the_scale() -> None:
    for size in ((5.0, 4.5), (7.5, 6.5), (12.0, 9.0)):
        fig = star_map_figure(_crowded_map())
        fig.set_size_inches(*size)
        fig = star_map_figure(_crowded_map(), fig=fig)
        renderer = _drawn(fig)
        ax = fig.axes[0]
        labels = [t for t in ax.texts if t.get_gid() == "ring_label"]
        ticks = [t for t in ax.get_yticklabels() if t.get_text()]
        assert labels and ticks
        said = " ".join(t.get_text() for t in labels)
        for name in ("p10 0.160", "median 0.200", "p90 0.212", "0.205", "0.208", "0.250"):
            assert name in said, (name, said)  # every ring is named, none dropped to make room
        boxes = [t.get_window_extent(renderer) for t in labels + ticks]
        for a, b in combinations(boxes, 2):
            assert not a.overlaps(b), (size, [t.get_text() for t in labels + ticks])
        # No scale tick sits on a ring's line: its text box does not straddle any ring's radius.
        to_px = ax.transData
        for tick in ticks:
            box = tick.get_window_extent(renderer)
            for ring in _crowded_map().rings:
                x, y = to_px.transform((np.deg2rad(ax.get_rlabel_position()), ring.radius))
                assert not box.contains(x, y), (tick.get_text(), ring.name)


def test_the_histograms_median_line_is_in_the_legend_and_its_figures_export(tmp_path: Path) -> None:
    ref = Distribution.of(np.linspace(0.12, 0.3, 200).astype(np.float32))
    dist = np.linspace(0.05, 0.4, 50)
    fig = histogram_figure(dist, ref, 0.15, "q")
    _drawn(fig)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any(text.startswith("unrelated questions' median") and f"{ref.median:.3f}" in text for text in legend)
    dashed = [line for line in fig.axes[0].get_lines() if line.get_linestyle() == "--"]
    assert dashed and all(not line.get_label().startswith("_") for line in dashed)  # every dashed line is named
    header, rows = distances_table(dist, ref, 0.15)
    path = save_table(header, rows, tmp_path / "d.csv")
    with path.open(encoding="utf-8-sig") as f:
        read = list(csv.reader(f))
    assert read[0] == ["series", "distance"]
    assert sum(r[0] == "chunk" for r in read[1:]) == 50 and ["cut", "0.15"] in read
    assert ["unrelated median", str(round(ref.median, 6))] in read
