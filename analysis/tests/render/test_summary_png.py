"""summary_png.Background: the child that draws report/summary.png runs at the lowest CPU priority, and a child that
gets no core (no CPU time for STALL_S, or not done within GRACE_S) is not waited for: the report draws the same image
itself."""

import os
import signal
import subprocess
import sys
import time

import pytest

from littlegrid.render import summary_png
from synthetic_summary import synthetic_summary
from littlegrid.render.summary_png_child import LOWEST
from littlegrid.summary.model import Summary


def _priority(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


@pytest.mark.skipif(not hasattr(os, "nice"), reason="no process priorities on this platform")
def test_the_child_runs_at_the_lowest_priority_before_it_imports_matplotlib():
    ours = _priority(0)
    if ours >= LOWEST:  # run niced to the floor already: the child cannot go lower, so there is nothing to see
        pytest.skip(f"the tests run at nice {ours}, the lowest priority: the child's own lowering cannot be seen")
    image = summary_png.Background()
    try:
        child = image._child
        deadline = time.monotonic() + 30  # a bound for a slow host; it lowers itself first thing
        while _priority(child.pid) == ours and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _priority(child.pid) == min(ours + LOWEST, 19) != ours
    finally:
        image.close()
    assert child.returncode is not None  # close() stopped it: it was never handed a summary


@pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP")
def test_a_child_that_gets_no_core_is_stopped_once_it_stalls_and_the_image_is_drawn_here(tmp_path, monkeypatch):
    summary = Summary.model_validate(synthetic_summary(users=(1, 4, 16), think_ms=(0, 20), samples_total=3000))
    here = summary_png.write(summary, tmp_path / "here.png", "a title")
    assert here is not None
    # the grace out of reach: only the stall (no CPU time for STALL_S) can end the wait
    monkeypatch.setattr(summary_png, "GRACE_S", 300)
    monkeypatch.setattr(summary_png, "STALL_S", 0.2)
    image = summary_png.Background()
    child = image._child
    os.kill(child.pid, signal.SIGSTOP)  # our own child, by its pid: as if a busy host gave it no core
    image.draw(summary, tmp_path / "there.png", "a title")
    started = time.monotonic()
    assert image.result() == tmp_path / "there.png"
    assert child.returncode == -signal.SIGKILL  # stopped by result(), not waited for
    assert 0.2 <= time.monotonic() - started < 150  # given up on at the stall, not at the grace
    assert (tmp_path / "there.png").read_bytes() == here.read_bytes()


def test_a_child_that_draws_in_time_gives_the_image_it_would_be_here(tmp_path, monkeypatch):
    summary = Summary.model_validate(synthetic_summary(users=(1, 4, 16), think_ms=(0, 20), samples_total=3000))
    here = summary_png.write(summary, tmp_path / "here.png", "a title")
    # The child runs at nice 19: beside two busy loops on 2 cores it got ~1% of a core and had not drawn after 120 s
    # of wall time. result() is therefore given a grace out of reach and waits as long as the child gains CPU time
    # at least once a minute: the image must be the child's (returncode 0), never the fallback drawn here.
    monkeypatch.setattr(summary_png, "GRACE_S", 1800)
    monkeypatch.setattr(summary_png, "STALL_S", 60)
    image = summary_png.Background()
    child = image._child
    image.draw(summary, tmp_path / "there.png", "a title")
    assert image.result() == tmp_path / "there.png" and child.returncode == 0
    assert (tmp_path / "there.png").read_bytes() == here.read_bytes()


def test_the_cpu_time_of_a_process_is_read_in_clock_ticks_and_grows_as_it_computes():
    before = summary_png.cpu_ticks(os.getpid())
    end = time.process_time() + 0.1
    while time.process_time() < end:  # 100 ms of CPU: 10 ticks at Linux's 100 a second
        pass
    assert summary_png.cpu_ticks(os.getpid()) - before >= 5
    assert summary_png.cpu_ticks(2**22 + 1) is None  # past the largest pid_max: no such process


@pytest.mark.parametrize("work, expected", [
    ("import time\nend = time.process_time() + 1.0\nwhile time.process_time() < end: pass", 0),  # computing: waited for
    ("import time; time.sleep(60)", None),  # no CPU time: given up on at the stall
])
def test_a_child_is_waited_for_while_it_gains_cpu_time_and_given_up_on_when_it_stalls(monkeypatch, work, expected):
    monkeypatch.setattr(summary_png, "GRACE_S", 300)
    monkeypatch.setattr(summary_png, "STALL_S", 0.5)
    child = subprocess.Popen([sys.executable, "-c", work])
    try:
        time.sleep(0.2)  # past the interpreter's start, which also computes
        assert summary_png._finished(child) == expected
    finally:
        child.kill()  # our own child, by its handle
        child.wait()
