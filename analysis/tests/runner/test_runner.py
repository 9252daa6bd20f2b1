"""`littlegrid run` without load: the printed plan, the -J properties of a cell, refusals before anything runs."""

import socket
from pathlib import Path

import pytest

from littlegrid import cli
from littlegrid.grid import load_grid
from littlegrid.runner import cell_properties, run_grid

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
    assert "4 cells of 20 s" in printed and "warm-up 5 s" in printed
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


def test_an_unreachable_target_is_refused_before_anything_is_written(tmp_path, capsys):
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


def test_a_busy_server_port_is_refused(tmp_path, capsys, monkeypatch):
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
    from littlegrid import run_folder as rf

    folder = rf.RunFolder.create(tmp_path / "reports", "r1", grid_path)
    rf.write_json(folder.manifest_path, {"schema": rf.RUN_SCHEMA, "grid_file": str(grid_path)})
    changed = tmp_path / "changed.toml"
    changed.write_text(grid_text(8080).replace("users = [5, 10]", "users = [5, 20]"))
    with pytest.raises(Exception, match="differs from the grid this run was started with"):
        run_grid(changed, resume=folder.root, dry_run=True)
    assert run_grid(None, resume=folder.root, dry_run=True) == folder.root  # GRID defaults to the run's own
