"""Shared by every test folder: the real JTL corpus, which lives beside the checkout (../shared/corpus/jtl), as in CI,
the one headless Chromium, and the summary contract: every summary `analyze` returns in any test is validated
against docs/summary.schema.json (summary_contract.py). The wrapper is installed here, before any test module
imports `analyze`, so their `from littlegrid.summarize import analyze` gets it too. Also the run's plumbing: which
tests are load tests and their lock (load_tests.py), and the slowest modules' table at the end (module_times.py)."""

import sys
from pathlib import Path

import pytest

import littlegrid.summarize
import load_tests
import module_times
from needs import missing
from summary_contract import validating

littlegrid.summarize.analyze = validating(littlegrid.summarize.analyze)

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "jtl"


def pytest_addoption(parser: pytest.Parser) -> None:
    module_times.pytest_addoption(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(load_tests.Plugin(config), "littlegrid-load-tests")
    config.pluginmanager.register(module_times.Reporter(config), "littlegrid-module-times")


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The corpus folder; a test that needs it skips (fails under CI), saying where it looked, when the checkout stands alone."""
    if not CORPUS.is_dir():
        missing("the real JTL corpus", f"not at {CORPUS} (checkout/../shared/corpus/jtl)")
    return CORPUS


@pytest.fixture(scope="session")
def jmeter():
    """The provisioned JMeter (skips saying why; fails under CI)."""
    from littlegrid.run.jmeter import find_jmeter
    from littlegrid.usererror import UserError

    try:
        return find_jmeter()
    except UserError as e:
        missing("JMeter", str(e))


@pytest.fixture(scope="session")
def runnable():
    """JMeter and the sample server jar, for tests that run real grids (skips saying why; fails under CI)."""
    from littlegrid.run.jmeter import find_jmeter
    from littlegrid.run.sample_server import find_server_jar
    from littlegrid.usererror import UserError

    try:
        find_jmeter()
        find_server_jar()
    except UserError as e:
        missing("JMeter or the sample server jar", str(e))


@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium for every browser test in every folder (skips, saying why, when it is not
    installed; fails under CI). One only: Playwright's sync API refuses a second instance while one is open."""
    sys.path.insert(0, str(Path(__file__).parent / "render"))  # browser.py
    from browser import ARGS, CHROMIUM, require_chromium

    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()
