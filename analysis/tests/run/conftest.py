"""Fixtures for the runner's load tests: JMeter, the sample server jar, a tiny local target, grid files."""

from pathlib import Path

import pytest

from http_stub import serving
from littlegrid.run.jmeter import repo_root
from littlegrid.run.sample_server import find_server_jar
from littlegrid.usererror import UserError
from needs import missing

FIXTURES = Path(__file__).parent / "fixtures"
TINY_PLAN = FIXTURES / "tiny.jmx"


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
