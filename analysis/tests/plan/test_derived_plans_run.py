"""Derived plans load and run in real JMeter: each fixture plan, derived for a 2-second cell against a port that
refuses connections, starts the cell's threads and writes their samples (refused requests are samples too)."""

import csv
import socket
import subprocess
from dataclasses import dataclass
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


LOCAL = {  # plan: (options, users, the thread groups whose threads write samples)
    "jmeter2_constant_timer.jmx": (PlanOptions(), 3, {"Visitors"}),
    "recorded_https.jmx": (PlanOptions(files={WINDOWS_CSV: str(FIXTURES / "data" / "users.csv")}), 2, {"Shoppers"}),
    "two_groups.jmx": (PlanOptions(), 4, {"prepare data", "Browsers", "Buyers"}),
}
# N = 7 on three engines: Browsers 5 and Buyers 2, dealt a b c a b, then c a; engine b runs 2 + 0 threads, engine c
# 1 + 1. JMeter sets __jm.D_TG to an engine's name itself; here one JMeter is told each name in turn.
ENGINES = ("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3")
ENGINE_SHARES = {ENGINES[1]: {"Browsers": 2}, ENGINES[2]: {"Browsers": 1, "Buyers": 1}}


@dataclass(frozen=True)
class Ran:
    """One JMeter run of a derived plan: its exit code, its console, and the rows of its JTL."""

    code: int
    out: str
    rows: list[dict]


def _cell(users: int, label: str, engines: tuple[str, ...] = ()) -> CellLoad:
    return CellLoad(users=users, rate_per_s=None, think_ms=20.0, think_dist="exponential", rampup_s=0.0,
                    duration_s=2.0, protocol="http", host="127.0.0.1", port=refused_port(), label=label,
                    engines=engines)


@pytest.fixture(scope="module")
def derived_runs(jmeter, tmp_path_factory):
    """Every derived plan of this module and its JMeter run, the runs started at once and awaited together: each sends
    2 s of requests to a refused port and nothing here is timed, so running them side by side changes no assertion
    (one after another they took 48 s, most of it five JVM starts). (runs by plan name or engine, the remote plan)"""
    commands = {}
    for name, (options, users, _) in LOCAL.items():
        folder = tmp_path_factory.mktemp(Path(name).stem)
        plan = folder / "plan.jmx"
        plan.write_bytes(derive(FIXTURES / name, options, _cell(users, "smoke"), TIMER_PLAN, jmeter.home).xml)
        commands[name] = (folder, jmeter.command(plan, jtl=folder / "results.jtl", log=folder / "jmeter.log",
                                                 properties=save_service_properties(), heap="256m"))
    remote = derive(FIXTURES / "two_groups.jmx", PlanOptions(), _cell(7, "engines", ENGINES), TIMER_PLAN, jmeter.home)
    for engine in ENGINE_SHARES:
        folder = tmp_path_factory.mktemp("engine")
        plan = folder / "plan.jmx"
        plan.write_bytes(remote.xml)
        told = {**save_service_properties(), "__jm.D_TG": engine, **remote.engine_properties}
        commands[engine] = (folder, jmeter.command(plan, jtl=folder / "results.jtl", log=folder / "jmeter.log",
                                                   properties=told, heap="256m"))
    started = {key: subprocess.Popen(cmd, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
               for key, (folder, cmd) in commands.items()}
    runs = {}
    try:
        for key, process in started.items():
            out, _ = process.communicate(timeout=120)
            jtl = commands[key][0] / "results.jtl"
            rows = []
            if jtl.is_file():
                with jtl.open(encoding="utf-8", newline="") as f:
                    rows = list(csv.DictReader(f))
            runs[key] = Ran(process.returncode, out, rows)
    finally:
        for process in started.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    return runs, remote


@pytest.mark.parametrize("name", list(LOCAL))
def test_a_derived_plan_runs_in_jmeter_with_the_cells_threads(derived_runs, name):
    _, users, groups = LOCAL[name]
    ran = derived_runs[0][name]
    assert ran.code == 0, ran.out[-2000:]
    # a Transaction Controller cut short by the end of the test writes its parent row with no thread name (JMeter
    # 5.6.3: elapsed 0, allThreads 0); the samplers' rows say which threads ran
    rows = [r for r in ran.rows if not r["responseMessage"].startswith(TRANSACTION_MESSAGE_PREFIX)]
    threads = {r["threadName"].rsplit(" ", 1)[0] for r in rows}  # "<group> <n>-<m>" -> group name
    assert threads == groups and rows
    load_threads = {r["threadName"] for r in rows if not r["threadName"].startswith("prepare data")}
    assert len(load_threads) == users


def test_a_derived_plan_for_remote_engines_runs_its_engines_share_of_each_group_in_jmeter(derived_runs):
    runs, derived = derived_runs
    assert derived.group_threads == {"Browsers": 5, "Buyers": 2}
    for engine, expected in ENGINE_SHARES.items():
        ran = runs[engine]
        assert ran.code == 0, ran.out[-2000:]
        # JMeter names an engine's threads after it, as on a remote engine: "127.0.0.1:2-Browsers 1-2"
        threads = {r["threadName"] for r in ran.rows if not r["responseMessage"].startswith(TRANSACTION_MESSAGE_PREFIX)}
        assert all(t.startswith(engine + "-") for t in threads)
        by_group = {}
        for t in threads:
            group = t.removeprefix(engine + "-").rsplit(" ", 1)[0]
            by_group[group] = by_group.get(group, 0) + 1
        assert by_group == {"prepare data": 1, **expected}  # setUp runs as written
        assert sum(expected.values()) == derived.threads_by_engine[engine]
