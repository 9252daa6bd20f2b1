"""Criteria applied to a summary: one entry per criterion × cell in scope (contract section 5)."""

from __future__ import annotations

import math

from littlegrid.criteria.grammar import ENTRY_UNIT, SCOPE_OPERATORS, Criterion, Scope, parse, quote
from littlegrid.usererror import UserError


def evaluate(criteria: list[str], summary) -> list[dict]:
    """One entry per criterion x cell in scope (contract section 5), in criterion then cell order.

    A figure the summary lacks gives `passed: None` with a `reason`; a scope no cell matches gives one such
    entry with `cell: None`. Malformed criteria and scopes naming an axis the grid lacks raise `UserError`.
    """
    cells = summary.cells
    axes = set(summary.axes) | {a for c in cells for a in c.axes}
    entries = []
    for text in criteria:
        crit = parse(text)
        for cond in crit.scope.where:
            if cond.axis not in axes:
                raise UserError(f"criterion '{crit.text}': the grid has no axis {cond.axis!r} "
                                f"(axes: {', '.join(sorted(axes)) or 'none'})")
        in_scope = [c for c in cells if in_where(crit.scope, c, crit.text)]
        if not in_scope:
            entries.append(_entry(crit, None, None, f"no cell matches {crit.scope}"))
        for cell in in_scope:
            value, reason = measure(crit, cell)
            entries.append(_entry(crit, cell.id, value, reason))
    return entries


def in_where(scope: Scope, cell, text: str = "") -> bool:
    """Whether a cell's axes satisfy every `where` condition (a cell without the axis does not)."""
    cell_axes = cell.axes
    for cond in scope.where:
        if cond.axis not in cell_axes:
            return False
        actual = cell_axes[cond.axis]
        if isinstance(cond.value, float) and not _is_number(actual):
            if cond.op not in ("==", "!="):
                raise UserError(f"criterion '{text}': axis {cond.axis!r} has the value {actual!r}, "
                                f"which {cond.op} cannot compare with a number")
            actual = None  # a text value is never equal to a number
        elif isinstance(cond.value, bool) and not isinstance(actual, bool):
            actual = None  # TOML true is not 1
        if not SCOPE_OPERATORS[cond.op](actual, cond.value):
            return False
    return True


def measure(crit: Criterion, cell) -> tuple[float | None, str | None]:
    """The criterion's figure for one cell (a summary.model.Cell) in canonical units, or (None, why it is missing)."""
    spec = crit.spec
    status = cell.status
    if not spec.per_label:
        checks = [c for c in cell.checks if c.name == spec.key]
        if not checks:
            return None, f"the cell has no {spec.key} check" + _status_note(status)
        rel = checks[0].rel_error
        if not _is_number(rel):
            return None, f"the {spec.key} check could not be made: {checks[0].explanation or 'no value'}"
        return abs(float(rel)), None
    if crit.scope.label is not None:
        stats = cell.labels.get(crit.scope.label)
        where = f"label {quote(crit.scope.label)}"
        if stats is None:
            return None, f"{where} has no samples in this cell" + _status_note(status)
    else:
        stats, where = cell.overall, "the cell"
        if stats is None:
            return None, "the cell has no statistics" + _status_note(status)
    value = getattr(stats, spec.key, None)
    if not _is_number(value):
        return None, f"{where} has no {spec.key} in the summary"
    return (int(value) if spec.kind == "count" else float(value)), None


def _entry(crit: Criterion, cell_id, value, reason) -> dict:
    return {
        "criterion": crit.text,
        "scope": str(crit.scope),
        "cell": cell_id,
        "metric": crit.metric,
        "value": value,
        "threshold": crit.threshold,
        "passed": None if value is None else bool(crit.holds(value)),
        "reason": reason,
        "unit": ENTRY_UNIT[crit.spec.kind],
    }


def _status_note(status) -> str:
    return f" (cell status: {status})" if status not in (None, "complete") else ""


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and not math.isnan(x)
