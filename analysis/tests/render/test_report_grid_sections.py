"""Grid-only sections of the overview (grid at a glance, curves over N, bounds and USL, SLO capacity, M/M/c//N)
appear only where the run has more than one cell along an axis; a single point gets none of them."""

import copy
import re

import pytest

from littlegrid.render import overview
from littlegrid.render.report import build_report
from synthetic_summary import synthetic_summary
from littlegrid.summary.model import Summary

GRID_SECTIONS = ("heatmaps", "curves", "models")


def sections(summary, tmp_path) -> set[str]:
    page = build_report(summary, tmp_path / "out").read_text(encoding="utf-8")
    return set(re.findall(r'<section[^>]* id="([^"]+)"', page))


def test_a_single_cell_has_no_grid_sections(tmp_path):
    summary = synthetic_summary(users=(5,), think_ms=(0,), samples_total=2000)
    models = summary["curves"][0]["models"]
    assert models["bounds"] and models["mmcn"]  # the summary holds them: the page leaves them out
    typed = Summary.model_validate(summary)
    pages = {c.id: "x.html" for c in typed.cells}
    assert overview.heatmap_sections(typed.cells, pages) == []
    assert overview.throughput_chart(typed) is None and overview.latency_charts(typed) == []
    assert overview.model_rows(typed) == [] and overview.model_tables(typed) == {"slo": [], "mmcn": []}
    found = sections(summary, tmp_path)
    assert not found & set(GRID_SECTIONS) and {"verdict", "checks", "cells"} <= found
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "bound min(N/(D+Z)" not in page and "vs users N" not in page


def test_one_curve_over_users_has_every_grid_section(tmp_path):
    summary = synthetic_summary(users=(1, 2, 5), think_ms=(0,), samples_total=3000)
    assert set(GRID_SECTIONS) <= sections(summary, tmp_path)
    typed = Summary.model_validate(summary)
    assert len(overview.model_rows(typed)) == 1 and overview.model_tables(typed)["slo"]
    chart = overview.throughput_chart(typed)
    assert [s["label"] for s in chart["series"]][:2] == ["think_ms = 0",
                                                         "bound min(N/(D+Z), 1/Dmax): D 10 ms, Dmax 2.5 ms, N* 4"]


@pytest.mark.parametrize("users, thinks, expected, over_users", [
    # one N per think time: two cells along the think-time axis (a heatmap column, M/M/c//N beside each), but
    # no curve over N, so no bound, USL or SLO capacity
    ((5,), (0, 50), {"heatmaps", "models"}, False),
    ((1, 5), (0, 50), set(GRID_SECTIONS), True),
])
def test_only_the_sections_the_axes_support_are_drawn(tmp_path, users, thinks, expected, over_users):
    summary = synthetic_summary(users=users, think_ms=thinks, samples_total=3000)
    assert sections(summary, tmp_path) & set(GRID_SECTIONS) == expected
    typed = Summary.model_validate(summary)
    assert bool(overview.model_rows(typed)) is over_users and bool(overview.model_tables(typed)["slo"]) is over_users
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert ("Asymptotic bounds and USL fits" in page) is over_users and "Exact M/M/c//N model" in page


def test_each_curve_has_one_colour_one_model_row_and_legend_entries_that_never_repeat(golden_summary):
    typed = Summary.model_validate(golden_summary)
    labels = [k.label for k in typed.curves]
    assert labels == ["think_ms = 0", "think_ms = 50"]
    rows = overview.model_rows(typed)
    assert [(r["curve"], r["colour"]) for r in rows] == [(labels[0], 0), (labels[1], 1)]
    assert [r["n_star"] for r in rows] == [4.0, 24.0]
    for chart in overview.curve_charts(typed):
        texts = [s["label"] for s in chart["series"]]
        assert len(texts) == len(set(texts)), texts
        measured = [s for s in chart["series"] if s["label"] in labels]
        assert [(s["label"], s["group"]) for s in measured] == [(labels[0], 0), (labels[1], 1)]
        # every other line (bound, fit) wears the colour of a curve
        assert {s["group"] for s in chart["series"]} == {0, 1}
    # two curves whose bounds read the same are told apart by their curve's name
    same = copy.deepcopy(golden_summary)
    same["curves"][1]["models"]["bounds"] = same["curves"][0]["models"]["bounds"]
    texts = [s["label"] for s in overview.throughput_chart(Summary.model_validate(same))["series"]]
    assert len(texts) == len(set(texts)) and any(t.endswith("(think_ms = 50)") for t in texts)


def test_the_usl_line_is_the_fitted_curve_the_summary_holds_drawn_as_stored(golden_summary):
    # points no USL of the stored σ, κ, λ passes through: the chart can only have read them
    usl = golden_summary["curves"][0]["models"]["usl"]
    usl["points"] = [{"load": 1.0, "x": 7.0}, {"load": 2.5, "x": 11.0}, {"load": 20.0, "x": 3.0}]
    chart = overview.throughput_chart(Summary.model_validate(golden_summary))
    (line,) = [s for s in chart["series"] if s["label"].startswith("USL") and s["group"] == 0]
    assert line["style"] == "dot"
    assert {x: y for x, y in zip(chart["x"], line["values"]) if y is not None} == {1: 7, 2.5: 11, 20: 3}
    usl["points"] = []  # a summary of an older littlegrid: the fit's figures in the table, no line
    chart = overview.throughput_chart(Summary.model_validate(golden_summary))
    assert not [s for s in chart["series"] if s["label"].startswith("USL") and s["group"] == 0]
