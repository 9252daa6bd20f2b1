"""The overview page's content: what was run, every criterion and check, heatmaps, curves over users, SLO capacity."""

from __future__ import annotations

from datetime import datetime

from littlegrid.render import charts, fmt, layout
from littlegrid.summary.model import Cell, Record, Summary, UslFit

USL_POINTS = 60  # points of the fitted USL curve between the smallest and largest N


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
            ("trimmed", f"warm-up {fmt.seconds(trim.warmup_s)} and cool-down {fmt.seconds(trim.cooldown_s)} "
                        f"of every cell, counted from the {trim.basis or 'first sample'}"),
            ("server knobs", ", ".join(f"{k} = {v}" for k, v in (run.server_knobs or {}).items()) or "none"),
            ("versions", ", ".join(f"{k} {v}" for k, v in run.versions.items())),
            ("host", ", ".join(f"{k} {_host_value(k, v)}" for k, v in host.items())),
            ("source", run.source), ("inputs", ", ".join(run.inputs))]
    return [(k, "" if v is None else str(v)) for k, v in rows if v not in (None, "", [])]


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


def _usl(n: float, fit: UslFit) -> float | None:
    if None in (fit.lambda_, fit.sigma, fit.kappa):
        return None
    return fit.lambda_ * n / (1 + fit.sigma * (n - 1) + fit.kappa * n * (n - 1))


def throughput_chart(summary: Summary) -> dict | None:
    """X vs N: measured lines per think time, the asymptotic upper bound and the USL fit (dashed); only the
    curves with more than one N (layout.curves_over_users), None when there is none."""
    groups = layout.curves_over_users(summary.cells)
    if not groups:
        return None
    thinks = _think_groups(groups)
    curves, lines = [], []
    for think, facet, cs in groups:
        curves.append(([layout.users_of(c) for c in cs], [_overall("throughput_per_s")(c) for c in cs]))
        lines.append((layout.curve_label(think, facet) + " measured", "points", thinks[think]))
    all_n = [layout.users_of(c) for _, _, cs in groups for c in cs]
    lo, hi = min(all_n), max(all_n)
    for b in _over_users(summary.models.bounds, thinks):
        curves.append(([p.users for p in b.points], [p.x_upper for p in b.points]))
        lines.append((layout.think_label(b.think_ms) + " bound min(N/(D+Z), 1/Dmax)", "dash", thinks.get(b.think_ms)))
    for fit in _over_users(summary.models.usl, thinks):
        if not fit.ok:
            continue
        ns = [lo + (hi - lo) * i / (USL_POINTS - 1) for i in range(USL_POINTS)] if hi > lo else [lo]
        curves.append((ns, [_usl(n, fit) for n in ns]))
        lines.append((layout.think_label(fit.think_ms) + f" USL σ={fmt.num(fit.sigma)} κ={fmt.num(fit.kappa)}",
                      "dot", thinks.get(fit.think_ms)))
    x, ys = charts.align(curves)
    return charts.chart("throughput-vs-users", "Throughput X vs users N", "users N", "X (req/s)", x,
                        [charts.series(lab, y, style=st, group=g) for (lab, st, g), y in zip(lines, ys)],
                        note="Dots joined by lines: measured in the steady window. Dashed: asymptotic bound. "
                             "Dotted: USL fit.")


def _over_users(entries: list, thinks: dict) -> list:
    """The model entries (bounds, USL, knee, SLO capacity) of the think times that have a curve over users."""
    return [e for e in entries if e.think_ms in thinks]


def _think_groups(groups) -> dict:
    thinks: dict = {}
    for think, _, _ in groups:
        thinks.setdefault(think, len(thinks))
    return thinks


def latency_charts(summary: Summary) -> list[dict]:
    """Mean R (with its lower bound) and p50, p90, p99 vs N, one line per think time with more than one N."""
    groups = layout.curves_over_users(summary.cells)
    if not groups:
        return []
    thinks = _think_groups(groups)
    out = []
    for key, title in [("mean_ms", "Mean response time R"), ("p50_ms", "p50"), ("p90_ms", "p90"), ("p99_ms", "p99")]:
        curves = [([layout.users_of(c) for c in cs], [_overall(key)(c) for c in cs]) for _, _, cs in groups]
        labels = [(layout.curve_label(t, f), "points", thinks[t]) for t, f, _ in groups]
        if key == "mean_ms":
            for b in _over_users(summary.models.bounds, thinks):
                curves.append(([p.users for p in b.points], [p.r_lower_ms for p in b.points]))
                labels.append((layout.think_label(b.think_ms) + " bound max(D, N·Dmax − Z)", "dash",
                               thinks.get(b.think_ms)))
        x, ys = charts.align(curves)
        out.append(charts.chart(f"latency-{key}", f"{title} vs users N", "users N", "ms", x,
                                [charts.series(lab, y, style=st, group=g) for (lab, st, g), y in zip(labels, ys)]))
    return out


CHECK_KEYS = ("name", "cell", "value", "expected", "rel_error", "tolerance", "passed", "explanation")
CRITERION_KEYS = ("criterion", "scope", "cell", "metric", "value", "threshold", "passed", "unit")


def normalise(row: Record, keys) -> dict:
    """The fields the templates read, as a plain row."""
    return {k: getattr(row, k) for k in keys}


def model_rows(summary: Summary) -> list[dict]:
    """Bounds, knee and USL fit of each think time on one row (the numbers behind the dashed curves), for the
    think times with a curve over users only."""
    m = summary.models
    thinks = _think_groups(layout.curves_over_users(summary.cells))
    rows: dict = {}
    for b in _over_users(m.bounds, thinks):
        rows.setdefault(b.think_ms, {}).update(d_ms=b.d_ms, d_max_ms=b.d_max_ms, n_star=b.n_star)
    for k in _over_users(m.knee, thinks):
        rows.setdefault(k.think_ms, {})["knee"] = k.users
    for u in _over_users(m.usl, thinks):
        rows.setdefault(u.think_ms, {}).update(
            sigma=u.sigma, kappa=u.kappa, r2=u.r2, n_peak=u.n_peak,
            usl_note="" if u.ok else (u.reason or "no fit"), **{"lambda": u.lambda_})
    keys = ("d_ms", "d_max_ms", "n_star", "knee", "sigma", "kappa", "lambda", "r2", "n_peak", "usl_note")
    return [{"think_ms": z, **{k: r.get(k) for k in keys}} for z, r in rows.items()]


MMCN_KEYS = ("think_ms", "users", "servers", "service_ms", "predicted_x", "measured_x", "rel_error",
             "predicted_r_ms", "measured_r_ms")
SLO_KEYS = ("criterion", "think_ms", "max_users", "how")


def model_tables(summary: Summary) -> dict:
    """SLO capacity (per curve over users) and the exact M/M/c//N predictions (for a grid) as rows; empty where
    the run has no such curve or is a single point."""
    m, cells = summary.models, summary.cells
    thinks = _think_groups(layout.curves_over_users(cells))
    return {"slo": [normalise(r, SLO_KEYS) for r in _over_users(m.slo_capacity, thinks)],
            "mmcn": [normalise(r, MMCN_KEYS) for r in m.mmcn] if layout.is_grid(cells) else []}


def cell_rows(cells: list[Cell], pages: dict[str, str]) -> list[dict]:
    out = []
    for c in cells:
        o = _overall
        out.append({"id": c.id, "href": "cells/" + pages[c.id], "status": c.status,
                    "reason": c.reason, "n": layout.users_of(c), "x": o("throughput_per_s")(c),
                    "mean": o("mean_ms")(c), "p90": o("p90_ms")(c), "p99": o("p99_ms")(c),
                    "error_rate": o("error_rate")(c), "window_s": c.window.length_s if c.window else None,
                    "checks_failed": sum(1 for k in c.checks if k.passed is False),
                    "labels": len(c.labels)})  # the cell page holds their table
    return out
