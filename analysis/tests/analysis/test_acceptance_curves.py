"""Real grids of each curve shape against the sample server: two arms, an open workload past capacity, a closed
grid with a constant overhead and no bottleneck. Each asserts its grid's `expect` and the queueing laws' answers,
with tolerances from the window length.

Minutes of load each (about 2, 2 and 3): run them alone, under the load lock,
    flock "$LOAD_LOCK" pytest -m acceptance tests/analysis/test_acceptance_curves.py
"""

import math
from pathlib import Path

import pytest

from littlegrid.summarize import analyze
from littlegrid.run.jmeter import repo_root

pytestmark = pytest.mark.acceptance
GRIDS = repo_root(Path(__file__).parent) / "grids"
THREADS = "server.tomcat.threads.max"


def run_and_analyze(grid: str, tmp_path: Path):
    from littlegrid.run.runner import run_grid
    run = run_grid(GRIDS / grid, out=tmp_path, run_id=Path(grid).stem)
    summary = analyze([run])
    assert [c.status for c in summary.cells] == ["complete"] * len(summary.cells)
    return summary


def expectations_met(summary) -> None:
    assert summary.expectations and all(e.passed for e in summary.expectations), \
        [(e.expectation, e.passed, e.explanation) for e in summary.expectations]


def poisson_noise(rate: float, window_s: float) -> float:
    """Three standard errors of a Poisson count's rate over the window: 3·√(λ/T)."""
    return 3 * math.sqrt(rate / window_s)


def test_two_arms_are_two_named_curves_with_their_own_bounds(runnable, tmp_path):
    s = run_and_analyze("accept-two-arms.toml", tmp_path)
    expectations_met(s)
    assert [k.label for k in s.curves] == [f"{THREADS} = 4", f"{THREADS} = 40"]
    assert [(k.models.bounds.d_max_ms, k.models.bounds.n_star) for k in s.curves] == [(12.5, 4.0), (1.25, 40.0)]
    by_id = {c.id: c for c in s.cells}
    for k in s.curves:
        c = float(k.fixed[THREADS])
        for cell_id, n in zip(k.cells, k.x):
            cell = by_id[cell_id]
            bound = min(n / 0.05, c / 0.05)
            # X within the closed law's own window error 2·(R+Z)/(T·√N), three of them, plus the per-request
            # overhead a loaded 2-core host adds to S (JMeter shares the cores): at most 10% of the bound
            window = 2 * (cell.overall.mean_ms / 1000) / (cell.window.length_s * math.sqrt(n))
            assert cell.overall.throughput_per_s <= bound * (1 + 3 * window), cell_id
            assert cell.overall.throughput_per_s >= bound * (1 - 3 * window - 0.10), cell_id
    found = {f.kind for f in s.findings if f.standing == "holds"}
    assert {"saturation", "bottleneck"} <= found


def test_an_open_workload_past_capacity_is_overload_at_the_pool_and_advice_speaks_in_rates(runnable, tmp_path):
    s = run_and_analyze("accept-open-overload.toml", tmp_path)
    expectations_met(s)
    (k,) = s.curves
    assert k.workload == "open" and k.x == [30, 60, 100, 130]
    capacity = k.models.bounds.capacity_per_s
    assert capacity == pytest.approx(80.0)
    by_id = {c.id: c for c in s.cells}
    for cell_id, rate in zip(k.cells, k.x):
        cell = by_id[cell_id]
        served, noise = cell.overall.successes_per_s, poisson_noise(rate, cell.window.length_s)
        if rate < capacity:  # every arrival served: X = λ within its Poisson noise
            assert abs(served - rate) <= noise + 0.02 * rate, (cell_id, served)
        else:  # X at c/S, short of λ, the queue growing through the window
            assert served <= capacity * 1.03 and served >= capacity * 0.85, (cell_id, served)
    over = {o.cell: o for o in k.overload}
    assert set(over) == {k.cells[2], k.cells[3]}
    assert all(o.overloaded and o.resource == "thread_pool" and o.trend.rising for o in over.values())
    text = " ".join(f.statement for f in s.findings)
    assert "coordinated omission" not in text and "The generator" not in text
    rec = [f for f in s.findings if f.kind == "recommendation"]
    assert rec and all("N = " not in f.statement for f in rec)
    assert any((f.recommendation or "").startswith("run λ = ") for f in rec)


def test_a_closed_grid_with_a_constant_overhead_has_no_knee_and_no_next_cells_past_the_host(runnable, tmp_path):
    s = run_and_analyze("accept-constant-offset.toml", tmp_path)
    expectations_met(s)
    (k,) = s.curves
    offset = k.models.overhead
    assert offset is not None and not offset.grows and offset.mean_ms > 0
    assert not [f for f in s.findings if f.kind == "knee"]
    assert [f.kind for f in s.findings].count("overhead") == 1
    by_id = {c.id: c for c in s.cells}
    for cell_id, n in zip(k.cells, k.x):  # the closed law with the realised cycle
        cell = by_id[cell_id]
        cycle = cell.overall.mean_ms + cell.think_time.mean_ms
        window = 2 * cycle / 1000 / (cell.window.length_s * math.sqrt(n))
        assert cell.overall.throughput_per_s == pytest.approx(1000 * n / cycle, rel=max(3 * window, 0.02)), cell_id
    limit = k.models.host_limit
    assert limit is not None and limit.max_load is not None
    proposed = [f for f in s.findings if (f.recommendation or "").startswith("run N = ")]
    for f in proposed:
        ns = [float(v) for v in f.recommendation[len("run N = "):].split(",")]
        assert max(ns) <= limit.max_load, (f.statement, limit)
