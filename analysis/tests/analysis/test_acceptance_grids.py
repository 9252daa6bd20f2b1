"""Real grids against the sample server, analysed: the queueing laws hold on real JMeter measurements.

Minutes of load each (accept-littles-law ≈ 7 min, accept-mm2n ≈ 13 min): run them alone, under the load lock,
    pytest -m acceptance tests/analysis/test_acceptance_grids.py
"""

from pathlib import Path

import pytest

from littlegrid.analysis.modelling.mmcn import throughput_per_s
from littlegrid.run.jmeter import repo_root
from littlegrid.summarize import analyze

pytestmark = pytest.mark.acceptance
GRIDS = repo_root(Path(__file__).parent) / "grids"


def run_and_analyze(grid: str, tmp_path: Path) -> dict:
    from littlegrid.run.runner import run_grid
    run = run_grid(GRIDS / grid, out=tmp_path, run_id=Path(grid).stem)
    summary = analyze([run])
    assert [c.status for c in summary.cells] == ["complete"] * len(summary.cells)
    return summary


def checks_of(cell: dict) -> dict:
    return {c.name: c for c in cell.checks}


def test_a_ten_thread_server_passes_the_closed_law_within_2_percent_and_stays_within_7_percent_of_its_bound(
        runnable, tmp_path):
    summary = run_and_analyze("accept-littles-law.toml", tmp_path)
    assert len(summary.cells) == 12
    for cell in summary.cells:
        n, z = cell.axes["users"], cell.axes["think_ms"]
        overall, checks = cell.overall, checks_of(cell)
        assert overall.error_rate < 0.01, cell.id
        assert checks["closed_law"].rel_error <= 0.02, (cell.id, checks["closed_law"])
        assert checks["users"].passed, (cell.id, checks["users"])
        bound = min(n / (0.1 + z / 1000), 100.0)
        assert overall.throughput_per_s == pytest.approx(bound, rel=0.07), cell.id
        assert checks["throughput_bound"].passed, (cell.id, checks["throughput_bound"])
        assert cell.server.busy_threads_mean <= 10.0


def test_exponential_think_and_service_on_two_threads_match_the_exact_mm2n_throughput_within_5_percent(
        runnable, tmp_path):
    summary = run_and_analyze("accept-mm2n.toml", tmp_path)
    rows = [r for k in summary.curves for r in k.models.mmcn]
    assert [r.users for r in rows] == list(range(1, 9))
    for r in rows:
        assert r.predicted_x == pytest.approx(throughput_per_s(r.users, 2, 50.0, 100.0))
    # each cell within 5%, or within 3 statistical errors where exponential times make X noisier than that
    mmcn_checks = [c for c in summary.checks if c.name == "mmcn"]
    assert len(mmcn_checks) == 8 and all(c.passed for c in mmcn_checks), mmcn_checks
    pooled = sum(abs(r.measured_x - r.predicted_x) for r in rows) / sum(r.predicted_x for r in rows)
    assert pooled <= 0.05, rows
    for cell in summary.cells:
        assert checks_of(cell)["closed_law"].passed, cell.id
        assert cell.think_time.cv == pytest.approx(1.0, abs=0.1), cell.id  # the think time is exponential
