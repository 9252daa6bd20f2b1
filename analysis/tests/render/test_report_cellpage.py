"""Cell page data: time series within the point budget, tables in reading order."""

from littlegrid.render import cellpage


def test_a_two_hour_cell_is_drawn_with_at_most_the_point_budget_and_says_so():
    t = [float(i) for i in range(7200)]
    cell = {"series": {"t_s": t, "throughput": [100.0] * 7200, "p99_ms": [5.0] * 7200, "in_flight": [None] * 7200,
                       "window_start_s": 60.0, "window_end_s": 7100.0}}
    charts = cellpage.time_series_charts(cell, budget=600)
    assert [c["id"] for c in charts] == ["ts-throughput", "ts-percentiles"]  # in_flight is all missing: no chart
    assert all(len(c["x"]) <= 600 for c in charts) and charts[0]["window"] == [60, 7100]
    assert "7200 points shown as 600" in charts[0]["note"] and "Shaded" in charts[0]["note"]


def test_nothing_is_shaded_when_nothing_was_trimmed():
    cell = {"series": {"t_s": [0.0, 1.0, 2.0], "throughput": [1, 2, 3], "window_start_s": 0.0, "window_end_s": 2.0}}
    (chart,) = cellpage.time_series_charts(cell)
    assert chart["window"] is None and chart["note"] == ""


def test_percentile_table_has_all_samples_first_then_labels_and_errors_largest_first():
    cell = {"overall": {"count": 3, "errors": 3, "errors_by_class": {"500": 1, "timeout": 2}, "p90_ms": 12.0},
            "labels": {"b": {"count": 1}, "a": {"count": 2}}}
    rows = cellpage.stats_rows(cell)
    assert [r["label"] for r in rows] == ["all samples", "a", "b"]
    assert rows[0]["values"][cellpage.PERCENTILE_COLUMNS.index(("p90_ms", "p90", cellpage.fmt.ms))] == "12 ms"
    assert [(r["error_class"], r["count"]) for r in cellpage.error_rows(cell)] == [("timeout", 2), ("500", 1)]
