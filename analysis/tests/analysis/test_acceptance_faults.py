"""Faults injected into real runs (JMeter and the sample server): a server SIGKILLed during the CI grid, and a
server frozen (SIGSTOP) so requests time out. What the run records, what the analysis and findings say, and that
`--resume` re-runs the lost cell clean. Minutes of load: run under the load lock,
    flock "$LOAD_LOCK" pytest -m acceptance tests/analysis/test_acceptance_faults.py
"""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from littlegrid.summarize import analyze
from littlegrid.findings import findings
from littlegrid.run.jmeter import repo_root
from waiting import wait_for

pytestmark = pytest.mark.acceptance
ROOT = repo_root(Path(__file__).parent)


def _server_of(runner: subprocess.Popen) -> psutil.Process:
    def command_line(p: psutil.Process) -> str:
        try:
            return " ".join(p.cmdline())
        except psutil.Error:  # a child that ended (or was still starting) as the list was walked
            return ""

    def server():
        return next((p for p in psutil.Process(runner.pid).children(recursive=True)
                     if "littlegrid-server" in command_line(p)), None)
    return wait_for(server, 120, "the runner's sample server")


def _cell_running(run: Path, cell: str) -> None:
    jtl = run / "cells" / cell / "results.jtl"
    wait_for(lambda: jtl.is_file() and jtl.stat().st_size > 2000, 300, f"{cell} to start")


def _run(args, tmp_path):
    return subprocess.Popen([sys.executable, "-m", "littlegrid.cli", "run", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=tmp_path)


def test_a_server_killed_during_the_ci_grid_fails_its_cell_saying_so_and_resume_runs_it_clean(runnable, tmp_path):
    out = tmp_path / "reports"
    runner = _run([str(ROOT / "grids" / "ci.toml"), "--out", str(out), "--run-id", "killed"], tmp_path)
    run = out / "killed"
    victim = "users=10,think_ms=0"
    _cell_running(run, victim)
    time.sleep(8)
    _server_of(runner).send_signal(signal.SIGKILL)
    log, _ = runner.communicate(timeout=600)
    assert runner.returncode == 1, log
    cell = json.loads((run / "cells" / victim / "manifest.json").read_text())
    assert cell["status"] == "failed" and cell["reason"].startswith("sample server died "), cell["reason"]
    s = analyze([run])
    assert {c.id: c.status for c in s.cells}[victim] != "complete"
    assert all(victim not in k.cells for k in s.curves)
    assert any(victim in [lo.cell for lo in k.left_out] for k in s.curves)
    for f in findings(s):
        if f.kind in ("saturation", "bottleneck", "knee", "overload"):
            assert victim not in f.cells, f.statement
    trust = " ".join(f.statement for f in s.findings if f.group == "trust")
    assert "sample server died" in trust
    # --resume runs that cell again, clean, and keeps the failed attempt
    again = _run(["--resume", str(run)], tmp_path)
    log, _ = again.communicate(timeout=600)
    assert again.returncode == 0, log
    cell = json.loads((run / "cells" / victim / "manifest.json").read_text())
    assert cell["status"] == "complete" and cell["attempts"][0]["status"] == "failed"
    s = analyze([run])
    assert all(c.status == "complete" for c in s.cells) and any(victim in k.cells for k in s.curves)


def test_a_frozen_server_times_requests_out_and_the_cell_has_an_outage_not_a_bottleneck(runnable, tmp_path):
    grid = tmp_path / "frozen.toml"
    grid.write_text(f'name = "frozen"\nplan = "{ROOT / "plans" / "closed.jmx"}"\n\n[server]\nstart = true\n\n[target]\npath = "/"\n\n'
                    '[cell]\nduration_s = 30\nwarmup_s = 2\ncooldown_s = 0\nrampup_s = 0\n\n'
                    '[properties]\nthink_ms = 0\nresponse_timeout_ms = 1000\n\n[axes]\nusers = [5]\n')
    out = tmp_path / "reports"
    runner = _run([str(grid), "--out", str(out), "--run-id", "frozen"], tmp_path)
    run = out / "frozen"
    _cell_running(run, "users=5")
    time.sleep(8)
    server = _server_of(runner)
    server.send_signal(signal.SIGSTOP)  # alive, answering nothing: every request times out after 1 s
    time.sleep(15)
    server.send_signal(signal.SIGCONT)
    log, _ = runner.communicate(timeout=600)
    s = analyze([run])
    (cell,) = s.cells
    assert cell.status == "outage" and cell.outage is not None, (cell.status, cell.reason, log)
    assert 12 <= cell.outage.lasted_s <= 17 and 6 <= cell.outage.began_s <= 12, cell.outage
    assert "read_timeout" in cell.outage.failed_by_class or "connect_timeout" in cell.outage.failed_by_class
    kinds = [f.kind for f in findings(s)]
    assert "outage" in kinds and "bottleneck" not in kinds and "saturation" not in kinds
