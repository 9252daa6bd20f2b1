"""The report's "Against the baseline" section: `check --baseline` keeps the gate as typed data (RUN/baseline.json),
draws the run's report again, and the HTML section and the Markdown (baseline.md, the report's summary.md) show the
same rows with the same strings: each (criterion, cell) with both figures, the regression and its interval, the
noise it holds, the size it detects and the verdict, failed rows marked; cell ids escaped in both."""

import html
import json
import re

import pytest

from littlegrid import cli
from littlegrid.summary import baseline as baseline_record
from history_runs import run_folder

MARKUP = '<img src=x onerror=alert(1)>|'  # a cell id as hostile as a label: markup, and a pipe for Markdown tables


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    """Three runs of one commit recorded in a history, a run with S raised 20% (50 -> 60 ms: p90 +24% at 10/s and
    +41% at 20/s on paper, throughput the offered rate, no errors) reported, then checked against the third."""
    root = tmp_path_factory.mktemp("runs")
    db = root / "history.sqlite"
    folders = {name: run_folder(root, name, seed=seed, service_ms=s, cell_prefix=MARKUP)
               for name, seed, s in (("one", 1, 50.0), ("two", 2, 50.0), ("three", 3, 50.0), ("slower", 4, 60.0))}
    for name in ("one", "two", "three"):
        assert cli.main(["history", "add", str(folders[name]), "--db", str(db)]) == 0
    return folders, db


def section(page: str) -> str:
    found = re.search(r'<section id="baseline">(.*?)</section>', page, re.S)
    assert found, "no Against the baseline section"
    return found.group(1)


def html_rows(page: str) -> list[tuple[str, list[str]]]:
    """(the row's class, its cells' text) for each row of the section's table."""
    rows = re.findall(r'<tr class="(\w+)">(.*?)</tr>', section(page), re.S)
    return [(cls, [html.unescape(re.sub(r"<[^>]+>", "", td)).strip()
                   for td in re.findall(r"<td[^>]*>(.*?)</td>", body, re.S)]) for cls, body in rows]


def md_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(("| p90", "| throughput", "| error\\_rate"))]


def test_check_draws_the_reports_section_from_the_gates_record(gated, capsys):
    folders, db = gated
    run = folders["slower"]
    assert cli.main(["report", str(run)]) == 0
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    assert 'id="baseline"' not in page  # no gate yet, and the grid has no relative criteria
    capsys.readouterr()

    assert cli.main(["check", str(run), "--baseline", str(folders["three"]), "--db", str(db)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert f"wrote {run / 'report' / 'index.html'}" in out

    record = baseline_record.read(run / "baseline.json")
    assert record.run_id == "slower" and record.baseline_id == "three" and len(record.rows) == 6
    assert json.loads((run / "baseline.json").read_text())["schema"] == "littlegrid.baseline/2"
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    rows = html_rows(page)
    # failed rows marked: p90 where its interval lies past 10% (at 20/s for certain: +41% on paper); throughput and
    # errors pass (an open queue's throughput is its offered rate, and nothing fails)
    failed = {r.cell for r in record.rows if r.passed is False}
    assert failed and all(r.metric == "p90" for r in record.rows if r.passed is False)
    assert MARKUP + "rate=20" in failed
    assert [(cls, cells[1]) for cls, cells in rows] == [
        ("fail" if r.passed is False else "pass", r.criterion) for r in record.rows]
    assert [cells[0] for _, cells in rows] == ["FAIL" if r.passed is False else "pass" for r in record.rows]
    # one function gives each shown string: the HTML's cells are the record's, and baseline.md's, word for word
    for (_, cells), r in zip(rows, record.rows):
        assert cells[1:] == [r.criterion, r.cell, r.shown(r.baseline), r.shown(r.value), r.change_text(r.regression),
                             r.interval_text(), r.noise_short(), r.detectable_text(), r.verdict_line()]
    table = md_rows((run / "baseline.md").read_text(encoding="utf-8"))
    assert len(table) == 6
    for (_, cells), line in zip(rows, table):
        shown = [html.unescape(c.replace("\\", "")).strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        assert shown == cells[1:]
    p90_20 = next(cells for _, cells in rows if cells[2] == MARKUP + "rate=20" and cells[1].startswith("p90"))
    row = next(r for r in record.rows if r.cell == MARKUP + "rate=20" and r.metric == "p90")
    assert p90_20[9] == "regressed beyond 10%" and p90_20[7] == f"prior and measured, {row.noise_df:.0f} df"
    assert 6 < row.noise_df < 12  # the prior's 6 and the three runs' two cells (about 1.6 each, successive differences)
    assert p90_20[8].startswith("detects ≥ ")
    n = len(failed)
    verdict = f"{n} of 6 regressed beyond their margin"
    assert f"Baseline three: {verdict}." in html.unescape(section(page))
    assert f'href="#baseline">against baseline three: {verdict}</a>' in page
    # what each criterion detects, said under the table with the noise it rests on
    assert "this comparison detects p90 regressions of " in html.unescape(section(page))

    # the cell id is text, never markup, in the HTML and in the Markdown
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;|rate=10" in page
    summary_md = (run / "report" / "summary.md").read_text(encoding="utf-8")
    assert "<img" not in summary_md and "&lt;img src=x onerror=alert(1)&gt;\\|rate=10" in summary_md

    # checked again: the report drawn again, its summary.md holding the section once; `report` keeps it too
    assert cli.main(["check", str(run), "--baseline", str(folders["three"]), "--db", str(db)]) == 1
    assert cli.main(["report", str(run)]) == 0
    summary_md = (run / "report" / "summary.md").read_text(encoding="utf-8")
    assert summary_md.count("## Against the baseline") == 1 and md_rows(summary_md) == table
    assert html_rows((run / "report" / "index.html").read_text(encoding="utf-8")) == rows


def test_without_a_history_the_prior_noise_judges_and_says_so(gated, tmp_path, capsys):
    """Against a run folder with no history: the noise is this project's default prior, said in each row."""
    folders, _ = gated
    run = folders["two"]
    assert cli.main(["report", str(run)]) == 0
    assert cli.main(["check", str(run), "--baseline", str(folders["one"]), "--db", str(tmp_path / "none.sqlite")]) == 2
    assert "no history here yet" in capsys.readouterr().err  # a --db that does not exist is refused, not made
    assert cli.main(["check", str(run), "--baseline", str(folders["one"])]) == 0
    rows = html_rows((run / "report" / "index.html").read_text(encoding="utf-8"))
    assert len(rows) == 6 and {cls for cls, _ in rows} == {"pass"}
    assert all(cells[0] == "pass" and cells[7] == "prior, 6 df" and cells[9].startswith("not shown beyond")
               for _, cells in rows)


def test_a_gate_kept_for_another_run_is_not_drawn(tmp_path):
    """A baseline.json copied beside another run's summary (or left from another analysis id) is not this run's."""
    kept = baseline_record.Baseline(schema=baseline_record.SCHEMA, run_id="slower", series=None, reference=["three"],
                                    reference_kind="run folder", criteria=["p90 regress < 10%"], rows=[], notes=[],
                                    verdict="unjudged")
    baseline_record.write(kept, tmp_path)
    assert baseline_record.of_run(tmp_path, "slower") == kept
    assert baseline_record.of_run(tmp_path, "another") is None
    assert baseline_record.of_run(tmp_path / "nothing", "slower") is None


def test_the_section_in_chromium_runs_nothing_from_a_cell_id_and_marks_the_failed_rows(gated, browser):
    """The gated report as a browser shows it: no console error (the page's CSP holds), no dialog from the cell id's
    onerror, no request off the machine, the failed rows styled as failures."""
    import sys
    from pathlib import Path

    folders, db = gated
    run = folders["slower"]
    assert cli.main(["report", str(run)]) == 0
    assert cli.main(["check", str(run), "--baseline", str(folders["three"]), "--db", str(db)]) == 1
    sys.path.insert(0, str(Path(__file__).parents[1] / "render"))
    from browser import assert_clean, open_page

    visit, tab = open_page(browser, run / "report" / "index.html")
    try:
        assert_clean(visit, "the report against a baseline")
        assert tab.locator("#baseline img").count() == 0
        failed = tab.locator("#baseline tr.fail")
        assert failed.count() >= 1 and "regressed beyond 10%" in failed.first.inner_text()
        assert tab.locator("#baseline tr.pass").count() == 6 - failed.count()
        assert "<img src=x onerror=alert(1)>|rate=" in failed.first.inner_text()  # shown as text
        weight = failed.first.locator("td.outcome").evaluate("e => getComputedStyle(e).fontWeight")
        assert weight == "700"  # tr.fail td.outcome: the failure styled (littlegrid.css)
    finally:
        tab.close()
