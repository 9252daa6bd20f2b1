"""Criteria results, findings with their evidence, the headline and the grid's expectations."""

from __future__ import annotations

from littlegrid.summary.model.base import AxisValue, Record


class CriterionResult(Record):
    """One criterion in one cell of its scope (cell null: no cell in scope, passed null: not evaluated)."""
    criterion: str
    scope: str
    cell: str | None
    metric: str
    value: float | None
    threshold: float
    passed: bool | None
    reason: str | None
    unit: str


class Evidence(Record):
    name: str
    value: float | None
    unit: str
    cell: str | None


class Finding(Record):
    """group: "answer" (what limits the system and where requests wait), "trust" (whether the figures can be
    taken as they stand) or "action" (what to do next); minor: folded under its group's first findings; curve: the
    key of the curve it is about (its evidence: that curve's charts), null when it is about no one curve."""
    kind: str
    statement: str
    standing: str
    why: str
    where: dict[str, AxisValue]
    cells: list[str]
    figures: dict[str, float | str | None]
    evidence: list[Evidence]
    recommendation: str | None
    resource: str | None
    group: str = "answer"
    minor: bool = False
    curve: str | None = None


class Headline(Record):
    """The answer in at most two sentences, composed from the findings (their indexes in `findings`): what limits
    throughput, at what rate and where the rest wait; then what changes or completes it (a reason not to trust the
    figures, the arms' choice, the other curves, the checks). Older summaries may hold three."""
    sentences: list[str]
    findings: list[int]
    # the cells whose figures those findings cite (their Finding.cells), in the summary's cell order: the report's
    # first chart rings them; empty in summaries written before it was recorded
    cells: list[str] = []


class Expectation(Record):
    expectation: str
    passed: bool | None
    explanation: str
    findings: list[str | None]
