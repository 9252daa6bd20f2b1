"""The typed result of a baseline gate, RUN/baseline.json (schema littlegrid.baseline/1): the relative criteria judged
cell by cell against a baseline run, each with both figures, the regression and its 95% interval, what the interval
was made of, and the verdict; and the gate's notes. littlegrid.history.gate judges the rows, `littlegrid check
--baseline` writes the file (its one owner: the gate is check's, not analyze's, so summary.json stays analyze's), and
every place that shows the gate reads it: check's lines and JUnit messages, RUN/baseline.md and the report's
"Against the baseline" section (Markdown and HTML). Each shown string comes from one method here, so the Markdown, the
HTML and the console never word or round the same number twice.

A regression is the change in the bad direction (+ is worse: a time or the error rate up, throughput down), as a
fraction of the baseline for "%" criteria, of all samples for "points" (percentage points of the error rate)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from littlegrid.atomic import write_atomic
from littlegrid.summary.model import Record

SCHEMA = "littlegrid.baseline/1"
NAME = "baseline.json"  # in the run folder, beside summary.json
NO_BASELINE = "no baseline"  # why a grid's relative criterion is not judged when `check` is given none


def margin_text(unit: str, margin: float) -> str:
    """"10%", "0.5 points": a margin as a relative criterion writes it."""
    shown = f"{margin * 100:.4g}"
    return f"{shown}%" if unit == "%" else f"{shown} points"


def change_text(unit: str, change: float | None) -> str:
    """A regression in its criterion's unit: "+12.3%", "-0.20 points"."""
    if change is None:
        return "unknown"
    return f"{change:+.1%}" if unit == "%" else f"{change * 100:+.2f} points"


def not_judged(reason: str) -> str:
    """The verdict of a criterion the gate could not judge: "not judged: no baseline"."""
    return f"not judged: {reason}"


class BaselineRow(Record):
    """One relative criterion on one cell: both figures, the regression (+ is worse) with its 95% interval, what the
    interval was made of, and whether the criterion holds (null: not judged, `reason` says why). It fails only when
    the whole interval lies past the margin (docs/history.md)."""
    criterion: str  # as written: "p90 regress < 10% where users >= 10"
    cell: str
    metric: str  # the criterion's metric name: p90, throughput, error_rate
    unit: str  # "%" | "points"
    baseline: float | None  # the baseline run's figure (ms, per second, or a fraction for the error rate)
    value: float | None  # this run's
    regression: float | None
    lo: float | None  # the regression's 95% interval
    hi: float | None
    margin: float  # in the regression's unit: 0.1 for 10%, 0.005 for 0.5 points
    noise_runs: int  # comparable earlier runs holding this cell's metric
    noise_needed: int  # the comparable earlier runs the history must hold before their spread is used (K_MIN)
    noise_used: bool  # the interval includes the history's run-to-run spread (noise_runs >= noise_needed)
    passed: bool | None
    reason: str | None

    def shown(self, figure: float | None) -> str:
        """A figure in its unit: "110 ms", "19.5/s", "0.2%"."""
        if figure is None:
            return "none"
        if self.metric == "error_rate":
            return f"{figure * 100:.3g}%"
        return f"{figure:.4g}/s" if self.metric == "throughput" else f"{figure:.4g} ms"

    def change_text(self, change: float | None) -> str:
        return change_text(self.unit, change)

    def interval_text(self) -> str:
        """"+18.0% to +41.2%", or "none" when the regression has no interval."""
        if self.lo is None or self.hi is None:
            return "none"
        return f"{self.change_text(self.lo)} to {self.change_text(self.hi)}"

    def noise_text(self) -> str:
        if self.noise_used:
            return f"with the run-to-run noise of {self.noise_runs} earlier runs"
        return (f"within-run interval only: the history holds {self.noise_runs} comparable earlier "
                f"run{'s' * (self.noise_runs != 1)} of this cell, {self.noise_needed} needed for its noise")

    def noise_short(self) -> str:
        """The table's column: "5 runs", "within-run only (2 runs)"."""
        return f"{self.noise_runs} runs" if self.noise_used else f"within-run only ({self.noise_runs} runs)"

    @property
    def awaits_noise(self) -> bool:
        """Measured but not judged: the history does not hold the run-to-run noise yet (history/gate.py says why
        within-run intervals alone cannot fail a build)."""
        return self.passed is None and self.regression is not None

    def verdict(self) -> str:
        margin = margin_text(self.unit, self.margin)
        return {None: not_judged(self.reason or "unknown"), True: f"not shown beyond {margin}",
                False: f"regressed beyond {margin}"}[self.passed]

    def message(self) -> str:
        """One line: `p90 regress < 10% [users=20]: p90 110 ms -> 142 ms, regression +29.1% (95% interval +18.0%
        to +41.2%, with the run-to-run noise of 5 earlier runs): regressed beyond 10%`; before the history holds
        the noise, `(95% interval …, within-run only): not judged: the history holds 1 comparable earlier run …`."""
        head = f"{self.criterion} [{self.cell}]"
        if self.regression is None:
            return f"{head}: {self.verdict()}"
        held = self.noise_text() if self.noise_used else "within-run only"
        return (f"{head}: {self.metric} {self.shown(self.baseline)} -> {self.shown(self.value)}, regression "
                f"{self.change_text(self.regression)} (95% interval {self.interval_text()}, {held}): "
                f"{self.verdict()}")


class Baseline(Record):
    """The gate of one run: against which baseline (null: none yet, the notes say why), with which criteria, each
    (criterion, cell) judged, and the notes (cells only one run has, the target's change, another kind of host)."""
    schema_: str = Field(alias="schema")
    run_id: str
    baseline_id: str | None
    criteria: list[str]
    rows: list[BaselineRow]
    notes: list[str]

    @property
    def failed(self) -> int:
        return sum(r.passed is False for r in self.rows)

    def verdict_text(self) -> str:
        """"2 of 6 regressed beyond their margin", "none of 6 regressed beyond its margin", "not judged: …"."""
        if self.baseline_id is None:
            return not_judged(self.notes[0] if self.notes else NO_BASELINE)
        unjudged = sum(r.passed is None for r in self.rows)
        tail = f"; {unjudged} not judged" if unjudged else ""
        n = len(self.rows)
        if self.failed:
            return f"{self.failed} of {n} regressed beyond their margin{tail}"
        return f"none of {n} regressed beyond {'its' if n == 1 else 'their'} margin{tail}"


def write(record: Baseline, folder: Path) -> Path:
    """RUN/baseline.json, whole or not at all."""
    return write_atomic(Path(folder) / NAME, record.model_dump_json(by_alias=True, indent=1) + "\n",
                        "the baseline gate's result")


def read(path: Path) -> Baseline:
    """A baseline.json as the typed record; another schema or a broken file refused in one line naming it."""
    from littlegrid.summary import read_record
    return read_record(path, SCHEMA, Baseline, "file",
                       lambda found: "; `littlegrid check --baseline` writes it again")


def of_run(folder: Path | None, run_id: str) -> Baseline | None:
    """The gate `check` kept in a run folder for this run, or None (none kept, or one of another run copied in)."""
    if folder is None or not (Path(folder) / NAME).is_file():
        return None
    record = read(Path(folder) / NAME)
    return record if record.run_id == run_id else None
