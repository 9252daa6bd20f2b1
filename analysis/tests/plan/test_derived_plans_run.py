"""Derived plans load and run in real JMeter: each fixture plan, derived for a 2-second cell against a port that
refuses connections, starts the cell's threads and writes their samples (refused requests are samples too)."""

import csv
import socket
import subprocess
from pathlib import Path

import pytest

from littlegrid.jtl.schema import TRANSACTION_MESSAGE_PREFIX
from littlegrid.plan.derive import CellLoad, PlanOptions, derive
from littlegrid.run.plan_properties import save_service_properties

pytestmark = pytest.mark.integration
FIXTURES = Path(__file__).parent / "fixtures"
TIMER_PLAN = Path(__file__).parents[3] / "plans" / "closed.jmx"
WINDOWS_CSV = r"C:\Users\perf\jmeter\data\users.csv"


def refused_port() -> int:
    """A port nothing listens on (bound, then closed): every request is refused at once, no load anywhere."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("name, options, users, groups", [
    ("jmeter2_constant_timer.jmx", PlanOptions(), 3, {"Visitors"}),
    ("recorded_https.jmx", PlanOptions(files={WINDOWS_CSV: str(FIXTURES / "data" / "users.csv")}), 2, {"Shoppers"}),
    ("two_groups.jmx", PlanOptions(), 4, {"prepare data", "Browsers", "Buyers"}),
])
def test_a_derived_plan_runs_in_jmeter_with_the_cells_threads(jmeter, tmp_path, name, options, users, groups):
    cell = CellLoad(users=users, rate_per_s=None, think_ms=20.0, think_dist="exponential", rampup_s=0.0,
                    duration_s=2.0, protocol="http", host="127.0.0.1", port=refused_port(), label="smoke")
    plan = tmp_path / "plan.jmx"
    plan.write_bytes(derive(FIXTURES / name, options, cell, TIMER_PLAN, jmeter.home).xml)
    jtl = tmp_path / "results.jtl"
    cmd = jmeter.command(plan, jtl=jtl, log=tmp_path / "jmeter.log", properties=save_service_properties(),
                         heap="256m")
    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    with jtl.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    # a Transaction Controller cut short by the end of the test writes its parent row with no thread name (JMeter
    # 5.6.3: elapsed 0, allThreads 0); the samplers' rows say which threads ran
    rows = [r for r in rows if not r["responseMessage"].startswith(TRANSACTION_MESSAGE_PREFIX)]
    threads = {r["threadName"].rsplit(" ", 1)[0] for r in rows}  # "<group> <n>-<m>" -> group name
    assert threads == groups and rows
    load_threads = {r["threadName"] for r in rows if not r["threadName"].startswith("prepare data")}
    assert len(load_threads) == users
