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


def test_a_derived_plan_for_remote_engines_runs_its_engines_share_of_each_group_in_jmeter(jmeter, tmp_path):
    # N = 7 on three engines: Browsers 5 and Buyers 2, dealt a b c a b, then c a; engine b runs 2 + 0 threads,
    # engine c 1 + 1. JMeter sets __jm.D_TG to an engine's name itself; here one JMeter is told each name in turn.
    engines = ("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3")
    cell = CellLoad(users=7, rate_per_s=None, think_ms=20.0, think_dist="exponential", rampup_s=0.0,
                    duration_s=2.0, protocol="http", host="127.0.0.1", port=refused_port(), label="engines",
                    engines=engines)
    derived = derive(FIXTURES / "two_groups.jmx", PlanOptions(), cell, TIMER_PLAN, jmeter.home)
    assert derived.group_threads == {"Browsers": 5, "Buyers": 2}
    plan = tmp_path / "plan.jmx"
    plan.write_bytes(derived.xml)
    for engine, expected in ((engines[1], {"Browsers": 2}), (engines[2], {"Browsers": 1, "Buyers": 1})):
        jtl = tmp_path / f"{engine[-1]}.jtl"
        told = {**save_service_properties(), "__jm.D_TG": engine, **derived.engine_properties}
        cmd = jmeter.command(plan, jtl=jtl, log=tmp_path / "jmeter.log", properties=told, heap="256m")
        done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-2000:]
        with jtl.open(encoding="utf-8", newline="") as f:
            # JMeter names an engine's threads after it, as on a remote engine: "127.0.0.1:2-Browsers 1-2"
            threads = {r["threadName"] for r in csv.DictReader(f)
                       if not r["responseMessage"].startswith(TRANSACTION_MESSAGE_PREFIX)}
        assert all(t.startswith(engine + "-") for t in threads)
        by_group = {}
        for t in threads:
            group = t.removeprefix(engine + "-").rsplit(" ", 1)[0]
            by_group[group] = by_group.get(group, 0) + 1
        assert by_group == {"prepare data": 1, **expected}  # setUp runs as written
        assert sum(expected.values()) == derived.threads_by_engine[engine]
