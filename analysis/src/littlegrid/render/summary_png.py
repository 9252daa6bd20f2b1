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
import textwrap
import threading
import time
import warnings
from pathlib import Path

from littlegrid.render import proof
from littlegrid.render.charts import PALETTE
from littlegrid.summary.model import Summary

# How long result() waits for a child still busy once the report is done with everything else. At 5 M rows it
# needs 0.23-0.28 s more (the summary's validation and the drawing); a child that got no core while the analysis
# kept both busy needs all of its 1.2-1.4 s of imports and 0.4 s of drawing then, on a core the report has left
# idle: 4 s leaves room for a host twice as slow. A child that gets no core even then (a host kept busy by
# others, and its lowest priority) is stopped, and the image drawn here instead.
GRACE_S = 4.0
PLOTS_IN = 4.2  # inches of the two panels (1100 × 420 px at 100 dpi); the headline's lines add to it
HEADLINE_WIDTH = 150  # characters per line of the headline at 9 pt across 11 inches
# A child that gains no CPU time for this long while result() waits has no core (a host kept busy by others, at the
# child's lowest priority, gives it ~1.5% of one): drawing here is quicker than the rest of GRACE_S. Where the
# kernel does not say a process's CPU time (no /proc), only GRACE_S applies.
STALL_S = 0.5
POLL_S = 0.05


def _by_load(summary: Summary, ax_x, ax_r) -> bool:
    """The chart the headline rests on (render/proof.py, as the report's first screen draws it): per curve, in its
    colour, X and R against the load, its bounds dashed, its knee or capacity a dotted line, the cells the headline
    cites ringed; whether there was anything to draw."""
    p = proof.proof(summary)
    if p is None:
        return False
    loads = [x for k in p.curves for x in k.load]
    for k in p.curves:
        colour = PALETTE[k.colour % len(PALETTE)]
        for ax, values, bound in ((ax_x, k.x_per_s, k.bound_x_per_s), (ax_r, k.r_ms, k.bound_r_ms)):
            ax.plot(k.load, [_nan(v) for v in values], "o-", color=colour, label=k.label)
            if k.bound_load:
                ax.plot(k.bound_load, bound, "--", color=colour, linewidth=1)
            cited = [(x, v) for x, v, c in zip(k.load, values, k.cited) if c and v is not None]
            if cited:
                ax.scatter(*zip(*cited), s=170, facecolors="none", edgecolors=colour, linewidths=2, zorder=3)
        m = k.mark
        # a knee or capacity beyond the loads measured stays off the chart, as the page's chart leaves it (summary.md
        # says it in words): the axes span what was measured
        if m is not None and (m.axis == "y" or min(loads) <= m.at <= max(loads)):
            for ax in ((ax_x, ax_r) if m.axis == "x" else (ax_x,)):
                line = ax.axvline if m.axis == "x" else ax.axhline
                line(m.at, color=colour, linestyle=":", linewidth=1.3)
                ax.annotate(m.words, (m.at, 1) if m.axis == "x" else (0, m.at), xycoords=(
                    ("data", "axes fraction") if m.axis == "x" else ("axes fraction", "data")),
                    xytext=(3, -10) if m.axis == "x" else (4, 3), textcoords="offset points", fontsize=8, color=colour)
    for ax, y in ((ax_x, "X (req/s)"), (ax_r, "mean R (ms)")):
        ax.set_xlabel(p.load_name)
        ax.set_ylabel(y)
        ax.grid(True, alpha=0.3)
    cited = "; ringed: cited by the headline" if p.cited_anywhere else ""
    ax_x.set_title(f"Throughput X (dashed: bound{cited})", fontsize=10)
    ax_r.set_title(f"Mean response time R (dashed: bound{cited})", fontsize=10)
    ax_x.legend(fontsize=8)
    return True


def _nan(v):
    return float("nan") if v is None else v


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
    # the headline above the chart, as on the report's first screen: wrapped, each line adding to the height
    said = textwrap.wrap(" ".join(summary.headline.sentences), HEADLINE_WIDTH) if summary.headline is not None else []
    top = 0.4 + 0.19 * len(said)  # inches above the plots: the title, then the headline's lines
    fig, (ax_x, ax_r) = plt.subplots(1, 2, figsize=(11, PLOTS_IN + top), dpi=100)
    try:
        if not (_by_load(summary, ax_x, ax_r) or _over_time(summary, ax_x, ax_r)):
            return None
        fig.suptitle(title, fontsize=11, y=1 - 0.08 / (PLOTS_IN + top), va="top", fontweight="bold")
        if said:
            fig.text(0.01, 1 - 0.36 / (PLOTS_IN + top), "\n".join(said), va="top", ha="left", fontsize=9)
        fig.tight_layout(rect=(0, 0, 1, PLOTS_IN / (PLOTS_IN + top)))
        with warnings.catch_warnings():
            # a label in a script DejaVu Sans lacks (CJK) prints as boxes here; the report and summary.md hold its
            # text, so the image says nothing about it on stderr
            warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font", category=UserWarning)
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
        data = head.encode() + b"\n" + summary.model_dump_json(by_alias=True).encode()
        # handed on a thread: a summary larger than the pipe's buffer (64 KiB) would block here until the child reads,
        # and a child that gets no core never does; result() then gives up on it and close() ends the write
        threading.Thread(target=_hand, args=(self._child, data), daemon=True).start()

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


def _hand(child: subprocess.Popen, data: bytes) -> None:
    """The summary written to the child's stdin and closed; a child gone (or killed by close()) ends it: result()
    then draws here."""
    try:
        child.stdin.write(data)
        child.stdin.close()
    except (OSError, ValueError):
        pass


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
