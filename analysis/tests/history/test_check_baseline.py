"""`littlegrid check RUN --baseline BASE [--db URL]`: the gate as CI meets it, wired as the README wires it (each
run recorded by `analyze --history`, then `check --baseline history:last-pass`): exit codes, one line per failed
(criterion, cell) with its noise and detectable size, JUnit testcases named so, the gate kept as baseline.json and
its table in baseline.md, verdicts passed / failed / unjudged kept in the history (an unjudged run is never kept as
passed), a new series said in one line, refusals in one line."""

import xml.etree.ElementTree as ET

import pytest

from littlegrid import cli
from littlegrid.history.store import open_store
from littlegrid.summary import baseline as baseline_record
from history_runs import HOST, run_folder

GRID = 'name = "ci"\nplan = "open.jmx"\n{extra}[axes]\nrate = [10.0, 20.0]\n'


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    made = {"one": run_folder(root, "one", seed=1), "two": run_folder(root, "two", seed=2),
            "three": run_folder(root, "three", seed=3), "slower": run_folder(root, "slower", seed=4, service_ms=60.0),
            "slower2": run_folder(root, "slower2", seed=11, service_ms=60.0),
            "nudged": run_folder(root, "nudged", seed=5, service_ms=51.0),
            "other_grid": run_folder(root, "other_grid", seed=6, grid_name="littles-law"),
            "big_host": run_folder(root, "big_host", seed=7, host={**HOST, "cpus": 8}),
            "gated": run_folder(root, "gated", seed=9, relative_criteria=["mean regress < 10%"]),
            "gated_slower": run_folder(root, "gated_slower", seed=10, service_ms=60.0,
                                       relative_criteria=["mean regress < 10%"]),
            "edited": run_folder(root, "edited", seed=12), "replanned": run_folder(root, "replanned", seed=13)}
    for name, folder in made.items():
        extra = {"edited": 'criteria = ["p90 < 2s", "p90 regress < 10%"]\n',
                 "replanned": '[properties]\nthink_ms = 50\n'}.get(name, "")
        (folder / "grid.toml").write_text(GRID.format(extra=extra))
    return made


def littlegrid(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def gates(db):
    store = open_store(str(db))
    try:
        return [(r.record.run_id, r.gate, r.accepted) for r in store.runs()]
    finally:
        store.close()


def ci(capsys, folder, db, *extra):
    """The README's wiring: record the run, then gate it on the series' reference."""
    littlegrid(capsys, "history", "add", folder, "--db", db)
    return littlegrid(capsys, "check", folder, "--baseline", "history:last-pass", "--db", db, *extra)


def test_a_regression_at_the_second_run_of_a_new_grid_fails_and_is_never_stored_as_passed(folders, capsys, tmp_path):
    db = tmp_path / "history.sqlite"
    code, out, _ = ci(capsys, folders["one"], db)
    assert code == 0 and out[0] == "0 passed, 0 failed, 1 against the baseline not judged"
    assert out[1] == (f"note: the first run of grid ci in {db}: nothing to judge against; this run is its series' "
                      f"reference once it passes")
    assert out[-1] == "verdict kept: unjudged"
    assert gates(db) == [("one", "unjudged", "start")]  # not passed: nothing judged it; its series' reference

    junit = tmp_path / "TEST-littlegrid.xml"
    code, out, _ = ci(capsys, folders["slower"], db, "--junit", junit)  # S +20%: p90 +24% and +41% on paper
    assert code == 1
    failed = [line for line in out if line.startswith("FAIL")]
    assert "FAIL p90 regress < 10% [rate=20]" in [line.split(":")[0] for line in failed]
    for line in failed:
        assert "(95% interval +" in line and "noise σ_b " in line and "this project's default" in line
        assert "detects ≥ " in line and line.endswith("regressed beyond 10%")
    assert any(line.startswith("detects: p90 regress < 10%: this comparison detects p90 regressions of ")
               for line in out)
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    assert set(cases) == {f"{c} [rate={r}]" for c in ("p90 regress < 10%", "throughput regress < 5%",
                                                      "error_rate increase < 0.5 points") for r in (10, 20)}
    assert cases["p90 regress < 10% [rate=20]"].find("failure").get("message") == next(
        line for line in failed if "[rate=20]" in line)[len("FAIL "):]
    assert cases["throughput regress < 5% [rate=20]"].find("failure") is None
    assert gates(db)[-1] == ("slower", "failed", None)

    # the next slow run is judged against the reference set (run one), never against the failed run
    code, out, _ = ci(capsys, folders["slower2"], db)
    assert code == 1 and "Baseline: `one`" in (folders["slower2"] / "baseline.md").read_text()
    assert [g for _, g, _ in gates(db)] == ["unjudged", "failed", "failed"]


def test_runs_of_one_commit_pass_in_turn_and_the_reference_grows_to_their_median(folders, capsys, tmp_path):
    db = tmp_path / "history.sqlite"
    for name in ("one", "two", "three", "nudged"):
        code, out, _ = ci(capsys, folders[name], db)
        assert code == 0, out
    assert gates(db) == [("one", "unjudged", "start"), ("two", "passed", None), ("three", "passed", None),
                         ("nudged", "passed", None)]
    record = baseline_record.read(folders["nudged"] / "baseline.json")
    assert record.reference == ["one", "two", "three"] and record.reference_kind == "series"
    assert record.verdict == "passed" and all(r.reference_runs == 3 for r in record.rows)
    assert "Baseline: `median of one, two, three`" in (folders["nudged"] / "baseline.md").read_text()
    # the noise now holds what the series measured beside the prior
    assert all(r.noise_source in ("prior and measured", "measured") for r in record.rows)


def test_folder_against_folder_fails_a_20_percent_rise_and_passes_2_percent_and_the_same_commit(folders, capsys):
    code, out, _ = littlegrid(capsys, "check", folders["slower"], "--baseline", folders["three"])
    assert code == 1 and any(line.startswith("FAIL p90 regress < 10% [rate=20]") for line in out)
    assert out[-1] == "verdict: failed"
    for name in ("nudged", "two"):
        code, out, _ = littlegrid(capsys, "check", folders[name], "--baseline", folders["one"])
        assert code == 0, out
        assert out[0] == "6 passed, 0 failed" and out[-1] == "verdict: passed"
        said = [line for line in out if line.startswith("detects: ")]
        assert len(said) == 3 and all("noise σ_b " in line and "(prior " in line for line in said)


def test_an_edit_of_the_criteria_keeps_the_series_and_a_plan_change_starts_one_with_exit_0(folders, capsys, tmp_path):
    db = tmp_path / "history.sqlite"
    for name in ("one", "two"):
        assert ci(capsys, folders[name], db)[0] == 0
    code, out, _ = ci(capsys, folders["edited"], db)  # criteria added to the grid: the same series
    assert code == 0 and "Baseline: `median of one, two`" in (folders["edited"] / "baseline.md").read_text()
    code, out, _ = ci(capsys, folders["replanned"], db)  # the think time changed: what is measured changed
    assert code == 0 and out[0] == "0 passed, 0 failed, 1 against the baseline not judged"
    assert out[1].startswith("note: a new series of grid ci starts: the grid measures otherwise")
    assert "(--allow-other-plan compares across on purpose)" in out[1]
    assert gates(db)[-1] == ("replanned", "unjudged", "start")
    code, out, _ = littlegrid(capsys, "history", "series", "--db", db)
    assert out[0] == "grid ci: 2 series" and out[2].endswith("than series 1") and "from replanned" in out[2]


def test_the_grids_relative_criteria_are_the_ones_judged_against_a_baseline(folders, capsys):
    """The grid's criteria (summary.run.relative_criteria), after --criterion's, in place of the defaults; the
    regression of mean R is M/M/2's on paper, R = S/(1 − ρ²): S 50 -> 60 ms is +23.6% at 10/s, +40.6% at 20/s."""
    code, out, _ = littlegrid(capsys, "check", folders["gated_slower"], "--baseline", folders["gated"],
                              "--criterion", "p99 regress < 50% where rate == 20", "-v")
    assert code == 1
    record = baseline_record.read(folders["gated_slower"] / "baseline.json")
    assert record.criteria == ["p99 regress < 50% where rate == 20", "mean regress < 10%"]
    assert [(r.criterion, r.cell) for r in record.rows] == [("p99 regress < 50% where rate == 20", "rate=20"),
                                                            ("mean regress < 10%", "rate=10"),
                                                            ("mean regress < 10%", "rate=20")]
    for r, paper in zip(record.rows[1:], (60 / (1 - 0.3 ** 2) / (50 / (1 - 0.25 ** 2)) - 1,
                                          60 / (1 - 0.6 ** 2) / (50 / (1 - 0.5 ** 2)) - 1)):
        assert r.lo < paper < r.hi and r.passed is False


def test_another_grid_is_refused_in_one_line_and_another_host_is_not_judged_unless_allowed(folders, capsys):
    code, out, err = littlegrid(capsys, "check", folders["other_grid"], "--baseline", folders["one"])
    assert code == 2 and out == []
    assert err == "littlegrid check: baseline one is not comparable with other_grid: another grid (ci vs littles-law)\n"
    code, out, err = littlegrid(capsys, "check", folders["big_host"], "--baseline", folders["one"])
    assert code == 0 and err == "" and out[1] == (
        "note: baseline one is another series than big_host: another kind of host (2 CPUs, 24 GiB, Linux x86_64 vs "
        "8 CPUs, 24 GiB, Linux x86_64); not judged (--allow-other-host compares them anyway)")
    code, _, err = littlegrid(capsys, "check", folders["big_host"], "--baseline", folders["one"], "--allow-other-host")
    assert code == 0 and err.startswith("WARNING: another kind of host (2 CPUs")


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
    code, _, err = littlegrid(capsys, "check", folders["one"], "--baseline", folders["two"], "--reference-runs", "0")
    assert code == 2 and "--reference-runs 0" in err


def test_a_pinned_run_is_the_reference_from_then_on(folders, capsys, tmp_path):
    db = tmp_path / "history.sqlite"
    for name in ("one", "two"):
        ci(capsys, folders[name], db)
    assert ci(capsys, folders["slower"], db)[0] == 1
    code, out, _ = littlegrid(capsys, "history", "accept", folders["slower"], "--db", db)
    assert code == 0 and out[0].startswith("pinned slower as the reference of its series of grid ci")
    code, out, _ = ci(capsys, folders["slower2"], db)  # the same slower level: judged against the pin, passes
    assert code == 0, out
    assert "Baseline: `slower`" in (folders["slower2"] / "baseline.md").read_text()
    assert gates(db)[-2:] == [("slower", "failed", "pinned"), ("slower2", "passed", None)]
    code, _, err = littlegrid(capsys, "history", "accept", "nope", "--db", db)
    assert code == 2 and "nope: not in" in err
