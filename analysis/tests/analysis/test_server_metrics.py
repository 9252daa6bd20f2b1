"""Server and host figures from the 1 Hz metrics files (an older folder's server-metrics.csv read through its adaptor
into the mapping's figures, as every server figure is), and Little's law inside the server."""

import numpy as np
import pandas as pd
import pytest

from analysis_synthetic import T0, closed_loop, make_run
from littlegrid.analysis.observed import observed_window
from littlegrid.analysis.observed.server_metrics import host_figures, read_metrics
from littlegrid.analysis.steady.window import SteadyWindow
from littlegrid.summarize import analyze
from littlegrid.usererror import UserError

WINDOW = SteadyWindow(T0 + 2000, T0 + 29000, 2.0, 1.0, T0, T0 + 30000, 0, 0)


def server_figures(path, window):
    """The server block of a server-metrics.csv, through the one path: adaptor, mapping, window."""
    return observed_window.server_block(observed_window.read(None, path), window)


def server_csv(l_mean=2.0, x=20.0, r_s=0.1, with_integral=True, seconds=31):
    """Readings of a server holding L = X·R requests in flight (±1 around the mean at alternate seconds)."""
    t = T0 + 1000 * np.arange(seconds)
    frame = pd.DataFrame({
        "time_ms": t, "busy_threads": l_mean, "connections": 20, "in_flight": l_mean + np.where(np.arange(seconds) % 2, 1, -1),
        "throttle_queue": 0, "requests_total": x * np.arange(seconds), "service_seconds_total": x * r_s * np.arange(seconds),
    })
    if with_integral:
        frame["in_flight_seconds_total"] = l_mean * np.arange(seconds)
    return frame


def test_l_comes_from_the_in_flight_integral_when_the_server_provides_it(tmp_path):
    server_csv().to_csv(tmp_path / "s.csv", index=False)
    s = server_figures(tmp_path / "s.csv", WINDOW)
    assert s["in_flight_source"] == "integral" and s["in_flight_mean"] == pytest.approx(2.0)
    assert s["throughput_per_s"] == pytest.approx(20.0) and s["service_mean_ms"] == pytest.approx(100.0)
    assert s["readings"] == 28  # the readings at T0+2 s … T0+29 s


def test_without_the_integral_l_is_the_mean_of_the_sampled_in_flight_with_its_standard_error(tmp_path):
    server_csv(with_integral=False).drop(columns=["connections"]).to_csv(tmp_path / "s.csv", index=False)
    s = server_figures(tmp_path / "s.csv", WINDOW)
    assert s["in_flight_source"] == "sampled" and s["in_flight_mean"] == pytest.approx(2.0)
    assert s["in_flight_se"] == pytest.approx(1 / np.sqrt(28), rel=0.05)
    assert s["connections_mean"] is None  # a missing column is no figure, not an error


def test_host_figures_are_window_means_and_an_empty_file_is_no_figures(tmp_path):
    pd.DataFrame({"time_ms": T0 + 1000 * np.arange(31), "load1": np.arange(31.0), "run_queue": 1,
                  "cpu_util": 0.5}).to_csv(tmp_path / "h.csv", index=False)
    h = host_figures(read_metrics(tmp_path / "h.csv"), WINDOW)
    assert h["load1_mean"] == pytest.approx(np.arange(2, 30).mean()) and h["cpu_util_mean"] == 0.5
    assert h["cpu_iowait_mean"] is None
    (tmp_path / "empty.csv").write_text("")
    assert read_metrics(tmp_path / "empty.csv") is None


def test_a_metrics_file_without_time_is_refused_naming_the_file(tmp_path):
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    with pytest.raises(UserError, match=r"bad.csv:1: no time_ms column"):
        read_metrics(tmp_path / "bad.csv")


def test_littles_law_at_the_server_passes_when_l_equals_x_r_and_fails_when_it_does_not(tmp_path):
    def run(l_mean, name):
        samples = closed_loop(20, 100, 100, duration_s=30)
        return analyze([make_run(tmp_path / name, [{
            "id": "users=20", "axes": {"users": 20}, "samples": samples, "users": 20, "think_ms": 100,
            "think_dist": "constant", "server": {"server.tomcat.threads.max": 10},
            "properties": {"path": "/io?ms=95"}, "server_metrics": server_csv(l_mean=l_mean, x=20.0, r_s=0.095)}])])
    good = run(1.9, "good").cells[0]
    checks = {c.name: c for c in good.checks}
    assert checks["server_little"].passed and checks["server_little"].expected == pytest.approx(1.9)
    assert good.server.client_minus_server_ms == pytest.approx(5.0)
    assert checks["throughput_bound"].passed and checks["throughput_bound"].expected == pytest.approx(20 / 0.195)
    bad = {c.name: c for c in run(3.0, "bad").cells[0].checks}
    assert bad["server_little"].passed is False


def test_the_throttle_queue_splits_server_time_into_queue_wait_and_time_in_service_by_littles_law(tmp_path):
    # 20/s through the server, R_server = 100 ms, 1.2 requests queued on average at the throttle:
    # W_q = 1.2 / 20 s = 60 ms, so 40 ms is spent inside the throttle.
    frame = server_csv(l_mean=2.0, x=20.0, r_s=0.1)
    frame["throttle_queue"] = 1.2
    frame.to_csv(tmp_path / "s.csv", index=False)
    s = server_figures(tmp_path / "s.csv", WINDOW)
    assert s["throttle_wait_ms"] == pytest.approx(60.0)
    assert s["in_service_ms"] == pytest.approx(40.0)


def test_without_a_throttle_queue_column_there_is_no_split(tmp_path):
    server_csv().drop(columns=["throttle_queue"]).to_csv(tmp_path / "s.csv", index=False)
    s = server_figures(tmp_path / "s.csv", WINDOW)
    assert s["throttle_wait_ms"] is None and s["in_service_ms"] is None


def test_readings_count_answered_scrapes_and_the_longest_gap_is_the_longest_stretch_without_one(tmp_path):
    frame = server_csv()
    frame.loc[10:12, frame.columns != "time_ms"] = np.nan  # three failed scrapes: rows with a time and no values
    frame["threads_max"] = 10
    frame.loc[10:12, "threads_max"] = np.nan
    frame.to_csv(tmp_path / "s.csv", index=False)
    s = server_figures(tmp_path / "s.csv", WINDOW)
    assert (s["readings"], s["failed_scrapes"]) == (25, 3)  # 28 rows in the window
    assert s["longest_gap_s"] == pytest.approx(4.0)  # from the reading at +9 s to the one at +13 s
    assert s["threads_max"] == 10


def test_with_a_reading_every_second_the_longest_gap_is_one_second_and_with_none_it_is_the_window(tmp_path):
    window_ms = (WINDOW.start_ms, WINDOW.end_ms)
    every_second = np.arange(window_ms[0], window_ms[1] + 1, 1000)
    pd.DataFrame({"time_ms": every_second, "in_flight": 1.0}).to_csv(tmp_path / "s.csv", index=False)
    s = server_figures(tmp_path / "s.csv", WINDOW)
    assert s["longest_gap_s"] == pytest.approx(1.0) and s["readings"] == len(every_second)
    pd.DataFrame({"time_ms": every_second, "in_flight": np.nan}).to_csv(tmp_path / "n.csv", index=False)
    none = server_figures(tmp_path / "n.csv", WINDOW)
    assert none["readings"] == 0 and none["longest_gap_s"] == pytest.approx(27.0) and none["in_flight_mean"] is None


def saturated_cell(tmp_path, server_metrics):
    """100 users without think time on a server of 10 threads of 100 ms: X = 100/s, R = 1000 ms."""
    samples = closed_loop(100, 1000, 0, duration_s=30)
    return analyze([make_run(tmp_path, [{
        "id": "users=100", "axes": {"users": 100}, "samples": samples, "users": 100, "think_ms": 0,
        "think_dist": "constant", "server": {"server.tomcat.threads.max": 10}, "properties": {"path": "/"},
        "server_metrics": server_metrics}])]).cells[0]


def test_a_saturated_cell_says_90_of_100_users_wait_900_ms_in_front_of_a_10_thread_server(tmp_path):
    frame = server_csv(l_mean=10.0, x=100.0, r_s=0.1)
    frame["threads_max"] = 10
    cell = saturated_cell(tmp_path, frame)
    srv = cell.server
    assert cell.overall.throughput_per_s == pytest.approx(100.0, rel=0.01)
    assert srv.in_flight_mean == pytest.approx(10.0) and srv.busy_threads_mean == pytest.approx(10.0)
    assert srv.threads_max == 10
    assert srv.waiting_in_front == pytest.approx(90.0, rel=0.01)
    assert srv.wait_in_front_ms == pytest.approx(900.0) and srv.client_minus_server_ms == srv.wait_in_front_ms
    assert srv.in_front_reason is None
    assert {c.name: c for c in cell.checks}["server_little"].passed is True


def test_a_cell_without_server_metrics_has_no_server_block_and_no_figures_in_front(tmp_path):
    cell = saturated_cell(tmp_path, None)
    assert cell.server is None
    assert "server_little" not in {c.name for c in cell.checks}
