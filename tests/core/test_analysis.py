"""Analysts' figures and evaluation runs (SPEC C3, R9) on the demo space, real model and stores."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from biny.core.analysis import fonts, plots
from biny.core.cli import main
from biny.core.config import Settings
from biny.core.demo import build_demo
from biny.core.engine import Engine
from biny.core.text.question import Question
from tests.conftest import CountingEmbedder

Q = "Which plan is for small workshops?"


@pytest.fixture(scope="module")
def eng(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = Engine.open(tmp_path_factory.mktemp("analysis") / "home", settings=Settings(),
                         embedder=CountingEmbedder())
    assert build_demo(engine).ok
    yield engine
    engine.close()


def _true_distances(eng: Engine, question: str) -> dict[str, float]:
    """Computed apart from the map: the stored vectors against a fresh query embedding."""
    space = eng.catalog.spaces.named("demo")
    table = eng.chunks.scan(space.space_id, ["chunk_id", "vector"])
    q = eng.models.embedder.embed_queries([question])[0]
    vecs = np.asarray(table.column("vector").to_pylist(), dtype=np.float64)
    return dict(zip(table.column("chunk_id").to_pylist(), (1.0 - vecs @ q).tolist(), strict=True))


def test_star_map_radius_is_the_true_distance_rings_are_the_reference_and_layout_is_stable(eng: Engine) -> None:
    sm = eng.analysis.star_map("demo", Q)
    truth = _true_distances(eng, Q)
    assert len(sm.points) >= 5
    assert max(abs(p.radius - truth[p.chunk_id]) for p in sm.points) < 1e-6
    assert all(p.radius == p.distance for p in sm.points)
    group, ref = eng.retrieval.baselines("demo").reference_for(Question.parse(Q))
    assert ref is not None and sm.reference == group
    rings = {r.name: r.radius for r in sm.rings if r.kind == "reference"}
    assert rings == {"unrelated p10": ref.quantiles["p10"], "unrelated median": ref.median,
                     "unrelated p90": ref.quantiles["p90"]}
    kept = [p for p in sm.points if p.status != "dropped"]
    assert kept and {p.chunk_id for p in kept} == {h.chunk_id for h in eng.ask("demo", Q).chunks}
    # Every point says why (issue 49): a kept one its rule and cut, a dropped one the stage that dropped it.
    stages = {s.name for s in eng.ask("demo", Q).trace.stages}
    assert all(p.reason.startswith("kept") for p in kept)
    assert all(p.reason.split(":")[0] in stages or str(p.reason).startswith("not among")
               for p in sm.points if p.status == "dropped")
    assert any(p.status == "dropped" for p in sm.points)
    again = eng.analysis.star_map("demo", Q)
    assert [(p.chunk_id, p.angle) for p in again.points] == [(p.chunk_id, p.angle) for p in sm.points]
    assert 0.0 <= sm.preservation <= 1.0 and sm.model_band["pair"] == "latin→latin"
    model = [r for r in sm.rings if r.kind == "model"]
    assert [r.radius for r in model] == [eng.analysis.model_bands()["latin→latin"].median]


def test_a_pinned_passage_is_drawn_as_pinned(eng: Engine) -> None:
    question = "What is the battery life of TA-210?"  # a part number: pinned (R4)
    hits = eng.ask("demo", question, params=_no_index(eng)).chunks
    assert any(h.pinned for h in hits)
    sm = eng.analysis.star_map("demo", question)
    pinned = {p.chunk_id for p in sm.points if p.status == "pinned"}
    assert pinned == {h.chunk_id for h in hits if h.pinned}
    fig = plots.star_map_figure(sm)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "pinned (identifier)" in labels


def _no_index(eng: Engine) -> Any:
    params = eng.retrieval.params()
    params.use_structured = False
    return params


def test_model_bands_per_language_pair(eng: Engine) -> None:
    bands = eng.analysis.model_bands()
    assert {"latin→latin", "han→latin", "han→han", "kana→kana"} <= set(bands)
    assert all(b.n >= 16 for b in bands.values())
    assert bands["han→han"].median < bands["han→latin"].median  # zh→en sits apart from zh→zh


def test_collection_and_histogram(eng: Engine, tmp_path: Path) -> None:
    col = eng.analysis.collection("demo", question="退款政策是什么？", color_by="language")
    assert col.coords.shape == (col.total, 2) and col.question is not None and set(col.groups) <= {
        "CJK", "Latin and other"}
    sample = eng.analysis.collection("demo", limit=10)
    assert len(sample.chunk_ids) == 10 and "of" in str(sample.note)
    dist, ref, cut = eng.analysis.distances("demo", Q)
    assert len(dist) == col.total and ref is not None and cut is not None
    for fig, name in ((plots.histogram_figure(dist, ref, cut, Q), "h.svg"),
                      (plots.collection_figure(col.coords, col.groups, col.question, "demo", col.note), "c.png")):
        out = plots.save_figure(fig, tmp_path / name)
        assert out.stat().st_size > 1000


def test_evaluation_runs_with_ablations_are_kept_and_compared(eng: Engine, tmp_path: Path) -> None:
    items = [
        {"question": Q, "expected_document": "Tallow Plans and Pricing"},
        {"question": "How many days is the free trial?", "answer": "14-day"},
        {"question": "套餐的价格是多少？", "expected_document": "Tallow 套餐与价格（中国大陆）"},
        {"question": "Who painted the ceiling of the Sistine Chapel?", "unanswerable": True},
        {"question": "How do bees make honey?", "unanswerable": True},
    ]
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in items), encoding="utf-8")
    run = eng.analysis.evaluate("demo", path)
    assert set(run.metrics) == {"full", "no threshold", "no identifiers", "no second pass", "no rerank"}
    full = run.metrics["full"]
    assert full["questions"] == 5 and full["hit_rate"] == 1.0 and full["zero_chunk_rate"] == 1.0
    assert run.metrics["no threshold"]["zero_chunk_rate"] == 0.0  # without the cut, something always comes back
    assert run.run_id in {r["run_id"] for r in eng.analysis.runs("demo")}
    near, far = run.nearest_distances(True), run.nearest_distances(False)
    assert len(near) == 3 and len(far) == 2 and max(near) < min(far)  # answerable ones sit closer
    assert eng.analysis.run(run.run_id).nearest_distances(True) == near
    again = eng.analysis.evaluate("demo", path, compare_to=run.run_id)
    assert again.comparison == {"better": [], "worse": [], "only_in_first": [], "only_in_second": []}
    csv_path = tmp_path / "set.csv"
    csv_path.write_text("question,expected_document,unanswerable\n" + f"{Q},Tallow Plans and Pricing,\n"
                        "Why do cats purr?,,true\n", encoding="utf-8")
    assert eng.analysis.evaluate("demo", csv_path).metrics["full"]["questions"] == 2


def test_cli_map_and_eval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "home")
    assert main(["--home", home, "demo"]) == 0
    capsys.readouterr()
    assert main(["--home", home, "map", Q, "--space", "demo", "--out", str(tmp_path / "m.svg"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (tmp_path / "m.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    assert all(abs(p["radius"] - p["distance"]) < 1e-6 for p in data["points"])
    assert {"chunk_id", "distance", "radius", "angle", "status"} <= set(data["points"][0])
    assert [r["name"] for r in data["rings"]][:3] == ["unrelated p10", "unrelated median", "unrelated p90"]
    qs = tmp_path / "q.jsonl"
    qs.write_text(json.dumps({"question": Q, "expected_document": "Tallow Plans and Pricing"}) + "\n", "utf-8")
    assert main(["--home", home, "eval", str(qs), "--space", "demo", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["full"]["hit_rate"] == 1.0
    # The file `biny ask --questions` reads runs too: unjudged, its distances reported, in no rate.
    asked = tmp_path / "asked.jsonl"
    asked.write_text(json.dumps({"question": Q, "history": []}) + "\n" + json.dumps("Wie lange hält die Batterie?")
                     + "\n", "utf-8")
    assert main(["--home", home, "eval", str(asked), "--space", "demo", "--json"]) == 0
    full = json.loads(capsys.readouterr().out)["metrics"]["full"]
    assert full["unjudged"] == 2 and full["hit_rate"] is None and full["mean_chunks"] > 0
    assert main(["--home", home, "map", Q, "--space", "demo", "--out", str(tmp_path / "m.gif")]) == 2
    assert "png or .svg" in capsys.readouterr().err


def test_a_cjk_font_installed_after_matplotlibs_font_cache_is_still_used(monkeypatch: pytest.MonkeyPatch,
                                                                         tmp_path: Path) -> None:
    """The console's preflight can install a CJK font after matplotlib cached its font list: Chinese titles
    must still draw with it, not as boxes (under `filterwarnings = error` a missing glyph fails here)."""
    from matplotlib import font_manager, rcParams

    installed = fonts.cjk_fonts()
    assert installed, "no font covers Chinese: `make test` installs one (python -m biny.console.preflight --tests)"
    paths = {f.path for f in installed}
    stale = [f for f in font_manager.fontManager.ttflist if f.fname not in paths]
    monkeypatch.setattr(font_manager.fontManager, "ttflist", stale)
    monkeypatch.setattr(plots, "_scanned", False)
    monkeypatch.setattr(plots, "_cjk_family", None)
    monkeypatch.setitem(rcParams, "font.family", ["sans-serif"])
    fig = plots.histogram_figure(np.linspace(0.1, 0.3, 20), None, 0.2, "泵站的设计流量是多少？")
    assert rcParams["font.family"][1] == font_manager.FontProperties(fname=installed[0].path).get_name()
    assert plots.save_figure(fig, tmp_path / "h.png").stat().st_size > 1000  # drawn without a missing glyph


def test_a_message_figure_draws_chinese_with_the_cjk_font_and_wraps_it(tmp_path: Path) -> None:
    """The console's empty canvases say what to do; in Chinese that text must not be boxes (a missing glyph is an
    error under `filterwarnings = error`), and a long line is wrapped to the canvas."""
    message = "在上方输入问题并点击“绘制”：与它最近的段落按各自的距离排布在它周围，旁边是无关问题的参考环。" * 2
    fig = plots.message_figure(message, dark=True)
    (text,) = fig.texts
    assert text.get_text().replace("\n", "") == message and "\n" in text.get_text()
    assert plots.save_figure(fig, tmp_path / "m.png").stat().st_size > 1000


def test_any_font_fontconfig_says_covers_chinese_is_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The figures follow fontconfig (the preflight's rule), not a list of known family names: a font under a
    family biny has never heard of is found, preferred families still come first, and no fontconfig means none."""
    real = fonts.cjk_fonts()
    assert real, "no font covers Chinese: `make test` installs one (python -m biny.console.preflight --tests)"
    fake = tmp_path / "fc-list"
    fake.write_text("#!/bin/sh\n"
                    f"echo '{real[0].path}: Unheard Of Sans,未知黑体'\n"
                    "echo '/nowhere/wqy.ttc: WenQuanYi Micro Hei,文泉驿微米黑'\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    found = fonts.cjk_fonts()
    assert [f.family for f in found] == ["WenQuanYi Micro Hei", "Unheard Of Sans"]
    monkeypatch.setattr(plots, "_scanned", False)
    monkeypatch.setattr(plots, "_cjk_family", None)
    # The preferred file is unreadable here, so the next one fontconfig named is taken.
    assert plots.cjk_family() is not None
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert fonts.cjk_fonts() == [] and not fonts.has_cjk_font()


def _outside(fig: Any) -> list[str]:
    """What is drawn (even partly) outside the figure's canvas: titles and legend texts by name, and anything
    else drawn (tick labels, within the axes' view) through the figure's tight bounding box."""
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height

    def off(box: Any) -> bool:
        return bool(box.x0 < -0.5 or box.y0 < -0.5 or box.x1 > width + 0.5 or box.y1 > height + 0.5)

    out = [text.get_text() for text in fig.findobj(Text)
           if text.get_visible() and text.get_text().strip()
           and not any(text in (*a.get_xticklabels(), *a.get_yticklabels()) for a in fig.axes)
           and off(text.get_window_extent(renderer))]
    tight = fig.get_tightbbox(renderer).transformed(fig.dpi_scale_trans)
    return out + (["(drawn beyond the canvas)"] if off(tight) else [])


def test_no_figure_draws_text_outside_its_canvas(eng: Engine, tmp_path: Path) -> None:
    """Issue 49: a long question, many legend entries and a Chinese title stay inside the canvas (the console's
    view) and so inside every export, whatever the title says ("329 chunks", never "29 chunks")."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    long_q = ("Which of the plans that the company sells would suit a small workshop with three people and a "
              "shared printer, and what would it cost per month?")
    sm = eng.analysis.star_map("demo", long_q)
    col = eng.analysis.collection("demo", question="退款政策是什么？", color_by="document")
    dist, ref, cut = eng.analysis.distances("demo", long_q)
    figures = {
        "star map": plots.star_map_figure(sm),
        "collection": plots.collection_figure(col.coords, col.groups, col.question,
                                              "演示空间 demo · 329 chunks of a collection with a long name", col.note),
        "histogram": plots.histogram_figure(dist, ref, cut, long_q),
    }
    assert len(set(col.groups)) >= 5  # a legend with many entries
    for name, fig in figures.items():
        FigureCanvasAgg(fig)
        assert _outside(fig) == [], name
