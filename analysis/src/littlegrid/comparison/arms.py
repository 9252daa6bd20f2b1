"""Two arms of one experiment: the cells where an axis takes value A vs value B, paired on the other axes."""

from __future__ import annotations

from littlegrid.summary.model import Summary
from littlegrid.usererror import UserError


def parse_arms(text: str) -> tuple[str, str, str]:
    """`server.tomcat.threads.max=10,100` -> (axis, value A, value B)."""
    axis, sep, values = text.partition("=")
    parts = [v.strip() for v in values.split(",")]
    if not sep or not axis.strip() or len(parts) != 2 or not all(parts):
        raise UserError(f"arms {text!r}: write AXIS=A,B, e.g. server.tomcat.threads.max=10,100")
    return axis.strip(), parts[0], parts[1]


def arm(summary: Summary, axis: str, value: str) -> Summary:
    """A copy of `summary` holding only the cells where `axis` == `value`, without that axis, so that the two arms'
    cells pair on the remaining axes. Cell ids stay as they are: they still name the cells' JTL folders."""
    axes, cells = summary.axes, summary.cells
    if axis not in axes and not any(axis in c.axes for c in cells):
        known = ", ".join(axes) or "none"
        raise UserError(f"arms: the run has no axis {axis!r} (its axes: {known})")
    chosen = [c for c in cells if str(c.axes.get(axis)) == value]
    if not chosen:
        values = ", ".join(str(v) for v in axes.get(axis, [])) or "none"
        raise UserError(f"arms: no cell has {axis} = {value} (its values: {values})")
    run = summary.run.model_copy(update={"id": f"{summary.run.id or 'run'} [{axis}={value}]"})
    return summary.model_copy(update={
        "run": run, "axes": {k: v for k, v in axes.items() if k != axis},
        "cells": [c.model_copy(update={"axes": {k: v for k, v in c.axes.items() if k != axis}}) for c in chosen]})
