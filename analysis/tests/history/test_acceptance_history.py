"""Issue 61's Done-when on real load (about 10 minutes: seven runs of a two-cell cut of grids/ci.toml against the
sample server, about a minute each). Run it alone, under the exclusive load lock, from analysis/:

    flock ~/.littlegrid-load.lock target/venv/bin/python -m pytest -m acceptance tests/history/test_acceptance_history.py -s

Wired as the README wires CI (`analyze --history`, then `check --baseline history:last-pass`) on a new grid whose
service time rises by 20% from its second run (the target path /io?ms=120 instead of / holding 100 ms, recorded as
the change under test): that run or the next fails naming the cells, and no run nobody could judge is kept as
passed. Folder against folder: the 20% slower run fails against the first, one 2% slower (/io?ms=102) and a second
run of the same commit pass, each verdict saying its noise and the smallest change it detects. After an edit of the
grid's criteria the next build is judged against the same series; after a change of plan a new series starts with
exit 0. The trends page opens in Chromium without a console error or a request off the machine, the regressed runs
marked. Each gate's table is printed (-s) for the figures the issue asks to report."""

import re
from pathlib import Path

import pytest

from littlegrid import cli, summary as summary_file
from littlegrid.history.store import open_store
from littlegrid.run.jmeter import repo_root
from littlegrid.summarize import analyze

pytestmark = pytest.mark.acceptance
ROOT = repo_root(Path(__file__).parent)


def grid(tmp_path: Path, name: str, path: str = "/", criteria: str | None = None, plan: Path | None = None) -> Path:
    """grids/ci.toml cut to two cells (5 users, below the 10 threads; 20, past them), no think time: its target path,
    criteria and plan as given (the plan by its absolute path, from elsewhere)."""
    text = (ROOT / "grids" / "ci.toml").read_text(encoding="utf-8")
    text = text.replace('plan = "plans/closed.jmx"', f'plan = "{plan or ROOT / "plans" / "closed.jmx"}"')
    text = re.sub(r'(?m)^path = "/"$', f'path = "{path}"', text)
    text = re.sub(r"(?m)^users = .*$", "users = [5, 20]", text)
    text = re.sub(r"(?m)^think_ms = .*$", "think_ms = [0]", text)
    if criteria is not None:
        text = re.sub(r"(?m)^criteria = .*$", f"criteria = {criteria}", text)
    out = tmp_path / f"{name}.toml"
    out.write_text(text, encoding="utf-8")
    return out


def run(grid_file: Path, out: Path, run_id: str, db: Path | None) -> Path:
    """The grid run and analysed; recorded in the history when one is given (analyze --history)."""
    from littlegrid.run.runner import run_grid

    folder = run_grid(grid_file, out=out, run_id=run_id)
    summary_file.write(analyze([folder]), folder / summary_file.NAME)
    if db is not None:
        assert cli.main(["history", "add", str(folder), "--db", str(db)]) == 0
    return folder


def check(capsys, folder: Path, *args) -> tuple[int, list[str]]:
    """check's exit code and lines; its table printed (run with -s)."""
    code = cli.main(["check", str(folder), "--criteria-only", *[str(a) for a in args]])
    lines = capsys.readouterr().out.splitlines()
    with capsys.disabled():
        table = folder / "baseline.md"
        print(f"\n{folder.name} ({' '.join(str(a) for a in args)}): exit {code}\n" +
              (table.read_text(encoding="utf-8") if table.is_file() else "\n".join(lines)))
    return code, lines


def gates(db: Path) -> list[tuple[str, str, str | None]]:
    store = open_store(str(db))
    try:
        return [(r.record.run_id, r.gate, r.accepted) for r in store.runs()]
    finally:
        store.close()


def test_done_when(runnable, browser, tmp_path, capsys):
    db, out = tmp_path / "history.sqlite", tmp_path / "reports"
    base = run(grid(tmp_path, "base"), out, "base-1", db)
    code, lines = check(capsys, base, "--baseline", "history:last-pass", "--db", db)
    assert code == 0 and "verdict kept: unjudged" in lines

    # the README's wiring: S +20% from the second run on: that run or the next fails, naming the cells
    slow = grid(tmp_path, "slow", "/io?ms=120")
    failed_at = None
    for i in (1, 2):
        folder = run(slow, out, f"slow-{i}", db)
        code, lines = check(capsys, folder, "--baseline", "history:last-pass", "--db", db)
        if code == 1:
            failed_at = failed_at or i
            named = [line for line in lines if line.startswith("FAIL ")]
            assert named and all(re.match(r"FAIL \S+ (regress|increase) < .* \[users=\d+,think_ms=0\]: ", line)
                                 for line in named)
            assert all("noise σ_b " in line and "detects ≥ " in line for line in named)
    assert failed_at is not None, "the 20% slower service was never flagged"
    kept = gates(db)
    assert kept[0] == ("base-1", "unjudged", "start")
    assert all(verdict != "passed" for _, verdict, _ in kept[1:]), kept  # no slow run blessed

    # folder against folder, no history: +20% fails, +2% and the same commit pass, each saying its noise
    same = run(grid(tmp_path, "same"), out, "base-2", None)
    nudged = run(grid(tmp_path, "nudged", "/io?ms=102"), out, "nudged", None)
    code, lines = check(capsys, out / "slow-1", "--baseline", base)
    assert code == 1 and any(line.startswith("FAIL ") for line in lines)
    for folder in (same, nudged):
        code, lines = check(capsys, folder, "--baseline", base)
        assert code == 0, lines
        said = [line for line in lines if line.startswith("detects: ")]
        assert len(said) == 3 and all("(prior " in line for line in said)

    # an edit of the criteria keeps the series; a new plan starts one, exit 0
    assert cli.main(["history", "add", str(same), "--db", str(db)]) == 0
    code, lines = check(capsys, same, "--baseline", "history:last-pass", "--db", db)
    assert code == 0, lines
    edited = run(grid(tmp_path, "edited", criteria='["p90 < 2s", "error_rate < 1%"]'), out, "edited", db)
    code, lines = check(capsys, edited, "--baseline", "history:last-pass", "--db", db)
    assert code == 0 and "Baseline: `median of base-1, base-2`" in (edited / "baseline.md").read_text()
    plan = tmp_path / "closed-copy.jmx"
    plan.write_text((ROOT / "plans" / "closed.jmx").read_text(encoding="utf-8") + "\n<!-- another plan -->\n")
    replanned = run(grid(tmp_path, "replanned", plan=plan), out, "replanned", db)
    code, lines = check(capsys, replanned, "--baseline", "history:last-pass", "--db", db)
    assert code == 0 and any(line.startswith("note: a new series of grid ci starts: another plan") for line in lines)
    assert gates(db)[-1] == ("replanned", "unjudged", "start")

    page = tmp_path / "trends"
    assert cli.main(["history", "report", "--db", str(db), "-o", str(page)]) == 0
    import sys
    sys.path.insert(0, str(Path(__file__).parents[1] / "render"))
    from browser import assert_clean, open_page

    visit, tab = open_page(browser, page / "index.html")
    try:
        assert_clean(visit, "trends of the acceptance runs")
        marked = [r.inner_text() for r in tab.query_selector_all("#grid-1 tr.regressed")]
        assert marked and all("slow-" in m and "failed: regressed" in m for m in marked)
    finally:
        tab.close()
