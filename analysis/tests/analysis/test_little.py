"""Little's law at every boundary the analysis draws (analysis/queueing/little.py, its one owner), with answers on paper."""

import pytest

from littlegrid.analysis.queueing import little
from littlegrid.summary.model import Cell
from summary_contract import typed


def test_the_requests_the_server_does_not_hold_wait_in_front_of_it_by_littles_law_at_both_boundaries():
    # X = 100/s, R = 1000 ms at the client: 100 requests outstanding; the server holds 10 for 100 ms each.
    f = little.boundaries(100.0, 1000.0, {"in_flight_mean": 10.0, "service_mean_ms": 100.0})
    assert (f["client_in_flight"], f["waiting_in_front"], f["wait_in_front_ms"], f["in_front_reason"]) == \
        (pytest.approx(100.0), pytest.approx(90.0), pytest.approx(900.0), None)
    # the same queue by Little's law: 90 waiting at 100/s is 900 ms each
    assert f["waiting_in_front"] / 100.0 * 1000 == pytest.approx(f["wait_in_front_ms"])
    assert (f["in_service_requests"], f["in_service_basis"]) == (10.0, "L_server measured at the server")
    assert f["waiting_outside_pool"] is None  # L_server measured: the server's boundary says it


def test_without_in_flight_at_the_server_nothing_is_said_to_wait_in_front_and_the_reason_names_the_failed_scrapes():
    f = little.boundaries(100.0, 1000.0, {"in_flight_mean": None, "service_mean_ms": None, "readings": 3,
                                          "failed_scrapes": 25})
    assert f["waiting_in_front"] is None and f["wait_in_front_ms"] is None and f["in_service_requests"] is None
    assert f["client_in_flight"] == pytest.approx(100.0)
    assert f["in_front_reason"] == ("the server metrics lack in-flight (L_server) and service-time (R_server) "
                                    "in the window (25 of 28 scrapes failed)")
    spike = little.boundaries(100.0, 1000.0, {"in_flight_mean": 10.0, "service_mean_ms": 100.0}, steady=False)
    assert spike["waiting_in_front"] is None and "spike" in spike["in_front_reason"]


def test_with_only_a_pools_busy_workers_the_rest_of_x_r_wait_outside_that_pool():
    # a Go service's pool of 6 named in [observe.pools], 5.9 busy; N = 16, Z = 0: X = 150/s, R = 106.7 ms
    f = little.boundaries(150.0, 106.7, {"busy_threads_mean": 5.9, "in_flight_mean": None, "service_mean_ms": None})
    assert f["client_in_flight"] == pytest.approx(16.0, rel=1e-3)
    assert f["in_service_requests"] == 5.9 and "busy workers" in f["in_service_basis"]
    assert f["waiting_outside_pool"] == pytest.approx(16.0 - 5.9, rel=1e-3)
    # each busy worker holds a request busy/X = 39.3 ms: the rest of R is spent outside the pool
    assert f["wait_outside_pool_ms"] == pytest.approx(106.7 - 1000 * 5.9 / 150)
    assert f["waiting_in_front"] is None  # no L_server: nothing is said of the server's own boundary


def test_in_service_is_l_server_or_x_r_server_less_the_throttles_queue():
    # the throttle queues 2 on average at 50/s: W_q = 40 ms of R_server = 60 ms
    split = little.throttle_split(2.0, 50.0, 60.0)
    assert split == {"throttle_wait_ms": pytest.approx(40.0), "in_service_ms": pytest.approx(20.0)}
    server = {"throughput_per_s": 50.0, "service_mean_ms": 60.0, "throttle_queue_mean": 2.0, **split}
    measured = little.boundaries(50.0, 70.0, server | {"in_flight_mean": 3.0})
    assert measured["in_service_requests"] == pytest.approx(1.0) and "less the throttle's queue" in \
        measured["in_service_basis"]
    timer = little.boundaries(50.0, 70.0, server | {"in_flight_mean": None})
    assert timer["in_service_requests"] == pytest.approx(50 * 0.060 - 2.0)
    assert timer["in_service_basis"].startswith("X·R_server")


def _timed(load, r_ms, service_ms, in_service, cpu_util, cores=2.0):
    return typed({"id": f"users={load}", "axes": {"users": load}, "status": "complete", "users": {"n": load},
                  "overall": {"count": 1000, "mean_ms": r_ms, "throughput_per_s": 100.0},
                  "server": {"service_mean_ms": service_ms, "in_service_requests": in_service,
                             "in_service_basis": "L_server measured at the server"},
                  "server_cpu": {"basis": "host_shared", "host": "this host", "cores": cores, "util": cpu_util,
                                 "shared_with_generator": True, "words": "the host's 2 cores"}}, Cell)


def test_requests_in_service_sharing_saturated_cores_each_take_l_over_cores_times_s():
    # 40 users, Z = 100 ms on 2 cores of 10 ms each: L = 20 in service, each 20/2 × 10 = 100 ms
    light, heavy = _timed(1, 10.0, 10.0, 0.1, 0.05), _timed(40, 100.0, 100.0, 20.0, 0.97)
    model = little.shared_cores([light, heavy])
    assert (model.cell, model.light_cell, model.in_service, model.cores) == (heavy.id, light.id, 20.0, 2.0)
    assert (model.service_alone_ms, model.shared_ms, model.measured_ms) == (10.0, 100.0, 100.0)
    # the lightest cell already had 4 in service on 2 cores: its own time was shared, S alone is half of it
    shared_light = _timed(8, 20.0, 20.0, 4.0, 0.95)
    assert little.shared_cores([shared_light, heavy]).service_alone_ms == pytest.approx(10.0)
    # cores not saturated, or fewer in service than cores: no sharing to model
    assert little.shared_cores([light, _timed(40, 100.0, 100.0, 20.0, 0.5)]) is None
    assert little.shared_cores([light, _timed(40, 100.0, 100.0, 1.5, 0.97)]) is None
    assert little.shared_cores([heavy]) is None
