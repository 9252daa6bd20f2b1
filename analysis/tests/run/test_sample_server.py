"""The sample server's command line and where its health and metrics are read: the actuator's own port."""

import json

import pytest

from http_stub import serving
from littlegrid.run.sample_server import SampleServer


@pytest.fixture
def jar(tmp_path):
    path = tmp_path / "server.jar"
    path.write_bytes(b"")
    return path


def test_the_command_puts_the_actuator_on_its_own_loopback_port_and_passes_the_other_knobs(jar):
    s = SampleServer({"server.tomcat.threads.max": 10, "littlegrid.proxy.mode": "blocking"}, port=18080,
                     management_port=18081, jar=jar)
    cmd = s.command()
    assert cmd[cmd.index("-jar") + 2:] == [
        "--server.port=18080", "--server.address=127.0.0.1", "--management.server.port=18081",
        "--management.server.address=127.0.0.1", "--server.tomcat.threads.max=10", "--littlegrid.proxy.mode=blocking"]
    assert s.metrics_url == "http://127.0.0.1:18081/actuator/prometheus" and s.base_url == "http://127.0.0.1:18080"


def test_port_knobs_are_taken_as_the_ports_not_passed_twice_and_free_ports_are_chosen_otherwise(jar):
    s = SampleServer({"server.port": 28080, "management.server.port": 28081, "a.b": 1}, jar=jar)
    assert (s.port, s.management_port, s.knobs) == (28080, 28081, {"a.b": 1})
    assert sum("management.server.port" in a for a in s.command()) == 1
    chosen = SampleServer({}, jar=jar)
    assert chosen.port > 0 and chosen.management_port > 0 and chosen.port != chosen.management_port


def test_health_is_read_on_the_management_port(jar):
    def health(path):
        return json.dumps({"status": "UP" if path == "/actuator/health" else "?"}).encode()

    with serving(health) as actuator_port:
        # nothing listens on port 9 (discard): health read there would be None
        s = SampleServer({}, port=9, management_port=actuator_port, jar=jar)
        assert s.health() == "UP"
        assert SampleServer({}, port=actuator_port, management_port=9, jar=jar).health() is None


def test_pinned_cpus_leave_the_rest_to_jmeter_and_impossible_sets_are_refused_in_one_line():
    from littlegrid.run.sample_server import cpu_split
    from littlegrid.usererror import UserError

    assert cpu_split((1,), available={0, 1}) == ((1,), (0,))
    assert cpu_split((2, 3), available={0, 1, 2, 3}) == ((2, 3), (0, 1))
    with pytest.raises(UserError, match=r"^\[server\] cpus = \[4\]: CPU 4 is not one this process may use "
                                        r"\(available: 0, 1\)$"):
        cpu_split((4,), available={0, 1})
    with pytest.raises(UserError, match=r"leaves no CPU for JMeter \(available: 0, 1\); pin the server to fewer"):
        cpu_split((0, 1), available={0, 1})


def test_a_child_spawned_with_cpus_runs_on_those_cpus_only():
    import os
    import subprocess
    import sys

    from littlegrid.run.processes import spawn

    one = min(os.sched_getaffinity(0))
    child = spawn([sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"], cpus=(one,),
                  stdout=subprocess.PIPE, text=True)
    out, _ = child.communicate(timeout=30)
    assert out.strip() == f"[{one}]"
    assert os.sched_getaffinity(0) != {one} or len(os.sched_getaffinity(0)) == 1  # the runner itself is not pinned
