"""Fixtures for the runner's load tests: JMeter, the sample server jar, a tiny local target, grid files, and the
CI grid's run shared by the tests that ask what a complete grid against the sample server leaves behind."""

import json
import os
from pathlib import Path

import pytest

from http_stub import serving
from littlegrid.run.jmeter import repo_root
from littlegrid.run.sample_server import find_server_jar
from littlegrid.usererror import UserError
from needs import missing

FIXTURES = Path(__file__).parent / "fixtures"
TINY_PLAN = FIXTURES / "tiny.jmx"
CI_GRID = repo_root(Path(__file__).parent) / "grids" / "ci.toml"
# The folder of the CI grid the test command has just run (analysis/pom.xml runs grids/ci.toml before the load tests
# and names its folder here): the tests below read it instead of running a grid of their own. Read only.
CI_RUN_ENV = "LITTLEGRID_CI_RUN"


@pytest.fixture(scope="session")
def server_jar():
    try:
        return find_server_jar()
    except UserError as e:
        missing("the sample server jar", str(e))


@pytest.fixture(scope="session")
def closed_plan() -> Path:
    """The suite's closed-workload plan, or the tiny fixture plan where the checkout has none."""
    root = repo_root(Path(__file__).parent)
    plan = root / "plans" / "closed.jmx" if root else None
    return plan if plan and plan.is_file() else TINY_PLAN


@pytest.fixture
def http_target():
    """A local HTTP server answering GET with a few bytes: a target that costs no JVM start."""
    with serving(lambda path: b"ok\n") as port:
        yield port


@pytest.fixture
def target_grid():
    """Writes a grid of short cells against a local target with the tiny plan: target_grid(path, port, ...)."""
    return _target_grid


def _target_grid(path: Path, port: int, *, users=(2,), think_ms=(20,), duration_s=5, extra="") -> Path:
    path.write_text(f"""
name = "{path.stem}"
plan = "{TINY_PLAN}"
{extra}
[target]
host = "127.0.0.1"
port = {port}
[cell]
duration_s = {duration_s}
warmup_s = 1
cooldown_s = 1
rampup_s = 0
[axes]
users = {list(users)}
think_ms = {list(think_ms)}
""")
    return path


@pytest.fixture(scope="session")
def ci_grid_run(runnable, tmp_path_factory) -> Path:
    """A complete run folder of grids/ci.toml (6 cells of 20 s against the sample server the runner starts with 10
    Tomcat threads): the test command's own (CI_RUN_ENV) when it is a complete run of this very grid, else run here
    once for the session. Tests read it and never write into it."""
    given = os.environ.get(CI_RUN_ENV)
    if given and _complete_run_of(Path(given), CI_GRID):
        print(f"\nthe CI grid's run: {given} (the test command's, {CI_RUN_ENV})")
        return Path(given)
    from littlegrid.run.runner import run_grid

    why = f"{given} is not a complete run of {CI_GRID.name}" if given else f"{CI_RUN_ENV} not set"
    print(f"\nthe CI grid's run: running {CI_GRID} here ({why})")
    return run_grid(CI_GRID, out=tmp_path_factory.mktemp("ci-grid") / "reports", run_id="ci")


def _complete_run_of(run: Path, grid: Path) -> bool:
    try:
        manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
        return manifest.get("status") == "complete" and (run / "grid.toml").read_bytes() == grid.read_bytes()
    except (OSError, ValueError):
        return False


@pytest.fixture(scope="session")
def ci_grid_summary(ci_grid_run):
    """The CI grid's run analysed once, for every test that reads its summary."""
    from littlegrid.summarize import analyze

    return analyze([ci_grid_run])
