"""The gate on constructed runs (open M/M/2 windows of 600 s, known on paper: R = S/(1 − ρ²)): runs of one commit
pass against each other, a 20% rise in service time fails naming cells, metrics and intervals from the second run
on (the noise a prior, said so), a 2% rise does not; the reference is the median of the series' last accepted
runs; the noise the history measured widens or narrows the interval; a baseline of another plan, configuration or
kind of host is another series, not judged, said in one line; figures missing are not judged."""

import math
from dataclasses import replace

import pytest

from littlegrid import summary as summary_file
from littlegrid.criteria import relative
from littlegrid.history import gate, noise, series, verdict
from littlegrid.history.record import record
from littlegrid.history.store import StoredRun
from history_runs import HOST, run_folder

DEFAULTS = [relative.parse(t) for t in relative.DEFAULTS]
P90 = relative.parse("p90 regress < 10%")


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


def stored(rec, n, gate_verdict="passed", accepted=None):
    return StoredRun(n, rec, "2026-01-01T00:00:00+00:00", gate_verdict, accepted)


def history(runs, *names):
    return [stored(runs[name], i, accepted="start" if i == 0 else None) for i, name in enumerate(names)]


def test_runs_of_one_commit_pass_against_each_other_from_the_second_run_on(runs):
    for base, candidate in (("one", "two"), ("two", "three"), ("three", "four"), ("one", "four")):
        judged = verdict.against_run(runs[candidate], runs[base], [], DEFAULTS)
        assert len(judged.rows) == 6 and judged.notes == [] and judged.verdict(False) == "passed"
        assert all(r.noise_source == "prior" and r.reference_runs == 1 for r in judged.rows)
        assert all(r.passed for r in judged.rows), [r.message() for r in judged.rows if not r.passed]


def test_a_20_percent_rise_in_service_time_fails_at_the_second_run_where_it_can_be_seen_and_says_what_it_cannot(runs):
    """Judged against one run with the prior noise only (the second run of a new series): M/M/2's R = S/(1 − ρ²),
    ρ = λS/2, rises 24% at 10/s and 41% at 20/s for S 50 -> 60 ms. The 41% lies past 10% beyond that noise and fails
    naming the cell, its interval and the noise; the 24% does not, and its row says why: it is under the size this
    comparison detects. Throughput is the offered rate in an open queue and the error rate stays 0."""
    judged = verdict.against_run(runs["slower"], runs["three"], [], DEFAULTS)
    rows = {(r.metric, r.cell): r for r in judged.rows}
    failed = [key for key, r in rows.items() if r.passed is False]
    assert failed == [("p90", "rate=20")] and judged.verdict(False) == "failed"
    sd0, df0 = noise.DEFAULTS["p90_ms"]
    r = rows[("p90", "rate=20")]
    assert r.lo > 0.10 and r.regression > 0.30 and r.detectable < r.regression
    assert r.message().startswith("p90 regress < 10% [rate=20]: p90 ")
    assert (f"regression {r.change_text(r.regression)} (95% interval {r.change_text(r.lo)} to "
            f"{r.change_text(r.hi)}; noise σ_b {sd0 * 100:.2g}% (prior {sd0 * 100:.2g}%, this project's default, "
            f"{df0} df); detects ≥ ") in r.message()
    assert r.message().endswith("regressed beyond 10%")
    unseen = rows[("p90", "rate=10")]
    assert unseen.passed is True and unseen.regression > 0.15 and unseen.detectable > unseen.regression
    assert unseen.message().endswith("not shown beyond 10%")


def test_a_2_percent_rise_does_not_fail(runs):
    judged = verdict.against_run(runs["nudged"], runs["three"], [], DEFAULTS)
    assert all(r.passed for r in judged.rows), [r.message() for r in judged.rows if not r.passed]


def test_the_interval_is_the_median_difference_with_the_noise_on_paper(runs):
    """d = ln(v / median of the reference) with V = σ_b²(1 + f(k)) + s² + f(k)·s̄², t on Welch–Satterthwaite's df."""
    refs = [runs["one"], runs["two"], runs["three"]]
    mine = gate.by_cell(runs["slower"].figures)["rate=20"]["p90_ms"]
    held = [gate.by_cell(r.figures)["rate=20"]["p90_ms"] for r in refs]
    n = noise.combine("p90_ms", None)
    row = gate.judge_cell(P90, "rate=20", mine, held, n)
    f = noise.median_factor(3)
    m = sorted(math.log(h.value) for h in held)[1]
    between = n.between_sd ** 2 * (1 + f)
    var = between + (mine.se / mine.value) ** 2 + f * sum((h.se / h.value) ** 2 for h in held) / 3
    from scipy import stats
    t = stats.t.ppf(0.975, var ** 2 / (between ** 2 / n.df))
    d = math.log(mine.value) - m
    assert row.regression == pytest.approx(math.exp(d) - 1)
    assert (row.lo, row.hi) == pytest.approx((math.exp(d - t * math.sqrt(var)) - 1, math.exp(d + t * math.sqrt(var)) - 1))
    power = stats.t.ppf(0.8, var ** 2 / (between ** 2 / n.df))
    assert row.detectable == pytest.approx(math.exp(math.log(1.1) + (t + power) * math.sqrt(var)) - 1)
    assert row.baseline == pytest.approx(math.exp(m)) and row.reference_runs == 3


def test_the_reference_is_the_median_of_the_last_accepted_runs_never_a_failed_or_unjudged_one(runs):
    held = [stored(runs["one"], 0, "unjudged", "start"), stored(runs["two"], 1, "passed"),
            stored(runs["slower"], 2, "failed"), stored(runs["three"], 3, "unjudged"), stored(runs["four"], 4)]
    assert [r.record.run_id for r in series.reference_set(held)] == ["one", "two", "four"]
    assert [r.record.run_id for r in series.reference_set(held, k=2)] == ["two", "four"]
    judged = verdict.against_series(runs["nudged"], held, [P90])
    assert [r.run_id for r in judged.reference] == ["one", "two", "four"]
    assert all(r.reference_runs == 3 for r in judged.rows)
    # a pinned run starts the reference again: what came before it is another level of performance
    pinned = held[:4] + [stored(runs["four"], 4, "passed", "pinned")]
    assert [r.record.run_id for r in series.reference_set(pinned)] == ["four"]


def test_the_measured_noise_takes_over_from_the_prior_and_a_spread_history_lets_a_large_change_pass(runs):
    base = runs["three"]
    tight = verdict.against_series(runs["slower"], history(runs, "one", "two", "three", "four"), [P90])
    assert all(r.noise_source != "prior" for r in tight.rows)
    assert [r.passed for r in tight.rows] == [False, False]
    # a history whose p90 moved ±30% between runs of one commit: the 41% rise is within the noise
    spread = []
    for i, factor in enumerate((0.7, 1.0, 1.3, 0.8, 1.25)):
        figures = tuple(replace(f, value=f.value * factor) if f.metric == "p90_ms" else f for f in base.figures)
        spread.append(stored(replace(base, key=f"h{i}", run_id=f"h{i}", figures=figures), i,
                             accepted="start" if i == 0 else None))
    noisy = verdict.against_series(runs["slower"], spread, [P90])
    assert all(r.passed is True and r.noise_sd > 0.15 for r in noisy.rows), [r.message() for r in noisy.rows]
    assert all(n.lo < t.lo and n.detectable > t.detectable for n, t in zip(noisy.rows, tight.rows))


def test_the_first_run_of_a_grid_is_its_reference_and_nothing_is_judged(runs):
    judged = verdict.against_series(runs["one"], [], DEFAULTS, where="h.sqlite")
    assert judged.rows == [] and judged.reference == [] and judged.starts_series
    assert judged.notes == ["the first run of grid ci in h.sqlite: nothing to judge against; this run is its series' "
                            "reference once it passes"]
    assert judged.verdict(False) == "unjudged" and judged.accepted("unjudged") == "start"
    assert judged.verdict(True) == "failed" and judged.accepted("failed") is None


def test_another_plan_configuration_or_host_starts_a_new_series_said_in_one_line(runs):
    base = runs["one"]
    changed = replace(runs["two"], plan_hash="y" * 16, config={**base.config, "knobs": {"threads": 4}},
                      config_hash="z" * 16)
    judged = verdict.against_series(changed, history(runs, "one"), DEFAULTS)
    assert judged.starts_series and judged.rows == [] and judged.verdict(False) == "unjudged"
    assert judged.notes == [
        "a new series of grid ci starts: another plan; another server configuration (knobs "
        "{'server.tomcat.threads.max': 2} vs {'threads': 4}) than the last series' (its 1 run, last one); this run "
        "is its reference once it passes (--allow-other-plan compares across on purpose)"]
    across = verdict.against_series(changed, history(runs, "one"), DEFAULTS, allowed=set(verdict.PLAN_KINDS))
    assert [r.run_id for r in across.reference] == ["one"] and len(across.rows) == 6
    assert across.notes[0].startswith("compared across series on purpose: another plan; another server")
    bigger = replace(runs["two"], host={**base.host, "cpus": 8, "memory_gib": 64}, host_kind="k" * 16)
    folder = verdict.against_run(bigger, base, [], DEFAULTS)
    assert folder.reference == [] and folder.notes == [
        "baseline one is another series than two: another kind of host (2 CPUs, 24 GiB, Linux x86_64 vs 8 CPUs, "
        "64 GiB, Linux x86_64); not judged (--allow-other-host compares them anyway)"]
    assert len(verdict.against_run(bigger, base, [], DEFAULTS, allowed={"host"}).rows) == 6
    kernel = replace(base, host={**base.host, "kernel": "6.12", "hostname": "x"})
    assert series.differences(kernel, base) == [] and HOST["cpus"] == 2


def test_a_changed_target_is_the_change_under_test_named_not_a_new_series(runs):
    slower = replace(runs["slower"], config={**runs["slower"].config, "target": {"path": "/io?ms=120"}})
    based = replace(runs["three"], config={**runs["three"].config, "target": {"path": "/io?ms=100"}})
    assert series.differences(slower, based) == []
    judged = verdict.against_run(slower, based, [], DEFAULTS)
    assert judged.notes == ["the target differs from the baseline's: path '/io?ms=100' vs '/io?ms=120' (the change "
                            "under test)"]


def test_a_cell_without_a_figure_is_not_judged_and_cells_only_one_run_has_are_named(runs):
    base = runs["one"]
    no_interval = replace(runs["two"], figures=tuple(
        replace(f, se=None) if f.cell == "rate=10" else f for f in runs["two"].figures if f.cell != "rate=20")
        + tuple(replace(f, cell="rate=40") for f in runs["two"].figures if f.cell == "rate=20"))
    judged = verdict.against_run(no_interval, base, [], [P90])
    assert [(r.cell, r.passed) for r in judged.rows] == [("rate=10", None)]
    assert judged.rows[0].message() == ("p90 regress < 10% [rate=10]: not judged: this run has no interval for p90 in "
                                        "this cell (no steady-window histogram: analyse it again)")
    assert judged.notes == ["cell rate=20 is only in the reference: not judged",
                            "cell rate=40 is not in the reference: not judged"]
    assert judged.verdict(False) == "unjudged"  # never passed: one row could not be judged
