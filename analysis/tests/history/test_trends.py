"""`littlegrid history report`: per grid and cell, each metric across runs with its interval, the noise band (from
K_MIN comparable earlier runs on) and the failed runs marked; a self-contained page that opens in Chromium with no
console error and no request off the machine, its text escaped."""

import sys
from pathlib import Path

import pytest

from littlegrid import cli
from littlegrid.history import trends
from littlegrid.history.store import open_store
from history_runs import run_folder


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """Five runs of grid ci (the fifth with S raised 20%, failed by the gate) and one of another grid."""
    root = tmp_path_factory.mktemp("trends")
    db = root / "history.sqlite"
    names = [("r1", 50.0), ("r2", 50.0), ("r3", 50.0), ("r4", 50.0), ("r5", 60.0)]
    for i, (name, service) in enumerate(names):
        folder = run_folder(root, name, seed=i + 1, service_ms=service, rates=(20.0,))
        (folder / "report").mkdir()
        (folder / "report" / "index.html").write_text("<title>run report</title>")
        assert cli.main(["history", "add", str(folder), "--db", str(db)]) == 0
        assert cli.main(["check", str(folder), "--baseline", "history:last-pass", "--db", str(db)]) == (
            1 if name == "r5" else 0)
    other = run_folder(root, "<script>alert(1)</script>", seed=9, grid_name="other<b>", rates=(20.0,))
    assert cli.main(["history", "add", str(other), "--db", str(db)]) == 0
    return root, db


def test_the_trends_hold_each_metric_across_runs_with_the_gates_band_and_verdicts(history):
    _, db = history
    store = open_store(str(db))
    runs = store.runs(figures=True)
    store.close()
    got = trends.build(runs, "h")
    assert [(g.name, len(g.runs)) for g in got.grids] == [("ci", 5), ("other<b>", 1)]
    ci = got.grids[0]
    assert [(r.gate, r.accepted, r.series) for r in ci.runs] == [
        ("unjudged", "start", 1), ("passed", None, 1), ("passed", None, 1), ("passed", None, 1), ("failed", None, 1)]
    p90 = next(m for m in ci.cells[0].metrics if m.key == "p90_ms")
    assert p90.values == [next(f.value for f in r.record.figures if f.metric == "p90_ms") for r in runs[:5]]
    # the band from the second run on: the reference set before it (run 1, then the median of 1-2, 1-3, 1-4)
    assert p90.band_lo[0] is None and None not in p90.band_lo[1:]
    assert all(lo < v < hi for lo, v, hi in zip(p90.band_lo[1:4], p90.values[1:4], p90.band_hi[1:4]))
    assert p90.values[4] > p90.band_hi[4]  # the slower run lies past the band, and the gate failed it
    assert p90.regressed == [None, None, None, None, p90.values[4]]
    assert all(lo <= v <= hi for lo, v, hi in zip(p90.lo, p90.values, p90.hi))
    assert p90.shifts == []  # one run at a new level is no persistent change yet


def test_a_change_point_is_marked_with_the_size_of_its_shift(tmp_path):
    """Three runs at S = 50 ms and three at 60 ms, recorded: p90's change point at the fourth run, its shift near
    M/M/2's +41% at 20/s on paper, the interval around it."""
    db = tmp_path / "h.sqlite"
    for i, service in enumerate((50.0, 50.0, 50.0, 60.0, 60.0, 60.0)):
        folder = run_folder(tmp_path, f"s{i}", seed=20 + i, service_ms=service, rates=(20.0,))
        assert cli.main(["history", "add", str(folder), "--db", str(db)]) == 0
    store = open_store(str(db))
    runs = store.runs(figures=True)
    store.close()
    p90 = next(m for m in trends.build(runs, "h").grids[0].cells[0].metrics if m.key == "p90_ms")
    [shift] = p90.shifts
    paper = 60 / (1 - 0.6 ** 2) / (50 / (1 - 0.5 ** 2)) - 1
    assert (shift.run, shift.run_id) == (4, "s3") and shift.lo < paper < shift.hi and shift.lo > 0.2


def test_the_page_opens_offline_marks_the_regressed_run_and_escapes_names(history, browser, capsys):
    root, db = history
    out = root / "trends"
    assert cli.main(["history", "report", "--db", str(db), "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out / "index.html")
    text = (out / "index.html").read_text()
    assert "<script>alert(1)</script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "other&lt;b&gt;" in text
    sys.path.insert(0, str(Path(__file__).parents[1] / "render"))
    from browser import assert_clean, open_page

    visit, page = open_page(browser, out / "index.html")
    try:
        assert_clean(visit, "trends")
        assert len(visit.charts) == 6 * 2  # six metrics of one cell in each grid
        rows = page.query_selector_all("#grid-1 tr.regressed")
        assert [r.inner_text().split("\t")[1] for r in rows] == ["r5"]
        assert "the series' first reference" in page.query_selector("#grid-1 tbody tr").inner_text()
        assert "failed: regressed" in rows[0].inner_text()
        link = page.query_selector("#grid-1 tbody tr a")
        assert (out / link.get_attribute("href")).resolve() == (root / "r1" / "report" / "index.html").resolve()
    finally:
        page.close()


def test_an_absent_history_is_one_line(tmp_path, capsys):
    assert cli.main(["history", "report", "--db", str(tmp_path / "none.sqlite"), "-o", str(tmp_path / "o")]) == 2
    assert "no history here yet" in capsys.readouterr().err
