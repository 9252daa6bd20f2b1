"""The suite's cost per test module, printed at the end of every run as a benchmark-style table of the slowest
MODULES_SHOWN modules, so that a module's growth is seen in the run where it happens (issue 64).

A module's seconds are the setup, call and teardown of each of its tests, summed: a session fixture shared by
several modules (a grid run once, a browser) is paid by the first test that asks for it. Under pytest-xdist the
controller receives every worker's reports, so the table covers the whole run; the seconds are then busy seconds
of the workers, more than the wall clock, which the footer states beside them.

A suite run in two phases (the unit tests under xdist, then the load tests serially: analysis/pom.xml) prints one
table for both: `--module-times=FILE` writes this run's figures as JSON, `--module-times-with=FILE` adds an earlier
run's figures (its footer says so)."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

MODULES_SHOWN = 15


@dataclass
class ModuleTimes:
    """Seconds and tests per module of one run, and its wall clock."""

    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    tests: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    wall_s: float = 0.0

    def add(self, report: pytest.TestReport) -> None:
        module = report.nodeid.split("::", 1)[0]
        self.seconds[module] += report.duration
        if report.when == "call" or (report.when == "setup" and report.skipped):
            self.tests[module] += 1

    def merged(self, other: ModuleTimes) -> ModuleTimes:
        out = ModuleTimes(wall_s=self.wall_s + other.wall_s)
        for times in (self, other):
            for module, s in times.seconds.items():
                out.seconds[module] += s
            for module, n in times.tests.items():
                out.tests[module] += n
        return out

    def to_json(self) -> str:
        return json.dumps({"wall_s": self.wall_s, "seconds": self.seconds, "tests": self.tests}, indent=1)

    @classmethod
    def read(cls, path: Path) -> ModuleTimes:
        data = json.loads(path.read_text(encoding="utf-8"))
        out = cls(wall_s=float(data["wall_s"]))
        out.seconds.update({k: float(v) for k, v in data["seconds"].items()})
        out.tests.update({k: int(v) for k, v in data["tests"].items()})
        return out


def table(times: ModuleTimes, shown: int = MODULES_SHOWN) -> list[str]:
    """The slowest `shown` modules, seconds first, with each one's share of all the modules' seconds."""
    total = sum(times.seconds.values())
    slowest = sorted(times.seconds.items(), key=lambda kv: (-kv[1], kv[0]))[:shown]
    lines = [f"{'seconds':>9} {'share':>6} {'tests':>6}  module"]
    for module, s in slowest:
        share = s / total if total > 0 else 0.0
        lines.append(f"{s:9.1f} {share:6.1%} {times.tests.get(module, 0):6d}  {module}")
    lines.append(f"{total:9.1f} {'':6} {sum(times.tests.values()):6d}  all {len(times.seconds)} modules "
                 f"(wall clock {times.wall_s:.1f} s)")
    return lines


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("module times", "the slowest test modules, printed at the end of the run")
    group.addoption("--module-times", metavar="FILE", help="also write this run's seconds per module as JSON")
    group.addoption("--module-times-with", metavar="FILE",
                    help="add an earlier run's seconds per module (its --module-times file) to the table")


class Reporter:
    """Collects the run's reports and prints the table; registered once per run by tests/conftest.py."""

    def __init__(self, config: pytest.Config):
        self.config = config
        self.times = ModuleTimes()
        self.started = time.monotonic()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.times.add(report)  # under xdist the controller logs every worker's reports: all of them land here

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if hasattr(self.config, "workerinput") or not self.times.seconds:  # a worker prints nothing (the controller
            return                                                           # prints the whole run's), nor does --co
        self.times.wall_s = time.monotonic() - self.started
        if out := self.config.getoption("--module-times"):
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            Path(out).write_text(self.times.to_json(), encoding="utf-8")
        times, title = self.times, f"slowest {MODULES_SHOWN} test modules"
        if (earlier := self.config.getoption("--module-times-with")) and Path(earlier).is_file():
            times, title = self.times.merged(ModuleTimes.read(Path(earlier))), f"{title}, with {earlier}'s run"
        terminalreporter.write_sep("=", title)
        for line in table(times):
            terminalreporter.write_line(line)
