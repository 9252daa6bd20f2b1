"""The run and the whole summary: host facts, unfinished cells, the run record, the trim, and Summary itself."""

from __future__ import annotations

from pydantic import Field
from littlegrid.summary.model.base import AxisValue, Record
from littlegrid.summary.model.cell import Cell, Check, TargetPlacement
from littlegrid.summary.model.curves import Curve
from littlegrid.summary.model.findings import CriterionResult, Expectation, Finding, Headline


class HostFacts(Record):
    hostname: str | None = None
    cpus: int | None = None
    memory_bytes: int | None = None
    os: str | None = None
    boot_time_s: float | None = None  # the kernel's boot time (epoch s): null in older run folders


class Unfinished(Record):
    """A run folder whose grid stopped before every cell ran to its end (interrupted, killed, or still running):
    the cells that did (complete or failed) out of the grid's, why it stopped, and the command that finishes it."""
    cells_finished: int
    cells_total: int
    reason: str | None
    resume: str

    def text(self) -> str:
        return (f"incomplete run: {self.cells_finished} of {self.cells_total} cells finished"
                + (f" ({self.reason})" if self.reason else "") + f"; finish it with `{self.resume}`")


class Run(Record):
    """What was run: from the run folder's manifest and grid, or the JTL files' names (source "jtl")."""
    id: str
    grid_name: str | None
    plan: str | None
    description: str | None
    arms: str | None
    expect: list[str]
    started: str | None
    ended: str | None
    versions: dict[str, str | None]
    host: HostFacts
    server_knobs: dict[str, AxisValue] | None
    source: str
    inputs: list[str]
    unfinished: Unfinished | None = None  # null: every cell ran to its end (or no grid: JTL files)
    # the CPUs the sample server was pinned to ([server] cpus) and those JMeter ran on; null: both ran anywhere
    server_cpus: list[int] | None = None
    generator_cpus: list[int] | None = None
    # whether the runner started the sample server on the host it measured ([server] start = true); false: the
    # target was a server elsewhere, the host's CPU is the generator's; null: not said (JTL files, a grid with neither)
    server_started: bool | None = None
    target: TargetPlacement | None = None  # null: not recorded (JTL files, older run folders)
    # the grid's relative criteria as written ("p90 regress < 10%"): `check --baseline` judges them against a
    # baseline run; analyze cannot (one run), and `check` without a baseline reports them not judged
    relative_criteria: list[str] = []


class Trim(Record):
    """The warm-up and cool-down applied (null: they differ per cell, see each cell's window)."""
    warmup_s: float | None
    cooldown_s: float | None
    basis: str


class Summary(Record):
    schema_: str = Field(alias="schema")
    littlegrid_version: str
    run: Run
    trim: Trim
    axes: dict[str, list[AxisValue]]
    tolerances: dict[str, float]
    cells: list[Cell]
    curves: list[Curve]
    checks: list[Check]
    criteria: list[CriterionResult]
    findings: list[Finding]
    headline: Headline | None = None
    expectations: list[Expectation]
