"""`littlegrid check RUN --baseline BASE`: the history read (or a run folder), the run judged against it by
history/verdict.py (the series' reference set, or one run; the noise with its prior; persistent shifts), its typed
record (summary/baseline.py) and its table written, and the run's verdict (passed, failed or unjudged) kept in the
history."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from littlegrid import summary as summary_file
from littlegrid.atomic import write_atomic
from littlegrid.criteria import relative
from littlegrid.history import series as run_series, store as history_store, verdict as judging
from littlegrid.history.record import record
from littlegrid.history.store import RunRecord, Store
from littlegrid.render import baseline as baseline_table
from littlegrid.summary import baseline as baseline_record
from littlegrid.summary.baseline import Baseline
from littlegrid.summary.model import Summary
from littlegrid.usererror import UserError

LAST_PASS = relative.LAST_PASS


@dataclass
class Gate:
    """A judged gate: the judgement (its rows as check's outcomes read them), the run, where to keep the verdict."""
    candidate: RunRecord
    judgement: judging.Judgement = field(default_factory=judging.Judgement)
    store: Store | None = None
    criteria: list[str] = field(default_factory=list)  # the relative criteria judged, as written

    @property
    def results(self):
        return self.judgement.rows

    @property
    def notes(self) -> list[str]:
        return self.judgement.notes

    @property
    def reference(self) -> list[RunRecord]:
        return self.judgement.reference

    def verdict(self, others_failed: bool) -> str:
        return self.judgement.verdict(others_failed)

    def record(self, verdict: str) -> Baseline:
        """The gate as RUN/baseline.json keeps it, for the table, the report and nothing else to judge again."""
        j = self.judgement
        return Baseline(schema=baseline_record.SCHEMA, run_id=self.candidate.run_id,
                        series=self.candidate.series if self.store is not None else None,
                        reference=[r.run_id for r in j.reference], reference_kind=j.reference_kind,
                        criteria=list(self.criteria), rows=list(j.rows), notes=list(j.notes), verdict=verdict)


def criteria_of(summary: Summary, texts: list[str]) -> list[str]:
    """The relative criteria a gate judges: --criterion's, then the grid's (summary.run.relative_criteria); the
    defaults (relative.DEFAULTS) when neither gives one."""
    given = list(texts) + [t for t in summary.run.relative_criteria if t not in texts]
    return given or list(relative.DEFAULTS)


def open_gate(summary_path: Path, summary: Summary, base: str, texts: list[str], *, db: str | None,
              allow_other_host: bool, allow_other_plan: bool = False,
              reference_runs: int = run_series.REFERENCE_RUNS) -> Gate:
    """Judge the run against `base` with the relative criteria `texts` and the grid's (criteria_of)."""
    wanted = criteria_of(summary, texts)
    criteria = [relative.parse(t) for t in wanted]
    if reference_runs < 1:
        raise UserError(f"--reference-runs {reference_runs}: the reference is the median of at least 1 run")
    allowed = (set(judging.PLAN_KINDS) if allow_other_plan else set()) | ({"host"} if allow_other_host else set())
    out = Gate(candidate=record(summary, summary_path), store=_history(db, needed=base == LAST_PASS),
               criteria=wanted)
    try:
        history = out.store.runs(figures=True) if out.store is not None else []
        if base == LAST_PASS:
            out.judgement = judging.against_series(out.candidate, history, criteria, allowed=allowed,
                                                   k=reference_runs, where=db or history_store.DEFAULT)
        else:
            base_path = summary_file.locate(base)
            baseline = record(summary_file.read(base_path), base_path)
            if run_series.grid_of(baseline) != run_series.grid_of(out.candidate):
                raise UserError(f"baseline {baseline.run_id} is not comparable with {out.candidate.run_id}: another "
                                f"grid ({run_series.grid_of(baseline)} vs {run_series.grid_of(out.candidate)})")
            out.judgement = judging.against_run(out.candidate, baseline, history, criteria, allowed=allowed)
            for kind, words in run_series.differences(out.candidate, baseline) if out.judgement.reference else []:
                warning = f"{words}: compared anyway" + (
                    " (--allow-other-host): the run-to-run noise measured on one kind of host does not cover the "
                    "other; a difference may be the host's" if kind == "host" else " (--allow-other-plan)")
                print(f"WARNING: {warning}", file=sys.stderr)
                out.judgement.notes.append(warning)
    except UserError:
        if out.store is not None:
            out.store.close()
        raise
    return out


def _history(db: str | None, *, needed: bool) -> Store | None:
    """The history named by --db, else the default file when it exists; None when there is none and none is needed."""
    if db is None and not needed and not Path(history_store.DEFAULT).is_file():
        return None
    return history_store.open_store(db, create=False)


def keep_verdict(g: Gate, verdict: str) -> str | None:
    """The run's verdict kept in the history (the series' reference set reads it), the series' first run accepted
    as its reference when it did not fail; a line saying what happened, or None."""
    if g.store is None:
        return None
    try:
        if g.store.set_gate(g.candidate.key, verdict, g.judgement.accepted(verdict)):
            return None
        return (f"{g.candidate.run_id} is not in the history: its verdict is not kept (`analyze --history` or "
                f"`littlegrid history add` records it first)")
    finally:
        g.store.close()


def write_record(g: Gate, summary_path: Path, verdict: str) -> list[Path]:
    """The gate's typed record, RUN/baseline.json (what the report's section reads), and its table as Markdown,
    RUN/baseline.md (read from that record: the same strings)."""
    folder = summary_path.parent
    kept = g.record(verdict)
    table = baseline_table.markdown(kept, baseline_table.SECTION)
    return [baseline_record.write(kept, folder),
            write_atomic(folder / "baseline.md", table.encode("utf-8"), "the baseline table")]
