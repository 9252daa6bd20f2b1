"""`littlegrid history`: record a run in the history (add), draw the trends across runs (report)."""

from __future__ import annotations

import argparse
from pathlib import Path

from littlegrid import summary as summary_file
from littlegrid.history import series, store as history_store, trends
from littlegrid.history.record import record
from littlegrid.render import trends as trends_view
from littlegrid.usererror import UserError

HELP = ("the history of runs: record a run (add), pin a run as its series' reference (accept), list a grid's series "
        "(series), draw the trends across runs (report)")
EXAMPLES = [
    "littlegrid history add reports/ci-20260101T120000Z",
    "littlegrid history add reports/ci-20260101T120000Z --db postgresql://ci@db.example/littlegrid",
    "littlegrid history accept reports/ci-20260105T120000Z --db reports/history.sqlite",
    "littlegrid history series --db reports/history.sqlite --grid ci",
    "littlegrid history report --db reports/history.sqlite -o reports/trends",
]
DB_HELP = f"the history: a file path or sqlite:///FILE, or postgresql://USER@HOST/DB (default {history_store.DEFAULT})"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="history_command", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="record an analysed run (its figures with their intervals) in the history")
    add.add_argument("run_dir", metavar="RUN", help="run folder holding summary.json (or the file itself)")
    add.add_argument("--db", metavar="URL", help=DB_HELP)
    accept = sub.add_parser("accept", help="pin a run as its series' reference: a deliberate change of performance "
                            "(the gate judges later runs against it, and measures the noise again from it)")
    accept.add_argument("run", metavar="RUN", help="a run folder (or its summary.json), or a run id the history holds")
    accept.add_argument("--db", metavar="URL", help=DB_HELP)
    listing = sub.add_parser("series", help="each grid's series: runs that measure the same thing, what started each")
    listing.add_argument("--db", metavar="URL", help=DB_HELP)
    listing.add_argument("--grid", metavar="NAME", help="only this grid")
    trends = sub.add_parser("report", help="the trends page: every grid's cells across runs, with the gate's band "
                            "and change points")
    trends.add_argument("--db", metavar="URL", help=DB_HELP)
    trends.add_argument("-o", "--output", type=Path, default=Path("reports/trends"),
                        help="output folder (default reports/trends)")


def main(args: argparse.Namespace) -> int:
    if args.history_command == "add":
        print(add_run(args.run_dir, args.db))
        return 0
    if args.history_command == "accept":
        print(accept_run(args.run, args.db))
        return 0
    if args.history_command == "series":
        print("\n".join(series_lines(args.db, args.grid)))
        return 0
    print(trends_page(args.db, args.output))
    return 0


def _stored(db: str | None) -> list:
    store = history_store.open_store(db, create=False)
    try:
        return store.runs(figures=True)
    finally:
        store.close()


def accept_run(run: str, db: str | None) -> str:
    """Pin `run` (a folder or a run id) as its series' reference; the line that says so."""
    runs = _stored(db)
    if Path(run).exists():
        path = summary_file.locate(run)
        key = record(summary_file.read(path), path).key
        found = [r for r in runs if r.record.key == key]
    else:
        found = [r for r in runs if r.record.run_id == run]
    if not found:
        raise UserError(f"{run}: not in {db or history_store.DEFAULT} (`littlegrid history add RUN` records it first)")
    if len(found) > 1:
        raise UserError(f"{run}: {len(found)} runs of the history have this id; give the run folder")
    store = history_store.open_store(db, create=False)
    try:
        store.accept(found[0].record.key)
    finally:
        store.close()
    rec = found[0].record
    later = [r for r in runs if r.record.series == rec.series and r.pk > found[0].pk]
    return (f"pinned {rec.run_id} as the reference of its series of grid {series.grid_of(rec)}: later runs are judged "
            f"against it (and the runs accepted after it), the noise measured from it on"
            + (f"; {len(later)} later run{'s' * (len(later) != 1)} recorded already keep their verdicts" if later
               else ""))


def series_lines(db: str | None, grid: str | None) -> list[str]:
    """Each grid's series in words: its runs, verdicts, reference set and pins, and what started it."""
    runs = _stored(db)
    grids = list(dict.fromkeys(series.grid_of(r.record) for r in runs))
    if grid is not None:
        if grid not in grids:
            raise UserError(f"--grid {grid}: no run of it in {db or history_store.DEFAULT} (grids: "
                            f"{', '.join(grids) or 'none'})")
        grids = [grid]
    lines = []
    for g in grids:
        found = series.grid_series(runs, g)
        lines.append(f"grid {g}: {len(found)} series")
        for n, s in enumerate(found, 1):
            verdicts = [r.gate or "not gated" for r in s.runs]
            counts = ", ".join(f"{verdicts.count(v)} {v}" for v in dict.fromkeys(verdicts))
            reference = series.reference_set(s.runs)
            pinned = [r.record.run_id for r in s.runs if r.accepted == "pinned"]
            why = ""
            if n > 1:
                before = found[n - 2].runs[-1].record
                why = "; started by " + "; ".join(w for _, w in series.differences(s.first.record, before)) + \
                    f" than series {n - 1}"
            lines.append(f"  series {n} ({s.key}): {len(s.runs)} run{'s' * (len(s.runs) != 1)} from "
                         f"{s.first.record.run_id} to {s.runs[-1].record.run_id} ({counts}); reference now: "
                         f"{', '.join(r.record.run_id for r in reference) or 'none'}"
                         + (f"; pinned: {', '.join(pinned)}" if pinned else "") + why)
    return lines or [f"no run in {db or history_store.DEFAULT}"]


def trends_page(db: str | None, out_dir: Path) -> Path:
    """The trends of the history at `db` drawn into out_dir/index.html."""
    store = history_store.open_store(db, create=False)
    try:
        runs = store.runs(figures=True)
    finally:
        store.close()
    return trends_view.draw(trends.build(runs, db or history_store.DEFAULT), out_dir)


def add_run(run_dir: str, db: str | None) -> str:
    """Record the run in the history; the line that says so. `analyze --history` calls it too."""
    path = summary_file.locate(run_dir)
    rec = record(summary_file.read(path), path)
    cells = len({f.cell for f in rec.figures})
    if not cells:
        raise UserError(f"{path}: no finished cell with statistics: nothing recorded")
    store = history_store.open_store(db)
    try:
        store.add(rec)
    finally:
        store.close()
    return (f"recorded {rec.run_id} ({rec.grid_name or 'no grid'}, {cells} cell{'s' * (cells != 1)}, commit "
            f"{(rec.commit or 'unknown')[:12]}) in {db or history_store.DEFAULT}")
