"""report/summary.png: the key chart as an image, for places that show images but not HTML (e-mail, chat, a CI
page). Throughput and mean response time against the load, one colour per curve as in the HTML report; a single
test draws its throughput and p90 over time instead. Drawn with matplotlib's Agg backend (no display needed).

matplotlib takes about a second to import and a third of one to draw, on one core. A report that analyses a large JTL
leaves a core idle at times (while its pass waits for the parse, while it writes its pages), so `Background` draws
there: a child process started with the report, at the lowest CPU priority (summary_png_child.py), imports
matplotlib at once, is handed the summary when the analysis is done, and draws while the report writes its HTML
(bench/bench_scale.py measures the whole)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from littlegrid.render.charts import PALETTE
from littlegrid.summary.model import Summary

X_NAMES = {"closed": "users N", "open": "offered rate λ (req/s)"}
# How long result() waits for a child still busy once the report is done with everything else. At 5 M rows it
# needs 0.23-0.28 s more (the summary's validation and the drawing); a child that got no core while the analysis
# kept both busy needs all of its 1.2-1.4 s of imports and 0.4 s of drawing then, on a core the report has left
# idle: 4 s leaves room for a host twice as slow. A child that gets no core even then (a host kept busy by
# others, and its lowest priority) is stopped, and the image drawn here instead.
GRACE_S = 4.0
# A child that gains no CPU time for this long while result() waits has no core (a host kept busy by others, at the
# child's lowest priority, gives it ~1.5% of one): drawing here is quicker than the rest of GRACE_S. Where the
# kernel does not say a process's CPU time (no /proc), only GRACE_S applies.
STALL_S = 0.5
POLL_S = 0.05


def _by_load(summary: Summary, ax_x, ax_r) -> bool:
    """Each curve of the first workload present with two loads or more; whether any was drawn."""
    by_id = {c.id: c for c in summary.cells}
    drawn = [(i, k) for i, k in enumerate(summary.curves) if len(set(k.x)) > 1]
    if not drawn:
        return False
    workload = drawn[0][1].workload
    for i, k in drawn:
        if k.workload != workload:
            continue
        colour = PALETTE[i % len(PALETTE)]
        xs = [float(x) for x in k.x]
        ax_x.plot(xs, [by_id[c].overall.throughput_per_s for c in k.cells], "o-", color=colour, label=k.label)
        ax_r.plot(xs, [by_id[c].overall.mean_ms for c in k.cells], "o-", color=colour, label=k.label)
        b = k.models.bounds
        if b is not None:
            ax_x.plot([p.load for p in b.points], [p.x_upper for p in b.points], "--", color=colour, linewidth=1)
            ax_r.plot([p.load for p in b.points], [p.r_lower_ms for p in b.points], "--", color=colour, linewidth=1)
    for ax, y in ((ax_x, "X (req/s)"), (ax_r, "mean R (ms)")):
        ax.set_xlabel(X_NAMES[workload])
        ax.set_ylabel(y)
        ax.grid(True, alpha=0.3)
    ax_x.set_title("Throughput (dashed: bound)")
    ax_r.set_title("Response time (dashed: bound)")
    ax_x.legend(fontsize=8)
    return True


def _over_time(summary: Summary, ax_x, ax_r) -> bool:
    cell = next((c for c in summary.cells if c.series is not None and c.series.t_s), None)
    if cell is None:
        return False
    s = cell.series
    ax_x.plot(s.t_s, s.throughput, color=PALETTE[0])
    ax_r.plot(s.t_s, [v if v is not None else float("nan") for v in s.p90_ms], color=PALETTE[1])
    for ax in (ax_x, ax_r):
        ax.axvspan(s.window_start_s, s.window_end_s, color="#888", alpha=0.08)
        ax.set_xlabel("seconds since the first sample (shaded: the steady window)")
        ax.grid(True, alpha=0.3)
    ax_x.set_ylabel("X (req/s)")
    ax_r.set_ylabel("p90 (ms)")
    ax_x.set_title("Throughput over time")
    ax_r.set_title("p90 over time")
    return True


def write(summary: Summary, path: Path, title: str) -> Path | None:
    """Draw the key chart into `path`; None (nothing written) when the summary has nothing to draw."""
    plt = _pyplot()
    fig, (ax_x, ax_r) = plt.subplots(1, 2, figsize=(11, 4.2), dpi=100)
    try:
        if not (_by_load(summary, ax_x, ax_r) or _over_time(summary, ax_x, ax_r)):
            return None
        fig.suptitle(title, fontsize=11)
        fig.tight_layout()
        fig.savefig(path, format="png")
        return path
    finally:
        plt.close(fig)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # before pyplot loads: no display needed
    import matplotlib.pyplot as plt

    return plt


class Background:
    """summary.png drawn by a child process started now, which imports matplotlib while this one analyses.

    draw() hands it the summary (as summary.json holds it) and returns at once; result() waits for the image, at
    most GRACE_S, and no longer than STALL_S once the child stops getting CPU time. When the child cannot do it (it
    could not start, failed, or got no core), result() draws here, so a real error is raised here, as write() would
    raise it. close() stops a child that was never handed a summary (the analysis failed)."""

    def __init__(self) -> None:
        try:
            self._child = subprocess.Popen([sys.executable, "-m", "littlegrid.render.summary_png_child"],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                           stderr=subprocess.DEVNULL)
        except OSError:
            self._child = None
        self._job: tuple[Summary, Path, str] | None = None

    def draw(self, summary: Summary, path: Path, title: str) -> None:
        self._job = (summary, Path(path), title)
        if self._child is None:
            return
        head = json.dumps({"path": str(path), "title": title}, ensure_ascii=False)
        try:
            self._child.stdin.write(head.encode() + b"\n" + summary.model_dump_json(by_alias=True).encode())
            self._child.stdin.close()
        except OSError:  # the child is gone: result() draws here
            self.close()

    def result(self) -> Path | None:
        """The image's path, or None when the summary has nothing to draw (as write())."""
        summary, path, title = self._job
        if self._child is not None:
            code = _finished(self._child)  # it says one word: its pipe never fills
            if code is None:
                self.close()
            said = self._child.stdout.read().decode().strip() if code is not None else ""
            if code == 0 and said in ("drawn", "nothing"):
                return path if said == "drawn" else None
        return write(summary, path, title)

    def close(self) -> None:
        child, self._child = self._child, None
        if child is not None and child.poll() is None:
            child.kill()  # our own child, by its handle
            child.wait()


def _finished(child: subprocess.Popen) -> int | None:
    """The child's exit code once it ends within GRACE_S; None when it does not, or when it gains no CPU time for
    STALL_S (it has no core)."""
    deadline = time.monotonic() + GRACE_S
    ticks, since = cpu_ticks(child.pid), time.monotonic()
    while True:
        try:
            return child.wait(timeout=POLL_S)
        except subprocess.TimeoutExpired:
            pass
        now, spent = time.monotonic(), cpu_ticks(child.pid)
        if now >= deadline:
            return None
        if spent is None or ticks is None or spent != ticks:
            ticks, since = spent, now
        elif now - since >= STALL_S:
            return None


def cpu_ticks(pid: int) -> int | None:
    """User and system CPU time of a process, in clock ticks (/proc/PID/stat's 14th and 15th fields), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # fields from the 3rd on, after the command's closing parenthesis
    except (OSError, IndexError, ValueError):
        return None


def serve() -> int:
    """The child's side of Background (summary_png_child.py): matplotlib imported first, then one summary from stdin
    drawn; says drawn or nothing."""
    _pyplot()
    head = sys.stdin.buffer.readline()
    if not head:  # the report stopped before it had a summary
        return 0
    job = json.loads(head)
    summary = Summary.model_validate_json(sys.stdin.buffer.read())
    drawn = write(summary, Path(job["path"]), job["title"])
    print("drawn" if drawn is not None else "nothing")
    return 0
