"""The overview page's content: what was run, every criterion and check, heatmaps, curves over users, SLO capacity."""

from __future__ import annotations

from datetime import datetime

from littlegrid.render import charts, fmt, layout, words
from littlegrid.summary.model import Cell, Curve, Record, Summary


def run_title(summary: Summary) -> str:
    """The run's name on every page: the grid's name and run id, or whichever of them the summary has."""
    run = summary.run
    return (run.grid_name or run.id or "littlegrid run") + (f" · {run.id}" if run.id and run.grid_name else "")


def run_facts(summary: Summary) -> list[tuple[str, str]]:
    """(what, value) rows describing the run, in reading order."""
    run, trim = summary.run, summary.trim
    status: dict[str, int] = {}
    for c in summary.cells:
        status[c.status] = status.get(c.status, 0) + 1
    host = run.host.model_dump(exclude_none=True)
    rows = [("run", run.id), ("grid", run.grid_name), ("plan", run.plan),
            ("description", run.description), ("started", run.started), ("ended", run.ended),
            ("duration", fmt.seconds(_duration_s(run.started, run.ended))),
            ("axes", "; ".join(f"{k} = {', '.join(map(str, v))}" for k, v in summary.axes.items())),
            ("arms", run.arms and f"{run.arms}: compared in compare-{run.arms.partition('=')[0]}/index.html"),
            ("cells", ", ".join(f"{n} {s}" for s, n in status.items())),
            ("trimmed", (f"warm-up {fmt.seconds(trim.warmup_s)}" if trim.warmup_s is not None else
                         "each cell's own warm-up (found from its data, see the cells)")
                        + (f" and cool-down {fmt.seconds(trim.cooldown_s)} of every cell"
                           if trim.cooldown_s is not None else " and each cell's own cool-down (a precise cell's is "
                           "the file's tail after the seconds its rule judged, see the cells)")
                        + f", counted from the {trim.basis or 'first sample'}"),
            ("server knobs", ", ".join(f"{k} = {v}" for k, v in (run.server_knobs or {}).items()) or "none"),
            ("server CPUs", run.server_cpus and f"pinned to {_cpus(run.server_cpus)} ([server] cpus), JMeter on "
                                                f"{_cpus(run.generator_cpus or [])}: they never shared a core"),
            ("versions", ", ".join(f"{k} {v}" for k, v in run.versions.items())),
            ("generator's host", host and "this host, where JMeter ran (host-metrics.csv): " + ", ".join(
                f"{k} {_host_value(k, v)}" for k, v in host.items())),
            ("target", _target_words(run.target)),
            ("observed", _sources_words(summary.cells)),
            ("source", run.source), ("inputs", ", ".join(run.inputs))]
    return [(k, "" if v is None else str(v)) for k, v in rows if v not in (None, "", [])]


PLACEMENT_WORDS = {"this_host": "on this host, beside JMeter: the generator's host figures measured it too",
                   "elsewhere": "elsewhere: the generator's host figures are JMeter's alone",
                   "unknown": "where it ran was not recorded"}


def _target_words(target) -> str | None:
    """Where the target ran, as the run recorded it before any load."""
    if target is None:
        return None
    where = f"{target.host}:{target.port}" if target.port else (target.host or "")
    resolved = f" ({', '.join(target.addresses)})" if target.addresses and target.addresses != [target.host] else ""
    return f"{where}{resolved} {PLACEMENT_WORDS.get(target.placement, target.placement)}".strip()


def _sources_words(cells: list[Cell]) -> str | None:
    """Each [observe] source (the sample server's actuator among them), the host its figures measured and
    whether it is the target's, as the cells' observed blocks name them: a source the target's in some cells only
    (a port or host axis) says whose cells, by the target it serves."""
    sources, whose = {}, {}
    for c in cells:
        for s in (c.observed.sources if c.observed is not None else ()):
            sources.setdefault(s.url, s)
            whose.setdefault(s.url, set()).add(s.target_host)
    return "; ".join(f"{s.url}: host {s.host}, " + _whose(whose[url], s) for url, s in sources.items()) or None


def _whose(flags: set, source) -> str:
    if flags == {True}:
        return "the target's"
    if flags == {False}:
        return "not the target's"
    return f"the target's in the cells loading {source.serves}" if source.serves else "the target's in some cells"


def _cpus(cpus) -> str:
    return f"CPU{'s' if len(cpus) > 1 else ''} {', '.join(str(c) for c in cpus)}" if cpus else "the other CPUs"


def _host_value(key, v):
    return f"{v / 2**30:.1f} GiB" if key == "memory_bytes" and isinstance(v, (int, float)) else v


def _duration_s(started, ended):
    try:
        return (datetime.fromisoformat(str(ended).replace("Z", "+00:00"))
                - datetime.fromisoformat(str(started).replace("Z", "+00:00"))).total_seconds()
    except ValueError:
        return None


def outcomes(summary: Summary) -> dict:
    """Criteria and checks, failures first, with counts for the banner at the top of the page."""
    order = {False: 0, None: 1, True: 2}
    criteria = sorted((normalise(c, CRITERION_KEYS) for c in summary.criteria), key=lambda c: order.get(c["passed"], 1))
    checks = [normalise(c, CHECK_KEYS) for c in summary.checks]
    for cell in summary.cells:
        checks += [dict(normalise(chk, CHECK_KEYS), cell=chk.cell or cell.id) for chk in cell.checks]
    checks.sort(key=lambda c: order.get(c["passed"], 1))

    def count(rows, v):
        return sum(1 for r in rows if r["passed"] is v)

    return {"criteria": criteria, "checks": checks,
            "criteria_failed": count(criteria, False), "criteria_passed": count(criteria, True),
            "checks_failed": count(checks, False), "checks_passed": count(checks, True),
            "checks_unknown": sum(1 for r in checks if r["passed"] not in (True, False)),
            "criteria_unknown": sum(1 for r in criteria if r["passed"] not in (True, False)),
            "verdict": ("fail" if count(criteria, False) else "none" if not criteria
                        else "pass" if count(criteria, True) == len(criteria) else "undecided")}


def _overall(name):
    return lambda c: None if c.overall is None else getattr(c.overall, name)


def _closed_law_error(c: Cell):
    chk = layout.check_named(c, "closed_law")
    return None if chk is None else chk.rel_error


HEATMAPS = [  # (title, metric, format, anchored at zero)
    ("throughput X", _overall("throughput_per_s"), fmt.rate, False),
    ("p90 response time", _overall("p90_ms"), fmt.ms, False),
    ("p99 response time", _overall("p99_ms"), fmt.ms, False),
    ("error rate", _overall("error_rate"), fmt.pct, True),
    ("closed-law error |N − X·(R+Z)| / N", _closed_law_error, fmt.pct, True),
]


def heatmap_sections(cells: list[Cell], pages: dict[str, str]) -> list[dict]:
    """The grid at a glance; none for a single point (layout.is_grid)."""
    if not layout.is_grid(cells):
        return []
    return [{"title": title, "tables": layout.heatmaps(cells, metric, f, pages, from_zero=zero)}
            for title, metric, f, zero in HEATMAPS]


def _drawn(summary: Summary, workload: str) -> list[tuple[int, Curve]]:
    """(colour, curve) of the curves of one workload with more than one load: a line, a bound or a fit needs two
    points. The colour is the curve's index in Summary.curves, the same in every chart and table."""
    return [(i, k) for i, k in enumerate(summary.curves) if k.workload == workload and len(set(k.x)) > 1]


X_LABELS = {"closed": ("users N", "users N"), "open": ("offered rate λ", "offered rate λ (req/s)")}


def _figure(summary: Summary, curve: Curve, key: str) -> list:
    by_id = {c.id: c for c in summary.cells}
    return [_overall(key)(by_id[i]) if i in by_id else None for i in curve.cells]


def throughput_chart(summary: Summary, workload: str = "closed") -> dict | None:
    """X against the load (N, or the offered λ): each curve measured, its asymptotic upper bound dashed and its
    USL fit dotted, in the curve's colour and named by its label; None when no curve of that workload has two
    loads."""
    drawn = _drawn(summary, workload)
    if not drawn:
        return None
    curves, lines = [], []
    for colour, k in drawn:
        curves.append((k.x, _figure(summary, k, "throughput_per_s")))
        lines.append((k.label, "points", colour))
        b = k.models.bounds
        if b is not None:
            curves.append(([p.load for p in b.points], [p.x_upper for p in b.points]))
            lines.append((_bound_words(b, workload, "x"), "dash", colour))
        fit = k.models.usl
        if fit is not None and fit.ok and fit.points:  # the fitted curve as the analysis stored it (analysis.modelling.usl)
            curves.append(([p.load for p in fit.points], [p.x for p in fit.points]))
            lines.append((f"USL σ={fmt.num(fit.sigma)} κ={fmt.num(fit.kappa)}", "dot", colour))
    lines = _distinct(lines)
    x, ys = charts.align(curves)
    name, axis = X_LABELS[workload]
    return charts.chart(f"throughput-vs-{'users' if workload == 'closed' else 'rate'}", f"Throughput X vs {name}",
                        axis, "X (req/s)", x,
                        [charts.series(lab, y, style=st, group=g) for (lab, st, g), y in zip(lines, ys)],
                        note="One colour per curve. Dots joined by lines: measured in the steady window. Dashed: "
                             "asymptotic bound. Dotted: USL fit.")


def latency_charts(summary: Summary, workload: str = "closed") -> list[dict]:
    """Mean R (with its lower bound) and p50, p90, p99 against the load, one line per curve with two loads."""
    drawn = _drawn(summary, workload)
    if not drawn:
        return []
    name, axis = X_LABELS[workload]
    out = []
    for key, title in [("mean_ms", "Mean response time R"), ("p50_ms", "p50"), ("p90_ms", "p90"), ("p99_ms", "p99")]:
        curves = [(k.x, _figure(summary, k, key)) for _, k in drawn]
        labels = [(k.label, "points", colour) for colour, k in drawn]
        if key == "mean_ms":
            for colour, k in drawn:
                b = k.models.bounds
                if b is not None:
                    curves.append(([p.load for p in b.points], [p.r_lower_ms for p in b.points]))
                    labels.append((_bound_words(b, workload, "r"), "dash", colour))
        labels = _distinct(labels)
        x, ys = charts.align(curves)
        suffix = "" if workload == "closed" else "-rate"
        out.append(charts.chart(f"latency-{key}{suffix}", f"{title} vs {name}", axis, "ms", x,
                                [charts.series(lab, y, style=st, group=g) for (lab, st, g), y in zip(labels, ys)]))
    return out


def _bound_words(b, workload: str, which: str) -> str:
    """A bound's legend entry with the figures that tell it apart (its colour names its curve)."""
    if workload == "open":
        return (f"bound min(λ, 1/Dmax): capacity {fmt.num(b.capacity_per_s)}/s" if which == "x"
                else f"bound R ≥ D = {fmt.num(b.d_ms)} ms")
    figures = f"D {fmt.num(b.d_ms)} ms, Dmax {fmt.num(b.d_max_ms)} ms, N* {fmt.num(b.n_star)}"
    return ("bound min(N/(D+Z), 1/Dmax): " if which == "x" else "bound max(D, N·Dmax − Z): ") + figures


def _distinct(lines: list[tuple]) -> list[tuple]:
    """Legend entries as given, a repeated text followed by its curve's label (the measured entry of its colour):
    no two entries read the same."""
    seen: dict = {}
    for text, _, colour in lines:
        seen[text] = seen.get(text, 0) + 1
    names = {}
    for text, style, colour in lines:
        if style == "points":
            names.setdefault(colour, text)
    return [(text if seen[text] == 1 or style == "points" else f"{text} ({names.get(colour, colour)})", style, colour)
            for text, style, colour in lines]


def curve_charts(summary: Summary) -> list[dict]:
    """Every curve chart of the overview: closed curves against N, then open curves against λ."""
    out = []
    for workload in ("closed", "open"):
        out += [c for c in [throughput_chart(summary, workload)] if c] + latency_charts(summary, workload)
    return out


CHECK_KEYS = ("name", "cell", "value", "expected", "rel_error", "tolerance", "passed", "explanation")
CRITERION_KEYS = ("criterion", "scope", "cell", "metric", "value", "threshold", "passed", "unit")


def normalise(row: Record, keys) -> dict:
    """The fields the templates read, as a plain row."""
    return {k: getattr(row, k) for k in keys}


def model_rows(summary: Summary) -> list[dict]:
    """One row per curve with two loads: its bounds, knee and USL fit (the numbers behind its dashed lines), named
    by the curve's label and drawn in its colour."""
    rows = []
    for colour, k in _drawn(summary, "closed") + _drawn(summary, "open"):
        m = k.models
        b, u = m.bounds, m.usl
        rows.append({"curve": k.label, "colour": colour, "workload": k.workload, "think_ms": k.think_ms,
                     "d_ms": b.d_ms if b else None, "d_max_ms": b.d_max_ms if b else None,
                     "n_star": b.n_star if b else None, "capacity_per_s": b.capacity_per_s if b else None,
                     "knee": m.knee.load if m.knee else None,
                     "sigma": u.sigma if u else None, "kappa": u.kappa if u else None,
                     "lambda": u.lambda_ if u else None, "r2": u.r2 if u else None,
                     "n_peak": u.n_peak if u else None,
                     "usl_note": "" if u is None or u.ok else (u.reason or "no fit"),
                     "overhead_ms": m.overhead.mean_ms if m.overhead and (
                         m.overhead.trend == "constant" if m.overhead.trend else not m.overhead.grows) else None})
    return rows


MMCN_KEYS = ("think_ms", "users", "servers", "service_ms", "predicted_x", "measured_x", "rel_error",
             "predicted_r_ms", "measured_r_ms")


def model_tables(summary: Summary) -> dict:
    """SLO capacity (one row per criterion and curve with two loads) and the exact M/M/c//N predictions (for a
    grid), each row naming its curve in the curve's colour; empty where the run has none."""
    slo, mmcn = [], []
    for colour, k in _drawn(summary, "closed") + _drawn(summary, "open"):
        unit = "users" if k.workload == "closed" else "/s"
        slo += [{"curve": k.label, "colour": colour, "criterion": r.criterion, "max_load": r.max_load,
                 "unit": unit, "how": r.how} for r in k.models.slo_capacity]
    if layout.is_grid(summary.cells):
        for colour, k in enumerate(summary.curves):
            mmcn += [{"curve": k.label, "colour": colour, **normalise(r, MMCN_KEYS)} for r in k.models.mmcn]
    return {"slo": slo, "mmcn": mmcn}


def cell_rows(cells: list[Cell], pages: dict[str, str]) -> list[dict]:
    out = []
    for c in cells:
        o = _overall
        out.append({"id": c.id, "href": "cells/" + pages[c.id], "status": c.status,
                    "reason": c.reason, "n": layout.users_of(c), "x": o("throughput_per_s")(c),
                    "mean": o("mean_ms")(c), "p90": o("p90_ms")(c), "p99": o("p99_ms")(c),
                    "error_rate": o("error_rate")(c), "window_s": c.window.length_s if c.window else None,
                    "warmup": words.warmup(c.window), "precision": words.precision(c.precision),
                    "stopped": words.stopped(c.stop),
                    "checks_failed": sum(1 for k in c.checks if k.passed is False),
                    "labels": len(c.labels)})  # the cell page holds their table
    return out
