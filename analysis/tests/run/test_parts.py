"""The parts a grid starts beside JMeter ([processes.<name>]): refused in one line before anything starts when a
program is not there or a port is taken; set up, started, checked ready and stopped in order, their logs in the run
folder; and a part that never gets ready refuses the run before any load, with nothing it started left running.
No JMeter runs here (the cells are stand-ins): these are the runner's own steps, with real child processes."""

import json
import os
import socket
import sys
import textwrap
from pathlib import Path

import pytest

from littlegrid import cli
from littlegrid.run import runner
from littlegrid.run.cell_run import CellOutcome
from littlegrid.run.grid_file import load_grid
from littlegrid.run.jmeter import JMeter
from littlegrid.run.ports import free_port, free_ports
from littlegrid.run.stopping import fixed_stop
from littlegrid.usererror import UserError

PY = sys.executable


def _running(marker: str) -> list[int]:
    """PIDs of the processes whose command line holds `marker` (each test's own, so nothing else is counted)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker in Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                found.append(int(pid))
        except OSError:
            continue
    return [p for p in found if p != os.getpid()]


@pytest.fixture
def grid_with(target_grid):
    """grid_with(path, parts, port): one cell against `port`, the parts given as [processes] tables (the runner
    tests' grid, conftest's target_grid)."""
    return lambda path, parts, port: target_grid(path, port, users=(1,), extra=textwrap.dedent(parts))


def _web(name: str, port: int, marker: str) -> str:
    """A part serving HTTP on `port` (Python's http.server), ready when it accepts connections."""
    return f"""
        [processes.{name}]
        setup = [["{PY}", "-c", "print('set up {marker}')"]]
        command = ["{PY}", "-m", "http.server", "{port}", "--bind", "127.0.0.1", "--directory", "${{dir}}"]
        after = [["{PY}", "-c", "print('after {marker}')"]]
        ports = [{port}]
        ready = "tcp://127.0.0.1:{port}"
        env = {{ LITTLEGRID_TEST_MARKER = "{marker}" }}
        """


@pytest.fixture
def no_jmeter(monkeypatch, tmp_path):
    """The runner's JMeter and its cells replaced: each cell 'runs' at once and completes."""
    monkeypatch.setattr(runner, "find_jmeter", lambda: JMeter(home=tmp_path, jar=tmp_path / "ApacheJMeter-5.6.3.jar"))
    monkeypatch.setattr(runner, "java_version", lambda: "17")
    cells = []

    def fake_run_cell(jmeter, plan, folder, properties, **kw):
        cells.append(folder)
        (folder / "results.jtl").write_text("timeStamp,elapsed\n1,1\n")
        return CellOutcome("complete", None, 0, 1, "s", "e", 0.1, stop=fixed_stop(5.0), load_s=5.0)

    monkeypatch.setattr(runner, "run_cell", fake_run_cell)
    return cells


def test_parts_start_in_order_their_logs_stay_in_the_run_folder_and_all_stop_at_the_end(tmp_path, no_jmeter,
                                                                                         grid_with):
    port, marker = free_port(), f"lgpart-{os.getpid()}-a"
    path = grid_with(tmp_path / "parts.toml", _web("web", port, marker), port)  # the target is the part itself
    run = runner.run_grid(path, out=tmp_path / "reports", run_id="p")
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "complete" and list(manifest["processes"]) == ["web"]
    log = (run / "processes" / "web" / "web.log").read_text()
    assert f"set up {marker}" in log and f"after {marker}" in log and log.index("set up") < log.index("after")
    assert len(no_jmeter) == 1  # the cell ran with the part up
    assert not _running(marker) and not _port_open(port)  # stopped at the end


def test_a_part_that_never_gets_ready_is_refused_in_one_line_before_any_load_and_nothing_is_left_running(
        tmp_path, no_jmeter, capsys, grid_with):
    (port, never), marker = free_ports(2), f"lgpart-{os.getpid()}-b"
    late = f"""
        [processes.late]
        command = ["{PY}", "-c", "import time; time.sleep(60)", "{marker}"]
        ready = "tcp://127.0.0.1:{never}"
        ready_timeout_s = 1
        """
    path = grid_with(tmp_path / "late.toml", _web("web", port, marker) + late, port)
    code = cli.main(["run", str(path), "--out", str(tmp_path / "reports"), "--run-id", "l"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert f"{path}:" in err and "[processes.late]: not ready within 1 s" in err and "late.log" in err
    assert not no_jmeter  # no cell ran: no load
    assert not _running(marker) and not _port_open(port)  # the part started before it was stopped too
    manifest = json.loads((tmp_path / "reports" / "l" / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "not ready" in manifest["reason"]


@pytest.mark.parametrize("case", ["missing program", "busy port", "exits"])
def test_a_part_that_cannot_start_is_refused_in_one_line_and_nothing_starts(tmp_path, no_jmeter, capsys, case,
                                                                             grid_with):
    port, marker = free_port(), f"lgpart-{os.getpid()}-c"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        second = {"missing program": '["/nonexistent/littlegrid-db", "-p", "1"]',
                  "busy port": f'["{PY}", "-c", "pass"]\n        ports = [{busy}]',
                  "exits": f'["{PY}", "-c", "import sys; sys.exit(3)"]\n        ready = "tcp://127.0.0.1:{free_port()}"'}[case]
        parts = _web("web", port, marker) + f"""
        [processes.db]
        command = {second}
        """
        path = grid_with(tmp_path / "bad.toml", parts, port)
        code = cli.main(["run", str(path), "--out", str(tmp_path / "reports"), "--run-id", "b"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "[processes.db]" in err
    assert {"missing program": "command: /nonexistent/littlegrid-db not found",
            "busy port": f"ports: {busy} on 127.0.0.1 is already in use",
            "exits": "exited with code 3 before it was ready"}[case] in err
    assert not no_jmeter and not _running(marker) and not _port_open(port)


@pytest.mark.parametrize("table, problem", [
    ('[processes.db]\nready = "tcp://127.0.0.1:1"\n', "[processes.db] command: missing"),
    ('[processes.db]\ncommand = ["x"]\nready = "udp://1"\n', "[processes.db] ready: 'udp://1': give"),
    ('[processes.db]\ncommand = ["x", "${data}"]\n', "[processes.db] command: ${data} is no placeholder"),
    ('[processes.db]\ncommand = ["x"]\nrole = "server"\n', 'role = "server" measures the CPUs'),
    ('[processes.db]\ncommand = ["x"]\nlisten = 1\n', "[processes.db] listen: unknown key"),
])
def test_a_malformed_processes_table_is_one_line_naming_its_line(tmp_path, table, problem, grid_with):
    path = grid_with(tmp_path / "g.toml", table, 8080)
    with pytest.raises(UserError) as e:
        load_grid(path)
    assert problem in str(e.value) and str(e.value).startswith(f"{path}:")


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.3)
        return s.connect_ex(("127.0.0.1", port)) == 0
