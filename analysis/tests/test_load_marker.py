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

