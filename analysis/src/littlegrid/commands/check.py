"""`littlegrid check`: judge a run by its summary.json (criteria and failed checks), exit 0/1, write JUnit XML."""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from littlegrid import summary as summary_file
from littlegrid.atomic import write_atomic
from littlegrid.criteria import evaluate, grammar, relative
from littlegrid.summary.model import Check, CriterionResult, Run, Summary
from littlegrid.usererror import UserError

HELP = "evaluate the criteria and checks of an analysed run: exit 0 when all hold, 1 when one fails"
EXAMPLES = [
    "littlegrid check reports/ci-20260101T120000Z",
    "littlegrid check reports/ci-20260101T120000Z --junit target/surefire-reports/TEST-littlegrid.xml",
    "littlegrid check reports/ci-20260101T120000Z --criterion 'p99 <= 1s where users <= 40' --criteria-only",
    "littlegrid check reports/ci-20260102T120000Z --baseline reports/ci-20260101T120000Z",
    "littlegrid check reports/ci-20260102T120000Z --baseline history:last-pass --db reports/history.sqlite "
    "--criterion 'p90 regress < 10%'",
]
PREFIX = {"passed": "pass", "failed": "FAIL", "error": "FAIL", "skipped": "skip"}  # a criterion not evaluated fails


@dataclass(frozen=True)
class Outcome:
    """One JUnit testcase: a criterion on one cell, or one analysis check."""

    kind: str  # "criterion" | "expectation" | "check" | "baseline"
    name: str  # e.g. "p90 < 300ms [users=20]" or "closed_law [users=20]"
    status: str  # "passed" | "failed" | "error" (could not be evaluated) | "skipped"
    message: str  # one line: the figure against its threshold, or why there is none


def add_arguments(parser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="run folder holding summary.json (or the file itself)")
    parser.add_argument("--junit", metavar="FILE", help="also write JUnit XML here (one testcase per criterion x cell)")
    parser.add_argument("--criterion", metavar="TEXT", action="append", default=[],
                        help="an extra criterion, same grammar as the grid file (repeatable)")
    parser.add_argument("--criteria-only", action="store_true",
                        help="judge the criteria only; failed analysis checks do not fail the run")
    parser.add_argument("--baseline", metavar="BASE", default="",
                        help="also judge the run against a baseline: a run folder (or its summary.json), or "
                             f"{relative.LAST_PASS} (the median of the run's series' last accepted runs); relative "
                             "criteria (--criterion 'p90 regress < 10%') fail only beyond the run-to-run noise "
                             f"(default criteria: {'; '.join(relative.DEFAULTS)})".replace("%", "%%") + "; '' = no baseline")
    parser.add_argument("--db", metavar="URL", help="the history the noise and history:last-pass are read from and "
                        "the verdict kept in (a file path, sqlite:///FILE or postgresql://…; default "
                        "reports/history.sqlite when it exists)")
    parser.add_argument("--allow-other-host", action="store_true",
                        help="compare with a reference run on another kind of host (CPUs, memory, OS), with a warning")
    parser.add_argument("--allow-other-plan", action="store_true",
                        help="compare with a reference of another series of the grid (another plan, server "
                             "configuration or measured grid), with a warning")
    parser.add_argument("--reference-runs", metavar="K", type=int, default=None,
                        help="history:last-pass judges against the median of the series' last K accepted runs "
                             "(default 5)")
    parser.add_argument("-v", "--verbose", action="store_true", help="also print what passed")


def main(args) -> int:
    path, summary = load_summary(args.run_dir)
    relatives = [c for c in args.criterion if relative.is_relative(c)]
    if relatives and not args.baseline:
        raise UserError(f"criterion '{relatives[0]}': a relative criterion needs --baseline (a run folder or "
                        f"{relative.LAST_PASS})")
    outcomes = judge(summary, extra=[c for c in args.criterion if c not in relatives],
                     criteria_only=args.criteria_only)
    gate = None
    after = []  # the gate's lines, said after the verdicts; its files and verdict kept before anything is printed
    if args.baseline:
        # imported here: the gate's statistics cost a plain `check` nothing
        from littlegrid.commands import baseline
        from littlegrid.history.series import REFERENCE_RUNS
        gate = baseline.open_gate(path, summary, args.baseline, relatives, db=args.db or None,
                                  allow_other_host=args.allow_other_host, allow_other_plan=args.allow_other_plan,
                                  reference_runs=REFERENCE_RUNS if args.reference_runs is None else args.reference_runs)
        others_failed = any(o.status in ("failed", "error") for o in outcomes)
        outcomes += baseline_outcomes(gate)
    else:  # the grid's relative criteria: never silently passed, never failed without a baseline
        unjudged = unjudged_outcomes(summary)
        outcomes += unjudged
        after += [f"note: {o.message}" for o in unjudged]
    counts = {s: sum(o.status == s for o in outcomes) for s in ("passed", "failed", "error", "skipped")}
    failed = counts["failed"] + counts["error"]
    if gate is not None:
        from littlegrid.commands import baseline
        verdict = gate.verdict(others_failed)
        kept = gate.record(verdict)
        after += [f"note: {note}" for note in gate.notes]
        after += [f"detects: {line}" for line in kept.detectable_lines()]
        after += [f"wrote {p}" for p in baseline.write_record(gate, path, verdict)]
        after += [f"wrote {p}" for p in rerendered_report(path.parent, summary)]
        said = baseline.keep_verdict(gate, verdict)
        after += [f"note: {said}"] if said is not None else []
        after.append(f"verdict kept: {verdict}" if gate.store is not None else f"verdict: {verdict}")
    for o in outcomes:
        if o.status in ("failed", "error") or args.verbose:
            print(f"{PREFIX[o.status]} {o.message}")
    if args.junit:
        write_junit(args.junit, outcomes, summary.run)
    closing = f"{counts['passed']} passed, {failed} failed"
    unjudged = sum(o.status == "skipped" and o.kind == "baseline" for o in outcomes)
    unmade = counts["skipped"] - unjudged
    if unmade:
        closing += f", {unmade} check{'s' * (unmade != 1)} could not be made"
    if unjudged:
        closing += f", {unjudged} against the baseline not judged"
    if not outcomes:
        closing += " (nothing to judge: the grid has no criteria" + ("" if args.criteria_only else
                                                                       " and the summary no checks") + ")"
    print(closing)
    for line in after:
        print(line)
    return 1 if failed else 0


def baseline_outcomes(gate) -> list[Outcome]:
    """One outcome per relative criterion x cell (history.gate's verdicts; a row the gate could not judge is
    skipped, never passed), or one skipped when there is no reference (a new series: the note says why)."""
    if not gate.reference:
        return [Outcome("baseline", "baseline [grid]", "skipped", gate.notes[0])]
    status = {True: "passed", False: "failed", None: "skipped"}
    return [Outcome("baseline", f"{r.criterion} [{r.cell}]", status[r.passed], r.message()) for r in gate.results]


def unjudged_outcomes(summary: Summary) -> list[Outcome]:
    """One skipped outcome per relative criterion of the grid when no baseline is given: "not judged: no baseline"."""
    from littlegrid.summary.baseline import NO_BASELINE, not_judged

    return [Outcome("baseline", f"{c} [grid]", "skipped",
                    f"{c} [grid]: {not_judged(NO_BASELINE)} (check --baseline RUN_DIR|{relative.LAST_PASS} judges it)")
            for c in summary.run.relative_criteria]


def rerendered_report(run_dir: Path, summary: Summary) -> list[Path]:
    """The run's report drawn again when it is in the run folder (RUN/report), so its "Against the baseline" section
    shows the gate just judged; a report written elsewhere (`report -o DIR`) is drawn again by `littlegrid report`."""
    out = run_dir / "report"
    if not (out / "index.html").is_file():
        return []
    from littlegrid.commands import report  # only a gated run with a report pays for the renderer

    index, _ = report.write_pages(summary, out, run_dir)
    return [index]


def load_summary(run_dir: str) -> tuple[Path, Summary]:
    """The summary of a run folder (or of a summary.json path); a one-line `UserError` if it is unusable."""
    path = summary_file.locate(run_dir)
    return path, summary_file.read(path)


def judge(summary: Summary, extra: list[str] = (), criteria_only: bool = False) -> list[Outcome]:
    """Every criterion x cell (as analyze judged them, then the extra ones judged now), the expectations, then
    (unless criteria_only) every analysis check, grid-level first."""
    typed = summary
    judged_now = evaluate.evaluate(list(extra), summary)
    outcomes = []
    for e in typed.criteria + [CriterionResult.model_validate(summary_file.plain(e)) for e in judged_now]:
        status = {True: "passed", False: "failed"}.get(e.passed, "error")
        outcomes.append(Outcome("criterion", f"{e.criterion} [{e.cell or 'no cell'}]", status, explain(e)))
    outcomes += expectation_outcomes(typed)
    if not criteria_only:
        checks = [(c, c.cell) for c in typed.checks]
        for cell in typed.cells:
            checks += [(c, c.cell or cell.id) for c in cell.checks]
        outcomes += [_check_outcome(c, where) for c, where in checks]
    return outcomes


def expectation_outcomes(summary: Summary) -> list[Outcome]:
    """The grid's expected findings (`expect`), as analyze evaluated them. The message quotes the finding in the
    words the report and `littlegrid explain` use."""
    out = []
    for e in summary.expectations:
        status = {True: "passed", False: "failed"}.get(e.passed, "error")
        verdict = {"passed": "met", "failed": "NOT met", "error": "undecided"}[status]
        out.append(Outcome("expectation", f"expect {e.expectation}", status,
                           f"expect {e.expectation}: {verdict}: {e.explanation}"))
    return out


def in_unit(value: float, crit: grammar.Criterion, near: float | None = None) -> str:
    """A canonical figure shown in the unit the criterion was written in ("1.2 s", "0.8%", "48/min").

    With `near`, digits are added until the two figures read differently, so a failure never reads
    "is 1%, needs < 1%" unless the two are equal.
    """
    unit = crit.unit or grammar.CANONICAL_UNIT[crit.spec.kind]
    factor = float(grammar.UNITS[crit.spec.kind].get(unit.lower(), Fraction(1)))
    shown, other = value / factor, None if near is None else near / factor
    digits = 4
    while other is not None and digits < 17 and shown != other and f"{shown:.{digits}g}" == f"{other:.{digits}g}":
        digits += 1
    text = f"{shown:.0f}" if abs(shown) >= 10_000 and digits == 4 else f"{shown:.{digits}g}"
    return text + unit if unit in ("", "%") or unit.startswith("/") else f"{text} {unit}"


def explain(entry: CriterionResult) -> str:
    """One line for a criterion entry: `p90 < 300ms [users=20]: p90 is 412 ms, needs < 300 ms`."""
    head = f"{entry.criterion} [{entry.cell or 'no cell'}]"
    try:
        crit = grammar.parse(entry.criterion)
    except UserError:
        crit = None
    if entry.value is None:
        return f"{head}: not evaluated: {entry.reason or 'no value'}"
    if crit is None:
        return f"{head}: {entry.metric} is {entry.value:.4g}, needs {entry.threshold:.4g}"
    verdict = "needs" if entry.passed is False else "holds"
    return (f"{head}: {crit.metric} is {in_unit(entry.value, crit, near=crit.threshold)}, "
            f"{verdict} {crit.op} {in_unit(crit.threshold, crit)}")


def _check_outcome(check: Check, where: str | None) -> Outcome:
    name = f"{check.name} [{where or 'grid'}]"
    status = {True: "passed", False: "failed"}.get(check.passed, "skipped")
    figures = [f"value {_fmt(check.value)}", f"expected {_fmt(check.expected)}"]
    if check.rel_error is not None:
        figures.append(f"relative error {_pct(check.rel_error)}")
    if check.tolerance is not None:
        figures.append(f"tolerance {_pct(check.tolerance)}")
    explanation = check.explanation
    message = f"check {name}: " + ", ".join(figures) + (f"; {explanation}" if explanation else "")
    return Outcome("check", name, status, " ".join(message.split()))


def _fmt(x) -> str:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return "none" if x is None else str(x)
    return f"{x:.4g}"


def _pct(x) -> str:
    return f"{abs(x) * 100:.3g}%" if isinstance(x, (int, float)) and not isinstance(x, bool) else _fmt(x)


# XML 1.0 forbids most control characters; a label may contain them, the report must still parse.
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml(text: str) -> str:
    return _XML_ILLEGAL.sub("\ufffd", str(text))


def junit_xml(outcomes: list[Outcome], run: Run) -> bytes:
    """One <testsuite> (the shape Maven Surefire writes and Jenkins reads), one <testcase> per outcome."""
    suite = ET.Element("testsuite", {
        "name": _xml(f"littlegrid.{run.grid_name or 'run'}"),
        "tests": str(len(outcomes)),
        "failures": str(sum(o.status == "failed" for o in outcomes)),
        "errors": str(sum(o.status == "error" for o in outcomes)),
        "skipped": str(sum(o.status == "skipped" for o in outcomes)),
        "time": "0",
        # when the run's cells ran (ISO 8601 without zone, as the schema wants), else now
        "timestamp": _xml((run.started or "")[:19]) or time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()),
        "hostname": _xml(run.host.hostname or "localhost"),
    })
    props = ET.SubElement(suite, "properties")
    for key in ("id", "grid_name", "plan", "started", "ended"):
        if getattr(run, key) is not None:
            ET.SubElement(props, "property", {"name": f"run.{key}", "value": _xml(getattr(run, key))})
    for o in outcomes:
        case = ET.SubElement(suite, "testcase", {
            "name": _xml(o.name), "classname": f"littlegrid.{o.kind}", "time": "0"})
        if o.status == "failed":
            ET.SubElement(case, "failure", {"message": _xml(o.message), "type": o.kind}).text = _xml(o.message)
        elif o.status == "error":
            ET.SubElement(case, "error", {"message": _xml(o.message), "type": "not_evaluated"}).text = _xml(o.message)
        elif o.status == "skipped":
            ET.SubElement(case, "skipped", {"message": _xml(o.message)})
    ET.indent(suite)
    return ET.tostring(suite, encoding="UTF-8", xml_declaration=True) + b"\n"


def write_junit(path: str, outcomes: list[Outcome], run: Run) -> None:
    """Written whole or not at all, so CI never picks up half a report."""
    write_atomic(Path(path), junit_xml(outcomes, run), "the JUnit report")
