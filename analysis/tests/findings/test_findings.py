"""Findings on synthetic summaries whose answers are known on paper, each with a negative control."""

import math
from pathlib import Path

import pytest

from littlegrid.analysis.cells import Service
from littlegrid.analysis.modelling import curves
from littlegrid.analysis.queueing import little
from littlegrid.analysis.queueing.laws import DEFAULT_TOLERANCES
from littlegrid.findings import findings, two_arms
from littlegrid.findings.expect import evaluate, parse
from littlegrid.findings.validity import needed_window_s
from littlegrid.usererror import UserError
from typed_cells import cell as typed_cell
from typed_cells import summary as typed_summary
from typed_cells import costed, think_time, update, update_cells

THREADS = "server.tomcat.threads.max"


def cell(n, x, r, *, threads=10, z=0.0, busy=None, cpu=0.2, server=True, window=23.0, checks=(), errors=None,
         count=None, tail=None, queue=None, extra_axes=None, workload="closed", in_flight=None, r_server=None):
    """One cell as analyze writes it (the fields the findings read; the others neutral), at N users, X per second
    and R ms."""
    axes = {THREADS: threads, **(extra_axes or {}), "users": n}
    cid = ",".join(f"{k}={v}" for k, v in axes.items())
    count = count or int(x * window)
    srv = None
    if server:
        l_server = in_flight if in_flight is not None else min(n, threads) if busy is None else busy
        rs = r_server if r_server is not None else 1000.0 * l_server / x
        srv = {"busy_threads_mean": busy if busy is not None else min(n, threads), "in_flight_mean": l_server,
               "service_mean_ms": rs, "throughput_per_s": x, "throttle_queue_mean": queue}
        srv |= little.boundaries(x, r, srv)  # where the requests are, as the analysis writes it
    return typed_cell({"id": cid, "axes": axes, "status": "complete", "reason": None,
                       "window": {"length_s": window, "warmup_s": 5.0, "cooldown_s": 2.0},
                       "users": {"n": n}, "intended": {"think_ms": z, "think_dist": "constant", "workload": workload},
                       "overall": {"count": count, "throughput_per_s": x, "successes_per_s": x, "mean_ms": r,
                                   "p99_ms": 1.1 * r, "error_rate": (sum((errors or {}).values()) / count),
                                   "errors_by_class": errors or {}, "tail": tail or {}},
                       "think_time": {"mean_ms": z + 1.0, "gaps": count, "cv": 0.0},
                       "server": srv, "host": {"cpu_util_mean": cpu, "load1_mean": 1.0},
                       "checks": [{"name": name, "passed": passed, "rel_error": 0.1, "tolerance": tol,
                                   "explanation": f"{name} explanation"} for name, passed, tol in checks]})


def summary_of(cells, service_ms=100.0, cpus=2, axes=None, slos=()):
    """The summary around the cells, with the real curves and their models built by littlegrid.analysis.modelling.curves."""
    services = {c.id: Service(int(c.axes.get(THREADS, 200)), service_ms, "const") for c in cells} \
        if service_ms else {}
    run = {"host": {"cpus": cpus}, "server_knobs": None}
    cells, built, _ = curves.build(costed(cells, run), services, list(slos), lambda cid, q: None, DEFAULT_TOLERANCES)
    return typed_summary(cells, run=run, axes=axes or {},
                         curves=built, tolerances=dict(DEFAULT_TOLERANCES), checks=[], criteria=[])


def with_models(s, change, label=None):
    """The summary with change(models) in place of the models of each curve (only the curve so named, if given)."""
    return update(s, curves=[update(k, models=change(k.models)) if label in (None, k.label) else k
                             for k in s.curves])


def no_server(s, which=range(3)):
    """The summary with the server metrics of the cells at these indexes gone (the models as they were)."""
    return update_cells(s, lambda c: update(c, server=None), which)


def littles_law(server_at_100=True):
    """The classic table: 100 ms per request, 10 or 100 threads, N = 10, 20, 100, no think time."""
    return summary_of([
        cell(10, 98.0, 102.0, window=23.0), cell(20, 99.0, 202.0, busy=9.95),
        cell(100, 99.2, 1007.0, busy=10.0, server=server_at_100),
        cell(10, 98.0, 102.0, threads=100), cell(20, 196.0, 102.0, threads=100),
        cell(100, 983.0, 101.7, threads=100)], axes={THREADS: [10, 100], "users": [10, 20, 100]})


def of_kind(found, kind, **where):
    return [f for f in found if f.kind == kind and all(dict(f.where).get(k) == v for k, v in where.items())]


def test_ten_threads_saturate_at_c_over_s_from_n_10_and_a_hundred_threads_do_not():
    found = findings(littles_law())
    sat = of_kind(found, "saturation")
    assert len(sat) == 1 and dict(sat[0].where) == {THREADS: 10} and sat[0].standing == "holds"
    figures = dict(sat[0].figures)
    assert figures["users"] == 10 and figures["bound_per_s"] == pytest.approx(100.0)
    assert figures["throughput_per_s"] == pytest.approx((98.0 + 99.0 + 99.2) / 3)
    assert "c/S = 10/100 ms = 100/s" in sat[0].statement and "N = 10, 20 and 100" in sat[0].statement
    assert not of_kind(found, "saturation", **{THREADS: 100}) and not of_kind(found, "bottleneck", **{THREADS: 100})
    assert of_kind(found, "scaling", **{THREADS: 100})[0].standing == "holds"
    assert found[0].kind == "saturation" and found[1].kind == "bottleneck"  # ranked first


def test_a_curve_whose_throughput_keeps_growing_is_not_saturated():
    found = findings(summary_of([cell(10, 98.0, 102.0, threads=100), cell(20, 196.0, 102.0, threads=100),
                                 cell(100, 983.0, 101.7, threads=100)]))
    assert not of_kind(found, "saturation") and not of_kind(found, "bottleneck")


def test_the_thread_pool_is_named_when_busy_threads_reach_threads_max():
    found = findings(littles_law())
    b = of_kind(found, "bottleneck")
    assert len(b) == 1 and b[0].resource == "thread_pool" and b[0].standing == "holds"
    assert dict(b[0].figures)["throughput_per_s"] == pytest.approx(98.73, abs=0.01)
    assert "10 threads" in b[0].statement and "9.95 at N = 20" in b[0].statement


def test_without_any_busy_thread_figure_the_thread_pool_is_only_suggested_and_says_why():
    s = no_server(littles_law())
    b = of_kind(findings(s), "bottleneck")
    assert b[0].resource == "thread_pool" and b[0].standing == "suggests"
    assert "cannot confirm busy threads: no server metrics" in b[0].statement


def test_saturation_that_no_evidence_explains_is_unknown_and_names_what_to_measure():
    s = summary_of([cell(10, 50.0, 200.0, busy=3.0, server=True), cell(20, 51.0, 392.0, busy=3.0),
                    cell(40, 50.5, 792.0, busy=3.0)], service_ms=None)
    b = of_kind(findings(s), "bottleneck")
    assert b[0].resource == "unknown" and b[0].standing == "cannot tell"
    assert "Measure next" in b[0].statement


def test_saturated_cores_are_named_by_the_demand_law_when_the_service_itself_stretches():
    # 2 cores, 5 ms of CPU per request: U = X·D = 380/s · 5 ms / 2 cores = 0.95
    s = summary_of([cell(1, 190.0, 5.2, threads=200, cpu=0.5, busy=1.0),
                    cell(4, 380.0, 10.5, threads=200, cpu=0.95, busy=4.0),
                    cell(8, 382.0, 20.9, threads=200, cpu=0.96, busy=8.0)], service_ms=None)
    b = of_kind(findings(s), "bottleneck")
    assert b[0].resource == "cpu" and b[0].standing == "holds"
    # the curve's one CPU per request: U·cores/X at its highest X (N = 8), the cell its host limit quotes too
    assert dict(b[0].figures)["demand_core_ms"] == pytest.approx(1000 * 0.96 * 2 / 382.0, rel=1e-3)
    assert "= 5.03 core-ms at N = 8" in b[0].statement


def pinned_cpu_bound(pinned=True):
    """5 ms of CPU per request on the one CPU the server was pinned to ([server] cpus = [1]), JMeter on CPU 0: the
    host's two CPUs are 60% busy, the server's own 97-99% from N = 4 on. Unpinned, the same cells would say the
    host's CPU was not saturated."""
    rows = [(1, 150.0, 6.6, 0.80), (4, 190.0, 21.0, 0.97), (8, 192.0, 41.6, 0.99)]
    cells = [cell(n, x, r, threads=200, cpu=0.6, busy=float(n)) for n, x, r, _ in rows]
    if pinned:
        cells = [update(c, host=update(c.host, server_cpu_util_mean=u)) for c, (*_, u) in zip(cells, rows)]
    run = {"host": {"cpus": 2}, "server_knobs": None} | ({"server_cpus": [1], "generator_cpus": [0]} if pinned else {})
    cells, built, _ = curves.build(costed(cells, run), {}, [], lambda cid, q: None, DEFAULT_TOLERANCES)
    return typed_summary(cells, run=run, axes={}, curves=built, tolerances=dict(DEFAULT_TOLERANCES), checks=[],
                         criteria=[])


def test_a_server_pinned_to_its_own_cpu_is_cpu_bound_by_that_cpu_not_by_the_half_idle_host():
    b = of_kind(findings(pinned_cpu_bound()), "bottleneck")[0]
    assert b.resource == "cpu" and b.standing == "holds"
    assert "its own CPU 1 (JMeter on CPU 0) is 98% busy" in b.statement and "JMeter shares" not in b.statement
    assert dict(b.figures)["demand_core_ms"] == pytest.approx(1000 * 0.99 * 1 / 192.0, rel=1e-3)
    assert dict(b.figures)["cpu_basis"] == "server_pinned"
    # negative control: the same cells with the server sharing the host's cores read the host's 60%
    assert of_kind(findings(pinned_cpu_bound(pinned=False)), "bottleneck")[0].resource != "cpu"


def test_a_throttle_with_a_standing_queue_is_the_bottleneck():
    s = summary_of([cell(1, 190.0, 5.2, threads=200, cpu=0.5, busy=1.0, queue=0.0, extra_axes={"littlegrid.throttle.max-concurrent": 2}),
                    cell(4, 380.0, 10.5, threads=200, cpu=0.6, busy=4.0, queue=2.0, extra_axes={"littlegrid.throttle.max-concurrent": 2}),
                    cell(8, 382.0, 20.9, threads=200, cpu=0.6, busy=8.0, queue=6.0, extra_axes={"littlegrid.throttle.max-concurrent": 2})],
                   service_ms=None)
    b = of_kind(findings(s), "bottleneck")
    assert b[0].resource == "throttle" and dict(b[0].figures)["throttle_queue"] == pytest.approx(4.0)


def test_connection_failures_of_a_spike_name_connections_and_a_spike_without_them_names_nothing():
    refused = {"connection_refused": 85, "connect_timeout": 5}
    spike = [cell(n, 10.0, 2000.0, workload="spike", count=n, errors=refused if n == 120 else None,
                  extra_axes={"server.tomcat.max-connections": 20, "server.tomcat.accept-count": 10})
             for n in (10, 120)]
    found = findings(summary_of(spike, service_ms=None))
    b = of_kind(found, "bottleneck")
    assert len(b) == 1 and b[0].resource == "connections" and b[0].cells == (spike[1].id,)
    assert "max-connections + accept-count = 20 + 10 = 30" in b[0].statement and "90 of 120" in b[0].statement
    quiet = findings(summary_of([spike[0]], service_ms=None))
    assert not of_kind(quiet, "bottleneck")


def fidelity(c, excess_ms, tol=0.02):
    """Cell c with threads that thought excess_ms longer than asked, and the workload and think-time checks that
    follow: X·(R+Z) = N·(R+Z)/(R+Z+e), failing when that shortfall exceeds tol."""
    n, r, z = c.users.n, c.overall.mean_ms, c.intended.think_ms
    value = n * (r + z) / (r + z + excess_ms)
    return update(c, think_time=update(c.think_time, mean_ms=z + excess_ms), checks=[
        {"name": "workload", "value": value, "expected": float(n), "rel_error": 1 - value / n,
         "tolerance": tol, "passed": 1 - value / n <= tol, "explanation": "workload explanation"},
        {"name": "think_time", "value": z + excess_ms, "expected": z, "tolerance": 0.03,
         "rel_error": excess_ms / (r + z), "passed": excess_ms / (r + z) <= 0.03,
         "explanation": "think_time explanation"}])


def cpu_bound(excess_ms, cpu):
    """A CPU-bound curve on 2 cores (5 ms of CPU per request, no grid S): X levels at ~380/s from N = 4."""
    return summary_of([fidelity(cell(1, 190.0, 5.2, threads=200, cpu=0.5, busy=1.0), excess_ms),
                       fidelity(cell(4, 380.0, 10.5, threads=200, cpu=cpu, busy=4.0), excess_ms),
                       fidelity(cell(8, 382.0, 20.9, threads=200, cpu=cpu, busy=8.0), excess_ms)], service_ms=None)


def test_per_cycle_overhead_is_a_caveat_on_validity_not_a_generator_bottleneck():
    # 1 ms more think per cycle on a 10.5 ms cycle: X·R = N·10.5/11.5, 8.7% short: all of it the overhead
    s = cpu_bound(1.0, 0.97)
    found = findings(s)
    b = of_kind(found, "bottleneck")
    assert [f.resource for f in b] == ["cpu"] and b[0].standing == "holds"
    assert "JMeter shares these cores" in b[0].statement
    v = of_kind(found, "validity")
    assert len(v) == 1 and len(v[0].cells) == 3  # one finding lists the cells with the same reason
    assert v[0].statement.startswith("Read with care N = 1, 4 and 8")
    assert dict(v[0].figures)["overhead_ms"] == pytest.approx(1.0)
    assert "Do not trust" not in " ".join(f.statement for f in v)


def test_a_generator_starved_on_saturated_cores_is_the_cpu_bottleneck_and_on_idle_cores_only_suggested():
    # 10 ms more think than asked is far beyond JMeter's per-cycle work (laws.GENERATOR_OVERHEAD_MS = 2 ms); the
    # generator is to blame only when the server was not the limit, and saturated cores are that limit
    held = of_kind(findings(cpu_bound(10.0, 0.97)), "bottleneck")[0]
    assert held.resource == "cpu" and held.standing == "holds" and "97% busy" in held.statement
    assert "the generator, starved of them, fell short of the load asked for" in held.statement
    # no concurrency limit from a curve the generator set; the cores alone do give one (negative control)
    def limits(s):
        return [f for f in of_kind(findings(s), "recommendation") if f.recommendation.startswith("concurrency")]
    assert not limits(cpu_bound(10.0, 0.97)) and limits(cpu_bound(1.0, 0.97))
    v = of_kind(findings(cpu_bound(10.0, 0.97)), "validity")
    assert any(f.statement.startswith("Do not trust") for f in v)  # 49% short: far outside the 2% tolerance
    # the requests "waiting in front" of a starved generator's server are partly JMeter's own delay
    def queued(s):
        s = update_cells(s, lambda c: update(c, server=update(c.server, waiting_in_front=4.0, wait_in_front_ms=10.0)),
                         {2})  # N = 8: 10 of 20.9 ms
        return of_kind(findings(s), "waiting")
    w, calm = queued(cpu_bound(10.0, 0.97)), queued(cpu_bound(1.0, 0.97))
    assert len(w) == 1 and w[0].standing == "suggests" and "generator is starved" in w[0].why
    assert len(calm) == 1 and calm[0].standing == "holds"  # negative control: per-cycle overhead only
    # negative control: the same starvation on idle cores is at most a suggestion
    idle = of_kind(findings(cpu_bound(10.0, 0.3)), "bottleneck")[0]
    assert idle.resource == "generator" and idle.standing == "suggests"
    # and a full thread pool is named before a merely suggested generator
    s = summary_of([cell(10, 98.0, 102.0), fidelity(cell(20, 99.0, 202.0), 10.0), cell(100, 99.2, 1007.0)])
    assert of_kind(findings(s), "bottleneck")[0].resource == "thread_pool"


def test_x_growing_far_below_the_contention_free_line_is_contention_not_no_saturation():
    # D = 9 ms (R at N = 1), Z = 0: N/(D+Z) at N = 8 is 889/s; X = 223/s is 25% of it, R = 35.9 ms = N/X
    s = summary_of([cell(1, 111.0, 9.0, threads=200, cpu=0.6), cell(2, 150.0, 13.3, threads=200, cpu=0.9),
                    cell(4, 185.0, 21.6, threads=200, cpu=0.97), cell(8, 223.0, 35.9, threads=200, cpu=0.98)],
                   service_ms=None)
    found = findings(s)
    sat = of_kind(found, "saturation")
    assert len(sat) == 1 and sat[0].cells == tuple(c.id for c in s.cells[2:])  # 185/444 = 42%, 223/889
    assert "contended from N = 4" in sat[0].statement and "25% of the contention-free" in sat[0].statement
    assert not any(f.statement.startswith("No saturation") for f in of_kind(found, "scaling"))
    assert of_kind(found, "bottleneck")[0].resource == "cpu"
    # negative control: the 100-thread curve of Little's law runs at 98% of its line: no saturation
    ok = of_kind(findings(littles_law()), "scaling", **{THREADS: 100})
    assert ok[0].statement.startswith("No saturation") and not of_kind(findings(littles_law()), "saturation",
                                                                         **{THREADS: 100})


def test_sub_linear_growth_short_of_contention_is_not_called_no_saturation():
    # X at N = 20 is 70% of N/(D+Z) = 200/s: queueing has begun, no level, no contention claim
    s = summary_of([cell(10, 98.0, 102.0, threads=100), cell(20, 140.0, 143.0, threads=100)], service_ms=100.0)
    sc = of_kind(findings(s), "scaling")[0]
    assert "sub-linearly" in sc.statement and "70%" in sc.statement and not of_kind(findings(s), "saturation")


def test_requests_wait_in_front_of_the_server_as_n_minus_l_and_r_minus_r_server():
    found = findings(littles_law())
    w = of_kind(found, "waiting", **{THREADS: 10})
    held = [f for f in w if f.standing == "holds"][0]
    # N = 20: L_server = 9.95, so 10.05 users wait in front, 202 − 100.5 ms each
    # the heaviest cell, N = 100: X·R − L_server = 99.2/s × 1.007 s − 10
    assert dict(held.figures)["waiting_in_front"] == pytest.approx(99.2 * 1.007 - 10.0)
    assert "at N = 20, about 10 requests wait in front of the server" in held.statement
    assert "at N = 100, about 90 requests wait" in held.statement and "the server holds L_server = 10;" in held.statement
    assert not of_kind(found, "waiting", **{THREADS: 100})  # negative control: N = L_server there


def test_with_think_time_the_thinking_users_are_not_counted_as_waiting_in_front():
    # the think-time run at Z = 50 ms, N = 40: X = 489/s, R = 31.4 ms, 10 threads busy, R_server = 20.4 ms.
    # X·R = 15.4 requests are in flight at the client, 10 of them in the server: 5.4 wait in front, not 40 − 10.
    c = cell(40, 489.0, 31.4, z=50.0, busy=10.0, r_server=20.4)  # its server figures little.boundaries' own
    w = of_kind(findings(summary_of([cell(5, 89.0, 20.4, z=50.0), c])), "waiting")
    assert dict(w[0].figures)["waiting_in_front"] == pytest.approx(489.0 * 0.0314 - 10.0)
    assert "of X·R = 15.4 in flight at the client the server holds L_server = 10" in w[0].statement


def test_without_server_metrics_in_a_saturated_cell_where_requests_wait_cannot_be_told():
    found = findings(littles_law(server_at_100=False))
    blind = [f for f in of_kind(found, "waiting") if f.standing == "cannot tell"]
    assert len(blind) == 1 and blind[0].cells == ("server.tomcat.threads.max=10,users=100",)
    b = of_kind(found, "bottleneck")[0]
    assert b.resource == "thread_pool" and "At N = 100 the server metrics are missing" in b.statement


def test_the_latency_knee_is_where_r_leaves_its_bound_by_more_than_the_margin():
    # M/M/1-like: D = 100 ms, one server: N* = 1; R at N = 2 is 150 ms against max(100, 2·100 − 0) = 200 (inside),
    # at N = 4, 520 ms against 400 (+30%)
    s = summary_of([cell(1, 9.8, 101.0, threads=1), cell(2, 9.9, 199.0, threads=1), cell(4, 7.7, 520.0, threads=1)])
    k = of_kind(findings(s), "knee")[0]
    assert dict(k.figures)["users"] == 4 and dict(k.figures)["n_star"] == pytest.approx(1.0)
    assert "leaves its lower bound" in k.statement and "+30%" in k.statement
    calm = of_kind(findings(littles_law()), "knee", **{THREADS: 10})[0]
    assert dict(calm.figures)["users"] is None and "stays within 10%" in calm.statement


def test_r_below_its_lower_bound_at_every_n_says_the_bound_is_over_stated_not_within_a_negative_margin():
    # the grid says S = 100 ms, but every request took 5% less: no "at most +-5%"
    s = summary_of([cell(10, 99.0, 95.0), cell(20, 99.5, 190.0), cell(100, 99.8, 950.0)])
    k = of_kind(findings(s), "knee")[0]
    assert "stays below its lower bound" in k.statement and "-5% at N = 10, the closest" in k.statement
    assert "D or D_max is over-stated" in k.statement and "+-" not in k.statement
    # estimated bounds whose N* lies below every cell: no claim that R follows the queue's line it is under
    s = summary_of([cell(20, 95.0, 190.0), cell(80, 97.0, 700.0)], service_ms=None)
    k = of_kind(findings(s), "knee")[0]
    assert "stays below its lower bound" in k.statement and "follows the queue's line" not in k.statement
    calm = of_kind(findings(littles_law()), "knee", **{THREADS: 10})[0]  # negative control: R just above it
    assert "at most +2%, at N = 10" in calm.statement


def test_a_falling_hill_alpha_past_the_knee_is_a_heavier_tail_and_a_steady_one_is_not():
    tails = [{"hill_alpha": 8.0, "verdict": "consistent with an exponential tail"},
             {"hill_alpha": 7.9, "verdict": "consistent with an exponential tail"},
             {"hill_alpha": 3.0, "verdict": "heavier than exponential (power-law-like)"}]
    s = summary_of([cell(n, x, r, tail=t) for (n, x, r), t in zip([(5, 49.0, 102.0), (20, 99.0, 202.0),
                                                                     (100, 99.2, 1007.0)], tails)])
    assert "Past the knee the tail grows heavier: Hill α 8 at N = 5" in of_kind(findings(s), "knee")[0].statement
    s = update_cells(s, lambda c: update(c, overall=update(c.overall, tail=tails[0])))
    assert "does not grow heavier" in of_kind(findings(s), "knee")[0].statement


def test_a_curve_measured_only_past_its_knee_says_the_knee_lies_below_its_lightest_cell():
    # the blocking proxy: 10 threads, 100 ms in the server, N = 20 and 80 both past N* ≈ 10
    s = summary_of([cell(20, 95.7, 208.0, busy=9.96, r_server=100.4), cell(80, 97.5, 820.0, busy=10.0,
                                                                            r_server=100.9)], service_ms=None)
    k = of_kind(findings(s), "knee")[0]
    assert "the knee itself lies below N = 20" in k.statement and dict(k.figures)["n_star"] == pytest.approx(9.79, abs=0.01)
    assert "lies below" not in of_kind(findings(littles_law()), "knee")[0].statement  # N = 10 is at N* = 10


def test_estimated_bounds_of_a_curve_that_never_levelled_off_give_n_star_only_as_a_floor():
    # the non-saturated blocking proxy with 100 threads: X 191/s at N = 20 and 744/s at N = 80; D_max = 1/744 s
    # is an upper bound of the true one, so N* = 104/1.344 = 77.4 is a floor: N = 80 is not known to be past the knee
    tail = [{"hill_alpha": 22.7, "k": 65, "verdict": "lighter than exponential"},
            {"hill_alpha": 5.45, "k": 128, "verdict": "consistent with an exponential tail"}]
    s = summary_of([cell(20, 191.0, 104.0, threads=100, r_server=101.5, tail=tail[0]),
                    cell(80, 744.0, 107.5, threads=100, r_server=101.5, tail=tail[1])], service_ms=None)
    found = findings(s)
    k = of_kind(found, "knee")[0]
    assert "at least: X never levelled off" in k.statement and "Past the knee" not in k.statement
    nxt = [f for f in of_kind(found, "recommendation") if (f.recommendation or "").startswith("run N")][0]
    assert nxt.recommendation == "run N = 116, 232" and "at or beyond N* = 77.4" in nxt.statement  # 1.5, 3 × N*
    assert not of_kind(found, "saturation")


def test_estimated_bounds_of_a_curve_level_from_its_lightest_cell_give_n_star_only_as_a_ceiling():
    # the blocking proxy without server metrics: R = 208 ms at N = 20 holds 100 ms of queue, so D = R there
    # over-states D and N* = 208/10.26 = 20.3 is an upper bound; the knee is at or below N = 20
    s = summary_of([cell(20, 95.7, 208.0, server=False), cell(80, 97.5, 820.0, server=False)], service_ms=None)
    found = findings(s)
    k = of_kind(found, "knee")[0]
    assert "at most: X is already level at the lightest cell, N = 20" in k.statement
    nxt = [f for f in of_kind(found, "recommendation") if (f.recommendation or "").startswith("run N")][0]
    assert nxt.recommendation == "run N = 5, 10" and "at or below it" in nxt.statement
    limit = [f for f in of_kind(found, "recommendation") if f.recommendation.startswith("concurrency")][0]
    assert "so this is an upper bound: run lighter cells" in limit.statement and limit.standing == "suggests"
    # negative control: with a lighter cell below the level, D = R there is contention-free, N* is not capped
    s = summary_of([cell(5, 48.0, 104.0, server=False), cell(20, 95.7, 208.0, server=False),
                    cell(80, 97.5, 820.0, server=False)], service_ms=None)
    assert "already level" not in of_kind(findings(s), "knee")[0].statement


def test_a_hill_alpha_drop_within_its_noise_is_not_a_heavier_tail():
    # the think-time run at Z = 50 ms: α 28.4 at N = 5 (k = 65) and 22 at N = 40 (k = 128); the standard error
    # α/√k is 3.5 and 1.9, so the drop of 6.4 is under 3·√(3.5² + 1.9²) = 12: noise, not a heavier tail
    light = "lighter than exponential"
    tails = [{"hill_alpha": 28.4, "k": 65, "verdict": light}, {"hill_alpha": 25.0, "k": 100, "verdict": light},
             {"hill_alpha": 22.0, "k": 128, "verdict": light}]
    s = summary_of([cell(n, x, r, tail=t) for (n, x, r), t in zip([(5, 49.0, 102.0), (20, 99.0, 202.0),
                                                                     (100, 99.2, 1007.0)], tails)])
    assert "does not grow heavier" in of_kind(findings(s), "knee")[0].statement
    s = update_cells(s, lambda c: update(c, overall=update(c.overall, tail={"hill_alpha": 12.0, "k": 128,
                                                                             "verdict": light})), {2})  # 16.4 > 3·3.7
    assert "grows heavier" in of_kind(findings(s), "knee")[0].statement


def test_a_heavy_tail_verdict_without_a_fall_of_hill_alpha_at_the_heaviest_load_is_mixed_not_heavier():
    # the throttling run's 2-slot arm: α 5.35 at N = 1, 3.21 at N = 2, 7.61 at N = 8 with the excess CV heavier
    tails = [{"hill_alpha": 5.35, "k": 89, "verdict": "consistent with an exponential tail"},
             {"hill_alpha": 3.21, "k": 90, "verdict": "consistent with an exponential tail"},
             {"hill_alpha": 7.61, "k": 89, "verdict": "heavier than exponential (power-law-like)"}]
    s = summary_of([cell(n, x, r, tail=t) for (n, x, r), t in zip([(5, 49.0, 102.0), (20, 99.0, 202.0),
                                                                     (100, 99.2, 1007.0)], tails)])
    k = of_kind(findings(s), "knee")[0].statement
    assert "Past the knee the tail is mixed" in k and "did not get heavier beyond its noise" in k


def test_a_window_too_short_for_the_tolerance_gets_the_cell_length_that_would_do():
    s = littles_law()
    s = update_cells(s, lambda c: update(c, checks=[{"name": "closed_law", "passed": True, "rel_error": 0.004,
                                                     "tolerance": 0.026, "explanation": "holds"}]), {2})
    v = of_kind(findings(s), "validity")
    assert len(v) == 1 and v[0].cells == ("server.tomcat.threads.max=10,users=100",)
    need = 6 * 1.008 / (0.02 * 10)  # T = 6·(R+Z)/(tolerance·√N) with Z realised 1 ms
    assert dict(v[0].figures)["needed_window_s"] == pytest.approx(need)
    assert dict(v[0].figures)["needed_duration_s"] == math.ceil(need + 7)
    assert needed_window_s(1008.0, 100, 0.02) == pytest.approx(need)
    assert not of_kind(findings(littles_law()), "validity")  # negative control


def test_failed_checks_and_errors_make_a_cell_untrustworthy_and_say_why():
    s = littles_law()
    s = update_cells(s, lambda c: update(c, checks=[{"name": "closed_law", "passed": False, "rel_error": 0.08,
                                                     "tolerance": 0.02,
                                                     "explanation": "X·(R+Z_realised) = 9.2 but N = 10"}]), {0})
    s = update_cells(s, lambda c: update(c, overall=update(c.overall, errors_by_class={"http_5xx": 100},
                                                           error_rate=0.05)), {1})
    v = {f.cells[0]: f for f in of_kind(findings(s), "validity")}
    assert "the closed law N = X·(R+Z) fails" in v[s.cells[0].id].statement
    assert "5% of its requests failed (http_5xx 100)" in v[s.cells[1].id].statement


def test_the_poisson_timer_is_reported_nearly_constant_with_its_cv_and_an_exponential_one_is_not():
    s = littles_law()
    s = update_cells(s, lambda c: update(c, intended=update(c.intended, think_ms=50.0, think_dist="poisson",
                                                            think_offset_ms=0.0),
                                         think_time=think_time({"mean_ms": 52.0, "gaps": 1000, "cv": 0.15})))
    t = of_kind(findings(s), "think_time")[0]
    assert dict(t.figures)["expected_cv"] == pytest.approx(math.sqrt(50) / 50)
    assert dict(t.figures)["realised_think_ms"] == pytest.approx(52.0)
    assert "nearly constant" in t.statement and "+4.0%" in t.statement
    # λ = 5 ms: sd √5 = 2.24 ms, CV 0.45: less variable than exponential, not constant
    s = update_cells(s, lambda c: update(c, intended=update(c.intended, think_ms=5.0),
                                         think_time=update(c.think_time, mean_ms=5.7, cv=0.43)))
    t = of_kind(findings(s), "think_time")[0]
    assert "sd √λ = 2.24 ms" in t.statement and "nearly constant pauses" not in t.statement
    assert "vary less than the exponential think time" in t.statement and "These pauses are nearly" not in t.statement
    s = update_cells(s, lambda c: update(c, intended=update(c.intended, think_dist="exponential"),
                                         think_time=update(c.think_time, cv=1.0)))
    assert "nearly constant" not in of_kind(findings(s), "think_time")[0].statement
    assert not of_kind(findings(littles_law()), "think_time")  # no think time: nothing to say


def test_slo_capacity_per_think_time_gives_users_per_ms_of_think_time():
    cells = [cell(n, 9.0 * n, 50.0, z=z, extra_axes={"think_ms": z}) for z in (5, 25, 50) for n in (10, 20)]
    s = summary_of(cells, axes={"users": [10, 20], "think_ms": [5, 25, 50]})
    capacity = {5: 15, 25: 22, 50: 35}
    s = update(s, curves=[update(k, models=update(k.models, slo_capacity=[
        {"criterion": "p90 < 50ms", "max_load": capacity[k.think_ms], "how": "interpolated", "note": None}]))
        for k in s.curves])
    t = of_kind(findings(s), "think_time")
    t = [f for f in t if "Capacity under" in f.statement][0]
    assert dict(t.figures)["users_per_think_ms"] == pytest.approx(20 / 45)
    assert "15 users at Z = 5 ms (interpolated), 22 users at Z = 25 ms" in t.statement
    s = update(s, curves=[update(k, models=update(k.models, slo_capacity=[])) if k.think_ms != 5 else k
                          for k in s.curves])
    assert not [f for f in of_kind(findings(s), "think_time") if "Capacity under" in f.statement]


def test_recommendations_limit_concurrency_near_n_star_size_the_pool_and_name_the_next_cells():
    rec = of_kind(findings(littles_law()), "recommendation")
    limit = [f for f in rec if (f.recommendation or "").startswith("concurrency limit")]
    assert len(limit) == 1 and dict(limit[0].figures)["limit"] == 10
    pools = {dict(f.where).get("users"): dict(f.figures)["threads_max"] for f in rec
             if (f.recommendation or "").startswith(THREADS)}
    assert pools == {10: 10.0, 20: 100.0, 100: 100.0}
    # the pool rule compares point estimates against a 5% margin: the words say that much and no more (issue 49:
    # "more threads add no throughput and raise p99" claimed what one run's figures without intervals cannot show)
    sized = {dict(f.where).get("users"): f.statement for f in rec if (f.recommendation or "").startswith(THREADS)}
    assert "10 threads came within 5% of the best throughput measured; more threads gained at most 5% here" \
        in sized[10]
    assert "Fewer than 100 threads gave more than 5% less throughput, so take 100." in sized[20]
    assert not any(w in s for s in sized.values() for w in ("add no throughput", "raise p99", "cost throughput"))
    nxt = {dict(f.where)[THREADS]: f.recommendation for f in rec if (f.recommendation or "").startswith("run N")}
    assert nxt == {10: "run N = 2, 5", 100: "run N = 150, 300"}


def test_a_cell_at_the_knee_with_cells_on_both_sides_pins_it_and_no_next_cells_are_proposed():
    s = littles_law()
    s = summary_of([cell(1, 9.8, 102.0), *s.cells],  # N = 1 below N* = 10.3, N = 10 at it, 20 and 100 above
                   axes=s.axes | {"users": [1, 10, 20, 100]})
    rec = of_kind(findings(s), "recommendation", **{THREADS: 10})
    assert not [f for f in rec if (f.recommendation or "").startswith("run N")]
    s = summary_of([s.cells[0], *s.cells[2:]], axes=s.axes)  # without the cell at the knee, N = 1 and 20 leave it unpinned
    nxt = [f for f in of_kind(findings(s), "recommendation", **{THREADS: 10})
           if (f.recommendation or "").startswith("run N")]
    assert len(nxt) == 1 and "N = 1 and 20 are 20× apart" in nxt[0].statement


def test_a_concurrency_limit_rounded_up_from_n_star_says_so():
    def limit(s):
        return [f for f in of_kind(findings(s), "recommendation")
                if (f.recommendation or "").startswith("concurrency limit")][0]

    s = littles_law()
    assert dict(limit(s).figures)["n_star"] == 10 and "rounded up" not in limit(s).statement
    # no busy-thread figure: N* is all the figures give, rounded up
    blind = with_models(no_server(s, range(6)), lambda m: update(m, bounds=update(m.bounds, n_star=10.3)))
    assert dict(limit(blind).figures)["limit"] == 11
    assert "rounded up so that no throughput is given away" in limit(blind).statement
    # the pool measured full at its 10 threads: the limit is the one the figures show, 10, whatever N* rounds up to
    s = with_models(s, lambda m: update(m, bounds=update(m.bounds, n_star=10.3)))
    assert dict(limit(s).figures)["limit"] == 10 and "rounded up" not in limit(s).statement
    assert "that is the size of Tomcat's thread pool, 9.98 of 10 busy at the plateau" in limit(s).statement


def test_an_arm_behind_a_throttle_is_told_what_its_throttle_does_not_to_limit_itself():
    """The throttling experiment's throttled arm already admits K at a time: below the limit N* it is said to be
    limited already; above it, to lower the throttle; with no throttle (K = 0), to limit concurrency."""
    throttle = "littlegrid.throttle.max-concurrent"

    def limit(k):
        s = summary_of([cell(10, 98.0, 102.0, extra_axes={throttle: k}), cell(20, 99.0, 202.0, busy=9.95,
                        extra_axes={throttle: k}), cell(100, 99.2, 1007.0, busy=10.0, extra_axes={throttle: k})],
                       axes={THREADS: [10], throttle: [k], "users": [10, 20, 100]})
        return [f for f in of_kind(findings(s), "recommendation")
                if (f.recommendation or "").startswith("concurrency limit")][0]

    none = limit(0)
    assert none.statement.startswith("Limit concurrency") and dict(none.figures)["throttle"] is None
    assert none.recommendation == "concurrency limit ≈ 10"
    held = limit(4)
    assert "already limited: its throttle admits 4 requests in service" in held.statement, held.statement
    assert "Limit concurrency" not in held.statement
    assert dict(held.figures)["throttle"] == 4 and dict(held.figures)["limit"] == 10
    assert held.recommendation == "concurrency limit ≈ 10 (the throttle's 4 is within it)"
    assert "admits 1 request in service" in limit(1).statement
    loose = limit(50)
    assert loose.statement.startswith("Lower the throttle") and "from 50 to about 10" in loose.statement
    assert loose.recommendation == "concurrency limit ≈ 10 (the throttle admits 50)"


def test_without_bounds_a_usl_peak_gives_the_limit_only_inside_the_measured_range():
    def limits(peak):
        found = findings(with_models(s, lambda m: update(m, bounds=None, knee=None, usl=update(
            m.usl, ok=True, n_peak=peak, sigma=0.01, kappa=0.001)), label=f"{THREADS} = 10"))
        return [f for f in of_kind(found, "recommendation", **{THREADS: 10})
                if (f.recommendation or "").startswith("concurrency limit")]

    s = littles_law()
    assert dict(limits(40.0)[0].figures)["limit"] == 40 and "the USL peak N = 40" in limits(40.0)[0].statement
    assert limits(500.0) == []  # beyond N = 100, the heaviest cell: no bound and no measured peak to limit at


def test_two_arms_state_only_the_metrics_whose_interval_excludes_no_change():
    a, b = typed_cell({"id": "a", "axes": {"users": 100}}), typed_cell({"id": "b", "axes": {"users": 100}})
    metrics = [{"key": "throughput_per_s", "name": "X", "a": 99.0, "b": 983.0, "rel": 8.93, "rel_lo": 8.8,
                "rel_hi": 9.1, "verdict": "better"},
               {"key": "p50_ms", "name": "p50", "a": 100.0, "b": 101.0, "rel": 0.01, "rel_lo": -0.01,
                "rel_hi": 0.03, "verdict": "not_shown_different"},
               {"key": "p99_ms", "name": "p99", "a": 100.0, "b": 98.5, "rel": -0.015, "rel_lo": -0.02,
                "rel_hi": -0.01, "margin": 0.03, "verdict": "better_within_margin"}]
    found = two_arms([{"id": "users=100", "a": a, "b": b, "metrics": metrics}], "threads 10", "threads 100")
    assert [f.kind for f in found] == ["arms", "arms"] and dict(found[0].figures)["rel"] == pytest.approx(8.93)
    assert found[0].statement.startswith("At users = 100, X is better in threads 100 than in threads 10: 983/s")
    # shown different (the interval excludes zero), and smaller than the margin: both said, the margin printed
    assert found[1].statement.startswith("At users = 100, p99 is better in threads 100 than in threads 10, but by "
                                         "less than the ±3% margin: 98.5 ms against 100 ms")
    assert two_arms([{"id": "x", "a": a, "b": b, "metrics": metrics[1:2]}]) == []


def test_expectations_are_met_by_findings_that_hold_about_a_cell_in_scope():
    s = littles_law()
    found = [f.as_dict() for f in findings(s)]
    got = evaluate([f"bottleneck thread_pool where {THREADS} == 10", f"no saturation where {THREADS} == 100",
                    f"no bottleneck where {THREADS} == 10", f"saturation where {THREADS} == 100",
                    "bottleneck cpu"], s, found)
    assert [e["passed"] for e in got] == [True, True, False, False, False]
    assert got[0]["explanation"].startswith("Tomcat's thread pool caps X")


def test_an_expectation_only_suggested_is_undecided_and_a_scope_matching_nothing_is_too():
    s = no_server(littles_law())
    found = [f.as_dict() for f in findings(s)]
    got = evaluate([f"bottleneck thread_pool where {THREADS} == 10", f"saturation where {THREADS} == 7"], s, found)
    assert [e["passed"] for e in got] == [None, None]
    assert got[0]["explanation"].startswith("only suggested")


@pytest.mark.parametrize("text, problem", [
    ("bottlenek", "unknown finding kind 'bottlenek'"),
    ("bottleneck gpu", "unknown resource 'gpu'"),
    ("saturation where users = 3", "bad operator '=' (use ==)"),
    ("saturation users == 3", "a scope starts with where"),
])
def test_a_malformed_expectation_is_one_line_naming_it(text, problem):
    with pytest.raises(UserError, match=rf"expectation '{text}': .*{problem}".replace("(", r"\(").replace(")", r"\)")):
        parse(text)


def test_an_expectation_naming_an_axis_the_grid_lacks_is_refused():
    with pytest.raises(UserError, match="the grid has no axis 'threads'"):
        evaluate(["saturation where threads == 10"], littles_law(), [])


def test_the_grid_file_refuses_a_malformed_expectation_before_any_load(tmp_path):
    from littlegrid.run.grid_file import load_grid
    from littlegrid.run.jmeter import repo_root
    plan = repo_root(Path(__file__).parent) / "plans" / "closed.jmx"
    grid = tmp_path / "g.toml"
    head = f'plan = "{plan}"\n'
    tail = '[server]\nstart = true\n[axes]\n"server.tomcat.threads.max" = [10]\nusers = [1]\n'
    grid.write_text(head + 'expect = ["bottleneck thread_pool where server.tomcat.threads.max == 10"]\n' + tail)
    assert load_grid(grid).name == "g"
    grid.write_text(head + 'expect = ["bottleneck thread_pol"]\n' + tail)
    with pytest.raises(UserError, match=r"g.toml:2: expect: expectation 'bottleneck thread_pol': unknown resource"):
        load_grid(grid)
    grid.write_text(head + 'expect = ["saturation where threads == 10"]\n' + tail)
    with pytest.raises(UserError, match="the grid has no axis 'threads'"):
        load_grid(grid)


def test_every_classic_grid_declares_expected_findings_that_parse():
    from littlegrid.run.grid_file import load_grid
    from littlegrid.run.jmeter import repo_root
    grids = repo_root(Path(__file__).parent) / "grids"
    for name in ("littles-law", "throttling", "connection-limits", "think-time", "thread-pool-proxy",
                 "thread-pool-transform"):
        assert load_grid(grids / f"{name}.toml").raw.get("expect"), name


def test_explain_prints_the_findings_as_text_and_as_json(tmp_path, capsys):
    import json

    from littlegrid import cli, summary
    s = littles_law()
    s = update(s, run=update(s.run, expect=[f"bottleneck thread_pool where {THREADS} == 10"]))
    found = [f.as_dict() for f in findings(s)]
    s = update(s, findings=found, expectations=evaluate(s.run.expect, s, found))  # as analyze does
    summary.write(s, tmp_path / "summary.json")
    assert cli.main(["explain", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    verdict, rest = out.split("\n\n", 1)  # the verdict line first, as the report's first screen says it
    assert verdict.startswith("Verdict: ") and "Checks of the data: " in verdict
    assert rest.startswith("The answer\n1. saturation: Throughput levels off at 98/s–99.2/s from N = 10")
    assert "How sure: measured" in out and "standing:" not in out  # the report's words (render/words.py)
    assert "expect bottleneck thread_pool where server.tomcat.threads.max == 10: met: Tomcat's thread pool" in out
    assert cli.main(["explain", str(tmp_path), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["findings"]
    assert got[1]["kind"] == "bottleneck" and got[1]["resource"] == "thread_pool"
    assert got[1]["where"] == {THREADS: 10} and isinstance(got[1]["figures"]["throughput_per_s"], float)
    assert cli.main(["check", str(tmp_path), "--criteria-only"]) == 0  # the expectation is met


def test_errors_in_several_cells_are_said_of_them_in_the_plural():
    """One finding for two cells whose requests failed: 'their requests failed', not 'its'."""
    s = littles_law()
    s = update_cells(s, lambda c: update(c, overall=update(c.overall, errors_by_class={"http_5xx": 100},
                                                           error_rate=0.05)), {1, 2})
    v = [f for f in of_kind(findings(s), "validity") if len(f.cells) == 2]
    assert len(v) == 1, [f.statement for f in of_kind(findings(s), "validity")]
    assert "their requests failed and X and R count them (" in v[0].statement
    assert "its requests failed and X" not in v[0].statement  # each cell's own part keeps 'its'
