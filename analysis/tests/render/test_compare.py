"""`littlegrid compare` end to end on real JTLs: pairing by axes, verdicts that find a real slowdown, reproducibility."""

import re
from pathlib import Path

import pytest

from littlegrid import cli
from littlegrid.commands.compare import build_comparison
from littlegrid.commands.summary_source import open_run
from runs import write_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Baseline A, A again with other random draws, and B whose service is 30 % slower; analysed by `report`."""
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for name, service, seed in (("a", 10.0, 1), ("a2", 10.0, 2), ("b", 13.0, 3)):
        run = write_run(root / name, service_ms=service, seed=seed, run_id=name)
        assert cli.main(["report", str(run)]) == 0
        out[name] = run
    return out


def _rows(index: Path) -> dict:
    text = index.read_text()
    return dict(re.findall(r'<td class="label">([^<]+)</td>\s*<td class="(\w+)">', text))


def test_a_thirty_percent_slower_service_makes_every_cell_worse(runs, tmp_path, capsys):
    assert cli.main(["compare", str(runs["a"]), str(runs["b"]), "-o", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "index.html")
    verdicts = _rows(tmp_path / "index.html")
    assert verdicts == {f"users={n},think_ms={z}": "worse" for z in (0, 20) for n in (2, 8)}


def test_two_runs_of_the_same_system_show_no_difference_beyond_the_margin(runs, tmp_path):
    """No cell is better or worse by more than the 5% margin; whether each is also shown equivalent within it
    depends on how wide its intervals are (12 s cells: some are not), and the page says which."""
    sa, _ = open_run(str(runs["a"]))
    sb, _ = open_run(str(runs["a2"]))
    build_comparison(sa, sb, tmp_path, generated="x")
    assert set(_rows(tmp_path / "index.html").values()) <= {"equivalent", "undecided"}
    page = (tmp_path / "index.html").read_text()
    assert "judged against the margin ±5%" in page and "no significant difference" not in page


def test_the_same_summaries_give_the_same_page_with_the_cells_own_intervals_and_intervals_need_the_samples(
        runs, tmp_path):
    sa, _ = open_run(str(runs["a"]))
    sb, _ = open_run(str(runs["b"]))
    one = build_comparison(sa, sb, tmp_path / "1", generated="x").read_text()
    two = build_comparison(sa, sb, tmp_path / "2", generated="x").read_text()
    assert one == two
    # the intervals are the cells' own, drawn once by the analysis: the page says with how many replicates and seed
    drawn = {(c.intervals.reps, c.intervals.seed) for c in sa.cells + sb.cells}
    assert len(drawn) == 1
    reps, seed = drawn.pop()
    assert f"{reps} replicates, seed {seed}" in one
    none = build_comparison(sa, sb, tmp_path / "4", samples=False, generated="x")
    assert set(_rows(none).values()) == {"unknown"}


def test_intervals_come_from_the_summarys_histograms_and_need_no_jtl(runs, tmp_path, capsys):
    # the summaries copied away from their runs: no manifest, no JTL beside them
    copies = {}
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        copies[name] = tmp_path / name / "summary.json"
        copies[name].write_text((runs[name] / "summary.json").read_text())
    assert cli.main(["compare", str(copies["a"]), str(copies["b"]), "-o", str(tmp_path / "alone")]) == 0
    assert set(_rows(tmp_path / "alone" / "index.html").values()) == {"worse"}
    # negative control: cells without a histogram (no steady window) get no interval, and the page says why
    sa, _ = open_run(str(copies["a"]))
    sb, _ = open_run(str(copies["b"]))
    bare_a, bare_b = (s.model_copy(update={"cells": [c.model_copy(update={"histogram": None, "intervals": None}) for c in s.cells]})
                      for s in (sa, sb))
    lost = build_comparison(bare_a, bare_b, tmp_path / "lost", generated="x")
    assert set(_rows(lost).values()) == {"unknown"}
    assert "no steady-window histogram in this cell: no intervals" in lost.read_text()


def test_a_summary_file_can_stand_for_a_run_and_bad_options_are_refused(runs, tmp_path):
    from littlegrid.usererror import UserError

    sa, base = open_run(str(runs["a"] / "summary.json"))
    assert base == runs["a"]
    with pytest.raises(UserError, match="--margin 5"):
        build_comparison(sa, sa, tmp_path, margin=5)


def test_two_arms_of_one_run_pair_on_the_other_axes_and_adding_think_time_lowers_throughput(runs, tmp_path, capsys):
    # Same service, Z = 20 ms instead of 0: X = N/(R+Z) must drop, so every pair (by users) is worse.
    assert cli.main(["compare", str(runs["a"]), "--arms", "think_ms=0,20", "-o", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "index.html")
    assert _rows(tmp_path / "index.html") == {"users=2,think_ms=0": "worse", "users=8,think_ms=0": "worse"}


def test_compare_with_one_run_and_no_arms_is_refused(runs, capsys):
    assert cli.main(["compare", str(runs["a"])]) == 2
    assert "or one run and --arms AXIS=A,B" in capsys.readouterr().err


def test_a_grid_that_names_its_arms_gets_their_comparison_inside_its_report(tmp_path, capsys):
    run = write_run(tmp_path / "run", arms="think_ms=0,20", run_id="armed")
    assert cli.main(["report", str(run)]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(run / "report" / "index.html"), str(run / "report" / "compare-think_ms" / "index.html")]
    assert _rows(run / "report" / "compare-think_ms" / "index.html") == {"users=2,think_ms=0": "worse",
                                                                         "users=8,think_ms=0": "worse"}
    assert "think_ms=0,20: compared in compare-think_ms/index.html" in (run / "report" / "index.html").read_text()
