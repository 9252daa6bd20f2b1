"""`littlegrid report`: a run folder's summary.json (or the analysis run now on JTL files) drawn as the HTML report,
with the search page and the two arms' comparison when the run has them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from littlegrid import summary as summary_file
from littlegrid.comparison import arms
from littlegrid.jtl import read_ahead
from littlegrid.jtl.options import add_reader_arguments, reader_options
from littlegrid import atomic
from littlegrid.render import baseline as baseline_table, markdown, overview, searchpage, summary_png
from littlegrid.render import report as pages
from littlegrid.commands.summary_source import bytes_to_analyze, load_or_analyze
from littlegrid.summary import baseline as baseline_record
from littlegrid.usererror import UserError

BACKGROUND_IMAGE_BYTES = 64 << 20  # ~500,000 rows, seconds of analysis: a second process's start costs far less

HELP = "render the HTML report of a run folder (or of JTL files) from its summary.json"
EXAMPLES = [
    "littlegrid report reports/ci-20260101T120000Z",
    "littlegrid report reports/ci-20260101T120000Z -o out/ci-report",
    "littlegrid report results.jtl --warmup 10 --cooldown 5 -o out/report",
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="RUN_DIR|JTL",
                        help="a run folder (its summary.json is used, or made) or one or more JTL files")
    parser.add_argument("-o", "--output", type=Path, help="output folder (default: RUN_DIR/report, or report/ beside the first JTL)")
    parser.add_argument("--warmup", type=float, metavar="S", help="re-analyse with this warm-up trim (seconds)")
    parser.add_argument("--cooldown", type=float, metavar="S", help="re-analyse with this cool-down trim (seconds)")
    parser.add_argument("--by-label", action="store_true", help="re-analyse with statistics per label (percentile table per label)")
    add_reader_arguments(parser)  # given for a run folder, they re-analyse it


def main(args: argparse.Namespace) -> int:
    if args.output is not None and args.output.exists() and not args.output.is_dir():
        raise UserError(f"{args.output}: exists and is not a folder")
    source = dict(warmup_s=args.warmup, cooldown_s=args.cooldown, by_label=args.by_label,
                  read_options=reader_options(args))
    # an analysis of seconds leaves a core idle while this process imports and writes pages: the image is drawn there
    image = summary_png.Background() if bytes_to_analyze(args.inputs, **source) >= BACKGROUND_IMAGE_BYTES else None
    try:
        return _report(args, source, image)
    finally:
        if image is not None:
            image.close()


def _report(args: argparse.Namespace, source: dict, image: "summary_png.Background | None") -> int:
    summary, base, fresh = load_or_analyze(args.inputs, **source)
    read_ahead.discard()  # one the analysis did not claim (a summary read as it is) parses no further
    out_dir = args.output or base / "report"
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"{out_dir}: exists and is not a folder")
    title = overview.run_title(summary)
    if image is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        image.draw(summary, out_dir / "summary.png", title)
    run_dir = Path(args.inputs[0]) if Path(args.inputs[0]).is_dir() else None
    index, arms_note = write_pages(summary, out_dir, run_dir)
    if arms_note:  # an interrupted run: its finished cells are drawn, the comparison waits for the missing arm
        print(f"littlegrid report: {arms_note}", file=sys.stderr)
    if image is None:
        summary_png.write(summary, out_dir / "summary.png", title)
    if run_dir is not None and (run_dir / "search.json").is_file():  # a capacity search: its page beside the overview
        print(searchpage.write(searchpage.read(run_dir / "search.json"), out_dir, overview.run_title(summary)))
    if fresh and run_dir is None:
        summary_file.write(summary, out_dir / summary_file.NAME)  # so `check` and `compare` can use this analysis
    if image is not None:
        image.result()
    print(index)
    arms_text = summary.run.arms
    if arms_text and not arms_note:  # the grid names its two arms: their comparison sits inside the report
        from littlegrid.commands.compare import compare_arms  # only a two-arm grid needs the comparison stage
        print(compare_arms(summary, arms_text, None, out_dir))
    return 0


def write_pages(summary, out_dir: Path, run_dir: Path | None) -> tuple[Path, str | None]:
    """The pages and summary.md, with the gate `check --baseline` kept in the run folder (RUN/baseline.json) when
    it is this run's: what `report` writes, and what `check` draws again after judging a gate. (index.html, the
    note saying why the grid's arms are not compared, or None.)"""
    arms_text = summary.run.arms
    arms_note = arms.arm_without_cells(summary, arms_text) if arms_text else None
    gate = baseline_record.of_run(run_dir, summary.run.id)
    index = pages.build_report(summary, out_dir, arms_note=arms_note, baseline=gate)
    # the answer for places that show no HTML: Markdown for a CI job summary or a pull-request comment, and the key
    # chart as an image
    md = markdown.summary_markdown(summary, "index.html", image="summary.png")  # summary.png lies beside it
    if gate is not None:
        md = md.rstrip("\n") + "\n\n" + baseline_table.markdown(gate)
    atomic.write_atomic(out_dir / "summary.md", md.encode("utf-8"))
    return index, arms_note
