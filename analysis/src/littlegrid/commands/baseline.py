"""`littlegrid check RUN --baseline BASE`: the baseline found (a run folder, or the history's last run of the grid that
passed), refused when it is not comparable, the relative criteria judged by the gate (history/gate.py) beyond the
noise the history holds, its table written, and the run's verdict kept in the history."""

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
from littlegrid.summary.model import Summary
from littlegrid.usererror import UserError

LAST_PASS = relative.LAST_PASS
SECTION = "## Against the baseline"  # the section check adds to report/summary.md (replaced when run again)


@dataclass
class Gate:
    """A judged gate: its results as check's outcomes read them, what the history said, and where to keep the verdict."""
    results: list[gate.GateResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # said after the verdicts: cells not judged, no baseline yet
    baseline: RunRecord | None = None
    candidate: RunRecord | None = None
    store: Store | None = None


def open_gate(summary_path: Path, summary: Summary, base: str, texts: list[str], *, db: str | None,
              allow_other_host: bool) -> Gate:
    """Judge the run against `base` with the relative criteria `texts` (relative.DEFAULTS when none)."""
    criteria = [relative.parse(t) for t in texts or relative.DEFAULTS]
    candidate = record(summary, summary_path)
    store = _history(db, needed=base == LAST_PASS)
    try:
        return _judged(Gate(candidate=candidate, store=store), base, criteria, db, allow_other_host)
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
        print(f"WARNING: {host}: the run-to-run noise measured on one kind of host does not cover the other; "
              f"a difference may be the host's", file=sys.stderr)
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


def write_table(g: Gate, summary_path: Path) -> Path | None:
    """The deltas with their intervals as Markdown: RUN/baseline.md, and the same section in report/summary.md when
    the report is there (replacing the one an earlier check wrote)."""
    if g.baseline is None:
        return None
    table = baseline_table.markdown(g.results, g.notes, g.baseline.run_id, SECTION)
    folder = summary_path.parent
    out = folder / "baseline.md"
    write_atomic(out, table.encode("utf-8"), "the baseline table")
    md = folder / "report" / "summary.md"
    if md.is_file():
        text = md.read_text(encoding="utf-8")
        head = text.split("\n" + SECTION + "\n")[0].rstrip("\n")
        write_atomic(md, (head + "\n\n" + table).encode("utf-8"), "report/summary.md")
    return out
