"""The gate on constructed runs (open M/M/2 windows, known on paper; no load): runs of one commit pass against each
other, a 20% rise in service time fails naming cells, metrics and intervals, a 2% rise does not; a baseline of
another grid, plan, configuration or host is refused in one line; the history's noise widens the interval and the
verdict says when it could not."""

from dataclasses import replace

import pytest

from littlegrid import summary as summary_file
from littlegrid.criteria import relative
from littlegrid.history import gate
from littlegrid.history.record import record
from littlegrid.history.store import StoredRun
from history_runs import HOST, run_folder

DEFAULTS = [relative.parse(t) for t in relative.DEFAULTS]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Four runs of one commit (seeds), one with S raised 20% (50 -> 60 ms), one by 2% (51 ms)."""
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for name, options in {"one": {"seed": 1}, "two": {"seed": 2}, "three": {"seed": 3}, "four": {"seed": 8},
                          "slower": {"seed": 4, "service_ms": 60.0}, "nudged": {"seed": 5, "service_ms": 51.0}}.items():
        path = run_folder(root, name, **options) / "summary.json"
        out[name] = record(summary_file.read(path), path)
    return out


def verdicts(results):
    return {(r.criterion, r.cell): r.passed for r in results}


def stored(rec, n, gate_verdict=None):
    return StoredRun(n, rec, "2026-01-01T00:00:00+00:00", gate_verdict)


def history(runs, *names):
    return [stored(runs[name], i) for i, name in enumerate(names)]


def test_runs_of_one_commit_pass_against_each_other(runs):
    recorded = history(runs, "one", "two", "three", "four")
    for base, candidate in (("one", "two"), ("two", "three"), ("three", "four"), ("one", "four")):
        results, notes = gate.judge(runs[candidate], runs[base], DEFAULTS, recorded)
        assert len(results) == 6 and notes == []
        assert all(r.noise_used and r.noise_runs == 3 for r in results)  # the others, the candidate left out
        assert all(r.passed for r in results), [r.message() for r in results if not r.passed]


def test_a_20_percent_rise_in_service_time_fails_naming_cells_metrics_and_intervals(runs):
    results, _ = gate.judge(runs["slower"], runs["three"], DEFAULTS, history(runs, "one", "two", "three"))
    failed = [r for r in results if r.passed is False]
    # M/M/2: R = S/(1 − ρ²), ρ = λS/2: at 10/s R rises 24%, at 20/s 41%; throughput is the offered rate in an open
    # queue and the error rate stays 0, so only p90 regresses
    assert [(r.metric, r.cell) for r in failed] == [("p90", "rate=10"), ("p90", "rate=20")]
    for r in failed:
        assert r.lo > 0.10 and r.regression > 0.15
        assert r.message().startswith(f"p90 regress < 10% [{r.cell}]: p90 ")
        assert f"regression {r.change_text(r.regression)} (95% interval {r.change_text(r.lo)} to " \
               f"{r.change_text(r.hi)}, with the run-to-run noise of 3 earlier runs)" in r.message()
        assert r.message().endswith("regressed beyond 10%")


def test_a_2_percent_rise_does_not_fail(runs):
    results, _ = gate.judge(runs["nudged"], runs["three"], DEFAULTS, history(runs, "one", "two", "three"))
    assert all(r.passed for r in results), [r.message() for r in results if not r.passed]


def test_without_the_run_to_run_noise_the_gate_shows_the_within_run_interval_and_does_not_judge(runs):
    """Fewer than K_MIN comparable earlier runs: the within-run interval cannot tell a regression from the run's own
    offset (the Done-when's second run of one commit moved a saturated cell's p90 +23% beyond it), so no verdict,
    and the message says what the within-run interval alone shows."""
    for earlier in ([], history(runs, "two"), history(runs, "one", "two")):
        results, _ = gate.judge(runs["slower"], runs["three"], DEFAULTS, earlier)
        assert all(r.passed is None and r.awaits_noise and not r.noise_used for r in results)
        for r in results:
            assert r.noise_runs == len(earlier) and r.lo is not None and r.regression is not None
            needed = (f"not judged: the history holds {len(earlier)} comparable earlier "
                      f"run{'s' * (len(earlier) != 1)} of this cell, 3 needed for its run-to-run noise")
            beyond = r.metric == "p90"  # 24% and 41% on paper: the within-run interval lies past 10%
            assert r.message().endswith(needed + ("; the within-run interval alone lies beyond 10%" if beyond else ""))
            assert f"(95% interval {r.interval_text()}, within-run only)" in r.message()


def test_the_history_noise_widens_the_interval_and_a_spread_history_lets_a_large_change_pass(runs):
    base, candidate = runs["three"], runs["slower"]
    crit = [relative.parse("p90 regress < 10% where rate == 20")]
    tight, _ = gate.judge(candidate, base, crit, history(runs, "one", "two", "four"))
    # a history whose p90 moved ±30% between runs of one commit: the 41% rise is within the noise
    spread = []
    for i, factor in enumerate((0.7, 1.0, 1.3)):
        figures = tuple(replace(f, value=f.value * factor) if f.metric == "p90_ms" else f for f in base.figures)
        spread.append(stored(replace(base, key=f"h{i}", run_id=f"h{i}", figures=figures), i))
    noisy, _ = gate.judge(candidate, base, crit, spread)
    [a], [b] = tight, noisy
    assert a.passed is False and a.noise_used
    assert b.noise_used and b.noise_runs == 3 and b.passed is True
    assert b.lo < a.lo and b.hi > a.hi and b.regression == a.regression
    assert "with the run-to-run noise of 3 earlier runs): not shown beyond 10%" in b.message()
    # a failed run is not noise, nor a run of another grid or host: two usable runs are not enough
    failed = spread[:2] + [replace(spread[2], gate="failed")]
    [c], _ = gate.judge(candidate, base, crit, failed)
    assert (c.noise_runs, c.noise_used, c.passed) == (2, False, None)
    assert "the history holds 2 comparable earlier runs of this cell, 3 needed for its run-to-run noise" in c.message()


def test_a_baseline_of_another_grid_plan_or_configuration_is_refused_in_one_line(runs, tmp_path):
    base = runs["one"]
    other = replace(base, grid_hash="x" * 16, grid_name="littles-law", run_id="other")
    assert gate.not_comparable(other, base) == \
        "baseline one is not comparable with other: another grid (ci vs littles-law)"
    changed = replace(base, run_id="b", plan_hash="y" * 16, config={**base.config, "knobs": {"threads": 4}},
                      config_hash="z" * 16)
    assert gate.not_comparable(changed, base) == (
        "baseline one is not comparable with b: another plan, another server configuration (knobs "
        "{'server.tomcat.threads.max': 2} vs {'threads': 4})")
    assert gate.not_comparable(runs["two"], base) is None


def test_a_changed_target_is_the_change_under_test_named_not_refused(runs):
    base = runs["three"]
    slower = replace(runs["slower"], config={**runs["slower"].config, "target": {"path": "/io?ms=120"}})
    based = replace(base, config={**base.config, "target": {"path": "/io?ms=100"}})
    assert gate.not_comparable(slower, based) is None
    _, notes = gate.judge(slower, based, DEFAULTS)
    assert notes == ["the target differs from the baseline's: path '/io?ms=100' vs '/io?ms=120' (the change under "
                     "test)"]


def test_another_kind_of_host_is_named_and_a_kernel_update_is_not(runs):
    base = runs["one"]
    bigger = replace(base, host={**base.host, "cpus": 8, "memory_gib": 64})
    assert gate.other_host(bigger, base) == ("another kind of host: baseline 2 CPUs, 24 GiB, Linux x86_64 vs this "
                                             "run 8 CPUs, 64 GiB, Linux x86_64")
    assert gate.other_host(replace(base, host={**base.host, "kernel": "6.12", "hostname": "x"}), base) is None
    assert HOST["cpus"] == 2


def test_a_cell_without_a_figure_is_not_judged_and_cells_only_one_run_has_are_named(runs):
    base = runs["one"]
    no_interval = replace(runs["two"], figures=tuple(
        replace(f, se=None) if f.cell == "rate=10" else f for f in runs["two"].figures if f.cell != "rate=20")
        + tuple(replace(f, cell="rate=40") for f in runs["two"].figures if f.cell == "rate=20"))
    results, notes = gate.judge(no_interval, base, [relative.parse("p90 regress < 10%")])
    assert [(r.cell, r.passed) for r in results] == [("rate=10", None)]
    assert results[0].message() == ("p90 regress < 10% [rate=10]: not judged: this run has no interval for p90 in "
                                    "this cell (no steady-window histogram)")
    assert notes == ["cell rate=20 is only in the baseline: not judged", "cell rate=40 is not in the baseline: not judged"]
