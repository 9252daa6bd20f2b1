"""One curve, one CPU per request: the cpu bottleneck, the curve's host limit, the advice and the arms quote the
figure the analysis stage stored for the cell (analysis.observed.cpu_demand), never a cost of their own. Before, the
bottleneck took the plateau's mean U over its mean X, the host limit a least-squares slope and the arms U·cores/X:
three costs per request for one curve (5.59, 5 and 5.58 core-ms below)."""

import re

import pytest

from littlegrid.analysis.modelling import curves
from littlegrid.analysis.queueing.laws import DEFAULT_TOLERANCES
from littlegrid.comparison.deltas import arms_of
from littlegrid.findings import findings
from typed_cells import cell as typed_cell
from typed_cells import costed, summary as typed_summary

THREADS = "server.tomcat.threads.max"
# Two arms on 2 shared cores, closed, no think time: busy cores = U_0·cores + X·D with 0.2 cores busy whatever the
# load, D = 5 ms of CPU per request in arm 200 and 6 ms in arm 400. X levels from N = 4 as the cores fill.
ARMS = {200: (5.0, {1: 100.0, 4: 330.0, 8: 340.0, 16: 342.0}),
        400: (6.0, {1: 90.0, 4: 280.0, 8: 290.0, 16: 291.0})}


def cpu_bound_cell(threads, n, x, d_ms):
    busy = 0.2 + x * d_ms / 1000.0
    r = 1000.0 * n / x
    return typed_cell({"id": f"{THREADS}={threads},users={n}", "axes": {THREADS: threads, "users": n},
                       "window": {"length_s": 30.0, "warmup_s": 5.0, "cooldown_s": 2.0}, "users": {"n": n},
                       "intended": {"think_ms": 0.0, "think_dist": "constant", "workload": "closed"},
                       "overall": {"count": int(30 * x), "throughput_per_s": x, "successes_per_s": x, "mean_ms": r,
                                   "p99_ms": 1.1 * r, "error_rate": 0.0},
                       "think_time": {"mean_ms": 0.5, "gaps": int(30 * x), "cv": 0.0},
                       "server": {"busy_threads_mean": float(n), "in_flight_mean": float(n), "service_mean_ms": r,
                                  "throughput_per_s": x, "waiting_in_front": 0.0, "wait_in_front_ms": 0.0},
                       "host": {"cpu_util_mean": busy / 2, "load1_mean": 1.0}})


def two_arms():
    run = {"host": {"cpus": 2}, "arms": f"{THREADS}=200,400", "server_started": True}
    cells = [cpu_bound_cell(t, n, x, d) for t, (d, xs) in ARMS.items() for n, x in xs.items()]
    cells, built, _ = curves.build(costed(cells, run), {}, [], lambda cid, q: None, DEFAULT_TOLERANCES)
    return typed_summary(cells, run=run, axes={THREADS: list(ARMS), "users": [1, 4, 8, 16]}, curves=built,
                         tolerances=dict(DEFAULT_TOLERANCES))


def test_the_bottleneck_the_host_limit_and_the_arms_quote_one_cpu_per_request_per_curve():
    s = two_arms()
    found = findings(s, arms_of(s, s.run.arms))
    # on paper, at each curve's highest X (N = 16): (0.2 + 342 × 5 ms) cores / 342/s and (0.2 + 291 × 6 ms) / 291/s
    paper = {200: 1000 * (0.2 + 342 * 0.005) / 342, 400: 1000 * (0.2 + 291 * 0.006) / 291}
    assert paper[200] == pytest.approx(5.585, abs=1e-3) and paper[400] == pytest.approx(6.687, abs=1e-3)
    heaviest = {t: next(c for c in s.cells if c.axes == {THREADS: t, "users": 16}) for t in ARMS}
    for t in ARMS:
        assert heaviest[t].cpu_per_request.core_ms == pytest.approx(paper[t])
    for curve in s.curves:
        t = curve.fixed[THREADS]
        limit = curve.models.host_limit
        assert limit.cell == heaviest[t].id and limit.demand_core_ms == pytest.approx(paper[t])
        assert limit.marginal_core_ms == pytest.approx(ARMS[t][0])  # the fit's slope, named apart
    cpu = [f for f in found if f.kind == "bottleneck"]
    assert sorted(dict(f.where)[THREADS] for f in cpu) == [200, 400] and {f.resource for f in cpu} == {"cpu"}
    for f in cpu:
        t = dict(f.where)[THREADS]
        assert dict(f.figures)["demand_core_ms"] == pytest.approx(paper[t])
        assert f"{paper[t]:.3g} core-ms at N = 16" in f.statement
    (arms,) = [f for f in found if f.kind == "arms"]
    figures = dict(arms.figures)
    assert figures["cpu_ms_per_request_a"] == pytest.approx(paper[200])
    assert figures["cpu_ms_per_request_b"] == pytest.approx(paper[400])
    # every cost per request any sentence prints is one of the two curves' figures, as they print it
    printed = {float(v) for f in found for v in re.findall(r"(\d+(?:\.\d+)?) core-ms", f.statement)}
    assert printed and printed <= {float(f"{paper[t]:.3g}") for t in ARMS}


def test_unpinned_cores_are_the_hosts_shared_with_jmeter_never_the_servers():
    s = two_arms()
    found = findings(s, arms_of(s, s.run.arms))
    (arms,) = [f for f in found if f.kind == "arms"]
    assert "of the host's 2 cores, shared with the generator (JMeter's own work included)" in arms.statement
    assert "the server's 2 cores" not in " ".join(f.statement for f in found)
    assert all(c.cpu_per_request.basis == "host_shared" for c in s.cells)
