"""Finding JMeter and building its non-GUI command line."""

import json
from pathlib import Path

import pytest

from littlegrid.run.jmeter import FORCE_EXIT, JMeter, find_jmeter
from littlegrid.usererror import UserError


def _fake_home(tmp_path: Path) -> Path:
    home = tmp_path / "jmeter"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "ApacheJMeter-5.6.3.jar").write_bytes(b"")
    (home / "bin" / "ApacheJMeter_config.jar").write_bytes(b"")  # not a launcher: must be ignored
    return home


def test_jmeter_home_wins_and_names_the_runtime_jar(tmp_path, monkeypatch):
    monkeypatch.setenv("JMETER_HOME", str(_fake_home(tmp_path)))
    jm = find_jmeter()
    assert jm.jar.name == "ApacheJMeter-5.6.3.jar"
    assert jm.version == "5.6.3"


def test_the_maven_config_json_is_followed(tmp_path, monkeypatch):
    monkeypatch.delenv("JMETER_HOME", raising=False)
    home = _fake_home(tmp_path)
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "config.json").write_text(
        json.dumps({"configurations": [{"jmeterDirectoryPath": str(home)}]}))
    assert find_jmeter(root=tmp_path).home == home


def test_no_jmeter_is_a_one_line_user_error_naming_the_fix(tmp_path, monkeypatch):
    monkeypatch.delenv("JMETER_HOME", raising=False)
    with pytest.raises(UserError, match=r"\./mvnw initialize"):
        find_jmeter(root=tmp_path)


def test_a_broken_config_json_is_named(tmp_path, monkeypatch):
    monkeypatch.delenv("JMETER_HOME", raising=False)
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "config.json").write_text("{}")
    with pytest.raises(UserError, match="config.json: not a jmeter-maven-plugin configuration"):
        find_jmeter(root=tmp_path)


def test_command_sets_properties_locally_and_on_remote_engines():
    jm = JMeter(home=Path("/j"), jar=Path("/j/bin/ApacheJMeter-5.6.3.jar"))
    cmd = jm.command(Path("plan.jmx"), jtl=Path("r.jtl"), log=Path("j.log"),
                     properties={"users": 5}, remote_hosts=["127.0.0.1:1099", "127.0.0.1:1100"])
    assert cmd[cmd.index("-t") + 1] == "plan.jmx"
    assert cmd[cmd.index("-l") + 1] == "r.jtl"
    assert cmd[cmd.index("-j") + 1] == "j.log"
    assert "-Jusers=5" in cmd and "-Gusers=5" in cmd
    assert cmd[cmd.index("-R") + 1] == "127.0.0.1:1099,127.0.0.1:1100"
    assert "-n" in cmd


def test_command_without_remote_engines_sends_no_global_properties():
    jm = JMeter(home=Path("/j"), jar=Path("/j/bin/ApacheJMeter-5.6.3.jar"))
    cmd = jm.command(Path("plan.jmx"), properties={"users": 5})
    assert "-Jusers=5" in cmd and not any(c.startswith("-G") for c in cmd) and "-R" not in cmd


def test_jmeter_is_told_to_exit_at_the_end_of_its_run_locally_only_and_a_grid_can_say_otherwise():
    # JMeter waits ~1.1 s after "... end of run" for its engine's idle threads; forced, it exits once its listeners
    # closed the JTL. A remote engine serves cell after cell, so the property is never sent with -G.
    jm = JMeter(home=Path("/j"), jar=Path("/j/bin/ApacheJMeter-5.6.3.jar"))
    cmd = jm.command(Path("plan.jmx"), properties={"users": 5}, remote_hosts=["127.0.0.1:1099"])
    assert f"-J{FORCE_EXIT}=true" in cmd and not any(c.startswith(f"-G{FORCE_EXIT}") for c in cmd)
    # JMeter reads -J in order, the last one wins: a grid's own value comes after the default
    own = jm.command(Path("plan.jmx"), properties={FORCE_EXIT: "false"})
    assert own.index(f"-J{FORCE_EXIT}=true") < own.index(f"-J{FORCE_EXIT}=false")
