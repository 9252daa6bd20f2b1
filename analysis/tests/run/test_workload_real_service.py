"""The workload check on a real service no one here wrote (issue 62): gunicorn (gthread, 2 threads) serving
tests/services/app.py's /sleep?ms=25 on 127.0.0.1, loaded by JMeter with the suite's closed plan at N = 2 and Z = 0.
JMeter's own time between a thread's samples (about 0.5 ms a cycle here) made X·(R+Z) fall 2.1% short of N and
failed the check at 2% as "the generator delivered less load than intended"; measured and reported, it is the
loop's constant cost, and the check passes. One cell of 16 s; gunicorn stopped by its PID, also on failure."""

import importlib.util
import sys
from pathlib import Path

import pytest

from littlegrid.run.ports import free_port
from littlegrid.run.runner import run_grid
from littlegrid.summarize import analyze
from needs import missing
from test_observe_real_services import started

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
SERVICES = Path(__file__).resolve().parents[1] / "services"


def test_a_25_ms_gunicorn_service_at_z_0_passes_the_workload_check_with_the_generators_time_reported(
        tmp_path, runnable):
    if importlib.util.find_spec("gunicorn") is None:
        missing("gunicorn", "pip install -e 'analysis[test]'")
    port = free_port()
    app = [sys.executable, "-m", "gunicorn", "--worker-class", "gthread", "--workers", "1", "--threads", "2",
           "--keep-alive", "30", "--bind", f"127.0.0.1:{port}", "--chdir", str(SERVICES), "app:app"]
    grid = tmp_path / "gunicorn-workload.toml"
    grid.write_text(f"""name = "gunicorn-workload"
plan = "{ROOT / 'plans' / 'closed.jmx'}"
[target]
host = "127.0.0.1"
port = {port}
path = "/sleep?ms=25"
[cell]
duration_s = 16
warmup_s = 3
cooldown_s = 1
rampup_s = 0
[properties]
think_ms = 0
think_dist = "constant"
[axes]
users = [2]
""")
    with started(app, f"http://127.0.0.1:{port}/sleep?ms=1", tmp_path, tmp_path / "gunicorn.log"):
        run = run_grid(grid, out=tmp_path / "reports", run_id="gunicorn-workload")
    (cell,) = analyze([run]).cells
    checks = {k.name: k for k in cell.checks}
    own = cell.think_time.mean_ms  # Z asked 0: all of it is the generator's own time per cycle
    workload = checks["workload"]
    print(f"\nR {cell.overall.mean_ms:.2f} ms, X {cell.overall.throughput_per_s:.2f}/s, generator {own:.3f} ms a "
          f"cycle; workload {workload.value:.4f} of {workload.expected:g} ({workload.rel_error:.2%}, tolerance "
          f"{workload.tolerance:.2%}): {workload.explanation}")
    assert cell.overall.error_rate == 0 and 25 <= cell.overall.mean_ms < 40
    assert 0 < own <= 2.0  # JMeter's work between samples, not a thread late
    assert workload.passed is True, workload.explanation
    assert f"with the generator's own {own:.2f} ms per cycle" in workload.explanation
    # what the old check compared, X·(R+Z_intended) against N, falls short by about that cost's share of the cycle
    shortfall = 1 - cell.overall.throughput_per_s * cell.overall.mean_ms / 1000 / 2
    assert shortfall == pytest.approx(own / (cell.overall.mean_ms + own), abs=0.01)
    assert checks["closed_law"].passed is True
