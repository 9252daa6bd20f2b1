"""`littlegrid history`: record a run in the history (add), draw the trends across runs (report)."""

from __future__ import annotations

import argparse
from pathlib import Path

from littlegrid import summary as summary_file
from littlegrid.history import store as history_store, trends
from littlegrid.history.record import record
from littlegrid.render import trends as trends_view
from littlegrid.usererror import UserError

HELP = "the history of runs: record a run (add), draw the trends across runs (report)"
EXAMPLES = [
    "littlegrid history add reports/ci-20260101T120000Z",
    "littlegrid history add reports/ci-20260101T120000Z --db postgresql://ci@db.example/littlegrid",
    "littlegrid history report --db reports/history.sqlite -o reports/trends",
]
DB_HELP = f"the history: a file path or sqlite:///FILE, or postgresql://USER@HOST/DB (default {history_store.DEFAULT})"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="history_command", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="record an analysed run (its figures with their intervals) in the history")
    add.add_argument("run_dir", metavar="RUN", help="run folder holding summary.json (or the file itself)")
    add.add_argument("--db", metavar="URL", help=DB_HELP)
    trends = sub.add_parser("report", help="the trends page: every grid's cells across runs, with the noise band")
    trends.add_argument("--db", metavar="URL", help=DB_HELP)
    trends.add_argument("-o", "--output", type=Path, default=Path("reports/trends"),
                        help="output folder (default reports/trends)")


def main(args: argparse.Namespace) -> int:
    if args.history_command == "add":
        print(add_run(args.run_dir, args.db))
        return 0
    print(trends_page(args.db, args.output))
    return 0


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
