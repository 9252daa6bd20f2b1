"""needs.missing: a test whose browser, corpus, JMeter or server jar is absent skips on a developer's machine,
saying why, and fails under CI=true, naming what was missing. Checked on tiny test files run by a child pytest."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from needs import on_ci

TESTS = Path(__file__).parent

IN_A_TEST = """
from needs import missing

def test_opens_the_report_in_chromium():
    missing("Chromium", "/nowhere/chromium is absent")
"""
IN_A_FIXTURE = """
import pytest
from needs import missing

@pytest.fixture(scope="session")
def jmeter():
    missing("JMeter", "set JMETER_HOME")

def test_one(jmeter):
    pass

def test_two(jmeter):
    pass
"""
AT_MODULE_LEVEL = """
from needs import missing

missing("docs/criteria.md", "not in this checkout")

def test_never_collected():
    pass
"""


def run_child(tmp_path: Path, source: str, ci: str | None) -> subprocess.CompletedProcess:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # the child's rootdir and config: not this package's
    (tmp_path / "test_child.py").write_text(source)
    env = {k: v for k, v in os.environ.items() if k != "CI"}  # this run may itself be under CI=true
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "pytest", "-rfEs", "-p", "no:cacheprovider", "test_child.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_without_ci_a_missing_browser_skips_and_the_summary_says_why(tmp_path):
    child = run_child(tmp_path, IN_A_TEST, ci=None)
    assert child.returncode == 0, child.stdout
    assert "1 skipped" in child.stdout
    assert "SKIPPED [1] test_child.py:5: Chromium is missing: /nowhere/chromium is absent" in child.stdout


def test_under_ci_a_missing_browser_fails_naming_it(tmp_path):
    child = run_child(tmp_path, IN_A_TEST, ci="true")
    assert child.returncode == 1, child.stdout
    assert "1 failed" in child.stdout and "skipped" not in child.stdout
    assert "FAILED test_child.py::test_opens_the_report_in_chromium - Failed: CI=true but Chromium is missing: " \
           "/nowhere/chromium is absent" in child.stdout


def test_under_ci_a_session_fixture_that_finds_jmeter_missing_errors_every_test_that_uses_it(tmp_path):
    child = run_child(tmp_path, IN_A_FIXTURE, ci="true")
    assert child.returncode == 1, child.stdout
    assert "2 errors" in child.stdout and "skipped" not in child.stdout
    assert child.stdout.count("CI=true but JMeter is missing: set JMETER_HOME") >= 2


def test_without_ci_a_session_fixture_that_finds_jmeter_missing_skips_every_test_that_uses_it(tmp_path):
    child = run_child(tmp_path, IN_A_FIXTURE, ci="false")
    assert child.returncode == 0, child.stdout
    assert "2 skipped" in child.stdout
    assert "JMeter is missing: set JMETER_HOME" in child.stdout


def test_at_module_level_it_skips_the_file_or_under_ci_fails_its_collection(tmp_path):
    skipped = run_child(tmp_path, AT_MODULE_LEVEL, ci=None)
    assert skipped.returncode == 5, skipped.stdout  # pytest's "no tests ran"
    assert "1 skipped" in skipped.stdout
    assert "SKIPPED [1] test_child.py:4: docs/criteria.md is missing: not in this checkout" in skipped.stdout
    failed = run_child(tmp_path, AT_MODULE_LEVEL, ci="1")
    assert failed.returncode == 2, failed.stdout  # an error during collection interrupts the run
    assert "1 error" in failed.stdout and "CI=true but docs/criteria.md is missing" in failed.stdout


@pytest.mark.parametrize("value, expected", [
    ("true", True), ("TRUE", True), ("1", True), ("yes", True),
    ("false", False), ("0", False), ("", False), (None, False),
])
def test_ci_is_recognised_as_ci_services_set_it(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    assert on_ci() is expected
