"""A failed steady check in the validity findings: a closed cell whose R drifted is not to be trusted and the finding
says R drifted, by how much; an open cell past capacity fails it too (its queue grows), which the overload finding
already says, so validity does not say it again."""

from littlegrid.analysis.cells import Service
from littlegrid.analysis.modelling import curves
from littlegrid.analysis.queueing import laws
from littlegrid.analysis.steady import trend
from littlegrid.findings import findings
from littlegrid.summary.model import Cell
from summary_contract import typed
from typed_cells import summary as typed_summary

THREADS = "server.tomcat.threads.max"
BUCKETS = 30


def drifting_cell(cell_id, axes, intended, r_first, r_last, x, *, busy=None, threads=4) -> Cell:
    """A cell whose per-second median R moves linearly from r_first to r_last over a 30 s window at a constant X,
    with the trend and steady check the cell stage gives it."""
    p50 = [r_first + (r_last - r_first) * i / (BUCKETS - 1) for i in range(BUCKETS)]
    made = typed({"id": cell_id, "axes": axes, "status": "complete", "users": {"n": 20}, "intended": intended,
                  "overall": {"count": int(x * BUCKETS), "throughput_per_s": x, "successes_per_s": x,
                              "mean_ms": (r_first + r_last) / 2, "error_rate": 0.0},
                  "window": {"length_s": float(BUCKETS)},
                  "server": {"busy_threads_mean": busy, "threads_max": threads} if busy is not None else None,
                  "series": {"t_s": [float(i) for i in range(BUCKETS)], "p50_ms": p50, "throughput": [x] * BUCKETS,
                             "window_start_s": 0.0, "window_end_s": float(BUCKETS), "bucket_s": 1},
                  "checks": []}, Cell)
    t = trend.trend(made.series)
    check = laws.steady(cell_id, *trend.completions(made.series), 0.10, t, 0.20)
    return made.model_copy(update={"trend": t, "checks": [check]})


def summary_of(cells, service=None):
    services = {c.id: service for c in cells} if service else {}
    cells, built, _ = curves.build(cells, services, [], lambda cid, q: None, laws.DEFAULT_TOLERANCES)
    return typed_summary(cells, curves=built, tolerances=dict(laws.DEFAULT_TOLERANCES))


def test_a_closed_cell_whose_r_doubles_is_not_to_be_trusted_and_the_finding_says_r_rose():
    # thirds of 10 buckets: medians at 4.5 and 24.5 of 29 steps from 50 to 100 ms: 57.76 and 92.24 ms, 59.7% apart
    cell = drifting_cell("users=20", {"users": 20}, {"think_ms": 2000.0, "workload": "closed"}, 50, 100, 9.6)
    steady = cell.checks[0]
    assert steady.passed is False and round(steady.rel_error, 3) == round(92.24 / 57.76 - 1, 3)
    (found,) = [f for f in findings(summary_of([cell])) if f.kind == "validity"]
    assert found.statement.startswith("Do not trust")  # 60% against 20%: beyond twice the tolerance
    assert "its throughput or its response time drifted" in found.statement
    assert "R rose through the window" in found.statement and "60% apart against 20% allowed" in found.statement


def test_an_overloaded_open_cell_is_said_once_by_the_overload_finding_not_again_as_unsteady():
    cap = 4 / 0.052
    cells = [drifting_cell(f"rate_per_s={r}", {THREADS: 4, "rate_per_s": r}, {"rate_per_s": r, "workload": "open"},
                           *shape, busy=busy)
             for r, shape, busy in ((40, (55, 56, 40 * 0.999), 2.0), (100, (150, 900, cap * 0.99), 3.98))]
    assert [c.checks[0].passed for c in cells] == [True, False]  # R rose 150 → 900 ms in the overloaded one
    found = findings(summary_of(cells, Service(4, 52.0, "const")))
    over = [f for f in found if f.kind == "overload"]
    assert len(over) == 1 and "not a steady state" in over[0].statement
    assert not [f for f in found if f.kind == "validity" and "not steady" in f.statement]
