"""`littlegrid compare`: two runs (or two arms of one) opened, the comparison stage run on them, its page drawn."""

from __future__ import annotations

import argparse
from pathlib import Path

from littlegrid.comparison import arms, deltas
from littlegrid.jtl.options import add_reader_arguments, reader_options
from littlegrid.render import compare as compare_page
from littlegrid.summary.model import Summary
from littlegrid.commands.summary_source import open_run
from littlegrid.usererror import UserError

HELP = "compare two runs (A = baseline, B = candidate): per-cell deltas with 95% intervals from each cell's own"
EXAMPLES = [
    "littlegrid compare reports/baseline-run reports/candidate-run",
    "littlegrid compare reports/unthrottled reports/throttled -o out/throttle-compare --margin 0.1",
    "littlegrid compare a/summary.json b/summary.json --no-samples",
    "littlegrid compare reports/littles-law-run --arms server.tomcat.threads.max=10,100",
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_a", metavar="RUN_A", help="baseline: a run folder, or a summary.json")
    parser.add_argument("run_b", metavar="RUN_B", nargs="?",
                        help="candidate: a run folder, or a summary.json (with --arms: default RUN_A)")
    parser.add_argument("--arms", metavar="AXIS=A,B",
                        help="compare two arms of an experiment: A's cells where AXIS = A against B's where AXIS = B, "
                             "paired on the other axes (e.g. server.tomcat.threads.max=10,100)")
    parser.add_argument("-o", "--output", type=Path, help="output folder (default: RUN_B/compare)")
    parser.add_argument("--margin", "--min-effect", dest="margin", type=float, default=None, metavar="FRACTION",
                        help="the equivalence margin: a metric is equivalent only when its whole 95%% interval lies "
                             "inside ± this relative change (default: the margin the grid's `arms same within N%%` "
                             "states for its arms, else 0.05 = 5%%); different when the interval excludes zero")
    parser.add_argument("--no-samples", action="store_true",
                        help="deltas without intervals (and so without verdicts)")
    add_reader_arguments(parser)  # how JTL files given as RUN_A/RUN_B are read for their analysis


def build_comparison(sa: Summary, sb: Summary, out_dir: Path, *, samples: bool = True,
                     margin: float | None = None, generated: str | None = None,
                     arms_named: tuple[str, str, str] | None = None) -> Path:
    """Compare the summaries `sa` and `sb` (intervals combined from their cells' own, Cell.intervals) and draw the page into
    out_dir/index.html; returns its path. arms_named: (axis, A, B) when they are two arms."""
    result = deltas.compare_runs(sa, sb, samples=samples, margin=margin,
                                 arms_named=arms_named)
    return compare_page.draw(result, sa, sb, out_dir, generated=generated)


def main(args: argparse.Namespace) -> int:
    if args.run_b is None and not args.arms:
        raise UserError("compare needs two runs (RUN_A RUN_B), or one run and --arms AXIS=A,B")
    read_options = reader_options(args)
    sa, base_a = open_run(args.run_a, read_options)
    sb, base_b = open_run(args.run_b, read_options) if args.run_b else (sa, base_a)
    out_dir = args.output or base_b / "compare"
    options = {"samples": not args.no_samples, "margin": args.margin}
    if args.arms and args.run_b is None:
        index = compare_arms(sa, args.arms, args.output, base_a, **options)
    else:
        if args.arms:  # the same axis split in two runs
            axis, value_a, value_b = arms.parse_arms(args.arms)
            sa, sb = arms.arm(sa, axis, value_a), arms.arm(sb, axis, value_b)
            out_dir = args.output or base_b / f"compare-{axis}"
            options["arms_named"] = (axis, value_a, value_b)
        index = build_comparison(sa, sb, out_dir, **options)
    print(index)
    return 0


def compare_arms(summary: Summary, text: str, output: Path | None, base: Path, **options) -> Path:
    """The two arms (AXIS=A,B) of one run compared, into `output` or base/compare-AXIS."""
    axis, value_a, value_b = arms.parse_arms(text)
    return build_comparison(arms.arm(summary, axis, value_a), arms.arm(summary, axis, value_b),
                            output or base / f"compare-{axis}", arms_named=(axis, value_a, value_b), **options)
