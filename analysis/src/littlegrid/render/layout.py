"""Where each cell sits in the grid: users, think time, its facet, page file names, heatmap tables.
Which cells form a curve (Summary.curves) and which facet a cell is in (Cell.facet) are the analysis's; nothing here
groups cells by a rule of its own."""

from __future__ import annotations

import re
from collections.abc import Callable

from littlegrid.summary.model import Cell, Check

USERS, THINK = "users", "think_ms"
COLOUR_STEPS = 10  # heatmap colour classes q0..q9 (classes, not inline styles: the CSP allows no style attributes)


def users_of(cell: Cell):
    """N as the analysis counted it (threads × engines), else the axis value."""
    return cell.users.n if cell.users is not None else cell.axes.get(USERS)


def think_of(cell: Cell):
    """The think-time axis value, else the intended think time."""
    return cell.axes[THINK] if THINK in cell.axes else cell.intended.think_ms


def think_label(think) -> str:
    return "no think time set" if think is None else f"Z = {think:g} ms" if isinstance(think, (int, float)) else f"Z = {think}"


def is_grid(cells: list[Cell]) -> bool:
    """Whether the cells lie at more than one point of the grid (users, think time, facet): the grid-only
    sections (heatmaps, M/M/c//N beside the measurement) show nothing worth a table for a single point."""
    return len({(str(users_of(c)), str(think_of(c)), c.facet) for c in cells}) > 1


def page_names(cells: list[Cell]) -> dict[str, str]:
    """Cell id -> file name under cells/: only safe characters, unique even when two ids slug alike."""
    names, used = {}, set()
    for c in cells:
        base = re.sub(r"[^A-Za-z0-9._=,-]", "_", c.id)[:120].lstrip(".") or "cell"
        name, i = base, 2
        while name.lower() in used:
            name, i = f"{base}~{i}", i + 1
        used.add(name.lower())
        names[c.id] = name + ".html"
    return names


def check_named(cell: Cell, prefix: str) -> Check | None:
    """The cell's first check whose normalised name starts with `prefix` (e.g. "closed_law")."""
    for chk in cell.checks:
        if re.sub(r"[^a-z0-9]+", "_", chk.name.lower()).startswith(prefix):
            return chk
    return None


def _colour_class(value, lo: float, hi: float) -> str:
    if value is None:
        return "qna"
    if hi <= lo:
        return "q0"
    step = int((value - lo) / (hi - lo) * COLOUR_STEPS)
    return f"q{min(COLOUR_STEPS - 1, max(0, step))}"


def _rate_class(value) -> str:
    """A rate whose size means something by itself (error rate, closed-law error), on a fixed scale rather than the
    grid's range: class k for k % to (k+1) %, any rate above 0 at least class 1, 9 % or more the darkest. So 0.1 %
    of errors everywhere looks light, as it is, never as alarming as 50 %; docs/report.md, "Heatmap colours"."""
    if value is None:
        return "qna"
    if value <= 0:
        return "q0"
    percent = round(value * 100, 6)  # rounded: 0.07 × 100 is 7.000000000000001 and 0.29 × 100 is 28.999999999999996
    return f"q{max(1, min(COLOUR_STEPS - 1, int(percent)))}"


def heatmaps(cells: list[Cell], metric: Callable[[Cell], float | None], fmt: Callable[[float], str],
             pages: dict[str, str], *, from_zero: bool = False) -> list[dict]:
    """One table per facet (Cell.facet, as the analysis recorded it): rows = think times, columns = users, each cell
    coloured by `metric`.

    The colour scale spans the whole grid (all facets) so that tables compare; `from_zero` marks a rate whose
    size means something by itself, coloured one class per percentage point from 0 instead (_rate_class).
    """
    values = [v for v in (metric(c) for c in cells) if v is not None]
    lo = min(values) if values else 0.0
    hi = max(values) if values else 0.0
    tables: dict[str, dict] = {}
    for c in cells:
        t = tables.setdefault(c.facet, {"facet": c.facet or "", "users": [], "thinks": [], "at": {}})
        u, z = users_of(c), think_of(c)
        if u not in t["users"]:
            t["users"].append(u)
        if z not in t["thinks"]:
            t["thinks"].append(z)
        v = metric(c)
        cls = _rate_class(v) if from_zero else _colour_class(v, lo, hi)
        t["at"].setdefault((z, u), []).append({"text": "—" if v is None else fmt(v), "cls": cls,
                                              "href": "cells/" + pages[c.id], "cell": c.id,
                                              "status": c.status})
    out = []
    for t in tables.values():
        users = sorted(t["users"], key=_sort_key)
        thinks = sorted(t["thinks"], key=_sort_key)
        out.append({"facet": t["facet"], "users": users, "rows": [
            {"think": think_label(z), "cells": [t["at"].get((z, u), []) for u in users]} for z in thinks]})
    return out


def _sort_key(v):
    return (0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v))
