"""summary_png.Background: the child that draws report/summary.png runs at the lowest CPU priority, and a child that
gets no core is not waited for beyond GRACE_S: the report draws the same image itself."""

import os
import signal
import sys
import time

import pytest

from littlegrid.render import summary_png
from littlegrid.render.synthetic import synthetic_summary
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
def test_a_child_that_gets_no_core_is_stopped_after_the_grace_and_the_image_is_drawn_here(tmp_path, monkeypatch):
    summary = Summary.model_validate(synthetic_summary(users=(1, 4, 16), think_ms=(0, 20), samples_total=3000))
    here = summary_png.write(summary, tmp_path / "here.png", "a title")
    assert here is not None
    monkeypatch.setattr(summary_png, "GRACE_S", 0.2)
    image = summary_png.Background()
    child = image._child
    os.kill(child.pid, signal.SIGSTOP)  # our own child, by its pid: as if a busy host gave it no core
    image.draw(summary, tmp_path / "there.png", "a title")
    started = time.monotonic()
    assert image.result() == tmp_path / "there.png"
    assert child.returncode == -signal.SIGKILL  # stopped by result(), not waited for
    assert time.monotonic() - started >= 0.2
    assert (tmp_path / "there.png").read_bytes() == here.read_bytes()


def test_a_child_that_draws_in_time_gives_the_image_it_would_be_here(tmp_path):
    summary = Summary.model_validate(synthetic_summary(users=(1, 4, 16), think_ms=(0, 20), samples_total=3000))
    here = summary_png.write(summary, tmp_path / "here.png", "a title")
    image = summary_png.Background()
    child = image._child
    image.draw(summary, tmp_path / "there.png", "a title")
    child.wait(timeout=120)  # what the child takes on a busy host: result() is then not timed
    assert image.result() == tmp_path / "there.png" and child.returncode == 0
    assert (tmp_path / "there.png").read_bytes() == here.read_bytes()
