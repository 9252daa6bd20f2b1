"""Remote engines: the split of N, the RMI keystore, the grid's [engines] table, engines up/down by PID."""

import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from littlegrid.cli import main as cli
from littlegrid.run import engines
from littlegrid.run.grid_file import load_grid
from littlegrid.run.preflight import engine_access, threads_by_engine
from littlegrid.run.runner import controller_options
from littlegrid.usererror import UserError

FIXTURES = Path(__file__).parent / "fixtures"


def test_n_is_split_evenly_and_the_first_engines_listed_take_the_remainder():
    assert engines.split_users(11, ["a", "b", "c"]) == {"a": 4, "b": 4, "c": 3}
    assert engines.split_users(10, ["a", "b"]) == {"a": 5, "b": 5}
    assert engines.split_users(5, ["x:1", "y:2", "z:3"]) == {"x:1": 2, "y:2": 2, "z:3": 1}
    assert engines.users_properties({"10.0.0.5:1099": 3}) == {"users.10.0.0.5:1099": 3}
    assert engines.split_text({"a:1": 2, "b:1": 1}) == "2 on a:1 + 1 on b:1"


def test_engine_names_and_loopback():
    assert engines.host_and_port("10.0.0.5:1199") == ("10.0.0.5", 1199)
    assert engines.host_and_port("engine1") == ("engine1", 1099)
    assert engines.host_and_port("[::1]:5") == ("::1", 5)
    assert engines.is_loopback("127.0.0.2") and engines.is_loopback("localhost") and engines.is_loopback("::1")
    assert not engines.is_loopback("10.231.0.3") and not engines.is_loopback("engine1")


def test_the_suite_plans_read_their_engine_share():
    text = (FIXTURES / "tiny.jmx").read_text()
    assert engines.plan_splits_users([text])
    assert not engines.plan_splits_users([text.replace("${__P(users.${__P(__jm.D_TG,)},${__P(users,1)})}",
                                                       "${__P(users,1)}")])


def test_a_keystore_is_made_as_jmeter_does_valid_the_days_asked_and_readable_by_its_owner_only(tmp_path):
    out = engines.create_keystore(tmp_path / "rmi.jks", days=3)
    assert out.stat().st_mode & 0o777 == 0o600
    until = engines.keystore_expiry(out)
    assert abs(until - (datetime.now(timezone.utc) + timedelta(days=3))) < timedelta(minutes=5)
    assert engines.check_keystore(out, "here") == out.resolve()
    with pytest.raises(UserError, match="exists already"):
        engines.create_keystore(out)
    with pytest.raises(UserError, match=r"--days 0"):
        engines.create_keystore(tmp_path / "b.jks", days=0)
    with pytest.raises(UserError, match=r"where: keystore .*nope.jks not found"):
        engines.check_keystore(tmp_path / "nope.jks", "where")
    (tmp_path / "bad.jks").write_text("not a keystore")
    with pytest.raises(UserError, match="not an RMI keystore"):
        engines.check_keystore(tmp_path / "bad.jks", "where")


def test_rmi_properties_say_ssl_with_the_keystore_or_ssl_off():
    on = engines.Rmi(keystore=Path("/k.jks")).properties()
    assert on["server.rmi.ssl.keystore.file"] == "/k.jks" and on["server.rmi.ssl.keystore.alias"] == "rmi"
    assert "server.rmi.ssl.disable" not in on
    assert engines.Rmi(keystore=None, ssl=False).properties() == {"server.rmi.ssl.disable": "true"}
    cmd = engines.engine_command(Path("/j.jar"), engines.Rmi(keystore=Path("/k.jks")), "10.0.0.5", 1099, 50000, "e.log")
    assert "-Djava.rmi.server.hostname=10.0.0.5" in cmd and "-Jserver_port=1099" in cmd
    assert "-Jserver.rmi.localport=50000" in cmd and "-Jserver.rmi.ssl.keystore.file=/k.jks" in cmd


def grid(tmp_path: Path, body: str, plan: Path = FIXTURES / "tiny.jmx") -> Path:
    path = tmp_path / "g.toml"
    path.write_text(f'name = "g"\nplan = "{plan}"\n{body}\n[target]\nhost = "127.0.0.1"\nport = 8080\n')
    return path


TWO = 'remote_hosts = ["10.0.0.11:1099", "10.0.0.12:1099"]\n'


def test_the_grid_keystore_is_relative_to_its_folder_and_the_split_is_per_cell(tmp_path):
    g = load_grid(grid(tmp_path, TWO + '[engines]\nkeystore = "k.jks"\ncontroller_host = "10.0.0.5"\n'
                                      '[axes]\nusers = [3, 10]'))
    assert g.rmi == engines.Rmi(keystore=tmp_path / "k.jks", ssl=True, controller_host="10.0.0.5")
    assert [threads_by_engine(g, c) for c in g.cells()] == [{"10.0.0.11:1099": 2, "10.0.0.12:1099": 1},
                                                           {"10.0.0.11:1099": 5, "10.0.0.12:1099": 5}]
    assert "-Djava.rmi.server.hostname=10.0.0.5" in controller_options(g)


@pytest.mark.parametrize("body, refusal", [
    (TWO + '[jmeter]\n"server.rmi.ssl.disable" = true', r'g.toml:\d+: \[jmeter\] server.rmi.ssl.disable: RMI SSL is set in \[engines\]'),
    ('[engines]\nssl = false', r"\[engines\]: no remote_hosts"),
    (TWO + '[engines]\nssl = false\nkeystore = "k.jks"', r"ssl = false and a keystore"),
    (TWO + '[engines]\nssl = "no"', r"\[engines\] ssl: must be true or false"),
    (TWO + '[engines]\ncontroller_host = "a b"', r"controller_host: 'a b' is not a host"),
    (TWO + '[axes]\nusers = [1, 4]', r"users = 1 on 2 engines: users is the total N"),
])
def test_engine_settings_are_refused_in_one_line_naming_the_key(tmp_path, body, refusal):
    with pytest.raises(UserError, match=refusal):
        load_grid(grid(tmp_path, body))


def test_a_plan_that_does_not_read_its_engine_share_is_refused_with_remote_hosts(tmp_path):
    plan = tmp_path / "plain.jmx"
    plan.write_text((FIXTURES / "tiny.jmx").read_text().replace("${__P(users.${__P(__jm.D_TG,)},${__P(users,1)})}",
                                                                "${__P(users,1)}"))
    load_grid(grid(tmp_path, "", plan))  # on one host it runs as it is
    with pytest.raises(UserError, match=r"does not read its engine's share.*__jm.D_TG"):
        load_grid(grid(tmp_path, TWO, plan))


def test_the_runner_needs_a_keystore_warns_when_ssl_is_off_and_refuses_a_loopback_callback(tmp_path, capsys):
    with pytest.raises(UserError, match=r"RMI over SSL and need the keystore.*--keystore FILE"):
        engine_access(load_grid(grid(tmp_path, TWO)), None)
    off = load_grid(grid(tmp_path, TWO + "[engines]\nssl = false"))
    assert engine_access(off, None) is off
    assert "RMI SSL is off" in capsys.readouterr().err
    with pytest.raises(UserError, match="remove one of the two"):
        engine_access(off, tmp_path / "k.jks")
    loop = load_grid(grid(tmp_path, TWO + '[engines]\nkeystore = "k.jks"\ncontroller_host = "127.0.0.1"'))
    with pytest.raises(UserError, match="loopback address, which engines on other hosts"):
        engine_access(loop, None)
    keystore = engines.create_keystore(tmp_path / "given.jks", days=1)
    chosen = engine_access(load_grid(grid(tmp_path, TWO + '[engines]\nkeystore = "k.jks"')), keystore)
    assert chosen.rmi.keystore == keystore.resolve()  # --keystore over the grid's


def test_engines_up_for_hosts_prints_each_command_and_the_grid_lines(tmp_path, capsys):
    assert cli(["engines", "up", "10.0.0.11", "10.0.0.12:1199", "--keystore", "/opt/lg/rmi.jks"]) == 0
    out = capsys.readouterr().out
    assert "-Djava.rmi.server.hostname=10.0.0.12" in out and "-Jserver_port=1199" in out
    assert '"$JMETER_HOME"/bin/ApacheJMeter-5.6.3.jar' in out
    assert 'remote_hosts = ["10.0.0.11:1099", "10.0.0.12:1199"]' in out and 'keystore = "/opt/lg/rmi.jks"' in out
    assert cli(["engines", "up", "127.0.0.1", "--keystore", "k.jks"]) == 2
    assert "loopback" in capsys.readouterr().err


def test_engines_down_stops_only_the_recorded_pids_still_running_their_engine(tmp_path, capsys):
    def fake_engine(port):  # a process whose command line reads like an engine's, sleeping
        child = subprocess.Popen([sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)", "-s",
                                  f"-Jserver_port={port}"], start_new_session=True, stdout=subprocess.PIPE)
        # Popen returns when exec has closed its error pipe, before the kernel has set the new argv: read at once,
        # /proc/PID/cmdline is empty (129 of 300 times on a busy host). The child's first line means exec is done.
        assert child.stdout.readline() == b"up\n"
        return child

    ours, other = fake_engine(1234), fake_engine(999)
    try:
        state = tmp_path / "engines.json"
        # the second record's PID runs another command line (port 1235 != 999): a reused PID, left alone
        state.write_text(json.dumps({"engines": [{"name": "127.0.0.1:1234", "pid": ours.pid, "port": 1234},
                                                 {"name": "127.0.0.1:1235", "pid": other.pid, "port": 1235}]}))
        assert [r["name"] for r in engines.running(state)] == ["127.0.0.1:1234"]
        assert cli(["engines", "down", "--state", str(state)]) == 0
        assert "stopped 1 engine(s): 127.0.0.1:1234" in capsys.readouterr().out
        assert ours.wait(timeout=5) is not None and other.poll() is None and not state.exists()
    finally:
        for p in (ours, other):
            p.kill()
            p.wait()
            p.stdout.close()
