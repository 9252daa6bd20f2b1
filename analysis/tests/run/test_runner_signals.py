"""SIGTERM or SIGINT to a running `littlegrid run`: the cells so far are kept, the one running is marked
incomplete, the sample server and JMeter are stopped, and no process the run started is left (checked by PID).
A few seconds of real load (JMeter and the sample server), under the load lock like every integration test."""

import json
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from littlegrid.run.jmeter import repo_root
from waiting import wait_for

pytestmark = pytest.mark.integration
GRID = repo_root(Path(__file__).parent) / "grids" / "ci.toml"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signalled_run_keeps_its_cells_stops_its_processes_and_leaves_none_behind(runnable, tmp_path, sig):
    run = tmp_path / "reports" / "signalled"
    runner = subprocess.Popen([sys.executable, "-m", "littlegrid.cli", "run", str(GRID), "--out", str(tmp_path / "reports"),
                               "--run-id", "signalled"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = run / "cells" / "users=5,think_ms=0"
        # the first cell is running: its JTL has rows, and JMeter and the server are the runner's children
        wait_for(lambda: (first / "results.jtl").is_file() and (first / "results.jtl").stat().st_size > 500, 120,
                  "the first cell's JTL to fill")
        children = psutil.Process(runner.pid).children(recursive=True)
        names = " ".join(" ".join(c.cmdline()) for c in children)
        assert "ApacheJMeter" in names and "littlegrid-server" in names, names
        runner.send_signal(sig)
        out, err = runner.communicate(timeout=120)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
    gone, alive = psutil.wait_procs(children, timeout=30)
    assert not alive, [(p.pid, p.cmdline()) for p in alive]  # no process of the run left behind
    name = signal.Signals(sig).name
    assert runner.returncode != 0 and f"interrupted by {name}" in err and "Traceback" not in err
    cell = json.loads((first / "manifest.json").read_text())
    assert cell["status"] == "incomplete" and cell["reason"] == f"interrupted by {name}" and cell["samples"] > 0
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "incomplete" and manifest["reason"] == f"interrupted by {name}" and manifest["ended"]
