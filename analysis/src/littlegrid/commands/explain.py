"""`littlegrid explain`: print what an analysed run shows (its findings), why, and what to change."""

from __future__ import annotations

import json
import sys

from littlegrid.commands.check import expectation_outcomes, load_summary
from littlegrid.render import markdown, overview, words

HELP = "print the findings of an analysed run: saturation, bottleneck, where requests wait, validity, advice"
EXAMPLES = [
    "littlegrid explain reports/littles-law-20260101T120000Z",
    "littlegrid explain reports/littles-law-20260101T120000Z/summary.json --json",
    "littlegrid explain reports/littles-law-20260101T120000Z --markdown >> \"$GITHUB_STEP_SUMMARY\"",
]


def add_arguments(parser) -> None:
    parser.add_argument("run_dir", metavar="RUN", help="run folder holding summary.json (or the file itself)")
    parser.add_argument("--json", action="store_true", help='print {"findings": [...]} instead of text')
    parser.add_argument("--markdown", action="store_true", help="print the headline, the criteria verdict, the top "
                        "findings and a table in GitHub-flavoured Markdown (for a CI job summary or a PR comment)")


def main(args) -> int:
    _, summary = load_summary(args.run_dir)
    found = [f.model_dump() for f in summary.findings]
    if args.json:
        json.dump({"findings": found}, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    if args.markdown:
        sys.stdout.write(markdown.summary_markdown(summary))
        return 0
    if summary.run.unfinished is not None:  # the findings are those of the finished cells only
        print(summary.run.unfinished.text() + "\n")
    if summary.headline is not None:
        print(" ".join(summary.headline.sentences) + "\n")
    o = overview.outcomes(summary)  # the verdict in the report's words
    print(f"{words.VERDICT}: {words.verdict(o)}. {words.CHECKS}: {words.checks(o)}.\n")
    print(words.text(summary.findings))
    outcomes = expectation_outcomes(summary)
    if outcomes:
        print("\nexpected findings (the grid's expect):")
        for o in outcomes:
            print(f"  {o.message}")
    return 0
