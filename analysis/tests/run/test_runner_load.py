"""`littlegrid run` with real JMeter runs: complete folders (the CI grid's run, shared), SIGKILL + resume, SIGTERM,
failed cells, remote engines.

Load tests: run them under the machine's load lock, e.g.
`flock "$LOAD_LOCK" pytest -m integration tests/run`.
"""

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from littlegrid.analysis.observed.mapping import map_readings, readings_from_rows
from littlegrid.analysis.observed.observed_window import pool_under_test
from littlegrid.jtl.schema import TRANSACTION_MESSAGE_PREFIX
from littlegrid.run import engines
from littlegrid.run.jmeter import repo_root
from littlegrid.run.runner import run_grid
from littlegrid.summarize import analyze
from littlegrid.usererror import UserError
from waiting import wait_for

pytestmark = pytest.mark.integration
FIXTURES = Path(__file__).parent / "fixtures"
OWN_PLANS = Path(__file__).parents[1] / "plan" / "fixtures"


def manifest(path: Path) -> dict:
    return json.loads(path.read_text())


def cell_dirs(run: Path) -> dict:
    return {cid: run / "cells" / cid for cid in manifest(run / "manifest.json")["cells"]}


def rows(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


HEAP = "256m"  # small JMeter heaps: these cells are short and the machine is shared


def runner_process(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "littlegrid.cli", "run", *args, "--jmeter-heap", HEAP], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def jmeters_writing_to(run: Path) -> list[psutil.Process]:
    found = []
    for p in psutil.process_iter(["cmdline"]):
        cmd = " ".join(p.info["cmdline"] or [])
        if "ApacheJMeter" in cmd and str(run) in cmd:
            found.append(p)
    return found


CI_GRID = repo_root(Path(__file__).parent) / "grids" / "ci.toml"  # the grid of tests/run/conftest.py's ci_grid_run
CI_CELLS = [f"users={n},think_ms={z}" for n in (5, 10, 20) for z in (0, 50)]
CI_THREADS, CI_SATURATED = 10, "users=20,think_ms=0"


def test_the_ci_grid_against_the_sample_server_leaves_a_complete_folder(ci_grid_run, closed_plan):
    # grids/ci.toml: GET / holds one of 10 Tomcat threads for 100 ms, so throughput is capped at c/S = 100/s; 20
    # users without think time keep every thread busy while the other 10 queue. How R grows with N is printed, not
    # asserted: a busy host stretches each cell's service time by its own amount. What it cannot change is asserted:
    # the folder, the counters, and the pool full while 20 users queue on it. The run is the test command's own
    # (analysis/pom.xml) or one run here: tests/run/conftest.py's ci_grid_run.
    run = ci_grid_run
    m = manifest(run / "manifest.json")
    assert m["schema"] == "littlegrid.run/1" and m["status"] == "complete" and m["ended"] >= m["started"]
    assert m["versions"]["jmeter"] == "5.6.3" and m["versions"]["java"].startswith(("openjdk", "java"))
    assert (run / "grid.toml").read_bytes() == CI_GRID.read_bytes()
    assert m["cells"] == CI_CELLS
    # one server configuration: the server started once for the whole grid (its log holds every start)
    log = (run / "server.log").read_text(encoding="utf-8")
    assert log.count("Started LittlegridServer") == 1, log.count("Started LittlegridServer")
    # recorded before any load: the sample server runs here, on its loopback address and the port it was given
    assert m["target"]["placement"] == "this_host" and m["target"]["host"] == "127.0.0.1" and m["target"]["port"]
    mean_ms = {}
    for cid, folder in cell_dirs(run).items():
        for name in ("results.jtl", "jmeter.log", "observed.csv", "host-metrics.csv", "manifest.json"):
            assert (folder / name).is_file(), f"{cid}: {name} missing"
        assert not (folder / "server-metrics.csv").exists()  # the actuator is observed through [observe]'s path
        cm = manifest(folder / "manifest.json")
        assert cm["status"] == "complete" and cm["exit_code"] == 0 and cm["reason"] is None
        # JMeter exited as told, once its listeners had closed the JTL (run/jmeter.py FORCE_EXIT): the counters
        # below still agree with the JTL row for row
        assert "Forced JVM shutdown requested at end of test" in (folder / "jmeter.log").read_text(encoding="utf-8")
        assert cm["users"] == cm["axes"]["users"] and cm["engines"] == 1
        assert cm["server"] == {"server.tomcat.threads.max": CI_THREADS}
        assert cm["properties"]["think_ms"] == str(cm["axes"]["think_ms"]) and cm["properties"]["duration_s"] == "20"
        results = rows(folder / "results.jtl")
        assert cm["samples"] == len(results) > 0
        assert all(r["success"] == "true" for r in results)
        if closed_plan.name == "closed.jmx":  # every request's think time, as drawn: the cell's think_ms exactly
            assert {r["think_drawn_ms"] for r in results} == {str(cm["axes"]["think_ms"])}, cid
        assert len(rows(folder / "host-metrics.csv")) >= 20  # 1 Hz over at least the cell's 20 s
        # The actuator is observed as any service is ([observe]'s one path), read through the mapping
        (actuator,) = cm["observe"]
        assert actuator.endswith("/actuator/prometheus") and cm["observe"][actuator]["scrapes"] >= 20
        port = m["target"]["port"]
        observed = map_readings(readings_from_rows(rows(folder / "observed.csv")), port=port)
        (requests,) = observed.requests
        counts = [s.requests for s in requests.seconds if s.requests is not None]
        assert requests.source == actuator and len(counts) >= 20  # 1 Hz over at least the cell's duration
        # Every request the server served during the cell is a sample JMeter wrote: the counters agree exactly.
        served = int(counts[-1]) - int(counts[0])
        assert served == len(results), (cid, served, len(results))
        pool = pool_under_test(observed, port)  # Tomcat's connector on the port under test
        assert pool.source == actuator and pool.host == "127.0.0.1" and len(pool.seconds) >= 20
        assert {s.size for s in pool.seconds} == {float(CI_THREADS)}
        busiest = max(s.busy for s in pool.seconds)
        assert busiest <= CI_THREADS  # Tomcat never exceeds threads.max
        if cid == CI_SATURATED:
            assert busiest == CI_THREADS, busiest  # saturated: the other ten users wait in front of the pool
        assert observed.process_cpu and observed.process_cpu[0].source == actuator
        mean_ms[cid] = sum(int(r["elapsed"]) for r in results) / len(results)
    ratio = mean_ms["users=20,think_ms=0"] / mean_ms["users=10,think_ms=0"]
    print(f"R(20 users) / R(10 users) without think time: {ratio:.2f} (about 2 on a quiet host); mean R {mean_ms}; "
          f"host load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def test_a_saturated_pool_keeps_its_server_view_a_reading_every_second_and_littles_law_at_the_server(
        ci_grid_summary):
    # 20 users, no think time, on 10 Tomcat threads of 100 ms: the pool is saturated whatever the host's load.
    # The 1 Hz scrapes go to the actuator's own port and threads, so none waits behind the 10 queued requests.
    cell = next(c for c in ci_grid_summary.cells if c.id == CI_SATURATED)
    srv, window_s, n = cell.server, cell.window.length_s, cell.users.n
    checks = {c.name: c for c in cell.checks}
    interval_s = 1.0  # the observer's schedule (run/observe.py): one scrape a tick, a late one skipped, no catch-up
    # Every tick of the window answered: at most the two partial ticks at its edges are missing, and no stretch
    # of the window went longer than one skipped tick without a reading.
    assert srv.failed_scrapes == 0, srv
    assert srv.readings >= int(window_s / interval_s) - 1, (srv.readings, window_s)
    assert srv.longest_gap_s <= 2 * interval_s, srv.longest_gap_s
    # The connector under test, not the actuator's: its pool size, and never more busy than that.
    assert srv.threads_max == CI_THREADS
    assert srv.busy_threads_mean <= CI_THREADS and srv.in_flight_mean <= CI_THREADS + 1e-9
    little = checks["server_little"]
    assert little.passed is True, little
    assert little.rel_error <= little.tolerance
    # Those not in the server wait in front of it: N = X·R up to the closed law's own tolerance.
    closed = checks["closed_law"]
    assert srv.waiting_in_front >= n * (1 - closed.tolerance) - CI_THREADS, srv
    assert srv.wait_in_front_ms > 0 and srv.in_front_reason is None


def test_sigkill_mid_grid_then_resume_completes_and_keeps_finished_cells_byte_identical(tmp_path, jmeter, http_target, target_grid):
    grid = target_grid(tmp_path / "kill.toml", http_target, users=(1, 2))
    runner = runner_process(str(grid), "--out", str(tmp_path / "reports"), "--run-id", "k", cwd=tmp_path)
    run = tmp_path / "reports" / "k"
    first, second = run / "cells" / "users=1,think_ms=20", run / "cells" / "users=2,think_ms=20"
    try:
        wait_for(lambda: (second / "manifest.json").is_file() and jmeters_writing_to(run), 90, "the second cell")
        time.sleep(1.5)  # JMeter is loading the target
        runner.kill()
        runner.wait(timeout=10)
    finally:
        if runner.poll() is None:
            runner.kill()
    assert manifest(first / "manifest.json")["status"] == "complete"
    assert manifest(second / "manifest.json")["status"] == "incomplete"
    # The kernel's parent-death signal stops JMeter although the runner had no chance to.
    wait_for(lambda: not jmeters_writing_to(run), 20, "JMeter to stop after its runner was killed")
    before = {p.name: p.read_bytes() for p in first.iterdir()}
    resume_started_ms = time.time() * 1000

    out = subprocess.run([sys.executable, "-m", "littlegrid.cli", "run", "--resume", str(run), "--jmeter-heap", HEAP],
                         cwd=tmp_path,
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "[1/2] users=1,think_ms=20  complete already: kept" in out.stdout
    m = manifest(run / "manifest.json")
    assert m["status"] == "complete" and len(m["resumed"]) == 1
    for folder in cell_dirs(run).values():
        assert manifest(folder / "manifest.json")["status"] == "complete"
    assert {p.name: p.read_bytes() for p in first.iterdir()} == before
    # The interrupted cell was re-run from scratch, not appended to: every sample is from the resumed run.
    again = rows(second / "results.jtl")
    assert again and min(int(r["timeStamp"]) for r in again) >= resume_started_ms
    assert manifest(second / "manifest.json")["samples"] == len(again)


def test_sigterm_stops_jmeter_marks_the_cell_incomplete_and_keeps_the_folder(tmp_path, jmeter, http_target, target_grid):
    grid = target_grid(tmp_path / "term.toml", http_target, users=(1, 2), duration_s=20)
    runner = runner_process(str(grid), "--out", str(tmp_path / "reports"), "--run-id", "t", cwd=tmp_path)
    run = tmp_path / "reports" / "t"
    try:
        wait_for(lambda: jmeters_writing_to(run), 60, "JMeter to start")
        time.sleep(2)
        t = time.monotonic()
        runner.send_signal(signal.SIGTERM)
        output, _ = runner.communicate(timeout=30)
    finally:
        if runner.poll() is None:
            runner.kill()
    assert time.monotonic() - t < 20  # it stopped JMeter rather than waiting for the cell to end
    assert runner.returncode == 130 and "interrupted by SIGTERM" in output
    assert not jmeters_writing_to(run)
    cm = manifest(run / "cells" / "users=1,think_ms=20" / "manifest.json")
    assert cm["status"] == "incomplete" and cm["reason"] == "interrupted by SIGTERM"
    assert not (run / "cells" / "users=2,think_ms=20").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports", "term.toml"]  # nothing outside the run folder
    m = manifest(run / "manifest.json")
    assert m["status"] == "incomplete" and m["ended"] and "SIGTERM" in m["reason"]


def test_a_cell_whose_jmeter_exits_non_zero_is_failed_with_the_reason_and_the_run_goes_on(tmp_path, jmeter, http_target, target_grid):
    grid = target_grid(tmp_path / "broken.toml", http_target, users=(1, 2))
    grid.write_text(grid.read_text().replace(str(FIXTURES / "tiny.jmx"), str(FIXTURES / "broken.jmx"))
                    .replace("think_ms = [20]\n", ""))
    out = subprocess.run([sys.executable, "-m", "littlegrid.cli", "run", str(grid), "--out", str(tmp_path / "r"),
                          "--run-id", "b", "--jmeter-heap", HEAP], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stdout + out.stderr
    run = tmp_path / "r" / "b"
    for folder in cell_dirs(run).values():  # both cells were tried
        cm = manifest(folder / "manifest.json")
        assert cm["status"] == "failed" and cm["exit_code"] == 1 and cm["samples"] == 0
        assert cm["reason"].startswith("JMeter exited with code 1")
    assert manifest(run / "manifest.json")["status"] == "failed"


def test_a_relative_out_folder_gets_the_jtl_in_the_cell_folder_not_nested_below_it(
        tmp_path, jmeter, http_target, target_grid, monkeypatch):
    grid = target_grid(tmp_path / "relative.toml", http_target, duration_s=3)
    monkeypatch.chdir(tmp_path)
    run = run_grid(grid, out=Path("reports"), run_id="rel", jmeter_heap=HEAP)  # the CLI's default --out
    folder = tmp_path / run / "cells" / "users=2,think_ms=20"
    cm = manifest(folder / "manifest.json")
    assert cm["status"] == "complete" and cm["samples"] == len(rows(folder / "results.jtl")) > 0
    assert not (folder / "reports").exists()


def test_a_cell_that_writes_no_samples_is_failed(tmp_path, jmeter, http_target, target_grid):
    grid = target_grid(tmp_path / "empty.toml", http_target, duration_s=3)
    grid.write_text(grid.read_text().replace(str(FIXTURES / "tiny.jmx"), str(FIXTURES / "nosamples.jmx")))
    run = run_grid(grid, out=tmp_path / "r", run_id="e", jmeter_heap=HEAP)
    cm = manifest(run / "cells" / "users=2,think_ms=20" / "manifest.json")
    assert cm["status"] == "failed" and cm["exit_code"] == 0 and cm["samples"] == 0
    assert "wrote no samples" in cm["reason"]


@pytest.fixture(scope="module")
def two_engines(tmp_path_factory, jmeter):
    """Two engines on 127.0.0.1 started as `littlegrid engines up --local 2` does, over RMI SSL with a keystore of
    their own; yields (their host:port names, the keystore) and stops them by their recorded PIDs. Started once for
    the module's remote-engine tests: an engine serves one test plan after another, as it does for a grid's cells."""
    folder = tmp_path_factory.mktemp("two-engines")
    keystore = engines.create_keystore(folder / "rmi.jks", days=1)
    state = folder / "engines.json"
    records = engines.start_local(jmeter.jar, 2, engines.Rmi(keystore=keystore), state, folder / "engines", "256m")
    try:
        yield [r["name"] for r in records], keystore
    finally:
        stopped = engines.stop_local(state)
        assert len(stopped) == 2 and not any(psutil.pid_exists(r["pid"]) and
                                             psutil.Process(r["pid"]).status() != psutil.STATUS_ZOMBIE
                                             for r in records)


def test_remote_engines_share_the_total_users_over_ssl_and_are_told_apart_by_thread_name(tmp_path, http_target, target_grid, two_engines):
    names, keystore = two_engines
    extra = f'remote_hosts = {json.dumps(names)}\n[engines]\nkeystore = "{keystore}"'
    grid = target_grid(tmp_path / "dist.toml", http_target, users=(3,), think_ms=(20,), extra=extra)
    run = run_grid(grid, out=tmp_path / "r", run_id="d", jmeter_heap=HEAP)
    m = manifest(run / "manifest.json")
    assert m["status"] == "complete" and m["engines"] == 2 and m["remote_hosts"] == names
    assert m["rmi"] == {"ssl": True, "keystore": str(keystore), "controller_host": None}
    cm = manifest(run / "cells" / "users=3,think_ms=20" / "manifest.json")
    # users is the total N = 3: the first engine listed takes the remainder
    assert cm["status"] == "complete" and cm["users"] == 3 and cm["engines"] == 2
    assert cm["threads_by_engine"] == {names[0]: 2, names[1]: 1}
    results = rows(run / "cells" / "users=3,think_ms=20" / "results.jtl")
    by_engine = {}
    for r in results:
        engine, _, thread = r["threadName"].partition("-")
        by_engine.setdefault(engine, set()).add(thread)
    assert {e: len(t) for e, t in by_engine.items()} == {names[0]: 2, names[1]: 1}
    assert max(int(r["allThreads"]) for r in results) == 2  # allThreads counts one engine's threads
    assert cm["samples_by_engine"] == {e: sum(1 for r in results if r["threadName"].startswith(e + "-"))
                                       for e in names}
    assert all(n > 0 for n in cm["samples_by_engine"].values())
    cell = analyze([run]).cells[0]
    assert cell.users.n == 3 and cell.users.basis == "users split across engines"
    assert next(c for c in cell.checks if c.name == "users").passed


def test_a_plan_of_your_own_over_remote_engines_runs_each_engines_share_of_each_load_group(
        tmp_path, http_target, two_engines):
    names, keystore = two_engines
    grid = tmp_path / "own-dist.toml"
    grid.write_text(f"""name = "own-dist"
plan = "{OWN_PLANS / 'two_groups.jmx'}"
remote_hosts = {json.dumps(names)}
[engines]
keystore = "{keystore}"
[target]
host = "127.0.0.1"
port = {http_target}
[cell]
duration_s = 5
warmup_s = 1
cooldown_s = 1
rampup_s = 0
[axes]
users = [5]
think_ms = [20]
""")
    run = run_grid(grid, out=tmp_path / "r", run_id="o", jmeter_heap=HEAP)
    cid = "users=5,think_ms=20"
    cm = manifest(run / "cells" / cid / "manifest.json")
    # N = 5 in total: Browsers 4 and Buyers 1 (the plan's 30:10), dealt a b a b, then a
    assert cm["status"] == "complete" and cm["users"] == 5 and cm["engines"] == 2
    assert cm["load_groups"] == {"Browsers": 4, "Buyers": 1}
    assert cm["threads_by_engine"] == {names[0]: 3, names[1]: 2}
    assert cm["load_groups_by_engine"] == {names[0]: {"Browsers": 2, "Buyers": 1}, names[1]: {"Browsers": 2, "Buyers": 0}}
    threads = {}
    for r in rows(run / "cells" / cid / "results.jtl"):
        if r["responseMessage"].startswith(TRANSACTION_MESSAGE_PREFIX):
            continue
        engine, _, thread = r["threadName"].partition("-")
        threads.setdefault((engine, thread.rsplit(" ", 1)[0]), set()).add(thread)
    assert {k: len(v) for k, v in threads.items()} == {
        (names[0], "Browsers"): 2, (names[1], "Browsers"): 2, (names[0], "Buyers"): 1,
        (names[0], "prepare data"): 1, (names[1], "prepare data"): 1}  # setUp runs as written, on each engine
    cell = analyze([run]).cells[0]
    assert cell.users.n == 5 and cell.users.basis == "users split across engines"
    assert next(c for c in cell.checks if c.name == "users").passed  # allThreads peaks at 3, the largest share


def test_engines_without_a_keystore_are_refused_before_any_load(tmp_path, http_target, target_grid):
    extra = 'remote_hosts = ["127.0.0.1:1", "127.0.0.1:2"]'
    grid = target_grid(tmp_path / "nokey.toml", http_target, users=(2,), extra=extra)
    with pytest.raises(UserError, match=r"RMI over SSL.*--keystore FILE"):
        run_grid(grid, out=tmp_path / "r", run_id="k", jmeter_heap=HEAP)
    assert not (tmp_path / "r" / "k").exists()
