"""`littlegrid check RUN --baseline BASE`: the baseline found (a run folder, or the history's last run of the grid that
passed), refused when it is not comparable, the relative criteria (the grid's and --criterion's) judged by the gate
(history/gate.py) beyond the noise the history holds, its typed record (summary/baseline.py) and its table written,
and the run's verdict kept in the history."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from littlegrid import summary as summary_file
from littlegrid.atomic import write_atomic
from littlegrid.criteria import relative
from littlegrid.history import gate, store as history_store
from littlegrid.history.record import record
from littlegrid.history.store import RunRecord, Store
from littlegrid.render import baseline as baseline_table
from littlegrid.summary import baseline as baseline_record
from littlegrid.summary.baseline import Baseline, BaselineRow
from littlegrid.summary.model import Summary
from littlegrid.usererror import UserError

LAST_PASS = relative.LAST_PASS


@dataclass
class Gate:
    """A judged gate: its results as check's outcomes read them, what the history said, and where to keep the verdict."""
    results: list[BaselineRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # said after the verdicts: cells not judged, no baseline yet
    baseline: RunRecord | None = None
    candidate: RunRecord | None = None
    store: Store | None = None
    criteria: list[str] = field(default_factory=list)  # the relative criteria judged, as written

    def record(self) -> Baseline:
        """The gate as RUN/baseline.json keeps it, for the table, the report and nothing else to judge again."""
        return Baseline(schema=baseline_record.SCHEMA, run_id=self.candidate.run_id,
                        baseline_id=self.baseline.run_id if self.baseline is not None else None,
                        criteria=list(self.criteria), rows=list(self.results), notes=list(self.notes))


def criteria_of(summary: Summary, texts: list[str]) -> list[str]:
    """The relative criteria a gate judges: --criterion's, then the grid's (summary.run.relative_criteria); the
    defaults (relative.DEFAULTS) when neither gives one."""
    given = list(texts) + [t for t in summary.run.relative_criteria if t not in texts]
    return given or list(relative.DEFAULTS)


def open_gate(summary_path: Path, summary: Summary, base: str, texts: list[str], *, db: str | None,
              allow_other_host: bool) -> Gate:
    """Judge the run against `base` with the relative criteria `texts` and the grid's (criteria_of)."""
    wanted = criteria_of(summary, texts)
    criteria = [relative.parse(t) for t in wanted]
    candidate = record(summary, summary_path)
    store = _history(db, needed=base == LAST_PASS)
    try:
        return _judged(Gate(candidate=candidate, store=store, criteria=wanted), base, criteria, db, allow_other_host)
    except UserError:
        if store is not None:
            store.close()
        raise


def _judged(out: Gate, base: str, criteria: list, db: str | None, allow_other_host: bool) -> Gate:
    """open_gate's work once the history is open (it closes the store when this refuses)."""
    candidate, store = out.candidate, out.store
    history = store.runs(figures=True) if store is not None else []
    if base == LAST_PASS:
        passed = [r for r in history if r.gate == "passed" and r.record.grid_hash == candidate.grid_hash
                  and r.record.key != candidate.key]
        if not passed:
            out.notes.append(f"no earlier run of grid {candidate.grid_name or candidate.grid_hash} passed the gate in "
                             f"{db or history_store.DEFAULT}: nothing to gate against (this run is the baseline "
                             f"once it passes)")
            return out
        # the last that passed and is comparable (a change of CI runner does not strand the gate on an old host);
        # when none is, the last that passed, refused below naming what differs
        comparable = [r for r in passed if gate.not_comparable(candidate, r.record) is None
                      and gate.other_host(candidate, r.record) is None]
        out.baseline = (comparable or passed)[-1].record
    else:
        base_path = summary_file.locate(base)
        out.baseline = record(summary_file.read(base_path), base_path)
    refused = gate.not_comparable(candidate, out.baseline)
    if refused:
        raise UserError(refused)
    host = gate.other_host(candidate, out.baseline)
    if host and not allow_other_host:
        raise UserError(f"baseline {out.baseline.run_id}: {host}; --allow-other-host compares them anyway")
    if host:
        warning = (f"{host}: the run-to-run noise measured on one kind of host does not cover the other; a "
                   f"difference may be the host's")
        print(f"WARNING: {warning}", file=sys.stderr)
        out.notes.append(f"compared anyway (--allow-other-host): {warning}")
    out.results, cells = gate.judge(candidate, out.baseline, criteria, history)
    out.notes += cells
    return out


def _history(db: str | None, *, needed: bool) -> Store | None:
    """The history named by --db, else the default file when it exists; None when there is none and none is needed."""
    if db is None and not needed and not Path(history_store.DEFAULT).is_file():
        return None
    return history_store.open_store(db, create=False)


def keep_verdict(g: Gate, passed: bool) -> str | None:
    """The run's gate verdict kept in the history (history:last-pass reads it); a line saying what happened."""
    if g.store is None or g.candidate is None:
        return None
    try:
        if g.store.set_gate(g.candidate.key, "passed" if passed else "failed"):
            return None
        return (f"{g.candidate.run_id} is not in the history: its verdict is not kept (`analyze --history` or "
                f"`littlegrid history add` records it first)")
    finally:
        g.store.close()


def write_record(g: Gate, summary_path: Path) -> list[Path]:
    """The gate's typed record, RUN/baseline.json (what the report's section reads), and its table as Markdown,
    RUN/baseline.md (read from that record: the same strings)."""
    folder = summary_path.parent
    kept = g.record()
    table = baseline_table.markdown(kept, baseline_table.SECTION)
    return [baseline_record.write(kept, folder),
            write_atomic(folder / "baseline.md", table.encode("utf-8"), "the baseline table")]
