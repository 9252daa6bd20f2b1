"""The `load` and `browser` markers hold: every test asking for JMeter or a server is a load test, every other test
asking for a browser a browser test, so the quick loop (`-m "not load and not browser"`) never runs one and the test
command's parallel phase (`-m "not load"`) never runs a load test; a test that starts such a program unmarked fails,
naming it (load_tests.py)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from load_tests import (BROWSER, BROWSER_FIXTURES, BROWSER_PROGRAMS, LOAD, LOAD_FIXTURES, LOAD_MARKERS,
                        LOAD_PROGRAMS, program)

TESTS = Path(__file__).parent


def test_every_collected_test_asking_for_jmeter_a_browser_or_a_server_carries_its_marker(request):
    # this run's tests (under -m "not load" none may ask for JMeter or a server; under the quick loop's selection
    # none for a browser either)
    items = request.session.items
    unmarked = [item.nodeid for item in items
                if (LOAD_FIXTURES.intersection(getattr(item, "fixturenames", ()))
                    or any(m.name in LOAD_MARKERS for m in item.iter_markers()))
                and item.get_closest_marker(LOAD) is None]
    assert unmarked == []
    unmarked = [item.nodeid for item in items
                if BROWSER_FIXTURES.intersection(getattr(item, "fixturenames", ()))
                and item.get_closest_marker(LOAD) is None and item.get_closest_marker(BROWSER) is None]
    assert unmarked == []


def test_the_load_and_browser_fixtures_exist_where_the_tests_define_them():
    # a renamed fixture would silently stop marking its tests
    text = "\n".join(p.read_text(encoding="utf-8") for p in TESTS.rglob("*.py"))
    assert [name for name in sorted(LOAD_FIXTURES | BROWSER_FIXTURES) if f"def {name}(" not in text] == []
    assert BROWSER_PROGRAMS < LOAD_PROGRAMS  # a browser is refused to every test that is neither


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
CHROMIUM = {chromium!r}

def test_unmarked_starts_java():
    subprocess.run([FAKE], check=True)

@pytest.mark.load
def test_marked_starts_java():
    subprocess.run([FAKE], check=True)

def test_unmarked_starts_something_else():
    subprocess.run(["true"], check=True)

def test_asks_for_a_load_fixture(jmeter):
    subprocess.run([FAKE], check=True)

def test_asks_for_a_browser(browser):
    subprocess.run([CHROMIUM], check=True)

def test_a_browser_test_starts_java(browser):
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

@pytest.fixture
def browser():
    return None

def pytest_configure(config):
    config.pluginmanager.register(load_tests.Plugin(config), "littlegrid-load-tests")
'''


def test_a_test_that_starts_a_load_program_without_the_marker_fails_naming_it(tmp_path):
    # stand-ins named like the real things: the guard goes by the program's name
    fake, chromium = tmp_path / "bin" / "java", tmp_path / "bin" / "chromium"
    fake.parent.mkdir()
    for stand_in in (fake, chromium):
        stand_in.write_text("#!/bin/sh\nexit 0\n")
        stand_in.chmod(0o755)
    (tmp_path / "conftest.py").write_text(INNER_CONFTEST.format(tests=str(TESTS)))
    (tmp_path / "test_inner.py").write_text(INNER.format(fake=str(fake), chromium=str(chromium)))
    env = {k: v for k, v in os.environ.items() if k != "LOAD_LOCK"}  # no machine lock for a fake load test
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-rf", str(tmp_path)], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    out = done.stdout
    assert "2 failed, 4 passed" in out, out
    assert "test_inner.py::test_unmarked_starts_java starts 'java' but is not a load test" in out, out
    # a browser test may start its browser, never java
    assert "test_inner.py::test_a_browser_test_starts_java starts 'java' but is not a load test" in out, out

    def selecting(marks: str) -> str:
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                               "-m", marks, str(tmp_path)], cwd=tmp_path, capture_output=True, text=True,
                              env=env, timeout=120).stdout

    # the test command's parallel phase leaves the load tests out, the marked and the fixture-marked ones
    parallel = selecting(f"not {LOAD}")
    assert "2 failed, 2 passed, 2 deselected" in parallel, parallel
    # and the quick loop the browser tests too
    quick = selecting(f"not {LOAD} and not {BROWSER}")
    assert "1 failed, 1 passed, 4 deselected" in quick, quick



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
