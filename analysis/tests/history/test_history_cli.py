"""`littlegrid history add RUN [--db URL]` and `littlegrid analyze RUN --history URL`: the run recorded in one line."""

from analysis_synthetic import closed_loop, make_run
from littlegrid import cli
from littlegrid.history.store import open_store
from history_runs import run_folder


def test_history_add_records_a_run_and_says_so(tmp_path, capsys):
    folder = run_folder(tmp_path, "r1")
    db = tmp_path / "h.sqlite"
    assert cli.main(["history", "add", str(folder), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert out == f"recorded r1 (ci, 2 cells, commit unknown) in {db}\n"
    store = open_store(str(db))
    runs = store.runs(figures=True)
    store.close()
    assert [r.record.run_id for r in runs] == ["r1"] and len(runs[0].record.figures) == 12


def test_a_missing_run_or_a_bad_url_is_one_line(tmp_path, capsys):
    assert cli.main(["history", "add", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err == f"littlegrid history: {tmp_path / 'nope'}: no such run folder\n"
    folder = run_folder(tmp_path, "r1")
    assert cli.main(["history", "add", str(folder), "--db", "oracle://x/y"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a oracle URL; the history lives in SQLite" in err


def test_analyze_with_history_records_the_run_it_analysed(tmp_path, capsys):
    run = make_run(tmp_path / "run", [{"id": "users=2", "axes": {"users": 2}, "users": 2,
                                        "samples": closed_loop(2, 100, 0, 20)}])
    db = tmp_path / "h.sqlite"
    assert cli.main(["analyze", str(run), "--history", str(db)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"recorded run (synthetic, 1 cell, commit unknown) in {db}"
    store = open_store(str(db))
    [stored] = store.runs(figures=True)
    store.close()
    x = next(f for f in stored.record.figures if f.metric == "throughput_per_s")
    assert x.value == __import__("pytest").approx(20.0, rel=0.02) and x.lo < x.value < x.hi  # N/S = 2/0.1 s


def test_history_series_lists_each_grids_series_and_accept_pins_a_run(tmp_path, capsys):
    db = tmp_path / "h.sqlite"
    folders = [run_folder(tmp_path, name, seed=i, **options) for i, (name, options) in enumerate(
        (("a1", {}), ("a2", {}), ("b1", {"knobs": {"server.tomcat.threads.max": 4}})), start=1)]
    for folder in folders:
        assert cli.main(["history", "add", str(folder), "--db", str(db)]) == 0
    assert cli.main(["check", str(folders[0]), "--baseline", "history:last-pass", "--db", str(db)]) == 0
    capsys.readouterr()
    assert cli.main(["history", "accept", "a2", "--db", str(db)]) == 0
    assert capsys.readouterr().out == ("pinned a2 as the reference of its series of grid ci: later runs are judged "
                                       "against it (and the runs accepted after it), the noise measured from it on\n")
    assert cli.main(["history", "series", "--db", str(db), "--grid", "ci"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "grid ci: 2 series"
    assert out[1].startswith("  series 1 (") and out[1].endswith(
        "): 2 runs from a1 to a2 (1 unjudged, 1 not gated); reference now: a2; pinned: a2")
    assert out[2].endswith("): 1 run from b1 to b1 (1 not gated); reference now: none; started by another server "
                           "configuration (knobs {'server.tomcat.threads.max': 2} vs {'server.tomcat.threads.max': 4})"
                           " than series 1")
    assert cli.main(["history", "series", "--db", str(db), "--grid", "other"]) == 2
    assert capsys.readouterr().err == (f"littlegrid history: --grid other: no run of it in {db} (grids: ci)\n")
