"""Relative criteria in a grid file (`criteria = ["p90 regress < 10%"]`), where the absolute ones go: parsed before any
load (a malformed one refused in one line naming the grid file and its line), kept by analyze in the summary's run
for `check --baseline` (one run cannot judge them), and without a baseline reported as not judged: never passed in
silence, never failed."""

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from analysis_synthetic import closed_loop, make_run
from littlegrid import cli, summary as summary_file
from littlegrid.run.grid_file import load_grid
from littlegrid.summarize import analyze
from littlegrid.usererror import UserError

PLAN = Path(__file__).parents[1] / "run" / "fixtures" / "tiny.jmx"
GRID = f"""name = "gated"
plan = "{PLAN}"
criteria = [
  "p90 < 1s",
  {{criterion}}
  "error_rate < 1%",
]
[target]
host = "127.0.0.1"
port = 8080
[axes]
users = [5, 10]
"""
RELATIVE = ["p90 regress < 10%", "throughput regress < 5% where users >= 10", "error_rate increase < 0.5 points"]


def grid_file(tmp_path: Path, criterion: str) -> Path:
    path = tmp_path / "gated.toml"
    path.write_text(GRID.replace("{criterion}", criterion), encoding="utf-8")
    return path


def test_a_grid_file_holds_relative_criteria_beside_absolute_ones(tmp_path):
    grid = load_grid(grid_file(tmp_path, "\n  ".join(f'"{c}",' for c in RELATIVE)))
    assert grid.criteria == ("p90 < 1s", *RELATIVE, "error_rate < 1%")


@pytest.mark.parametrize("criterion, problem", [
    ("p90 regress < 10", "p90's change is relative to the baseline, in %: write 'p90 regress < 10%', got no unit"),
    ("error_rate increase < 1%", "write 'error_rate increase < 1 points', got %"),
    ("throughput increase < 5%", "throughput worsens when it falls: write 'throughput regress < …'"),
    ('p90 regress < 10% label "Login"', "a relative criterion takes no label scope"),
])
def test_a_malformed_relative_criterion_is_refused_naming_the_grid_file_and_its_line(tmp_path, criterion, problem):
    path = grid_file(tmp_path, f"'{criterion}',")
    with pytest.raises(UserError) as refused:
        load_grid(path)
    text = str(refused.value)
    assert text.startswith(f"{path}:5: criteria: criterion '{criterion}': ") and problem in text
    assert "\n" not in text


def test_a_malformed_absolute_criterion_is_named_at_its_own_line_too(tmp_path):
    path = grid_file(tmp_path, '"p90 <",')
    with pytest.raises(UserError, match=rf"^{path}:5: criteria: criterion 'p90 <'"):
        load_grid(path)


@pytest.fixture(scope="module")
def gated_run(tmp_path_factory) -> Path:
    """Two closed loops (S = 20 ms, Z = 50 ms) analysed from a grid holding absolute and relative criteria."""
    cells = [{"id": f"users={n}", "axes": {"users": n}, "users": n, "think_ms": 50, "think_dist": "constant",
              "samples": closed_loop(n, 20, 50, duration_s=30)} for n in (5, 10)]
    run = make_run(tmp_path_factory.mktemp("gated") / "run", cells,
                   grid_extra={"criteria": ["p90 < 300ms", *RELATIVE]})
    summary_file.write(analyze([run]), run / summary_file.NAME)
    return run


def test_analyze_judges_the_absolute_criteria_and_keeps_the_relative_ones_for_the_gate(gated_run):
    summary = summary_file.read(gated_run / summary_file.NAME)
    assert [(c.criterion, c.cell, c.passed) for c in summary.criteria] == [("p90 < 300ms", "users=5", True),
                                                                           ("p90 < 300ms", "users=10", True)]
    assert summary.run.relative_criteria == RELATIVE
    # the capacity table's objectives: the absolute latency criteria only
    assert [[r.criterion for r in k.models.slo_capacity] for k in summary.curves] == [["p90 < 300ms"]]


def test_without_a_baseline_check_reports_them_not_judged(gated_run, tmp_path, capsys):
    junit = tmp_path / "TEST-littlegrid.xml"
    code = cli.main(["check", str(gated_run), "--criteria-only", "--junit", str(junit)])
    out = capsys.readouterr().out.splitlines()
    assert code == 0, out
    assert out[0] == "2 passed, 0 failed, 3 against the baseline not judged"
    assert out[1:] == [f"note: {c} [grid]: not judged: no baseline (check --baseline RUN_DIR|history:last-pass "
                       f"judges it)" for c in RELATIVE]
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    for c in RELATIVE:
        case = cases[f"{c} [grid]"]
        assert case.get("classname") == "littlegrid.baseline" and case.find("skipped") is not None
        assert case.find("failure") is None and case.find("error") is None

    assert cli.main(["report", str(gated_run)]) == 0
    page = (gated_run / "report" / "index.html").read_text(encoding="utf-8")
    section = page[page.index('<section id="baseline">'):]
    section = section[:section.index("</section>")]
    assert "not judged: no baseline" in section
    assert [f"<li>{c.replace('<', '&lt;').replace('>', '&gt;')}</li>" in section for c in RELATIVE] == [True] * 3
