"""Two arms of one experiment: the cells where an axis takes value A vs value B, paired on the other axes."""

from __future__ import annotations

from littlegrid.summary.model import Cell, Summary
from littlegrid.usererror import UserError


def parse_arms(text: str) -> tuple[str, str, str]:
    """`server.tomcat.threads.max=10,100` -> (axis, value A, value B)."""
    axis, sep, values = text.partition("=")
    parts = [v.strip() for v in values.split(",")]
    if not sep or not axis.strip() or len(parts) != 2 or not all(parts):
        raise UserError(f"arms {text!r}: write AXIS=A,B, e.g. server.tomcat.threads.max=10,100")
    return axis.strip(), parts[0], parts[1]


def arm(summary: Summary, axis: str, value: str) -> Summary:
    """A copy of `summary` holding only the finished cells where `axis` == `value`, without that axis, so that the two
    arms' cells pair on the remaining axes. Cell ids stay as they are: they still name the cells' JTL folders."""
    axes, cells = summary.axes, summary.cells
    if axis not in axes and not any(axis in c.axes for c in cells):
        known = ", ".join(axes) or "none"
        raise UserError(f"arms: the run has no axis {axis!r} (its axes: {known})")
    chosen = [c for c in finished(cells) if str(c.axes.get(axis)) == value]
    if not chosen:
        raise UserError(f"arms: {_no_cell(summary, axis, [value])}")
    run = summary.run.model_copy(update={"id": f"{summary.run.id or 'run'} [{axis}={value}]"})
    return summary.model_copy(update={
        "run": run, "axes": {k: v for k, v in axes.items() if k != axis},
        "cells": [c.model_copy(update={"axes": {k: v for k, v in c.axes.items() if k != axis}}) for c in chosen]})


def finished(cells: list[Cell]) -> list[Cell]:
    """The cells that ran to their end: an interrupted run's last cell and those after it are "incomplete" (their
    axes unknown when they never started) and belong to no arm yet."""
    return [c for c in cells if c.status != "incomplete"]


def arm_without_cells(summary: Summary, text: str) -> str | None:
    """Why the two arms (AXIS=A,B) cannot be compared, in one line, when an arm has no finished cell (a run
    interrupted before or during it); None when both have cells."""
    axis, value_a, value_b = parse_arms(text)
    have = _values(finished(summary.cells), axis)
    empty = [v for v in (value_a, value_b) if v not in have]
    if not empty:
        return None
    return f"the arms {axis} = {value_a} vs {value_b} are not compared: {_no_cell(summary, axis, empty)}"


def _values(cells: list[Cell], axis: str) -> list[str]:
    """The values `axis` takes in `cells`, in first-seen order, as the arms' text names them."""
    return list(dict.fromkeys(str(c.axes[axis]) for c in cells if axis in c.axes))


def _no_cell(summary: Summary, axis: str, values: list[str]) -> str:
    """"no finished cell has AXIS = V (the finished cells' values: ...)", said with "yet" for an unfinished run."""
    have = ", ".join(_values(finished(summary.cells), axis)) or "none"
    yet = " yet" if summary.run.unfinished is not None else ""
    return f"no finished cell has {axis} = {' or '.join(values)}{yet} (the finished cells' values: {have})"
