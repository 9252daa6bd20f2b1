"""`littlegrid run`'s command line: its help, examples and options (add_run_arguments: those every command that runs
cells takes), and main, which runs the grid (runner.run_grid)."""

from __future__ import annotations

import argparse
from pathlib import Path

from littlegrid.run import run_folder as rf
from littlegrid.run.runner import run_grid
from littlegrid.usererror import UserError


HELP = ("run a grid file: JMeter once per cell, the host and the [observe] sources sampled beside each, into "
        "reports/<run-id>/")
EXAMPLES = [
    "littlegrid run grids/ci.toml",
    "littlegrid run grids/ci.toml --dry-run",
    "littlegrid run grids/littles-law.toml --out reports/ --run-id littles-law-1",
    "littlegrid run --resume reports/20261122-120000-ci",
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("grid", nargs="?", type=Path, help="the grid file (TOML); optional with --resume")
    parser.add_argument("--resume", type=Path, metavar="RUN_DIR", help="re-run only the cells of RUN_DIR not complete, "
                        "and those whose analysis found an outage, recovered or not (not a stall; the earlier attempt "
                        "kept in cells/<id>/attempts/)")
    parser.add_argument("--retry", type=int, default=0, metavar="N", help="re-run a failed cell up to N more times "
                        "during the run, each attempt kept (default 0)")
    parser.add_argument("--dry-run", action="store_true", help="validate, print the cells and the expected time, run nothing")
    parser.add_argument("--keystore", type=Path, metavar="FILE", help="the RMI keystore the remote engines were started "
                        "with (default: the grid's [engines] keystore; `littlegrid engines keystore` makes one)")
    add_run_arguments(parser, shown="the run", watched="the run")


def add_run_arguments(parser: argparse.ArgumentParser, shown: str, watched: str) -> None:
    """The options every command that runs cells takes (`run`, `search`): where the run folder goes, JMeter's heap,
    the live view. shown: what the live view shows; watched: what anyone reaching it can watch."""
    parser.add_argument("--out", type=Path, default=Path("reports"), help="parent of the run folder (default: reports/)")
    parser.add_argument("--run-id", metavar="ID", help="name of the run folder (default: <UTC time>-<grid name>)")
    parser.add_argument("--jmeter-heap", default="1g", metavar="SIZE", help="JMeter's -Xms/-Xmx (default: 1g)")
    parser.add_argument("--live", metavar="[HOST:]PORT", help=f"serve a live view of {shown} at http://HOST:PORT/ "
                        "(default host 127.0.0.1; docs/live.md)")
    parser.add_argument("--live-bind-any", action="store_true", help="let --live listen on an address that is not "
                        f"loopback (anyone who reaches it can watch {watched})")


def main(args: argparse.Namespace) -> int:
    if args.grid is None and args.resume is None:
        raise UserError("give a grid file, or --resume RUN_DIR")
    if args.retry < 0:
        raise UserError(f"--retry {args.retry}: must be 0 or more")
    folder = run_grid(args.grid, out=args.out, resume=args.resume, dry_run=args.dry_run, run_id=args.run_id,
                      jmeter_heap=args.jmeter_heap, live=args.live, live_bind_any=args.live_bind_any,
                      retry=args.retry, keystore=args.keystore)
    if args.dry_run:
        return 0
    manifest = rf.read_json(folder / rf.MANIFEST) or {}
    print(f"run folder: {folder}")
    return 0 if manifest.get("status") == "complete" else 1
