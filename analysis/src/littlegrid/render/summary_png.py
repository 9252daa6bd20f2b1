"""report/summary.png: the key chart as an image, for places that show images but not HTML (e-mail, chat, a CI
page). Throughput and mean response time against the load, one colour per curve as in the HTML report; a single
test draws its throughput and p90 over time instead. Drawn with matplotlib's Agg backend (no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend is chosen before pyplot loads)

from littlegrid.render.charts import PALETTE  # noqa: E402
from littlegrid.summary.model import Summary  # noqa: E402

X_NAMES = {"closed": "users N", "open": "offered rate λ (req/s)"}


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
