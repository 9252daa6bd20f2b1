"""Shared by every test folder: the real JTL corpus, which lives beside the checkout (../shared/corpus/jtl), as in CI,
the one headless Chromium, and the summary contract: every summary `analyze` returns in any test is validated
against docs/summary.schema.json (summary_contract.py). The wrapper is installed here, before any test module
imports `analyze`, so their `from littlegrid.summarize import analyze` gets it too. Also the run's plumbing: which
tests are load tests and their lock (load_tests.py), and the slowest modules' table at the end (module_times.py)."""

import os
import sys
from pathlib import Path

# Compiled modules, the test modules' rewritten asserts too, are kept under analysis/target/pycache and reused, by
# this run, its xdist workers and the Pythons its tests start: with PYTHONDONTWRITEBYTECODE set (as on this project's
# machines) every run compiled them all again, 13 s of CPU for the collection alone against 5 s (measured on 2 cores).
# They go under target/, never into the source tree, which is what that setting usually protects.
if sys.dont_write_bytecode or not sys.pycache_prefix:
    sys.pycache_prefix = sys.pycache_prefix or str(Path(__file__).resolve().parents[1] / "target" / "pycache")
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

import pytest  # noqa: E402 (after the bytecode settings, so that what follows is cached)

import littlegrid.summarize  # noqa: E402
import load_tests  # noqa: E402
import module_times  # noqa: E402
from needs import missing  # noqa: E402
from summary_contract import validating  # noqa: E402

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
def corpus_summary(corpus):
    """A corpus file analysed whole with analyze's defaults, once a session (a worker's) for each file asked:
    modules that read figures of the same summary share it (insta-rzd's, 13.6 M seconds of window, is read by its
    blocks', histogram's and headline's tests). Summaries are frozen models, so no test changes what another reads."""
    summaries = {}

    def summary_of(name: str):
        if name not in summaries:
            summaries[name] = littlegrid.summarize.analyze([str(corpus / name)])
        return summaries[name]

    return summary_of


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
