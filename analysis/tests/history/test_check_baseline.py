"""`littlegrid check RUN --baseline BASE [--db URL]`: the gate as CI meets it: exit codes, one line per failed
(criterion, cell), JUnit testcases named so, the gate kept as baseline.json and its table in baseline.md, the
verdict kept in the history for `history:last-pass`, refusals in one line."""

import xml.etree.ElementTree as ET

import pytest

from littlegrid import cli
from littlegrid.history.store import open_store
from littlegrid.summary import baseline as baseline_record
from history_runs import HOST, run_folder


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    return {"one": run_folder(root, "one", seed=1), "two": run_folder(root, "two", seed=2),
            "three": run_folder(root, "three", seed=3), "slower": run_folder(root, "slower", seed=4, service_ms=60.0),
            "nudged": run_folder(root, "nudged", seed=5, service_ms=51.0),
            "other_grid": run_folder(root, "other_grid", seed=6, grid_name="littles-law"),
            "big_host": run_folder(root, "big_host", seed=7, host={**HOST, "cpus": 8}),
            "gated": run_folder(root, "gated", seed=9, relative_criteria=["mean regress < 10%"]),
            "gated_slower": run_folder(root, "gated_slower", seed=10, service_ms=60.0,
                                       relative_criteria=["mean regress < 10%"])}


def littlegrid(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def gates(db):
    store = open_store(str(db))
    try:
        return [(r.record.run_id, r.gate) for r in store.runs()]
    finally:
        store.close()


def test_runs_of_one_commit_pass_in_turn_then_a_slower_run_fails_against_the_last_pass(folders, capsys, tmp_path):
    db = tmp_path / "history.sqlite"
    code, out, _ = littlegrid(capsys, "history", "add", folders["one"], "--db", db)
    code, out, _ = littlegrid(capsys, "check", folders["one"], "--baseline", "history:last-pass", "--db", db)
    assert code == 0 and out[0] == "0 passed, 0 failed, 1 against the baseline not judged"
    assert out[1] == f"note: no earlier run of grid ci passed the gate in {db}: nothing to gate against (this run " \
                     "is the baseline once it passes)"
    # the next two: judged against the one before, but the history holds fewer than 3 comparable earlier runs for
    # the noise: nothing judged yet, nothing failed, each verdict kept as passed (so they become the noise)
    for before, run in (("one", "two"), ("two", "three")):
        littlegrid(capsys, "history", "add", folders[run], "--db", db)
        code, out, _ = littlegrid(capsys, "check", folders[run], "--baseline", "history:last-pass", "--db", db)
        assert code == 0, out
        assert out[0] == "0 passed, 0 failed, 6 against the baseline not judged"
        assert out[1] == ("note: 6 of 6 (criterion, cell) not judged yet: the history holds too few comparable "
                          "earlier runs for their run-to-run noise (each with its within-run interval in "
                          "baseline.md, or -v)")
        assert out[2:4] == [f"wrote {folders[run] / 'baseline.json'}", f"wrote {folders[run] / 'baseline.md'}"]
        assert f"Baseline: `{before}`" in (folders[run] / "baseline.md").read_text()
    assert gates(db) == [("one", "passed"), ("two", "passed"), ("three", "passed")]

    littlegrid(capsys, "history", "add", folders["slower"], "--db", db)
    junit = tmp_path / "TEST-littlegrid.xml"
    code, out, _ = littlegrid(capsys, "check", folders["slower"], "--baseline", "history:last-pass", "--db", db,
                              "--junit", junit)
    assert code == 1
    failed = [line for line in out if line.startswith("FAIL")]
    assert [line.split(":")[0] for line in failed] == ["FAIL p90 regress < 10% [rate=10]",
                                                       "FAIL p90 regress < 10% [rate=20]"]
    assert all("95% interval +" in line and "with the run-to-run noise of 3 earlier runs" in line
               and line.endswith("regressed beyond 10%") for line in failed)
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    assert set(cases) == {f"{c} [rate={r}]" for c in ("p90 regress < 10%", "throughput regress < 5%",
                                                      "error_rate increase < 0.5 points") for r in (10, 20)}
    assert cases["p90 regress < 10% [rate=20]"].find("failure").get("message") == failed[1][len("FAIL "):]
    assert cases["throughput regress < 5% [rate=20]"].find("failure") is None
    assert gates(db)[-1] == ("slower", "failed")

    # the next run is gated against the last run that passed (three), not the failed one
    littlegrid(capsys, "history", "add", folders["nudged"], "--db", db)
    code, out, _ = littlegrid(capsys, "check", folders["nudged"], "--baseline", "history:last-pass", "--db", db)
    assert code == 0 and "Baseline: `three`" in (folders["nudged"] / "baseline.md").read_text()
    assert gates(db)[-1] == ("nudged", "passed")


def test_a_run_folder_baseline_judges_the_criteria_given_in_their_scope(folders, capsys):
    """--criterion replaces the default criteria, its where-scope picks the cells; with no history the row shows its
    within-run interval, not judged. (The report's section: test_baseline_report.py.)"""
    code, out, _ = littlegrid(capsys, "check", folders["two"], "--baseline", folders["one"],
                              "--criterion", "p99 regress < 20% where rate == 20")
    assert code == 0 and out[0] == "0 passed, 0 failed, 1 against the baseline not judged"
    rows = [line for line in (folders["two"] / "baseline.md").read_text().splitlines() if line.startswith("| p99")]
    assert len(rows) == 1 and rows[0].startswith("| p99 regress &lt; 20% where rate == 20 | rate=20 | ")
    assert ("| within-run only (0 runs) | not judged: the history holds 0 comparable earlier runs of this cell, 3 "
            "needed for its run-to-run noise |") in rows[0]


def test_the_grids_relative_criteria_are_the_ones_judged_against_a_baseline(folders, capsys):
    """The grid's criteria (summary.run.relative_criteria), after --criterion's, in place of the defaults; the
    regression of mean R is M/M/2's on paper, R = S/(1 − ρ²): S 50 -> 60 ms is +23.6% at 10/s, +40.6% at 20/s."""
    code, out, _ = littlegrid(capsys, "check", folders["gated_slower"], "--baseline", folders["gated"],
                              "--criterion", "p99 regress < 50% where rate == 20", "-v")
    assert code == 0 and out[0].startswith("skip p99 regress < 50% where rate == 20 [rate=20]: p99 ")
    record = baseline_record.read(folders["gated_slower"] / "baseline.json")
    assert record.criteria == ["p99 regress < 50% where rate == 20", "mean regress < 10%"]
    assert [(r.criterion, r.cell) for r in record.rows] == [("p99 regress < 50% where rate == 20", "rate=20"),
                                                            ("mean regress < 10%", "rate=10"),
                                                            ("mean regress < 10%", "rate=20")]
    for r, paper in zip(record.rows[1:], (60 / (1 - 0.3 ** 2) / (50 / (1 - 0.25 ** 2)) - 1,
                                          60 / (1 - 0.6 ** 2) / (50 / (1 - 0.5 ** 2)) - 1)):
        assert r.lo < paper < r.hi and r.lo > 0.10  # past the margin, but not judged: no history for the noise
        assert r.awaits_noise


def test_another_grid_is_refused_in_one_line_and_another_host_unless_allowed(folders, capsys):
    code, out, err = littlegrid(capsys, "check", folders["other_grid"], "--baseline", folders["one"])
    assert code == 2 and out == []
    assert err == "littlegrid check: baseline one is not comparable with other_grid: another grid (ci vs littles-law)\n"
    code, _, err = littlegrid(capsys, "check", folders["big_host"], "--baseline", folders["one"])
    assert code == 2 and err == ("littlegrid check: baseline one: another kind of host: baseline 2 CPUs, 24 GiB, Linux "
                                 "x86_64 vs this run 8 CPUs, 24 GiB, Linux x86_64; --allow-other-host compares them "
                                 "anyway\n")
    code, _, err = littlegrid(capsys, "check", folders["big_host"], "--baseline", folders["one"], "--allow-other-host")
    assert code == 0 and err.startswith("WARNING: another kind of host: baseline 2 CPUs")


def test_a_relative_criterion_needs_a_baseline_and_an_empty_baseline_is_none(folders, capsys):
    code, _, err = littlegrid(capsys, "check", folders["one"], "--criterion", "p90 regress < 10%")
    assert code == 2 and err == ("littlegrid check: criterion 'p90 regress < 10%': a relative criterion needs "
                                 "--baseline (a run folder or history:last-pass)\n")
    code, out, _ = littlegrid(capsys, "check", folders["one"], "--baseline", "")
    assert code == 0 and out == ["0 passed, 0 failed (nothing to judge: the grid has no criteria and the summary no "
                                 "checks)"]
    code, _, err = littlegrid(capsys, "check", folders["one"], "--baseline", "history:last-pass", "--db",
                              folders["one"] / "absent.sqlite")
    assert code == 2 and "no history here yet" in err


def test_last_pass_is_the_last_comparable_run_that_passed(folders, capsys, tmp_path):
    db = tmp_path / "history.sqlite"
    for name in ("one", "big_host"):  # one passed on this kind of host, then one on a bigger host
        littlegrid(capsys, "history", "add", folders[name], "--db", db)
        code, _, _ = littlegrid(capsys, "check", folders[name], "--baseline", "history:last-pass", "--db", db,
                                "--allow-other-host")
        assert code == 0
    assert gates(db) == [("one", "passed"), ("big_host", "passed")]
    littlegrid(capsys, "history", "add", folders["two"], "--db", db)
    code, _, err = littlegrid(capsys, "check", folders["two"], "--baseline", "history:last-pass", "--db", db)
    assert code == 0 and err == "" and "Baseline: `one`" in (folders["two"] / "baseline.md").read_text()
