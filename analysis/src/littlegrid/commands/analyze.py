"""`littlegrid analyze`: a run folder or JTL files in, summary.json (statistics, law checks, models) out."""

import sys
from pathlib import Path

from littlegrid import summary
from littlegrid.jtl.options import add_reader_arguments, reader_options
from littlegrid.summarize import analyze
from littlegrid.usererror import UserError

HELP = "steady-state statistics, queueing-law checks and capacity models of a run folder or JTL files -> summary.json"
EXAMPLES = [
    "littlegrid analyze reports/<run-id>",
    "littlegrid analyze results.jtl --warmup 5 --cooldown 2 --json results.summary.json",
    "littlegrid analyze engine1.jtl engine2.jtl --by-label --json -",
]


def add_arguments(parser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="RUN_DIR|JTL", help="a run folder, or JTL files forming one cell")
    parser.add_argument("--json", metavar="FILE", help="where to write (default RUN_DIR/summary.json, or "
                        "<first JTL>.summary.json); '-' prints to stdout")
    parser.add_argument("--warmup", type=float, metavar="S", help="the warm-up's floor: at least S seconds are "
                        "trimmed after the first sample's start, more where the data's warm-up lasted longer "
                        "(MSER-5; default: the cell's warmup_s, else 0)")
    parser.add_argument("--warmup-fixed", action="store_true", help="trim exactly the --warmup (or warmup_s) "
                        "seconds: look for no warm-up in the data (to compare with an older analysis)")
    parser.add_argument("--cooldown", type=float, metavar="S", help="seconds trimmed before the last sample's end "
                        "(default: the cell's cooldown_s, else 0)")
    parser.add_argument("--by-label", action="store_true", help="also compute the statistics per label "
                        "(always done for JTL files)")
    parser.add_argument("--history", metavar="URL", help="also record the run in this history (a file path, "
                        "sqlite:///FILE or postgresql://…; '' records nothing): `littlegrid history add`")
    parser.add_argument("--force", action="store_true", help="overwrite FILE even if it is not a littlegrid summary")
    add_reader_arguments(parser)


def _default_output(inputs: list) -> Path:
    first = Path(inputs[0])
    return first / summary.NAME if first.is_dir() else first.with_name(first.name + "." + summary.NAME)


def _refuse_foreign(path: Path) -> None:
    """Only a littlegrid summary is overwritten without --force (a mistyped --json must not eat a JTL)."""
    if not path.exists():
        return
    try:
        summary.read(path)
    except UserError as e:
        if "written by an older littlegrid" in str(e):  # our own file, an earlier schema: analyze upgrades it
            return
        raise UserError(f"{path}: exists and is not a littlegrid summary; use --force to overwrite it") from None


def main(args) -> int:
    result = analyze(args.inputs, warmup_s=args.warmup, cooldown_s=args.cooldown, by_label=args.by_label,
                     read_options=reader_options(args), warmup_fixed=args.warmup_fixed)
    failed = [c for e in result.cells for c in e.checks if c.passed is False] + \
             [c for c in result.checks if c.passed is False]
    if args.json == "-":
        sys.stdout.write(summary.dumps(result))
        return 0
    out = Path(args.json) if args.json else _default_output(args.inputs)
    if not args.force:
        _refuse_foreign(out)
    summary.write(result, out)
    if result.run.unfinished is not None:
        print(result.run.unfinished.text())
    print(f"wrote {out}: {len(result.cells)} cells, {len(failed)} checks failed"
          + "".join(f"\n  {c.cell or 'grid'}: {c.name}: {c.explanation}" for c in failed[:20]))
    if args.history:
        from littlegrid.commands.history import add_run
        print(add_run(str(out), args.history))
    return 0
