"""A run interrupted in its second arm (run/fixtures/interrupted-run, a real run folder the runner left after SIGINT):
analyze, report, explain and compare give what the finished cells show, say the run is incomplete and how to finish
it, and say which arm has no cells yet with the values the finished cells have, never a contradiction."""

import json
import shutil
from pathlib import Path

import pytest

from littlegrid import cli

FIXTURE = Path(__file__).parent / "run" / "fixtures" / "interrupted-run"
AXIS = "littlegrid.throttle.max-concurrent"
FINISHED = [f"{AXIS}=0,users=1", f"{AXIS}=0,users=2"]
INTERRUPTED, NEVER_STARTED = f"{AXIS}=1,users=1", f"{AXIS}=1,users=2"
NOTE = (f"the arms {AXIS} = 0 vs 1 are not compared: no finished cell has {AXIS} = 1 yet "
        "(the finished cells' values: 0)")


@pytest.fixture(params=["during its first cell", "while the server restarted"])
def run(request, tmp_path) -> Path:
    """The fixture as the runner left it; and as it leaves a run interrupted one step earlier, while the sample
    server restarted for the second arm's knobs (the runner writes a cell's manifest only once the server is up):
    the second arm then has no cell whose axes are known, the case where the grid's values were listed."""
    folder = tmp_path / "interrupted-run"
    shutil.copytree(FIXTURE, folder)
    if request.param == "while the server restarted":
        shutil.rmtree(folder / "cells" / INTERRUPTED)
    return folder


def _rows(cell_id: str) -> int:
    return len((FIXTURE / "cells" / cell_id / "results.jtl").read_text().splitlines()) - 1  # less the header


def test_analyze_records_the_unfinished_run_and_reads_every_finished_cell(run, capsys):
    assert cli.main(["analyze", str(run)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"incomplete run: 2 of 4 cells finished (interrupted by SIGINT); finish it with "
                          f"`littlegrid run --resume {run}`\nwrote {run / 'summary.json'}: 4 cells")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["run"]["unfinished"] == {"cells_finished": 2, "cells_total": 4, "reason": "interrupted by SIGINT",
                                            "resume": f"littlegrid run --resume {run}"}
    cells = {c["id"]: c for c in summary["cells"]}
    assert [cells[i]["status"] for i in FINISHED] == ["complete", "complete"]
    assert [cells[i]["reading"]["rows_read"] for i in FINISHED] == [_rows(i) for i in FINISHED] == [30, 52]
    assert all(cells[i]["overall"]["count"] > 0 for i in FINISHED)
    assert cells[NEVER_STARTED]["status"] == "incomplete" and cells[NEVER_STARTED]["overall"] is None


def test_report_draws_the_finished_cells_says_how_to_finish_and_which_arm_has_no_cells(run, capsys):
    assert cli.main(["report", str(run)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"{run / 'report' / 'index.html'}\n"  # no comparison page
    assert captured.err == f"littlegrid report: {NOTE}\n"
    assert not list((run / "report").glob("compare-*"))
    page = (run / "report" / "index.html").read_text()
    assert "Incomplete run: 2 of 4 cells finished (interrupted by SIGINT)</h2>" in page
    assert f"Finish the run with <code>littlegrid run --resume {run}</code>" in page
    assert NOTE.replace("'", "&#39;") in page
    for cell in FINISHED:
        assert cell in page


def test_a_complete_summary_has_no_unfinished_note(run, capsys):
    assert cli.main(["analyze", str(run)]) == 0
    summary = json.loads((run / "summary.json").read_text())
    summary["run"]["unfinished"] = None
    (run / "summary.json").write_text(json.dumps(summary))
    capsys.readouterr()
    assert cli.main(["report", str(run)]) == 0
    assert "Incomplete run" not in (run / "report" / "index.html").read_text()


def test_explain_says_the_run_is_incomplete_before_its_findings(run, capsys):
    assert cli.main(["analyze", str(run)]) == 0
    capsys.readouterr()
    assert cli.main(["explain", str(run)]) == 0
    assert capsys.readouterr().out.startswith(
        f"incomplete run: 2 of 4 cells finished (interrupted by SIGINT); finish it with `littlegrid run --resume {run}`\n")


def test_compare_of_the_arms_is_refused_in_one_line_naming_the_finished_cells_values(run, capsys):
    assert cli.main(["compare", str(run), "--arms", f"{AXIS}=0,1"]) == 2
    err = capsys.readouterr().err
    assert err == (f"littlegrid compare: arms: no finished cell has {AXIS} = 1 yet "
                   "(the finished cells' values: 0)\n")
