"""The typed result of a baseline gate, RUN/baseline.json (schema littlegrid.baseline/2): the relative criteria judged
cell by cell against a reference (the median of the series' last accepted runs, or a run folder), each with both
figures, the regression and its 95% interval, the run-to-run noise it holds (prior or measured, and on how many
degrees of freedom), the smallest regression it could have detected, any persistent shift the series' change points
show, and the verdict; and the gate's notes. littlegrid.history.gate judges the rows, `littlegrid check --baseline`
writes the file (its one owner: the gate is check's, not analyze's, so summary.json stays analyze's), and every place
that shows the gate reads it: check's lines and JUnit messages, RUN/baseline.md and the report's "Against the
baseline" section (Markdown and HTML). Each shown string comes from one method here, so the Markdown, the HTML and
the console never word or round the same number twice.

A regression is the change in the bad direction (+ is worse: a time or the error rate up, throughput down), as a
fraction of the reference for "%" criteria, of all samples for "points" (percentage points of the error rate)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from littlegrid.atomic import write_atomic
from littlegrid.summary.model import Record

SCHEMA = "littlegrid.baseline/2"  # 2: a reference set, the noise's prior and degrees of freedom, detectable sizes, shifts
NAME = "baseline.json"  # in the run folder, beside summary.json
NO_BASELINE = "no baseline"  # why a grid's relative criterion is not judged when `check` is given none
VERDICTS = ("passed", "failed", "unjudged")


def margin_text(unit: str, margin: float) -> str:
    """"10%", "0.5 points": a margin as a relative criterion writes it."""
    shown = f"{margin * 100:.4g}"
    return f"{shown}%" if unit == "%" else f"{shown} points"


def change_text(unit: str, change: float | None) -> str:
    """A regression in its criterion's unit: "+12.3%", "-0.20 points"."""
    if change is None:
        return "unknown"
    return f"{change:+.1%}" if unit == "%" else f"{change * 100:+.2f} points"


def size_text(unit: str, size: float | None) -> str:
    """A detectable size: "14%", "0.31 points"."""
    if size is None:
        return "unknown"
    return f"{size:.0%}" if unit == "%" and size >= 0.095 else (f"{size:.1%}" if unit == "%" else
                                                                  f"{size * 100:.2f} points")


def not_judged(reason: str) -> str:
    """The verdict of a criterion the gate could not judge: "not judged: no baseline"."""
    return f"not judged: {reason}"


class Shift(Record):
    """A persistent shift of one cell's metric across the series (history/shifts.py): the level since the change
    points against the level the series started at (or was pinned at), as a regression with its 95% interval, and
    whether it lies wholly past the criterion's margin."""
    since_run: str  # the run at the first change point: where the shift started
    since_commit: str | None
    runs_after: int  # runs at the new level, this one included
    runs_before: int  # runs at the starting level
    change_points: int
    regression: float
    lo: float
    hi: float
    beyond: bool


class BaselineRow(Record):
    """One relative criterion on one cell: the reference's figure (the median of `reference_runs` runs) and this
    run's, the regression (+ is worse) with its 95% interval, the run-to-run noise in it, the smallest regression
    this comparison detects (80% power), any persistent shift, and whether the criterion holds (null: not judged,
    `reason` says why). It fails when the whole interval lies past the margin, or when a persistent shift does
    (docs/history.md)."""
    criterion: str  # as written: "p90 regress < 10% where users >= 10"
    cell: str
    metric: str  # the criterion's metric name: p90, throughput, error_rate
    unit: str  # "%" | "points"
    baseline: float | None  # the reference's figure (ms, per second, or a fraction for the error rate)
    value: float | None  # this run's
    regression: float | None
    lo: float | None  # the regression's 95% interval
    hi: float | None
    margin: float  # in the regression's unit: 0.1 for 10%, 0.005 for 0.5 points
    reference_runs: int  # the runs the reference is the median of (1: a run folder, or a series' first run)
    noise_sd: float | None  # σ_b: the between-run spread in the interval (log scale, or points)
    noise_df: float | None  # its degrees of freedom (prior and measured)
    noise_source: str | None  # "prior" | "prior and measured" | "measured"
    noise_words: str | None  # what the noise is and where it came from, in one clause
    detectable: float | None  # the smallest regression this comparison fails with 80% power
    shift: Shift | None = None
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

    def noise_short(self) -> str:
        """The table's column: "prior", "measured, 14 df"."""
        if self.noise_source is None:
            return "none"
        return f"{self.noise_source}, {self.noise_df:.0f} df"

    def detectable_text(self) -> str:
        """"detects ≥ 14%": the smallest regression this comparison fails with 80% power."""
        return f"detects ≥ {size_text(self.unit, self.detectable)}" if self.detectable is not None else "—"

    def shift_text(self) -> str:
        """"persistent shift +21.3% (+15.0% to +27.9%) since run r3 (3 runs at the new level)", or ""."""
        if self.shift is None:
            return ""
        s = self.shift
        return (f"persistent shift {self.change_text(s.regression)} ({self.change_text(s.lo)} to "
                f"{self.change_text(s.hi)}) since run {s.since_run} ({s.runs_after} run{'s' * (s.runs_after != 1)} "
                f"at the new level)")

    def verdict(self) -> str:
        margin = margin_text(self.unit, self.margin)
        if self.passed is None:
            return not_judged(self.reason or "unknown")
        if self.passed:
            return f"not shown beyond {margin}"
        beyond_now = self.lo is not None and self.regression is not None and self.lo >= self.margin
        if self.shift is not None and self.shift.beyond and not beyond_now:
            return f"persistent shift beyond {margin}"
        return f"regressed beyond {margin}"

    def verdict_line(self) -> str:
        """The verdict with the persistent shift when there is one: the table's last column."""
        return self.verdict() + (f"; {self.shift_text()}" if self.shift is not None else "")

    def message(self) -> str:
        """One line: `p90 regress < 10% [users=20]: p90 110 ms (median of 3 runs) -> 142 ms, regression +29.1%
        (95% interval +18.0% to +41.2%; noise σ_b 2.1% (…); detects ≥ 14%): regressed beyond 10%`."""
        head = f"{self.criterion} [{self.cell}]"
        if self.regression is None:
            return f"{head}: {self.verdict()}"
        of = f" (median of {self.reference_runs} runs)" if self.reference_runs > 1 else ""
        shift = f"; {self.shift_text()}" if self.shift is not None else ""
        return (f"{head}: {self.metric} {self.shown(self.baseline)}{of} -> {self.shown(self.value)}, regression "
                f"{self.change_text(self.regression)} (95% interval {self.interval_text()}; noise "
                f"{self.noise_words}; {self.detectable_text()}{shift}): {self.verdict()}")


class Baseline(Record):
    """The gate of one run: its series, the reference it was judged against (the runs whose median is the reference;
    empty: none, the notes say why), with which criteria, each (criterion, cell) judged, the overall verdict
    (passed, failed, unjudged) and the notes (a new series, cells only one run has, the target's change, another
    kind of host, what each criterion could have detected)."""
    schema_: str = Field(alias="schema")
    run_id: str
    series: str | None  # the series key (history/series.py); null: judged against a run folder without a history
    reference: list[str]  # the reference runs' ids, oldest first
    reference_kind: str  # "run folder" | "series" | "none"
    criteria: list[str]
    rows: list[BaselineRow]
    notes: list[str]
    verdict: str  # VERDICTS: the gate's part of the run's verdict (check adds the absolute criteria)

    @property
    def baseline_id(self) -> str | None:
        """How the reference is named: "r1", "median of r3, r4, r5"; None without one."""
        if not self.reference:
            return None
        return self.reference[0] if len(self.reference) == 1 else "median of " + ", ".join(self.reference)

    @property
    def failed(self) -> int:
        return sum(r.passed is False for r in self.rows)

    def verdict_text(self) -> str:
        """"2 of 6 regressed beyond their margin", "none of 6 regressed beyond its margin", "not judged: …"."""
        if not self.reference:
            return not_judged(self.notes[0] if self.notes else NO_BASELINE)
        unjudged = sum(r.passed is None for r in self.rows)
        tail = f"; {unjudged} not judged" if unjudged else ""
        n = len(self.rows)
        if self.failed:
            return f"{self.failed} of {n} regressed beyond their margin{tail}"
        return f"none of {n} regressed beyond {'its' if n == 1 else 'their'} margin{tail}"

    def detectable_lines(self) -> list[str]:
        """Per criterion, what this comparison could have detected: "p90 regress < 10%: detects p90 regressions of
        14% or more (12% to 19% over 6 cells); noise σ_b 2.1% (prior …)"."""
        out = []
        for criterion in dict.fromkeys(r.criterion for r in self.rows):
            rows = [r for r in self.rows if r.criterion == criterion and r.detectable is not None]
            if not rows:
                continue
            sizes = sorted(r.detectable for r in rows)
            unit, metric = rows[0].unit, rows[0].metric
            what = {"throughput": "throughput falls", "error_rate": "error rate increases"}.get(
                metric, f"{metric} regressions")
            median = sizes[len(sizes) // 2]
            spread = (f" ({size_text(unit, sizes[0])} to {size_text(unit, sizes[-1])} over {len(sizes)} cells)"
                      if len(sizes) > 1 and sizes[0] != sizes[-1] else "")
            out.append(f"{criterion}: this comparison detects {what} of {size_text(unit, median)} or more{spread}; "
                       f"noise {rows[0].noise_words}")
        return out


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
