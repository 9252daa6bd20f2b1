"""Cell page data: time series within the point budget, tables in reading order."""

from littlegrid.render import cellpage
from littlegrid.summary.model import Cell
from summary_contract import typed


def cell_of(parts: dict) -> Cell:
    return typed(parts, Cell)


def test_a_two_hour_cell_is_drawn_with_at_most_the_point_budget_and_says_so():
    t = [float(i) for i in range(7200)]
    cell = {"series": {"t_s": t, "throughput": [100.0] * 7200, "p99_ms": [5.0] * 7200, "in_flight": [None] * 7200,
                       "window_start_s": 60.0, "window_end_s": 7100.0}}
    charts = cellpage.time_series_charts(cell_of(cell), budget=600)
    assert [c["id"] for c in charts] == ["ts-throughput", "ts-percentiles"]  # in_flight is all missing: no chart
    assert all(len(c["x"]) <= 600 for c in charts) and charts[0]["window"] == [60, 7100]
    assert "7200 points shown as 600" in charts[0]["note"] and "Shaded" in charts[0]["note"]


def test_nothing_is_shaded_when_nothing_was_trimmed():
    cell = {"series": {"t_s": [0.0, 1.0, 2.0], "throughput": [1, 2, 3], "window_start_s": 0.0, "window_end_s": 2.0}}
    (chart,) = cellpage.time_series_charts(cell_of(cell))
    assert chart["window"] is None and chart["note"] == ""


def test_percentile_table_has_all_samples_first_then_labels_and_errors_largest_first():
    cell = {"overall": {"count": 3, "errors": 3, "errors_by_class": {"500": 1, "timeout": 2}, "p90_ms": 12.0},
            "labels": {"b": {"count": 1}, "a": {"count": 2}}}
    rows = cellpage.stats_rows(cell_of(cell))
    assert [r["label"] for r in rows] == ["all samples", "a", "b"]
    assert rows[0]["values"][cellpage.PERCENTILE_COLUMNS.index(("p90_ms", "p90", cellpage.fmt.ms))] == "12 ms"
    assert [(r["error_class"], r["count"]) for r in cellpage.error_rows(cell_of(cell))] == [("timeout", 2), ("500", 1)]


SATURATED = {"users": {"n": 100}, "overall": {"mean_ms": 1008.0}, "window": {"length_s": 23.0},
             "server": {"readings": 24, "failed_scrapes": 0, "longest_gap_s": 1.0, "threads_max": 10,
                        "in_flight_mean": 10.0, "busy_threads_mean": 10.0, "client_in_flight": 100.0,
                        "waiting_in_front": 90.0, "wait_in_front_ms": 905.0, "in_front_reason": None}}


def test_the_server_view_says_how_many_users_wait_in_front_of_the_server_and_for_how_long():
    view = cellpage.server_view(cell_of(SATURATED))
    assert view["wait"] == ("Of N = 100 users, X·R = 100 have a request outstanding; L_server = 10 of them are in the "
                            "server (busy threads 10 of 10); 90 wait in front of it: each request spends 905 ms of its "
                            "1,008 ms there (R − R_server): in Tomcat's accept queue before a worker takes them, on "
                            "the network or in the client.")
    assert view["readings"] == "24 server readings in the 23 s steady window; longest stretch without one 1 s."


def test_without_server_figures_the_server_view_says_why():
    assert "this cell has no server metrics" in cellpage.server_view(cell_of({"server": None}))["wait"]
    starved = {**SATURATED, "server": {"readings": 2, "failed_scrapes": 21, "longest_gap_s": 21.0,
                                       "waiting_in_front": None,
                                       "in_front_reason": "the server metrics lack in-flight (L_server) in the window"}}
    view = cellpage.server_view(cell_of(starved))
    assert view["wait"] == ("Where requests wait is not known: the server metrics lack in-flight (L_server) in the "
                            "window.")
    assert view["readings"] == ("2 server readings in the 23 s steady window, 21 scrapes failed; "
                                "longest stretch without one 21 s.")


def test_the_facts_say_which_samples_think_time_was_measured_between():
    outer = {"mean_ms": 320.0, "gaps": 236, "sequence": {"rule": "outermost samples", "text": "think time from the "
             "outermost samples: 240 transaction rows and 0 other outermost samples wrap 720 samples; 0 partial overlaps"}}
    rows = dict(cellpage.facts(cell_of({"id": "c", "think_time": outer})))
    assert rows["realised think time"] == ("320 ms over 236 gaps; think time from the outermost samples: 240 "
                                           "transaction rows and 0 other outermost samples wrap 720 samples; 0 partial overlaps")
    none = {"mean_ms": None, "gaps": 0, "sequence": {"rule": "does not apply", "text": "does not apply: samples "
            "overlap within threads (60 of 117 successive samples)"}}
    assert dict(cellpage.facts(cell_of({"id": "c", "think_time": none})))["realised think time"] == none["sequence"]["text"]
    assert "realised think time" not in dict(cellpage.facts(cell_of({"id": "c", "think_time": None})))


def test_the_facts_draw_the_cpu_per_request_the_summary_holds_with_whose_cores():
    cost = {"basis": "host_shared", "words": "the host's 2 cores, shared with the generator (JMeter's own work included)",
            "cores": 2.0, "cpu_util": 0.5, "busy_cores": 1.0, "throughput_per_s": 100.0, "core_ms": 10.0}
    row = dict(cellpage.facts(cell_of({"id": "c", "cpu_per_request": cost})))["CPU per request"]
    assert row.startswith("10 core-ms = U·cores/X: 50 % of the host's 2 cores, shared with the generator")
    # the figure is drawn, not recomputed: a stored 12 stays 12 whatever U, cores and X say
    row = dict(cellpage.facts(cell_of({"id": "c", "cpu_per_request": cost | {"core_ms": 12.0}})))["CPU per request"]
    assert row.startswith("12 core-ms")
    unmeasured = cost | {"basis": "not_measured", "words": "not measured", "core_ms": None, "busy_cores": None}
    assert dict(cellpage.facts(cell_of({"id": "c", "cpu_per_request": unmeasured})))["CPU per request"] == \
        "not measured"
    assert "CPU per request" not in dict(cellpage.facts(cell_of({"id": "c"})))


def test_the_facts_show_a_recovered_outage_with_its_parts_and_each_stall_as_the_summary_holds_them():
    part = {"count": 6_011, "errors": 13, "throughput_per_s": 100.0, "mean_ms": 99.8, "error_rate": 0.0022}
    outage = {"began_s": 60.1, "lasted_s": 10.0, "recovered": True, "failed": 1_981, "failed_per_s": 198.1,
              "failed_by_class": {"connection_refused": 1_981}, "error_class": "connection_refused",
              "figures": "whole", "rule": "r", "failed_in_window": 1_981, "before": part | {"length_s": 60.1},
              "after": part | {"length_s": 50.0, "count": 5_000, "errors": 0, "error_rate": 0.0}}
    stall = {"began_s": 30.0, "lasted_s": 2.5, "held": 10, "held_failed": 0, "shortest_ms": 2_400.0,
             "longest_ms": 2_600.0, "in_window": True, "rule": "r"}
    rows = cellpage.facts(cell_of({"id": "c", "status": "outage", "outage": outage, "stalls": [stall]}))
    said = dict(rows)
    assert said["outage"] == ("at 60.1 s for 10 s, then answered again; 1,981 requests failed in it "
                              "(connection_refused 1,981)")
    assert said["before the outage"].startswith("60.1 s: 6,011 requests, X 100/s, mean R 99.8 ms, errors 13")
    assert said["after the outage"].startswith("50 s: 5,000 requests, X 100/s, mean R 99.8 ms, errors 0")
    assert said["stall"] == "at 30 s for 2.5 s: 10 requests in flight at its start held, then answered"
