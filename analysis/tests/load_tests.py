"""Which tests are load tests, which are browser tests, and what follows.

A **load test** needs JMeter or a server (a real process it starts, load put on the machine: timing it measures). It
carries the `load` marker and runs one at a time under the machine's load lock (LOAD_LOCK), never beside other tests.
A **browser test** drives Debian's Chromium or Firefox over a page and asserts what it draws, never how fast: it
carries the `browser` marker and runs with the unit tests, spread over the cores by pytest-xdist (the test command's
first phase, `-m "not load"`). The quick loop leaves both out: `-m "not load and not browser"` (README,
"Contributing").

The markers follow from what a test asks for, so a new test is marked without a word: a load test by its fixtures
(transitively) among LOAD_FIXTURES, or by `integration`, `acceptance` or `load`; a browser test, when it is no load
test, by the `browser` or `firefox` fixture or the `browser` marker. A test that starts a load program by itself says
`pytest.mark.load`. One that starts a program it is not marked for fails, naming it (`guard`): every program of
LOAD_PROGRAMS is refused to the tests that are not load tests, the browsers (BROWSER_PROGRAMS) allowed to browser
tests only, so the quick loop can never start one (tests/test_load_marker.py shows it)."""

from __future__ import annotations

import fcntl
import os
import shlex
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

LOAD, BROWSER = "load", "browser"
# Fixtures that start, find or drive JMeter or a server: a test asking for any of them is a load test.
LOAD_FIXTURES = frozenset({
    "jmeter", "runnable", "server_jar", "sample_server", "run_plan",   # JMeter and the sample server
    "http_target", "target_grid", "two_engines", "netns_available",    # grids run against a target, engines
    "pg_url",                                                          # a PostgreSQL of the test's own
})
LOAD_MARKERS = frozenset({"integration", "acceptance"})
# Chromium (Playwright), Firefox ESR (WebDriver BiDi): a test asking for one that is no load test is a browser test.
BROWSER_FIXTURES = frozenset({"browser", "firefox"})
# What a browser test may start (Playwright's driver runs on node), and what only a load test may; any other test
# that starts one of them fails (basename of the program run).
BROWSER_PROGRAMS = frozenset({"chromium", "chromium-browser", "chrome", "headless_shell", "firefox", "firefox-esr",
                              "node"})
LOAD_PROGRAMS = BROWSER_PROGRAMS | frozenset({
    "java", "postgres", "initdb", "pg_ctl", "gunicorn", "nginx", "haproxy", "prometheus-node-exporter",
    "prometheus-postgres-exporter", "ip",
})
LOCK_ENV = "LOAD_LOCK"


def is_load(item: pytest.Item) -> bool:
    """Whether a collected test is a load test: by its own marker, the markers that imply one, or its fixtures."""
    if any(item.iter_markers(LOAD)) or any(m.name in LOAD_MARKERS for m in item.iter_markers()):
        return True
    return bool(LOAD_FIXTURES.intersection(getattr(item, "fixturenames", ())))


def is_browser(item: pytest.Item) -> bool:
    """Whether a collected test is a browser test: no load test, and a browser by its marker or its fixtures."""
    if is_load(item):
        return False
    return any(item.iter_markers(BROWSER)) or bool(BROWSER_FIXTURES.intersection(getattr(item, "fixturenames", ())))


def mark(items: list[pytest.Item], xdist: bool) -> None:
    """Gives every load test and every browser test its marker (so `-m` selects on it) and, under xdist, the load
    tests one group: `--dist loadgroup` then sends all of them to one worker, one after another."""
    for item in items:
        if is_load(item):
            if not any(item.iter_markers(LOAD)):
                item.add_marker(LOAD)
            if xdist:
                item.add_marker(pytest.mark.xdist_group(LOAD))
        elif is_browser(item) and not any(item.iter_markers(BROWSER)):
            item.add_marker(BROWSER)


def program(args, executable=None) -> str:
    """The basename of the program a Popen call runs (its executable, or its argv's first word)."""
    if executable:
        return os.path.basename(os.fspath(executable))
    if isinstance(args, (str, bytes, os.PathLike)):
        words = shlex.split(os.fsdecode(args)) if isinstance(args, (str, bytes)) else [os.fspath(args)]
    else:
        words = [os.fsdecode(a) if isinstance(a, bytes) else os.fspath(a) for a in args]
    return os.path.basename(words[0]) if words else ""


@contextmanager
def guard(nodeid: str, allowed: frozenset[str] = frozenset()) -> Iterator[None]:
    """While a test that is not a load test runs, starting a program of LOAD_PROGRAMS but those `allowed` (a browser
    test's browsers) fails it, naming the program and the marker it lacks. Every process start goes through
    Popen._execute_child (subprocess.run, check_output, asyncio's subprocesses, Playwright's driver)."""
    original = subprocess.Popen._execute_child

    def refuse(self, args, executable, *rest, **kwargs):
        name = program(args, executable)
        if name in LOAD_PROGRAMS - allowed:
            what = "a browser test" if name in BROWSER_PROGRAMS else "a load test"
            how = "ask for the browser or firefox fixture" if name in BROWSER_PROGRAMS else "give it pytest.mark.load"
            pytest.fail(f"{nodeid} starts {name!r} but is not {what}: {how}, or ask for "
                        f"the fixture that provides it (tests/load_tests.py)", pytrace=False)
        return original(self, args, executable, *rest, **kwargs)

    subprocess.Popen._execute_child = refuse
    try:
        yield
    finally:
        subprocess.Popen._execute_child = original


class LoadLock:
    """The machine-wide load lock (flock on $LOAD_LOCK), taken before the first load test and held to the end of the
    session. A caller that already holds it (`flock "$LOAD_LOCK" ./mvnw verify`, `flock "$LOAD_LOCK" pytest`) is
    an ancestor of this process: the lock is then ours already, and waiting for it would wait forever."""

    def __init__(self, path: str | None):
        self.path = path
        self.handle = None
        self.held_by: str | None = None

    def take(self, write) -> None:
        if not self.path or self.held_by:
            return
        self.handle = open(self.path, "a")
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.held_by = "this run"
            return
        except BlockingIOError:
            pass
        holders = lock_holders(Path(self.path))
        mine = holders & ancestors()
        if mine:
            self.held_by = f"the caller (pid {min(mine)})"
            return
        write(f"load tests: waiting for the load lock {self.path} (held by pid {', '.join(map(str, sorted(holders))) or '?'})")
        fcntl.flock(self.handle, fcntl.LOCK_EX)
        self.held_by = "this run"

    def release(self) -> None:
        if self.handle:
            self.handle.close()  # closing the file releases the flock
            self.handle = None


def lock_holders(path: Path) -> set[int]:
    """PIDs holding a lock on `path`, from /proc/locks (device and inode match)."""
    try:
        st = path.stat()
        text = Path("/proc/locks").read_text()
    except OSError:
        return set()
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    held = set()
    for line in text.splitlines():
        fields = line.split()
        if "->" in fields:  # a waiter, not a holder
            continue
        if len(fields) >= 6 and fields[5] == inode:
            held.add(int(fields[4]))
    return held


def ancestors() -> set[int]:
    """This process and its ancestors' PIDs."""
    pids, pid = set(), os.getpid()
    while pid > 1 and pid not in pids:
        pids.add(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the state: the parent's PID
    return pids


class Plugin:
    """The hooks, registered by tests/conftest.py: mark the load tests, give them the lock, guard the others."""

    def __init__(self, config: pytest.Config):
        self.config = config
        self.lock = LoadLock(os.environ.get(LOCK_ENV))

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        mark(items, xdist=self.config.pluginmanager.hasplugin("xdist"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item):
        """A load test first takes the machine's load lock (held to the session's end); any other test runs
        guarded: it fails if it starts JMeter or a server, or a browser unless it is a browser test."""
        if is_load(item):
            reporter = self.config.pluginmanager.get_plugin("terminalreporter")
            self.lock.take(reporter.write_line if reporter else print)
            return (yield)
        with guard(item.nodeid, BROWSER_PROGRAMS if is_browser(item) else frozenset()):
            return (yield)

    def pytest_sessionfinish(self) -> None:
        self.lock.release()
