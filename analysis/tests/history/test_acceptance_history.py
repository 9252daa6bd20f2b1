"""The issue's Done-when on real load (about 12 minutes: five runs of grids/ci.toml, 2 minutes of load each). Run it
alone, under the exclusive load lock, from analysis/:

    flock ~/.littlegrid-load.lock target/venv/bin/python -m pytest -m acceptance tests/history/test_acceptance_history.py

Three runs of grids/ci.toml on one commit, each recorded and gated against the last run that passed: none fails. Then
the same grid with the sample server's service time raised 20% (the target path /io?ms=120 instead of / holding 100
ms: recorded as the change under test) fails, naming the regressed cells' p90 with its interval; one raised 2%
(/io?ms=102) does not. A baseline of another grid is refused in one line. The trends page of the five runs opens in
Chromium without a console error or a request off the machine, the regressed run marked."""

import re
import sys
from pathlib import Path

import pytest

from littlegrid import cli, summary as summary_file
from littlegrid.history.store import open_store
from littlegrid.run.jmeter import repo_root
from littlegrid.summarize import analyze
from history_runs import run_folder

pytestmark = pytest.mark.acceptance
ROOT = repo_root(Path(__file__).parent)


def ci_grid(tmp_path: Path, path: str) -> Path:
    """grids/ci.toml as it is, but for its target path (and its plan named by its absolute path, from elsewhere)."""
    text = (ROOT / "grids" / "ci.toml").read_text(encoding="utf-8")
    text = text.replace('plan = "plans/closed.jmx"', f'plan = "{ROOT / "plans" / "closed.jmx"}"')
    text = re.sub(r'(?m)^path = "/"$', f'path = "{path}"', text)
    grid = tmp_path / f"ci-{len(list(tmp_path.glob('ci-*.toml')))}.toml"
    grid.write_text(text, encoding="utf-8")
    return grid


def run_recorded(grid: Path, out: Path, run_id: str, db: Path) -> Path:
    from littlegrid.run.runner import run_grid

    run = run_grid(grid, out=out, run_id=run_id)
    summary_file.write(analyze([run]), run / summary_file.NAME)
    assert cli.main(["history", "add", str(run), "--db", str(db)]) == 0
    return run


def gate(capsys, run: Path, db: Path) -> tuple[int, list[str]]:
    """The gate's exit code and lines; its table printed (run with -s), the figures the issue asks to report."""
    code = cli.main(["check", str(run), "--criteria-only", "--baseline", "history:last-pass", "--db", str(db)])
    lines = capsys.readouterr().out.splitlines()
    with capsys.disabled():
        table = run / "baseline.md"
        print(f"\n{run.name}: exit {code}\n" + (table.read_text(encoding="utf-8") if table.is_file() else ""))
    return code, lines


def test_done_when(runnable, browser, tmp_path, capsys):
    db, out = tmp_path / "history.sqlite", tmp_path / "reports"
    runs = []
    for i in range(3):
        runs.append(run_recorded(ROOT / "grids" / "ci.toml", out, f"ci-{i + 1}", db))
        code, lines = gate(capsys, runs[-1], db)
        assert code == 0, lines  # no false regression between runs of one commit
    store = open_store(str(db))
    assert [(r.record.run_id, r.gate) for r in store.runs()] == [("ci-1", "passed"), ("ci-2", "passed"),
                                                                  ("ci-3", "passed")]
    store.close()

    slower = run_recorded(ci_grid(tmp_path, "/io?ms=120"), out, "ci-slower", db)
    code, lines = gate(capsys, slower, db)
    failed = [line for line in lines if line.startswith("FAIL p90 regress < 10% [")]
    assert code == 1 and failed, lines
    assert all("95% interval +" in line and line.endswith("regressed beyond 10%") for line in failed)
    assert any(line.startswith("note: the target differs from the baseline's: path '/' vs '/io?ms=120'")
               for line in lines)

    nudged = run_recorded(ci_grid(tmp_path, "/io?ms=102"), out, "ci-nudged", db)
    code, lines = gate(capsys, nudged, db)
    assert code == 0, lines

    other = run_folder(tmp_path / "other", "littles", grid_name="littles-law")
    assert cli.main(["check", str(nudged), "--baseline", str(other)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not comparable with ci-nudged: another grid" in err

    page = tmp_path / "trends"
    assert cli.main(["history", "report", "--db", str(db), "-o", str(page)]) == 0
    sys.path.insert(0, str(Path(__file__).parents[1] / "render"))
    from browser import assert_clean, open_page

    visit, tab = open_page(browser, page / "index.html")
    try:
        assert_clean(visit, "trends of five runs")
        marked = [r.inner_text() for r in tab.query_selector_all("#grid-1 tr.regressed")]
        assert len(marked) == 1 and "ci-slower" in marked[0] and "failed: regressed" in marked[0]
    finally:
        tab.close()
