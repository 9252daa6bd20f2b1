"""Grid layout: page names are safe and unique, heatmaps place cells by think time and users, curves group them."""

from littlegrid.render import layout
from synthetic_summary import HOSTILE
from littlegrid.summary.model import Cell
from summary_contract import typed


def _cell(cid, users, think, p90=None, error_rate=None, facet="", **axes) -> Cell:
    return typed({"id": cid, "axes": {"users": users, "think_ms": think, **axes}, "users": {"n": users},
                  "status": "complete", "overall": {"p90_ms": p90, "error_rate": error_rate}, "facet": facet}, Cell)


def test_page_names_keep_readable_ids_and_make_hostile_ones_inert_and_unique():
    cells = [_cell("users=20,think_ms=50", 20, 50), _cell(HOSTILE[0], 1, 0), _cell(HOSTILE[0] + "?", 2, 0),
             _cell("../../etc/passwd", 3, 0), _cell(HOSTILE[2], 4, 0)]
    names = layout.page_names(cells)
    assert names["users=20,think_ms=50"] == "users=20,think_ms=50.html"
    assert len(set(v.lower() for v in names.values())) == len(cells)
    for name in names.values():
        assert "/" not in name and "<" not in name and ":" not in name and not name.startswith(".")


def test_heatmap_rows_are_think_times_columns_users_and_the_colour_scale_spans_the_grid():
    cells = [_cell("a", 1, 0, 10.0), _cell("b", 10, 0, 110.0), _cell("c", 1, 50, 12.0), _cell("d", 10, 50, 60.0)]
    pages = layout.page_names(cells)
    (table,) = layout.heatmaps(cells, lambda c: c.overall.p90_ms, str, pages)
    assert table["users"] == [1, 10]
    assert [r["think"] for r in table["rows"]] == ["Z = 0 ms", "Z = 50 ms"]
    classes = [[e[0]["cls"] for e in r["cells"]] for r in table["rows"]]
    assert classes == [["q0", "q9"], ["q0", "q5"]]  # 60 ms is half-way between 10 and 110
    assert table["rows"][1]["cells"][1][0]["href"] == "cells/d.html"


def _rate_classes(*rates):
    cells = [_cell(str(i), i + 1, 0, error_rate=r) for i, r in enumerate(rates)]
    (t,) = layout.heatmaps(cells, lambda c: c.overall.error_rate, str, layout.page_names(cells), from_zero=True)
    return [e[0]["cls"] for e in t["rows"][0]["cells"]]


def test_heatmap_of_a_rate_shows_a_uniform_small_error_rate_as_low():
    # 0.1 % everywhere is the grid's maximum, but a small rate: drawn light, not in the darkest class
    assert _rate_classes(0.001, 0.001) == ["q1", "q1"]


def test_heatmap_of_a_rate_is_one_class_per_percentage_point_whatever_the_grid_holds():
    assert _rate_classes(0.0, 0.0001, 0.0199, 0.02, 0.03, 0.0899, 0.09, 0.5) == \
        ["q0", "q1", "q1", "q2", "q3", "q8", "q9", "q9"]
    assert _rate_classes(0.0, 0.0) == ["q0", "q0"]  # no errors anywhere: clean, not "the top of an empty scale"
    assert _rate_classes(0.05, None) == ["q5", "qna"]  # the same 5 % is q5 beside any other cell


def test_heatmap_without_values_marks_every_entry_as_not_available():
    cells = [_cell("a", 1, 0), _cell("b", 2, 0)]
    (t,) = layout.heatmaps(cells, lambda c: None, str, layout.page_names(cells))
    assert [e[0]["cls"] for e in t["rows"][0]["cells"]] == ["qna", "qna"]


def test_each_facet_the_analysis_recorded_makes_a_heatmap_of_its_own():
    cells = [_cell("a", 1, 0, 1.0, threads=10, facet="threads=10"), _cell("b", 2, 0, 2.0, threads=10, facet="threads=10"),
             _cell("c", 1, 0, 3.0, threads=100, facet="threads=100")]
    tables = layout.heatmaps(cells, lambda c: c.overall.p90_ms, str, layout.page_names(cells))
    assert [t["facet"] for t in tables] == ["threads=10", "threads=100"]
    # the cell's facet is the analysis's word (Cell.facet): the report groups by it, never by the axes itself
    cells = [_cell("a", 1, 0, 1.0, threads=10, facet="f"), _cell("c", 2, 0, 3.0, threads=100, facet="f")]
    (table,) = layout.heatmaps(cells, lambda c: c.overall.p90_ms, str, layout.page_names(cells))
    assert table["facet"] == "f" and table["users"] == [1, 2]


def test_check_named_finds_the_closed_law_check_whatever_its_spelling():
    cell = typed({"checks": [{"name": "users"}, {"name": "Closed-Law (realised Z)", "rel_error": 0.01}]}, Cell)
    assert layout.check_named(cell, "closed_law").rel_error == 0.01
    assert layout.check_named(typed({"checks": []}, Cell), "closed_law") is None


def test_a_grid_needs_cells_at_more_than_one_point():
    one = [_cell("a", 5, 0)]
    assert not layout.is_grid(one)
    assert not layout.is_grid([_cell("a", 5, 0), _cell("a2", 5, 0)])  # repetitions of one point
    assert layout.is_grid([_cell("a", 5, 0), _cell("b", 5, 50)])  # two think times, one N each
    assert layout.is_grid([_cell("a", 5, 0, facet="threads=1"), _cell("b", 5, 0, facet="threads=2")])  # two facets
