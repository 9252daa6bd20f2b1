"""The `load` marker holds: every test asking for JMeter, a browser or a server is a load test, so the quick loop
(`-m "not load"`) never runs one, and a test that starts such a program unmarked fails, naming it (load_tests.py)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from load_tests import LOAD, LOAD_FIXTURES, LOAD_MARKERS, LOAD_PROGRAMS, program

TESTS = Path(__file__).parent


def test_every_collected_test_asking_for_jmeter_a_browser_or_a_server_carries_the_load_marker(request):
    # this run's tests (under -m "not load", the quick loop's: then none may ask for one)
    unmarked = [item.nodeid for item in request.session.items
                if (LOAD_FIXTURES.intersection(getattr(item, "fixturenames", ()))
                    or any(m.name in LOAD_MARKERS for m in item.iter_markers()))
                and item.get_closest_marker(LOAD) is None]
    assert unmarked == []


def test_the_load_fixtures_exist_where_the_tests_define_them():
    # a renamed fixture would silently stop marking its tests
    text = "\n".join(p.read_text(encoding="utf-8") for p in TESTS.rglob("*.py"))
    assert [name for name in sorted(LOAD_FIXTURES) if f"def {name}(" not in text] == []


@pytest.mark.parametrize("args, executable, expected", [
    (["java", "-jar", "x.jar"], None, "java"), (["/usr/lib/chromium/chromium", "--headless"], None, "chromium"),
    ("/usr/sbin/nginx -c conf", None, "nginx"), ([Path("/usr/bin/java")], None, "java"), ([b"ip", b"netns"], None, "ip"),
    (["whatever"], "/usr/lib/postgresql/15/bin/initdb", "initdb"), ([sys.executable, "-c", "1"], None,
                                                                        Path(sys.executable).name)])
def test_the_program_a_popen_call_starts_is_its_executable_or_first_word(args, executable, expected):
    assert program(args, executable) == expected


INNER = '''
import subprocess
import pytest

FAKE = {fake!r}

def test_unmarked_starts_java():
    subprocess.run([FAKE], check=True)

@pytest.mark.load
def test_marked_starts_java():
    subprocess.run([FAKE], check=True)

def test_unmarked_starts_something_else():
    subprocess.run(["true"], check=True)

def test_asks_for_a_load_fixture(jmeter):
    subprocess.run([FAKE], check=True)
'''

INNER_CONFTEST = '''
import sys
import pytest
sys.path.insert(0, {tests!r})
import load_tests

@pytest.fixture
def jmeter():
    return None

def pytest_configure(config):
    config.pluginmanager.register(load_tests.Plugin(config), "littlegrid-load-tests")
'''


def test_a_test_that_starts_a_load_program_without_the_marker_fails_naming_it(tmp_path):
    fake = tmp_path / "bin" / "java"  # a stand-in named like the real thing: the guard goes by the program's name
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    (tmp_path / "conftest.py").write_text(INNER_CONFTEST.format(tests=str(TESTS)))
    (tmp_path / "test_inner.py").write_text(INNER.format(fake=str(fake)))
    env = {k: v for k, v in os.environ.items() if k != "LOAD_LOCK"}  # no machine lock for a fake load test
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-rf", str(tmp_path)], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    out = done.stdout
    assert "1 failed, 3 passed" in out, out
    assert "test_inner.py::test_unmarked_starts_java starts 'java' but is not a load test" in out, out
    # and the quick loop's selection leaves the marked and the fixture-marked ones out
    quick = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                            "-m", f"not {LOAD}", str(tmp_path)], cwd=tmp_path, capture_output=True, text=True,
                           env=env, timeout=120)
    assert "1 failed, 1 passed, 2 deselected" in quick.stdout, quick.stdout



def test_the_load_lock_held_by_an_ancestor_is_ours_and_one_held_by_another_process_is_waited_for(tmp_path):
    import fcntl
    import time

    from load_tests import LoadLock, ancestors, lock_holders

    path = tmp_path / "load.lock"
    script = tmp_path / "take.py"
    script.write_text(f"import sys\nsys.path.insert(0, {str(TESTS)!r})\nfrom load_tests import LoadLock\n"
                      f"lock = LoadLock({str(path)!r})\nlock.take(lambda line: print(line, flush=True))\n"
                      "print(lock.held_by, flush=True)\n")
    with open(path, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert lock_holders(path) == {os.getpid()} and os.getpid() in ancestors()
        # a child of this process (as pytest is one of `flock "$LOAD_LOCK" ./mvnw verify`) goes on at once
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
        assert done.stdout.strip() == f"the caller (pid {os.getpid()})", done.stdout + done.stderr
        # a process that is not our descendant (started through a shell that exits: an orphan) waits, naming us
        out = tmp_path / "other.out"
        subprocess.run(["sh", "-c", f"'{sys.executable}' '{script}' > '{out}' 2>&1 &"], check=True, timeout=10)
        try:
            deadline = time.monotonic() + 30
            while "waiting" not in (out.read_text() if out.exists() else "") and time.monotonic() < deadline:
                time.sleep(0.05)
            first = out.read_text()
            assert "waiting for the load lock" in first and f"held by pid {os.getpid()}" in first, first
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)
        deadline = time.monotonic() + 30
        while "this run" not in out.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert out.read_text().splitlines()[-1] == "this run", out.read_text()
    mine = LoadLock(str(path))
    mine.take(print)
    assert mine.held_by == "this run" and lock_holders(path) == {os.getpid()}
    mine.release()
    assert lock_holders(path) == set()
