"""`littlegrid explain`: print what an analysed run shows (its findings), why, and what to change."""

from __future__ import annotations

import json
import sys

from littlegrid import findings
from littlegrid.check import expectation_outcomes, load_summary

HELP = "print the findings of an analysed run: saturation, bottleneck, where requests wait, validity, advice"
EXAMPLES = [
    "littlegrid explain reports/littles-law-20260101T120000Z",
    "littlegrid explain reports/littles-law-20260101T120000Z/summary.json --json",
]


def add_arguments(parser) -> None:
    parser.add_argument("run_dir", metavar="RUN", help="run folder holding summary.json (or the file itself)")
    parser.add_argument("--json", action="store_true", help='print {"findings": [...]} instead of text')


def main(args) -> int:
    _, summary = load_summary(args.run_dir)
    found = [f.model_dump() for f in summary.findings]
    if args.json:
        json.dump({"findings": found}, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    if summary.run.unfinished is not None:  # the findings are those of the finished cells only
        print(summary.run.unfinished.text() + "\n")
    print(findings.text(found))
    outcomes = expectation_outcomes(summary)
    if outcomes:
        print("\nexpected findings (the grid's expect):")
        for o in outcomes:
            print(f"  {o.message}")
    return 0
