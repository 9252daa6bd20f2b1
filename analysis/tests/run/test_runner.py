"""`littlegrid run` without load: the printed plan, the -J properties of a cell, refusals before anything runs."""

import json
import socket
from pathlib import Path

import pytest

from littlegrid import cli
from littlegrid.run.grid_file import load_grid
from littlegrid.run.runner import cell_properties, run_grid

PLAN = Path(__file__).parent / "fixtures" / "tiny.jmx"


def grid_text(port: int, extra: str = "") -> str:
    return f"""
name = "unit"
plan = "{PLAN}"
[target]
host = "127.0.0.1"
port = {port}
path = "/work"
[cell]
duration_s = 20
warmup_s = 5
cooldown_s = 2
rampup_s = 2
[properties]
think_dist = "poisson"
[jmeter]
"httpclient4.time_to_live" = 60000
[axes]
users = [5, 10]
think_ms = [0, 50.0]
{extra}"""


@pytest.fixture
def grid_path(tmp_path):
    path = tmp_path / "unit.toml"
    path.write_text(grid_text(8080))
    return path


def test_dry_run_prints_the_cells_and_the_expected_time_and_writes_nothing(grid_path, tmp_path, capsys):
    out = tmp_path / "reports"
    folder = run_grid(grid_path, out=out, dry_run=True, run_id="r1")
    printed = capsys.readouterr().out
    assert folder == out / "r1" and not out.exists()
    assert "4 cells of 20 s" in printed and "warm-up found from the data, at least 5 s; cool-down 2 s" in printed
    assert "1. users=5,think_ms=0" in printed and "4. users=10,think_ms=50" in printed
    assert "expected time: about 1:36" in printed  # 4 × (20 s + 4 s JMeter start)


def test_a_cell_gets_target_timing_fixed_and_axis_properties_as_jmeter_strings(grid_path):
    grid = load_grid(grid_path)
    cell = grid.cells()[1]
    props = cell_properties(grid, cell, grid.target)
    assert props["users"] == "5" and props["think_ms"] == "50" and props["think_dist"] == "poisson"
    assert props["host"] == "127.0.0.1" and props["port"] == "8080" and props["path"] == "/work"
    assert props["duration_s"] == "20" and props["rampup_s"] == "2"  # JMeter parses durations as integers
    assert props["httpclient4.time_to_live"] == "60000"
    assert props["jmeter.save.saveservice.output_format"] == "csv"
    assert props["summariser.interval"] == "5"
    assert "warmup_s" not in props  # trimming is the analysis's business


def test_an_unreachable_target_is_refused_before_anything_is_written(jmeter, tmp_path, capsys):
    # jmeter: the runner looks for JMeter first; without it that is the one error said (it failed here before)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound but not listening: connections are refused
        path = tmp_path / "g.toml"
        path.write_text(grid_text(port))
        code = cli.main(["run", str(path), "--out", str(tmp_path / "reports")])
    err = capsys.readouterr().err
    assert code == 2 and not (tmp_path / "reports").exists()
    assert err.count("\n") == 1 and f"[target] 127.0.0.1:{port}: cannot connect" in err


def test_a_missing_jmeter_is_one_line(tmp_path, grid_path, monkeypatch, capsys):
    monkeypatch.setenv("JMETER_HOME", str(tmp_path / "no-jmeter"))
    code = cli.main(["run", str(grid_path), "--out", str(tmp_path / "reports")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "JMETER_HOME" in err


def test_a_busy_server_port_is_refused(jmeter, tmp_path, capsys, monkeypatch):  # jmeter: looked for first
    jar = tmp_path / "server.jar"
    jar.write_bytes(b"")
    monkeypatch.setenv("LITTLEGRID_SERVER_JAR", str(jar))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        text = grid_text(0).replace('host = "127.0.0.1"\nport = 0', "").replace("[target]",
                                                                                  f"[server]\nstart = true\nport = {port}\n[target]")
        path = tmp_path / "g.toml"
        path.write_text(text)
        code = cli.main(["run", str(path), "--out", str(tmp_path / "reports")])
    err = capsys.readouterr().err
    assert code == 2 and f"[server] port {port} on 127.0.0.1 is already in use" in err


def test_a_bad_grid_through_the_cli_is_one_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "g.toml"
    path.write_text(grid_text(8080).replace("duration_s = 20", "duration_s = -1"))
    assert cli.main(["run", str(path), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "[cell] duration_s: must be > 0" in err


def test_resume_with_a_different_grid_is_refused(tmp_path, grid_path):
    from littlegrid.run import run_folder as rf

    folder = rf.RunFolder.create(tmp_path / "reports", "r1", grid_path)
    rf.write_json(folder.manifest_path, {"schema": rf.RUN_SCHEMA, "grid_file": str(grid_path)})
    changed = tmp_path / "changed.toml"
    changed.write_text(grid_text(8080).replace("users = [5, 10]", "users = [5, 20]"))
    with pytest.raises(Exception, match="differs from the grid this run was started with"):
        run_grid(changed, resume=folder.root, dry_run=True)
    assert run_grid(None, resume=folder.root, dry_run=True) == folder.root  # GRID defaults to the run's own


# -- orchestration with stand-ins for JMeter and the server: which server starts, what is kept ---------------
class FakeServer:
    """Records the sample server's lifecycle instead of starting a JVM."""

    events: list = []

    def __init__(self, knobs, *, port=None, management_port=None, log=None, heap="512m", ready_timeout_s=60.0,
                 cpus=None):
        self.asked_ports = (port, management_port)  # what the runner passed: None lets the server choose
        self.cpus = cpus
        self.knobs, self.port = dict(knobs), port or 40000
        self.management_port = management_port or 40001
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.metrics_url = f"http://127.0.0.1:{self.management_port}/actuator/prometheus"

    def start(self):
        FakeServer.events.append(("start", dict(self.knobs), self.asked_ports) + ((self.cpus,) if self.cpus else ()))
        return self

    def stop(self):
        FakeServer.events.append(("stop", dict(self.knobs)))


def _jtl(rows) -> str:
    """A JTL of (start ms, elapsed ms, success) rows from one thread, as JMeter writes them."""
    return "timeStamp,elapsed,label,responseCode,success,threadName,allThreads\n" + "".join(
        f"{t},{e},GET /,{200 if ok else 'Non HTTP response code: java.net.ConnectException'},{str(ok).lower()},"
        f"Thread Group 1-1,1\n" for t, e, ok in rows)


T0 = 1_700_000_000_000
GOOD_JTL = _jtl([(T0 + 100 * i, 20, True) for i in range(100)])  # 10 s answered throughout
# answered for 5 s, then nothing but refusals at 80/s for 10 s: the server died (the data's own outage)
OUTAGE_JTL = _jtl([(T0 + 100 * i, 20, True) for i in range(50)]
                  + [(T0 + 5000 + 12 * i, 0, False) for i in range(800)])

# answered every 100 ms for 20 s, but the request started at 10 s held 3 s, then answered: a stall, nothing failed
STALL_JTL = _jtl([(T0 + 100 * i, 20, True) for i in range(100)] + [(T0 + 10_000, 3_000, True)]
                 + [(T0 + 13_020 + 100 * i, 20, True) for i in range(70)])
# answered for 8 s, refused at 80/s for 3 s, answered again to 20 s: a recovered outage
RECOVERED_JTL = _jtl([(T0 + 100 * i, 20, True) for i in range(80)] + [(T0 + 8_000 + 12 * i, 0, False)
                                                                       for i in range(250)]
                     + [(T0 + 11_000 + 100 * i, 20, True) for i in range(90)])
FAKE_JTL = {"complete": GOOD_JTL, "outage": OUTAGE_JTL, "stall": STALL_JTL, "recovered": RECOVERED_JTL}


@pytest.fixture
def fakes(monkeypatch, tmp_path):
    from littlegrid.run import cell_run
    from littlegrid.run import runner
    from littlegrid.run.jmeter import JMeter

    jar = tmp_path / "server.jar"
    jar.write_bytes(b"")
    monkeypatch.setenv("LITTLEGRID_SERVER_JAR", str(jar))
    FakeServer.events = []
    monkeypatch.setattr(runner, "SampleServer", FakeServer)
    monkeypatch.setattr(runner, "find_jmeter", lambda: JMeter(home=tmp_path, jar=tmp_path / "ApacheJMeter-5.6.3.jar"))
    monkeypatch.setattr(runner, "java_version", lambda: "openjdk version 17 (fake)")
    outcomes = {}  # cell id -> "complete" | "failed" | "interrupt"

    def fake_run_cell(jmeter, plan, folder, properties, **kw):
        what = outcomes.get(folder.name, "complete")
        FakeServer.events.append(("cell", folder.name) + ((kw["cpus"], kw["server_cpus"]) if kw.get("cpus") else ()))
        if kw.get("on_progress"):
            from littlegrid.run.progress import Live

            live = Live()
            live.feed("summary +    187 in 00:00:05 =   37.4/s Avg:  3 Min:  1 Max: 10 Err:     1 (0.53%) Active: 2")
            kw["on_progress"](live, 5.0)
        if what == "interrupt":
            (folder / "results.jtl").write_text("timeStamp,elapsed\n1,2\n")
            raise cell_run.Interrupted("SIGTERM")
        (folder / "results.jtl").write_text(FAKE_JTL.get(what, ""))
        # JMeter ran to its end: only the analysis sees the outage or the stall
        what = "complete" if what in FAKE_JTL else what
        return cell_run.CellOutcome(status=what, reason=None if what == "complete" else "JMeter exited with code 1: x",
                                    exit_code=0 if what == "complete" else 1, samples=1 if what == "complete" else 0,
                                    started="2026-01-01T00:00:00.000Z", ended="2026-01-01T00:00:05.000Z", took_s=5.0,
                                    errors=0 if what == "complete" else None)

    monkeypatch.setattr(runner, "run_cell", fake_run_cell)
    return outcomes


def knob_grid(tmp_path) -> Path:
    path = tmp_path / "knobs.toml"
    path.write_text(grid_text(0).replace('host = "127.0.0.1"\nport = 0\n', "").replace(
        "[target]", '[server]\nstart = true\nknobs = { "littlegrid.throttle.max-concurrent" = 0 }\n[target]')
        + '"server.tomcat.threads.max" = [2, 8]\n')
    return path


def test_the_server_restarts_only_when_its_knobs_change_and_stops_at_the_end(tmp_path, fakes):
    run = run_grid(knob_grid(tmp_path), out=tmp_path / "reports", run_id="k")
    events = FakeServer.events
    starts = [e for e in events if e[0] == "start"]
    assert [s[1]["server.tomcat.threads.max"] for s in starts] == [2, 8]
    assert all(s[1]["littlegrid.throttle.max-concurrent"] == 0 for s in starts)
    assert [e[0] for e in events] == ["start"] + ["cell"] * 4 + ["stop", "start"] + ["cell"] * 4 + ["stop"]
    # The first start chooses both ports; the restart keeps them (the application's and the actuator's).
    assert [s[2] for s in starts] == [(None, None), (40000, 40001)]
    cm = json.loads((run / "cells" / "users=10,think_ms=50,server.tomcat.threads.max=8" / "manifest.json").read_text())
    assert cm["server"] == {"littlegrid.throttle.max-concurrent": 0, "server.tomcat.threads.max": 8}
    assert cm["index"] == 8 and cm["status"] == "complete" and cm["properties"]["port"] == "40000"
    assert "server.tomcat.threads.max" not in cm["properties"]


def test_a_pinned_server_runs_on_its_cpus_jmeter_on_the_others_and_the_manifest_says_so(tmp_path, fakes, monkeypatch):
    monkeypatch.setattr("littlegrid.run.sample_server.os.sched_getaffinity", lambda pid: {0, 1, 2})
    grid = knob_grid(tmp_path)
    grid.write_text(grid.read_text().replace("[server]\nstart = true\n", "[server]\nstart = true\ncpus = [2]\n"))
    run = run_grid(grid, out=tmp_path / "reports", run_id="pinned")
    starts = [e for e in FakeServer.events if e[0] == "start"]
    cells = [e for e in FakeServer.events if e[0] == "cell"]
    assert {s[3] for s in starts} == {(2,)}
    assert {c[2:] for c in cells} == {((0, 1), (2,))}  # JMeter's CPUs, and the server's for the host metrics
    assert json.loads((run / "manifest.json").read_text())["cpus"] == {"server": [2], "generator": [0, 1]}
    from littlegrid.summarize import analyze
    summary = analyze([run])  # the analysis reads them back: the server's cores are its own CPU 2
    assert (summary.run.server_cpus, summary.run.generator_cpus) == ([2], [0, 1])


def test_a_failed_cell_is_recorded_and_the_run_goes_on_to_a_failed_run(tmp_path, fakes, grid_path, monkeypatch):
    monkeypatch.setattr("littlegrid.run.preflight.check_grid", lambda grid: None)
    fakes["users=5,think_ms=50"] = "failed"
    run = run_grid(grid_path, out=tmp_path / "reports", run_id="f")
    cells = [json.loads((run / "cells" / c / "manifest.json").read_text())
             for c in json.loads((run / "manifest.json").read_text())["cells"]]
    assert [c["status"] for c in cells] == ["complete", "failed", "complete", "complete"]
    assert cells[1]["reason"] == "JMeter exited with code 1: x" and cells[1]["exit_code"] == 1
    m = json.loads((run / "manifest.json").read_text())
    assert m["status"] == "failed" and m["reason"] == "1 cell(s) not complete: users=5,think_ms=50"


def test_an_interrupt_marks_the_cell_incomplete_stops_the_server_and_keeps_finished_cells(tmp_path, fakes):
    from littlegrid.run.cell_run import Interrupted

    fakes["users=5,think_ms=50,server.tomcat.threads.max=2"] = "interrupt"
    with pytest.raises(Interrupted):
        run_grid(knob_grid(tmp_path), out=tmp_path / "reports", run_id="i")
    run = tmp_path / "reports" / "i"
    assert FakeServer.events[-1][0] == "stop"
    first = json.loads((run / "cells" / "users=5,think_ms=0,server.tomcat.threads.max=2" / "manifest.json").read_text())
    second = json.loads((run / "cells" / "users=5,think_ms=50,server.tomcat.threads.max=2" / "manifest.json").read_text())
    assert first["status"] == "complete"
    assert second["status"] == "incomplete" and second["reason"] == "interrupted by SIGTERM" and second["samples"] == 1
    m = json.loads((run / "manifest.json").read_text())
    assert m["status"] == "incomplete" and m["reason"] == "interrupted by SIGTERM" and m["ended"]

    # --resume runs the interrupted cell and the rest, and leaves the finished one alone
    FakeServer.events = []
    fakes.clear()
    before = (run / "cells" / "users=5,think_ms=0,server.tomcat.threads.max=2" / "results.jtl").stat().st_mtime_ns
    run_grid(None, resume=run)
    ran = [e[1] for e in FakeServer.events if e[0] == "cell"]
    assert "users=5,think_ms=0,server.tomcat.threads.max=2" not in ran and len(ran) == 7
    assert (run / "cells" / "users=5,think_ms=0,server.tomcat.threads.max=2" / "results.jtl").stat().st_mtime_ns == before
    m = json.loads((run / "manifest.json").read_text())
    assert m["status"] == "complete" and len(m["resumed"]) == 1


def test_on_a_terminal_the_cell_line_shows_live_throughput_and_errors_then_its_outcome(tmp_path, fakes, grid_path,
                                                                                     monkeypatch, capsys):
    import sys

    monkeypatch.setattr("littlegrid.run.preflight.check_grid", lambda grid: None)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    run_grid(grid_path, out=tmp_path / "reports", run_id="tty")
    screen = capsys.readouterr().out
    live = [line for line in screen.split("\r") if "X 37.4/s" in line]
    assert live and live[0].startswith("\033[K[1/4] users=5,think_ms=0  0:05/0:20  X 37.4/s  187 samples  "
                                       "errors 1 (0.53%)  elapsed")
    assert "ETA" in live[0]
    assert "[4/4] users=10,think_ms=50  complete  1 samples" in screen and screen.rstrip().endswith("ETA 0:00")


def test_without_a_terminal_each_cell_prints_one_line(tmp_path, fakes, grid_path, monkeypatch, capsys):
    monkeypatch.setattr("littlegrid.run.preflight.check_grid", lambda grid: None)
    run_grid(grid_path, out=tmp_path / "reports", run_id="plain")
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[")]
    assert len(lines) == 4 and "\r" not in "".join(lines)
    assert lines[0].startswith("[1/4] users=5,think_ms=0  complete  1 samples (≈0.1/s)  errors 0 (0.00%)  "
                               "elapsed 0:00  ETA ")


@pytest.mark.load  # starts java (on a corrupt jar): a test that needs Java installed
def test_a_sample_server_that_never_gets_ready_is_one_line_and_the_run_is_marked_failed(tmp_path, monkeypatch, capsys):
    from littlegrid.run import runner
    from littlegrid.run.jmeter import JMeter

    jar = tmp_path / "not-a-server.jar"
    jar.write_bytes(b"not a jar")  # java exits at once: "Invalid or corrupt jarfile"
    monkeypatch.setenv("LITTLEGRID_SERVER_JAR", str(jar))
    monkeypatch.setattr(runner, "find_jmeter", lambda: JMeter(home=tmp_path, jar=tmp_path / "ApacheJMeter-5.6.3.jar"))
    code = cli.main(["run", str(knob_grid(tmp_path)), "--out", str(tmp_path / "reports"), "--run-id", "s"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "sample server exited with code 1 before it was ready" in err and "server.log" in err
    run = tmp_path / "reports" / "s"
    m = json.loads((run / "manifest.json").read_text())
    assert m["status"] == "failed" and "before it was ready" in m["reason"]
    assert b"corrupt jarfile" in (run / "server.log").read_bytes()
    assert not (run / "cells").exists() or not any((run / "cells").iterdir())  # no cell was started


def test_what_the_grid_leaves_unset_is_recorded_as_the_plans_own_default(tmp_path, fakes, monkeypatch):
    monkeypatch.setattr("littlegrid.run.preflight.check_grid", lambda grid: None)
    path = tmp_path / "defaults.toml"
    path.write_text(grid_text(8080).replace("users = [5, 10]\n", "").replace('think_dist = "poisson"\n', ""))
    run = run_grid(path, out=tmp_path / "reports", run_id="d")
    cm = json.loads((run / "cells" / "think_ms=50" / "manifest.json").read_text())
    # tiny.jmx: ${__P(users,1)}, ${__P(think_dist,constant)}; the axis value wins over the default
    assert (cm["users"], cm["think_dist"], cm["think_ms"], cm["rate_per_s"]) == (1, "constant", 50, None)
    assert cm["workload"] == "closed"  # tiny.jmx reads neither rate_per_s nor requests_per_user
    assert "users" not in cm["properties"]  # JMeter ran with the plan's default; nothing was sent


class _StandInJMeter:
    """A JMeter whose command is a Python loop writing a console line a tenth of a second for `seconds`."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def command(self, plan, **kw):
        import sys
        return [sys.executable, "-c", "import time\nend = time.time() + %f\nwhile time.time() < end:\n"
                "    print('summary +  1 in 00:00:01 = 1.0/s', flush=True); time.sleep(0.1)" % self.seconds]


def test_a_sample_server_that_dies_mid_cell_fails_the_cell_saying_when_and_stops_jmeter(tmp_path):
    import subprocess
    import sys
    import time

    from littlegrid.run.cell_run import run_cell

    # the "server" kills itself with SIGKILL after 1 s, as a killed sample server does
    server = subprocess.Popen([sys.executable, "-c", "import os, signal, time; time.sleep(1); "
                              "os.kill(os.getpid(), signal.SIGKILL)"])
    t0 = time.monotonic()
    try:
        outcome = run_cell(_StandInJMeter(60), tmp_path / "plan.jmx", tmp_path, {}, duration_s=60, server=server)
    finally:
        server.kill()
        server.wait()
    took = time.monotonic() - t0
    assert outcome.status == "failed" and took < 30  # JMeter was stopped, not waited for
    assert outcome.reason.startswith("sample server died ") and "s into the cell (exit -9); JMeter stopped" in \
        outcome.reason
    died_after = float(outcome.reason.split("died ")[1].split(" s")[0])
    assert 1 <= died_after <= round(took)  # the reason says whole seconds: rounding keeps the order
    # a server that lives through the cell leaves it to JMeter's own outcome (negative control)
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    (tmp_path / "b").mkdir()
    try:
        ok = run_cell(_StandInJMeter(0.5), tmp_path / "plan.jmx", tmp_path / "b", {}, duration_s=5, server=alive)
    finally:
        alive.kill()
        alive.wait()
    assert "sample server" not in (ok.reason or "")


def test_a_part_that_is_the_system_under_test_is_named_as_the_grid_names_it_when_it_dies_mid_cell(tmp_path):
    import subprocess
    import sys

    from littlegrid.run.cell_run import run_cell

    part = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.3); raise SystemExit(3)"])
    try:
        outcome = run_cell(_StandInJMeter(60), tmp_path / "plan.jmx", tmp_path, {}, duration_s=60, server=part,
                           server_name="[processes.db]")
    finally:
        part.kill()
        part.wait()
    assert outcome.status == "failed"
    assert outcome.reason.startswith("[processes.db] died ") and "(exit 3); JMeter stopped" in outcome.reason


def test_resume_runs_again_a_complete_cell_whose_analysis_found_an_outage_keeping_the_first_attempt(tmp_path, fakes,
                                                                                                    grid_path, monkeypatch,
                                                                                                    capsys):
    monkeypatch.setattr("littlegrid.run.preflight.check_grid", lambda grid: None)
    fakes["users=5,think_ms=50"] = "outage"
    run = run_grid(grid_path, out=tmp_path / "reports", run_id="o")
    cell = run / "cells" / "users=5,think_ms=50"
    assert json.loads((cell / "manifest.json").read_text())["status"] == "complete"  # JMeter ran to its end
    FakeServer.events = []
    fakes.clear()
    run_grid(None, resume=run)
    assert [e[1] for e in FakeServer.events if e[0] == "cell"] == ["users=5,think_ms=50"]
    out = capsys.readouterr().out
    # the last answer ended 4.9 s in (49 × 100 ms + 20 ms); refusals from then on, to the end
    assert "users=5,think_ms=50: complete, but its analysis found an outage (outage 4.9 s into the cell" in out
    manifest = json.loads((cell / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["attempts"] == [
        {"attempt": 1, "status": "complete", "reason": None, "folder": "attempts/1"}]
    assert (cell / "attempts" / "1" / "results.jtl").read_text() == OUTAGE_JTL  # the first attempt kept whole


def test_resume_runs_again_a_cell_with_a_recovered_outage_but_not_one_with_a_stall(tmp_path, fakes, grid_path,
                                                                                  monkeypatch, capsys):
    monkeypatch.setattr("littlegrid.run.preflight.check_grid", lambda grid: None)
    fakes["users=5,think_ms=50"], fakes["users=10,think_ms=0"] = "recovered", "stall"
    run = run_grid(grid_path, out=tmp_path / "reports", run_id="s")
    FakeServer.events = []
    fakes.clear()
    run_grid(None, resume=run)
    assert [e[1] for e in FakeServer.events if e[0] == "cell"] == ["users=5,think_ms=50"]
    assert ("users=5,think_ms=50: complete, but its analysis found an outage (outage 7.9 s into the cell, lasting "
            "3.1 s (until requests were answered again)") in capsys.readouterr().out


def test_retry_runs_a_failed_cell_again_up_to_n_times_and_lists_every_attempt(tmp_path, fakes, grid_path,
                                                                              monkeypatch):
    from littlegrid.run import runner

    monkeypatch.setattr("littlegrid.run.preflight.check_grid", lambda grid: None)
    tries = {"n": 0}
    real = runner.run_cell

    def flaky(jmeter, plan, folder, properties, **kw):  # fails twice, then succeeds
        if folder.name == "users=10,think_ms=0":
            tries["n"] += 1
            fakes[folder.name] = "failed" if tries["n"] <= 2 else "complete"
        return real(jmeter, plan, folder, properties, **kw)

    monkeypatch.setattr(runner, "run_cell", flaky)
    run = run_grid(grid_path, out=tmp_path / "reports", run_id="r", retry=3)
    manifest = json.loads((run / "cells" / "users=10,think_ms=0" / "manifest.json").read_text())
    assert tries["n"] == 3 and manifest["status"] == "complete"
    assert [(a["attempt"], a["status"]) for a in manifest["attempts"]] == [(1, "failed"), (2, "failed")]
    assert json.loads((run / "manifest.json").read_text())["status"] == "complete"
    # without --retry the failure stands (negative control)
    tries["n"] = 0
    run = run_grid(grid_path, out=tmp_path / "reports", run_id="r0")
    assert tries["n"] == 1 and json.loads((run / "manifest.json").read_text())["status"] == "failed"


def test_the_sample_servers_actuator_is_observed_beside_the_grids_sources_and_counted_per_cell(tmp_path, fakes,
                                                                                                 monkeypatch):
    import dataclasses

    from littlegrid.run import preflight, runner

    monkeypatch.setattr(preflight, "check_grid", lambda grid: None)  # the grid's source is not served here
    seen, inner = [], runner.run_cell

    def observing(jmeter, plan, folder, properties, **kw):
        seen.append((kw["observe_sources"], kw["observe_keep"]))
        counts = {url: {"scrapes": 20, "failed": 1, "slow": 0, "errors": {"timed out": 1}}
                  for url in kw["observe_sources"]}
        return dataclasses.replace(inner(jmeter, plan, folder, properties, **kw), observed=counts)

    monkeypatch.setattr(runner, "run_cell", observing)
    path = knob_grid(tmp_path)
    path.write_text(path.read_text() + '[observe]\nprometheus = ["http://10.0.0.7:9100/metrics"]\n'
                    '[observe.pools.workers]\nbusy = "app_workers_busy"\nsize = 4\n')
    run = run_grid(path, out=tmp_path / "reports", run_id="o")
    actuator = "http://127.0.0.1:40001/actuator/prometheus"  # FakeServer's management port
    assert seen and all(sources == ["http://10.0.0.7:9100/metrics", actuator] for sources, _ in seen)
    assert all(keep == {"app_workers_busy"} for _, keep in seen)
    cm = json.loads((run / "cells" / "users=5,think_ms=0,server.tomcat.threads.max=2" / "manifest.json").read_text())
    assert cm["observe"][actuator] == {"scrapes": 20, "failed": 1, "slow": 0, "errors": {"timed out": 1}}
    # where the target and each source ran, recorded before any load: the sample server here, the node elsewhere
    m = json.loads((run / "manifest.json").read_text())
    assert m["target"] == {"host": "127.0.0.1", "port": 40000, "addresses": ["127.0.0.1"], "placement": "this_host"}
    assert m["observe_hosts"][actuator]["placement"] == "this_host"
    assert m["observe_hosts"]["http://10.0.0.7:9100/metrics"]["placement"] == "elsewhere"
    from littlegrid.summarize import analyze
    summary = analyze([run])
    assert summary.run.target.placement == "this_host" and summary.run.target.port == 40000


def test_a_cell_writes_what_its_sources_said_into_observed_csv_and_counts_them(tmp_path):
    import csv

    from http_stub import serving
    from littlegrid.run import run_folder as rf
    from littlegrid.run.cell_run import run_cell

    with serving(lambda path: b"process_cpu_seconds_total 1.5\ngo_goroutines 9\n") as port:
        url = f"http://127.0.0.1:{port}/metrics"
        gone = "http://127.0.0.1:9/metrics"  # discard port: nothing answers, the cell goes on regardless
        outcome = run_cell(_StandInJMeter(2.5), tmp_path / "plan.jmx", tmp_path, {}, duration_s=5,
                           observe_sources=[url, gone])
    with (tmp_path / rf.OBSERVED).open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert outcome.took_s < 2.5 + 2.0  # JMeter's time, and the closing scrape's: the dead source held nothing up
    answered, failed = [r for r in rows if r["metric"]], [r for r in rows if not r["metric"]]
    assert {r["metric"] for r in answered} == {"process_cpu_seconds_total"} and {r["source"] for r in answered} == {url}
    assert len(answered) >= 3 and outcome.observed[url]["failed"] == 0
    assert outcome.observed[gone]["failed"] == outcome.observed[gone]["scrapes"] >= 3
    # each failed scrape is a row with its time and source and no metric (the analysis counts it in the window)
    assert {r["source"] for r in failed} == {gone} and len(failed) == outcome.observed[gone]["failed"]


def test_a_port_axis_records_every_cells_target_before_any_load(tmp_path, fakes, monkeypatch):
    # two deployments compared by port (tests/services/littles-law-netns.toml): the run manifest holds each
    # cell's target, so that the analysis tells each cell's sources apart (analysis/observed/observed_sources.py)
    from littlegrid.run import preflight

    monkeypatch.setattr(preflight, "check_grid", lambda grid: None)  # nothing listens on these ports here
    path = tmp_path / "ports.toml"
    path.write_text(grid_text(8080).replace("users = [5, 10]\nthink_ms = [0, 50.0]", "users = [5]\nport = [8080, 8090]"))
    run = run_grid(path, out=tmp_path / "reports", run_id="p")
    m = json.loads((run / "manifest.json").read_text())
    assert [(t["host"], t["port"], t["placement"]) for t in m["targets"]] == [
        ("127.0.0.1", 8080, "this_host"), ("127.0.0.1", 8090, "this_host")]
    cm = json.loads((run / "cells" / "users=5,port=8090" / "manifest.json").read_text())
    assert cm["properties"]["port"] == "8090"
