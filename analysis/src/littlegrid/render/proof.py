"""The chart the headline rests on, read from the summary: throughput X and mean response time R against the load (N
for closed curves, λ for open ones), one colour per curve, each curve's asymptotic bounds, its knee or its capacity
marked, and the cells the headline cites (Headline.cells) ringed. The report's first screen, summary.png and
summary.md all draw this one reading, so the three show the same chart.

Nothing is computed here: the loads, figures, bounds, knee and capacity are the analysis's, the cited cells the
findings stage's; this module only picks the curves of the headline's workload and lays them out."""

from __future__ import annotations

from dataclasses import dataclass

from littlegrid.render import charts, fmt
from littlegrid.summary.model import Curve, Summary

LOAD_NAMES = {"closed": "users N", "open": "offered rate λ (req/s)"}
LOAD_SYMBOLS = {"closed": "N", "open": "λ"}
HEIGHT = 300  # px of plot with its axes on the first screen: the headline, the verdict and both charts fit 1366×768


@dataclass(frozen=True)
class Mark:
    """A line across a chart at one value: `axis` "x" (a load: the knee, or an open curve's capacity λ) or "y" (a
    throughput: a closed curve's capacity 1/Dmax, on the X chart only); `words` labels it."""
    axis: str
    at: float
    words: str


@dataclass(frozen=True)
class ProofCurve:
    colour: int  # the curve's index in Summary.curves: its colour in every chart and table
    label: str
    load: list[float]
    x_per_s: list[float | None]
    r_ms: list[float | None]
    cited: list[bool]  # per load: the headline cites this cell
    bound_load: list[float]
    bound_x_per_s: list[float]
    bound_r_ms: list[float]
    mark: Mark | None


@dataclass(frozen=True)
class Proof:
    workload: str  # closed or open: the load axis of every curve here
    load_name: str
    curves: list[ProofCurve]

    @property
    def cited_anywhere(self) -> bool:
        return any(any(k.cited) for k in self.curves)


def _drawn(summary: Summary) -> list[tuple[int, Curve]]:
    """(colour, curve) of every curve with two loads or more: a line, a bound or a knee needs two points."""
    return [(i, k) for i, k in enumerate(summary.curves) if len(set(k.x)) > 1]


def workload(summary: Summary) -> str | None:
    """The workload of the first curve the headline's findings are about, else of the first curve drawn."""
    drawn = _drawn(summary)
    if not drawn:
        return None
    cited = []
    if summary.headline is not None:
        cited = [summary.findings[i].curve for i in summary.headline.findings if 0 <= i < len(summary.findings)]
    by_key = {k.key: k for _, k in drawn}
    return next((by_key[c].workload for c in cited if c in by_key), drawn[0][1].workload)


def _mark(curve: Curve) -> Mark | None:
    """The knee where the analysis found one; else the capacity 1/Dmax of the bounds: a level of X for a closed
    curve, a load λ for an open one (past it an open queue has no steady state)."""
    m, symbol = curve.models, LOAD_SYMBOLS.get(curve.workload, "load")
    if m.knee is not None and m.knee.load is not None:
        return Mark("x", m.knee.load, f"knee {symbol} = {fmt.num(m.knee.load)}")
    b = m.bounds
    if b is None:
        return None
    if curve.workload == "open":
        return Mark("x", b.capacity_per_s, f"capacity λ = {fmt.rate(b.capacity_per_s)}")
    return Mark("y", b.capacity_per_s, f"capacity 1/Dmax = {fmt.rate(b.capacity_per_s)}")


def proof(summary: Summary) -> Proof | None:
    """The chart the headline rests on; None when no curve has two loads (a single test, a single point)."""
    kind = workload(summary)
    if kind is None:
        return None
    by_id = {c.id: c for c in summary.cells}
    cited = set(summary.headline.cells) if summary.headline is not None else set()

    def figure(cell_id: str, name: str):
        cell = by_id.get(cell_id)
        return None if cell is None or cell.overall is None else getattr(cell.overall, name)

    curves = []
    for colour, k in _drawn(summary):
        if k.workload != kind:
            continue
        b = k.models.bounds
        points = b.points if b is not None else []
        curves.append(ProofCurve(
            colour=colour, label=k.label, load=[float(x) for x in k.x],
            x_per_s=[figure(c, "throughput_per_s") for c in k.cells], r_ms=[figure(c, "mean_ms") for c in k.cells],
            cited=[c in cited for c in k.cells], bound_load=[p.load for p in points],
            bound_x_per_s=[p.x_upper for p in points], bound_r_ms=[p.r_lower_ms for p in points], mark=_mark(k)))
    return Proof(workload=kind, load_name=LOAD_NAMES[kind], curves=curves)


CITED = "cited by the headline"
ALT = "Throughput X and mean response time R against the load, one colour per curve"


def page_charts(p: Proof) -> list[dict]:
    """The first screen's two uPlot charts (chart-data dicts): X against the load, and R against it. Per curve, in
    its colour: the measured points, its bound dashed, the cited cells ringed; its mark a labelled line."""
    out = []
    for chart_id, title, y_label, value, bound in (
            ("glance-x", "Throughput X", "X (req/s)", "x_per_s", "bound_x_per_s"),
            ("glance-r", "Mean response time R", "R (ms)", "r_ms", "bound_r_ms")):
        curves, lines, marks = [], [], []
        for k in p.curves:
            measured = getattr(k, value)
            curves.append((k.load, measured))
            lines.append((k.label, "points", k.colour))
            if k.bound_load:
                curves.append((k.bound_load, getattr(k, bound)))
                lines.append((f"{k.label}: bound", "dash", k.colour))
            if any(k.cited):
                curves.append((k.load, [v if c else None for v, c in zip(measured, k.cited)]))
                lines.append((f"{k.label}: {CITED}", "ring", k.colour))
            if k.mark is not None and (k.mark.axis == "x" or chart_id == "glance-x"):
                marks.append({"axis": k.mark.axis, "at": charts.sig(k.mark.at, 6), "words": k.mark.words,
                              "group": k.colour})
        x, ys = charts.align(curves)
        c = charts.chart(chart_id, f"{title} vs {p.load_name}", p.load_name, y_label, x,
                         [charts.series(lab, y, style=st, group=g) for (lab, st, g), y in zip(lines, ys)])
        out.append(c | {"marks": marks, "height": HEIGHT})
    return out
