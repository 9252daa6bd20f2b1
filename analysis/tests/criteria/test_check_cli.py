"""`littlegrid check RUN_DIR [--junit FILE]`: exit 0 when all hold, 1 when one fails, 2 on a user mistake."""

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from criteria_summaries import cell, closed_law, summary
from littlegrid import cli
from littlegrid.commands import check
from summary_contract import typed


def run_dir(tmp_path, summary_dict, name="run"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps(summary_dict), encoding="utf-8")
    return folder


def littlegrid_check(capsys, *args):
    code = cli.main(["check", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


TWO_CELLS = [cell(10, p90_ms=120.0, checks=[closed_law(0.01)]), cell(40, p90_ms=340.0, checks=[closed_law(0.02)])]

EXIT_CODES = [
    # grid criteria, exit code, printed lines
    (["p90 < 400ms"], 0, ["2 passed, 0 failed"]),
    (["p90 < 300ms"], 1, ["FAIL p90 < 300ms [users=40,think_ms=0]: p90 is 340 ms, needs < 300 ms",
                          "1 passed, 1 failed"]),
    (["p90 < 300ms where users <= 20"], 0, ["1 passed, 0 failed"]),
    (["p90 < 300ms where users > 100"], 1, ["FAIL p90 < 300ms where users > 100 [no cell]: not evaluated: "
                                            "no cell matches where users > 100", "0 passed, 1 failed"]),
    (["p90 < 300ms", "error_rate < 0.5%"], 1, [
        "FAIL p90 < 300ms [users=40,think_ms=0]: p90 is 340 ms, needs < 300 ms",
        "FAIL error_rate < 0.5% [users=10,think_ms=0]: error_rate is 1%, needs < 0.5%",
        "FAIL error_rate < 0.5% [users=40,think_ms=0]: error_rate is 1%, needs < 0.5%",
        "1 passed, 3 failed"]),
    ([], 0, ["0 passed, 0 failed (nothing to judge: the grid has no criteria)"]),
]


@pytest.mark.parametrize("grid_criteria, code, lines", EXIT_CODES, ids=[
    "all_hold_exits_0_with_the_counts", "one_failure_exits_1_naming_criterion_cell_value_and_threshold",
    "a_scope_that_leaves_out_the_slow_cell_passes", "a_scope_matching_no_cell_fails_rather_than_passing_silently",
    "each_failing_cell_is_its_own_line", "no_criteria_exits_0",
])
def test_exit_code_and_printed_lines_for_grid_criteria(tmp_path, capsys, grid_criteria, code, lines):
    folder = run_dir(tmp_path, summary(*TWO_CELLS, grid_criteria=grid_criteria))
    assert littlegrid_check(capsys, folder, "--criteria-only")[:2] == (code, lines)


def test_criteria_already_evaluated_by_analyze_are_taken_as_stored():
    stored = summary(*TWO_CELLS, grid_criteria=["p90 < 300ms"])
    stored["cells"][1]["overall"]["p90_ms"] = 100.0  # check must not re-measure what analyze judged
    outcomes = check.judge(typed(stored), criteria_only=True)
    assert [o.status for o in outcomes] == ["passed", "failed"]


def test_a_failed_analysis_check_fails_the_run_unless_criteria_only(tmp_path, capsys):
    grid_check = {"name": "littles_law_server", "cell": None, "value": 9.1, "expected": 10.0,
                  "rel_error": -0.09, "tolerance": 0.05, "passed": False, "explanation": "L = X R at the server"}
    cells = [cell(10, checks=[closed_law(0.045)]), cell(40, checks=[closed_law(None)])]
    folder = run_dir(tmp_path, summary(*cells, grid_criteria=["p90 < 1s"], checks=[grid_check]))
    code, lines, _ = littlegrid_check(capsys, folder)
    assert code == 1
    assert lines == [
        "FAIL check littles_law_server [grid]: value 9.1, expected 10, relative error 9%, tolerance 5%; "
        "L = X R at the server",
        "FAIL check closed_law [users=10,think_ms=0]: value 20.9, expected 20, relative error 4.5%, "
        "tolerance 3%; N = X(R+Z) with realised think time",
        "2 passed, 2 failed, 1 check could not be made",
    ]
    assert littlegrid_check(capsys, folder, "--criteria-only")[:2] == (0, ["2 passed, 0 failed"])


def test_extra_criteria_from_the_command_line_are_judged_too(tmp_path, capsys):
    folder = run_dir(tmp_path, summary(*TWO_CELLS, grid_criteria=["p90 < 400ms"]))
    code, lines, _ = littlegrid_check(capsys, folder, "--criteria-only", "--criterion", "p99 <= 300ms where users == 10")
    assert (code, lines) == (1, ["FAIL p99 <= 300ms where users == 10 [users=10,think_ms=0]: p99 is 400 ms, "
                                 "needs <= 300 ms", "2 passed, 1 failed"])


def test_verbose_also_prints_what_passed(tmp_path, capsys):
    folder = run_dir(tmp_path, summary(*TWO_CELLS, grid_criteria=["p90 < 300ms"]))
    _, lines, _ = littlegrid_check(capsys, folder, "--criteria-only", "-v")
    assert lines[0] == "pass p90 < 300ms [users=10,think_ms=0]: p90 is 120 ms, holds < 300 ms"


USER_ERRORS = [
    # how to break the run folder, the one line on stderr (after "littlegrid check: ")
    ("no_summary", "{dir}/summary.json: not found; run `littlegrid analyze {dir}` first"),
    ("no_folder", "{dir}: no such run folder"),
    ("bad_json", "{dir}/summary.json:1: not valid JSON: Expecting value"),
    ("wrong_schema", "{dir}/summary.json: not a littlegrid.summary/4 file (schema: littlegrid.run/1)"),
    ("bad_criterion", "criterion 'p101 < 1s': percentile p101 is over 100"),
    ("unknown_axis", "criterion 'p90 < 1s where userz < 4': the grid has no axis 'userz' (axes: think_ms, users)"),
]
EXTRA = {"bad_criterion": ["--criterion", "p101 < 1s"], "unknown_axis": ["--criterion", "p90 < 1s where userz < 4"]}


@pytest.mark.parametrize("breakage, message", USER_ERRORS, ids=[
    "missing_summary_exits_2_and_says_run_analyze_first", "missing_run_folder_exits_2",
    "corrupt_summary_exits_2_with_the_line", "a_run_manifest_instead_of_a_summary_exits_2",
    "a_malformed_extra_criterion_exits_2", "an_extra_criterion_on_an_unknown_axis_exits_2",
])
def test_user_errors_exit_2_with_one_line(tmp_path, capsys, breakage, message):
    folder = tmp_path / "run"
    if breakage != "no_folder":
        folder.mkdir()
    s = summary(*TWO_CELLS)
    if breakage == "bad_json":
        (folder / "summary.json").write_text("not json", encoding="utf-8")
    elif breakage == "wrong_schema":
        (folder / "summary.json").write_text(json.dumps({**s, "schema": "littlegrid.run/1"}), encoding="utf-8")
    elif breakage in EXTRA:
        (folder / "summary.json").write_text(json.dumps(s), encoding="utf-8")
    junit = tmp_path / "junit.xml"
    code, out, err = littlegrid_check(capsys, folder, "--junit", junit, *EXTRA.get(breakage, []))
    assert (code, out) == (2, [])
    assert err == f"littlegrid check: {message.format(dir=folder)}\n"
    assert not junit.exists()


def test_the_summary_file_itself_may_be_given(tmp_path, capsys):
    folder = run_dir(tmp_path, summary(*TWO_CELLS, grid_criteria=["p90 < 400ms"]))
    assert littlegrid_check(capsys, folder / "summary.json")[0] == 0


def junit_of(tmp_path, capsys, summary_dict, *args):
    folder = run_dir(tmp_path, summary_dict)
    junit = tmp_path / "reports" / "TEST-littlegrid.xml"
    code = littlegrid_check(capsys, folder, "--junit", junit, *args)[0]
    return code, ET.parse(junit).getroot()


def test_junit_has_one_testcase_per_criterion_and_cell_and_per_check(tmp_path, capsys):
    cells = [cell(10, p90_ms=120.0, checks=[closed_law(0.01)]), cell(40, p90_ms=340.0, checks=[closed_law(None)])]
    code, suite = junit_of(tmp_path, capsys, summary(*cells, grid_criteria=["p90 < 300ms", "p99 < 1s where users > 100"]))
    assert code == 1
    assert suite.tag == "testsuite"
    assert {k: suite.get(k) for k in ("name", "tests", "failures", "errors", "skipped")} == {
        "name": "littlegrid.ci", "tests": "5", "failures": "1", "errors": "1", "skipped": "1"}
    cases = [(c.get("classname"), c.get("name"), [child.tag for child in c]) for c in suite.iter("testcase")]
    assert cases == [
        ("littlegrid.criterion", "p90 < 300ms [users=10,think_ms=0]", []),
        ("littlegrid.criterion", "p90 < 300ms [users=40,think_ms=0]", ["failure"]),
        ("littlegrid.criterion", "p99 < 1s where users > 100 [no cell]", ["error"]),
        ("littlegrid.check", "closed_law [users=10,think_ms=0]", []),
        ("littlegrid.check", "closed_law [users=40,think_ms=0]", ["skipped"]),
    ]
    failure = suite.find("testcase/failure")
    assert failure.get("message") == "p90 < 300ms [users=40,think_ms=0]: p90 is 340 ms, needs < 300 ms"
    assert failure.get("type") == "criterion"
    assert all(c.get("time") == "0" for c in suite.iter("testcase"))
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["run.id"] == "ci-20261122T120000Z"
    # what the strictest common schema (Jenkins xunit's junit-4.xsd) requires
    assert [child.tag for child in suite][0] == "properties"
    assert all(e.get("type") and e.get("message") for e in suite.iter() if e.tag in ("failure", "error"))
    assert suite.get("timestamp") == "2026-11-22T12:00:00" and suite.get("hostname") == "ci-box"


def test_junit_is_written_when_everything_passes_too(tmp_path, capsys):
    code, suite = junit_of(tmp_path, capsys, summary(*TWO_CELLS, grid_criteria=["p90 < 1s"]), "--criteria-only")
    assert code == 0
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "0", "0")
    assert suite.find(".//failure") is None


def test_junit_survives_labels_with_markup_and_control_characters(tmp_path, capsys):
    label = "<img src=x onerror=alert(1)>\x07&"
    grid = summary(cell(10, labels={label: {"p90_ms": 900.0}}),
                   grid_criteria=['p90 < 300ms label "<img src=x onerror=alert(1)>\x07&"'])
    code, suite = junit_of(tmp_path, capsys, grid, "--criteria-only")
    assert code == 1
    name = suite.find("testcase").get("name")
    assert name == 'p90 < 300ms label "<img src=x onerror=alert(1)>\ufffd&" [users=10,think_ms=0]'


def test_junit_replaces_an_older_report_atomically_and_leaves_no_temp_files(tmp_path, capsys):
    (tmp_path / "reports").mkdir()
    old = tmp_path / "reports" / "TEST-littlegrid.xml"
    old.write_text("stale")
    _, suite = junit_of(tmp_path, capsys, summary(*TWO_CELLS, grid_criteria=["p90 < 1s"]))
    assert suite.get("tests") == "4"
    assert sorted(os.listdir(tmp_path / "reports")) == ["TEST-littlegrid.xml"]
    assert old.stat().st_mode & 0o044 == 0o044


def test_help_ends_with_runnable_examples():
    result = subprocess.run([sys.executable, "-m", "littlegrid.cli", "check", "--help"],
                            capture_output=True, text=True, check=True)
    assert result.stdout.rstrip().endswith(check.EXAMPLES[-1])
    assert "--junit FILE" in result.stdout and "--criteria-only" in result.stdout


def test_a_junit_path_that_cannot_be_written_exits_2_naming_it(tmp_path, capsys):
    folder = run_dir(tmp_path, summary(*TWO_CELLS, grid_criteria=["p90 < 1s"]))
    taken = tmp_path / "taken"
    taken.mkdir()
    code, _, err = littlegrid_check(capsys, folder, "--junit", taken)
    assert code == 2
    assert err.startswith(f"littlegrid check: {taken}: cannot write the JUnit report (")
    assert os.listdir(taken) == [] and sorted(os.listdir(tmp_path)) == ["run", "taken"]
