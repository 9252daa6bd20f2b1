"""Which cells form a curve, its label, x and models, and which open cells are overloaded: known answers."""

import math

import numpy as np
import pytest

from littlegrid.analysis.cells import Service
from littlegrid.analysis.modelling import curves
from littlegrid.analysis.observed import cpu_demand
from littlegrid.analysis.steady import trend
from littlegrid.summary.model import Cell, Run
from summary_contract import typed

TOL = {"throughput_bound": 0.02, "mmcn": 0.05}
THREADS = "server.tomcat.threads.max"


def closed(n, x, r, *, threads=10, z=0, status="complete", workload="closed", cpu=None, extra=None,
           elapsed=None) -> Cell:
    axes = {THREADS: threads, "users": n, **(extra or {})}
    hist = None
    if elapsed is not None:
        values, counts = np.unique(np.asarray(elapsed, int), return_counts=True)
        hist = {"elapsed_ms": {"values": values.tolist(), "counts": counts.tolist()}}
    return typed({"id": ",".join(f"{k}={v}" for k, v in axes.items()), "axes": axes, "status": status,
                  "users": {"n": n}, "intended": {"think_ms": z, "workload": workload},
                  "overall": {"count": int(x * 30), "throughput_per_s": x, "successes_per_s": x, "mean_ms": r},
                  "window": {"length_s": 30.0}, "host": {"cpu_util_mean": cpu} if cpu is not None else None,
                  "histogram": hist, "checks": []}, Cell)


def open_cell(rate, served, r_first, r_last, *, busy, threads=4, window=30.0, cpu=0.3, buckets=30) -> Cell:
    """An open cell offered `rate`/s that served `served`/s, its per-second median R moving linearly from r_first to
    r_last over the steady window, with `busy` of `threads` Tomcat threads busy."""
    t = [float(i) for i in range(buckets)]
    p50 = [r_first + (r_last - r_first) * i / (buckets - 1) for i in range(buckets)]
    axes = {THREADS: threads, "rate_per_s": rate}
    made = typed({"id": f"{THREADS}={threads},rate_per_s={rate}", "axes": axes, "status": "complete",
                  "users": {"n": 50}, "intended": {"rate_per_s": rate, "workload": "open"},
                  "overall": {"count": int(served * window), "throughput_per_s": served, "successes_per_s": served,
                              "mean_ms": (r_first + r_last) / 2},
                  "window": {"length_s": window},
                  "server": {"busy_threads_mean": busy, "threads_max": threads},
                  "host": {"cpu_util_mean": cpu},
                  "series": {"t_s": t, "p50_ms": p50, "window_start_s": 0.0, "window_end_s": float(buckets),
                             "bucket_s": 1},
                  "checks": []}, Cell)
    return made.model_copy(update={"trend": trend.trend(made.series)})  # as the cell stage gives it


def build(cells, services=None, cores=2):
    """The curves of the cells, each with its CPU per request on `cores` as the analysis stage attaches it."""
    run = typed({"host": {"cpus": cores}}, Run)
    return curves.build(cpu_demand.attach(cells, run), services or {}, [], lambda cid, p: None, TOL)


def test_two_arms_are_two_curves_each_named_by_the_axis_that_tells_them_apart():
    cells = [closed(n, min(n / 0.1, 100.0), max(100.0, n * 10.0)) for n in (10, 20, 100)]
    cells += [closed(n, n / 0.1, 100.0, threads=100) for n in (10, 20, 100)]
    services = {c.id: Service(int(c.axes[THREADS]), 100.0, "const") for c in cells}
    _, built, _ = build(cells, services)
    assert [k.label for k in built] == [f"{THREADS} = 10", f"{THREADS} = 100"]
    assert [k.x for k in built] == [[10.0, 20.0, 100.0]] * 2 and [k.x_name for k in built] == ["N", "N"]
    # the Little's-law experiment's point: D_max 10 ms, N* 10 for ten threads; 1 ms, N* 100 for a hundred
    assert [(k.models.bounds.d_max_ms, k.models.bounds.n_star) for k in built] == [(10.0, 10.0), (1.0, 100.0)]
    assert [k.models.bounds.capacity_per_s for k in built] == [100.0, 1000.0]


def test_failed_cells_and_spikes_are_no_points_and_say_why():
    cells = [closed(1, 9.0, 100.0), closed(2, 18.0, 100.0, status="failed"), closed(4, 36.0, 100.0),
             closed(8, 40.0, 200.0, workload="spike")]
    _, built, _ = build(cells)
    (k,) = built
    assert k.cells == [cells[0].id, cells[2].id]
    assert [(o.cell, o.reason) for o in k.left_out] == [(cells[1].id, "failed")]
    # the throughput bound is checked on the points only
    out, _, _ = build(cells)
    assert [any(c.name == "throughput_bound" for c in cell.checks) for cell in out] == [True, False, True, False]


def test_a_lone_curve_is_named_by_its_fixed_axes_and_labels_never_repeat():
    _, (k,), _ = build([closed(1, 9.0, 100.0, extra={"think_ms": 50}), closed(2, 18.0, 100.0, extra={"think_ms": 50})])
    assert k.label == f"{THREADS} = 10, think_ms = 50"
    assert curves._labels([curves.Members("closed", {}, [closed(1, 9.0, 1.0)], [])] * 2) == ["Z = 0 ms", "Z = 0 ms (2)"]


def test_an_open_curve_runs_over_the_offered_rate_with_capacity_c_over_s_and_no_n_star():
    # c = 4 threads, S = 52 ms: c/S = 76.9/s
    cells = [open_cell(40, 40.0, 60, 61, busy=2.1), open_cell(60, 59.7, 70, 72, busy=3.1),
             open_cell(100, 76.5, 150, 900, busy=3.98), open_cell(140, 77.0, 200, 1300, busy=4.0)]
    services = {c.id: Service(4, 52.0, "const") for c in cells}
    _, (k,), _ = build(cells, services)
    assert (k.workload, k.x_axis, k.x_name, k.x) == ("open", "rate_per_s", "λ", [40, 60, 100, 140])
    b = k.models.bounds
    assert b.capacity_per_s == pytest.approx(4 / 0.052) and b.n_star is None
    assert [p.x_upper for p in b.points] == pytest.approx([40, 60, 4 / 0.052, 4 / 0.052])
    assert k.models.usl is None and k.models.knee is None
    # λ = 40 and 60 were served within their Poisson noise 3·√(λ/T); 100 and 140 were not, with 4 of 4 threads
    # busy and R rising through the window: overload
    assert [o.cell for o in k.overload] == [cells[2].id, cells[3].id]
    o = k.overload[0]
    assert o.resource == "thread_pool" and o.overloaded and o.trend.rising and o.trend.tau == pytest.approx(1.0)
    assert o.shortfall_noise_per_s == pytest.approx(3 * math.sqrt(100 / 30))


def test_a_shortfall_with_the_server_idle_is_not_overload_and_a_flat_r_is_not_a_growing_queue():
    idle = open_cell(100, 80.0, 60, 61, busy=1.5)  # the rate was not delivered, the server was not the limit
    flat = open_cell(100, 77.0, 300, 300, busy=4.0)  # full pool, but R did not rise: the excess was refused
    noise = open_cell(100, 99.0, 60, 61, busy=1.4)  # 1/s short of 100/s in 30 s: inside 3·√(100/30) = 5.5/s
    for cell, resource, overloaded in ((idle, None, False), (flat, "thread_pool", False)):
        o = curves.overload(cell, 76.9, True)
        assert (o.resource, o.overloaded) == (resource, overloaded)
    assert curves.overload(noise, 76.9, True) is None


def test_a_constant_distance_above_the_lower_bound_is_overhead_and_a_growing_one_is_not():
    # an I/O-bound endpoint, S = 20 ms on a large pool, Z = 1 s: R = S + 6.7 ms at every N
    rng = np.random.default_rng(4)

    def cell(n, r):
        return closed(n, n / (1.0 + r / 1000), r, threads=200, z=1000,
                      elapsed=np.round(rng.normal(r, 3.0, 3000)).astype(int))

    flat = [cell(1, 26.7), cell(2, 26.6), cell(4, 26.9), cell(8, 26.8)]
    services = {c.id: Service(200, 20.0, "const") for c in flat}
    _, (k,), _ = build(flat, services)
    assert k.models.overhead.grows is False and k.models.overhead.mean_ms == pytest.approx(6.75, abs=0.05)
    assert k.models.overhead.trend == "constant" and k.models.overhead.tolerance_ms == pytest.approx(6.75 / 4, abs=0.02)
    growing = [cell(1, 26.7), cell(2, 30.0), cell(4, 45.0), cell(8, 90.0)]
    _, (k,), _ = build(growing, {c.id: Service(200, 20.0, "const") for c in growing})
    assert k.models.overhead.grows is True and k.models.overhead.trend == "rises"


def test_the_host_limit_is_the_slope_of_busy_cores_against_x_after_what_runs_anyway():
    # 2 cores: 0.6 busy cores at X = 100/s, 1.0 at 400/s: each further request costs 0.4/300 s = 1.33 core-ms (the
    # marginal cost), and 0.467 cores are busy whatever the load (U_0). The 1.533 cores left allow X = 1150/s,
    # reached at N = 1150·10 ms. The CPU per request quoted is the heaviest cell's own, 1.0 core / 400/s = 2.5 ms
    cells = [closed(1, 100.0, 10.0, threads=200, cpu=0.3), closed(4, 400.0, 10.0, threads=200, cpu=0.5)]
    _, (k,), _ = build(cells, {c.id: Service(200, 10.0, "const") for c in cells}, cores=2)
    h = k.models.host_limit
    assert h.marginal_core_ms == pytest.approx(4 / 3) and h.idle_cores == pytest.approx(0.6 - 100 * 0.4 / 300)
    assert h.max_per_s == pytest.approx(1150) and h.basis == "host_shared"
    assert h.demand_core_ms == pytest.approx(2.5) and h.cpu_util == 0.5
    assert h.max_load == pytest.approx(11.5) and h.cell == cells[1].id
    # a CPU pinned by something else (100% at every load) says nothing of what a request costs: no limit claimed
    pinned = [closed(1, 100.0, 10.0, threads=200, cpu=1.0), closed(4, 400.0, 10.0, threads=200, cpu=1.0)]
    assert build(pinned, cores=2)[1][0].models.host_limit is None
    # one cell: U·cores/X, an upper bound of the cost (what runs anyway counted in)
    _, (k,), _ = build(cells[1:], cores=2)
    assert k.models.host_limit.demand_core_ms == pytest.approx(2.5) and k.models.host_limit.marginal_core_ms is None
    assert k.models.host_limit.max_per_s == pytest.approx(800)  # X/U: the cores full, U_0 counted in the cost
    _, (k,), _ = build(cells, cores=None)
    assert k.models.host_limit is None  # no core count, no claim


def test_the_live_view_gets_the_same_curves_from_its_cells_so_far():
    cells = [closed(n, n / 0.1, 100.0, threads=t) for t in (10, 100) for n in (10, 20)]
    assert [(k.label, k.cells) for k in curves.curves_of(cells)] == \
        [(k.label, k.cells) for k in build(cells)[1]]


def test_every_cell_records_its_facet_the_axes_of_its_curve_but_the_think_time():
    cells = [closed(n, n / 0.1, 100.0, z=z, extra={"think_ms": z, "rep": rep}) for n in (10, 20) for z in (0, 50)
             for rep in (1, 2)]
    cells += [closed(8, 40.0, 200.0, workload="spike"), closed(30, 1.0, 1.0, threads=100, status="failed")]
    out, built, _ = build(cells)
    assert [c.facet for c in out] == [f"{THREADS}=10"] * 9 + [f"{THREADS}=100"]
    # the curves of a facet differ in think time alone, and repetitions are points of one curve
    assert [(k.think_ms, len(k.cells)) for k in built] == [(0, 4), (50, 4)]
    assert {c.facet for c in out if c.id in built[0].cells + built[1].cells} == {f"{THREADS}=10"}
    opened = [open_cell(rate, rate, 10.0, 10.0, busy=1.0) for rate in (10, 20)]
    assert [c.facet for c in build(opened)[0]] == [f"{THREADS}=4,rate_per_s=10", f"{THREADS}=4,rate_per_s=20"]


def _with(cell, **record):
    return typed(cell.model_dump() | record, Cell)


def test_a_stall_keeps_its_cell_on_the_curve_and_an_outage_leaves_it_out_saying_why_with_its_figures():
    stall = {"began_s": 60.0, "lasted_s": 2.5, "held": 10, "held_failed": 0, "shortest_ms": 2_400.0,
             "longest_ms": 2_600.0, "in_window": True, "rule": "a stall"}
    # the second cell: 18/s for 30 s, 10 s of it refused at 20/s (200 failures), 10 s before and after it
    part = {"count": 170, "errors": 0, "throughput_per_s": 17.0, "mean_ms": 110.0, "error_rate": 0.0}
    outage = {"began_s": 12.0, "lasted_s": 10.0, "recovered": True, "failed": 200, "failed_per_s": 20.0,
              "failed_by_class": {"connection_refused": 200}, "error_class": "connection_refused",
              "figures": "whole", "rule": "an outage", "failed_in_window": 200,
              "before": part | {"length_s": 10.0}, "after": part | {"length_s": 10.0, "mean_ms": 95.0}}
    died = outage | {"recovered": False, "figures": "before", "lasted_s": 60.0, "failed_in_window": 0, "after": None}
    cells = [_with(closed(1, 9.0, 100.0), stalls=[stall]),
             _with(closed(2, 18.0, 100.0), outage=outage, status="outage"),
             _with(closed(4, 36.0, 100.0), outage=died, status="outage"), closed(8, 72.0, 100.0)]
    _, (k,), _ = build(cells)
    assert k.cells == [cells[0].id, cells[3].id]
    recovered, never = (o.reason for o in k.left_out)
    assert recovered == (
        "an outage: no request was answered from 12 s into the cell for 10 s (200 requests failed in it of the "
        "window's 540), then it recovered: the window's X counts those failures and its R and error rate mix a "
        "server answering with one failing, so it is no steady state (before it X = 17/s, mean R = 110 ms, 0 "
        "errors; after it X = 17/s, mean R = 95 ms, 0 errors)")
    assert never == ("an outage: no request was answered from 12 s into the cell for 60 s (200 requests failed "
                     "in it); the server never came back, so the cell has only the part before it")
