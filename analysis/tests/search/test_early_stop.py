"""A probe's second stopping condition: its SLO decided on the running figures by the sequential rule (99%
intervals, confirmed over the window's first half), over the precision rule's own window, on constructed per-second
series with their answers on paper; and the rule's wrong decisions near the threshold, simulated."""

from __future__ import annotations

import numpy as np
import pytest

from littlegrid.analysis.steady.steady_state import Rule, judge
from littlegrid.run.answered import Seconds
from littlegrid.run.stopping import Watcher, precise_conditions
from littlegrid.search import early_stop
from littlegrid.search.early_stop import SloClear
from littlegrid.search.slo import parse_slo

RULE = Rule(precision=0.02, min_s=10, max_s=120, warmup_floor_s=0, cooldown_s=0)


def seconds(n: int = 60, slow_share: float = 0.0, mean_ms: float = 20.0, failed_share: float = 0.0,
            cut: int = 300, rate: float = 100.0, seed: int = 1) -> Seconds:
    """n seconds of a steady cell (no warm-up), drawn with a fixed seed: Poisson answers a second of mean `rate`,
    each second's mean R `mean_ms` ±5%, a binomial share `slow_share` of them at or above `cut` ms, failures beside
    them a binomial share `failed_share` of the completions."""
    rng = np.random.default_rng(seed)
    counts = rng.poisson(rate, n).astype(float)
    sums = counts * mean_ms * rng.normal(1, 0.05, n)
    slow = rng.binomial(counts.astype(int), slow_share).astype(float)
    failed = rng.poisson(counts * failed_share / (1 - failed_share)).astype(float)  # a share of all completions
    return Seconds(counts, sums, failed, {cut: slow})


def condition(text: str) -> SloClear:
    return SloClear(parse_slo([text]), RULE)


def test_a_percentile_far_below_its_limit_is_met_beyond_doubt():
    v = condition("p90 < 300ms")(seconds(slow_share=0.01))
    # about 1% of 6000 answers reach 300 ms, against a limit of 10%: the interval (about ±0.3 points) is far below
    assert v.answered and v.decision == "met" and v.why.startswith(
        "SLO met, decided early: 99% intervals (asked at every look) on that side over 60 s and over its first 30 s: "
        "p90 < 300 ms: answers ≥ 300 ms ")


def test_a_percentile_far_above_its_limit_fails_beyond_doubt():
    v = condition("p90 < 300ms")(seconds(slow_share=0.5))
    assert v.answered and v.decision == "not met" and v.why.startswith("SLO not met, decided early")


def test_a_percentile_at_its_limit_is_not_clear():
    v = condition("p90 < 300ms")(seconds(slow_share=0.1))
    assert not v.answered and "across the limit" in v.why


def test_no_slow_answer_at_all_is_bounded_by_the_zero_event_bound():
    # about 18 000 answers (300 a second for 60 s), none slow: the share's upper bound at the look's one-sided error
    # α = 0.5% is −ln(α)/n = 5.3/18 000 = 0.029%, and over the first half's 9 000 0.059%, both below p99.9's 0.1%;
    # of about 6 000 answers (100 a second) the whole window's 0.088% is, but its first half's 0.18% is not
    assert early_stop.NO_EVENT_BOUND == pytest.approx(5.30, abs=0.01)
    assert condition("p99.9 < 300ms")(seconds(slow_share=0.0, rate=300)).decision == "met"
    assert not condition("p99.9 < 300ms")(seconds(slow_share=0.0)).answered


def test_the_mean_is_judged_on_the_precision_rules_own_interval():
    assert condition("mean < 25ms")(seconds(mean_ms=20)).answered
    assert condition("mean < 15ms")(seconds(mean_ms=20)).decision == "not met"
    # each second's R ±5%: over 10 batches of 6 s the half-width is about 3.25 · 5%/√6/√10 ≈ 2.1% at 99%, so
    # 20.01 ms lies inside it, 15 and 25 ms far outside
    assert not condition("mean < 20.01ms")(seconds(mean_ms=20)).answered


def test_an_error_rate_far_from_its_limit_is_clear_either_way():
    assert condition("error_rate < 5%")(seconds(failed_share=0.01)).answered
    assert condition("error_rate < 5%")(seconds(failed_share=0.2)).decision == "not met"


def test_one_criterion_failing_clearly_decides_though_another_is_unclear():
    v = SloClear(parse_slo(["p90 < 300ms", "error_rate < 5%"]), RULE)(seconds(slow_share=0.1, failed_share=0.3))
    assert v.answered and v.decision == "not met"


def test_nothing_is_decided_before_the_rules_window_holds_its_batches():
    # 9 s: too few to look for a warm-up (MSER-5 judges 10 s at least), however far the figures are from the limit;
    # the reason is the precision rule's own. At min_s = 10 s of window the same figures are clear.
    short = seconds(n=9, slow_share=0.9)
    v = condition("p90 < 300ms")(short)
    assert not v.answered and v.why == judge(short.counts, short.sums_ms, RULE).why
    assert v.why == "9 s, too few to look for a warm-up (MSER-5 needs 10 s here)"
    assert condition("p90 < 300ms")(seconds(n=10, slow_share=0.9)).answered


def test_a_strict_limit_counts_an_answer_of_exactly_the_threshold_against_it():
    assert condition("p90 < 300ms").above_ms == (300,)
    assert condition("p90 <= 300ms").above_ms == (301,)
    assert condition("mean < 300ms").above_ms == ()


def test_the_watcher_stops_a_probe_for_its_slo_before_it_is_precise(tmp_path):
    """A JTL of 60 s whose answers all take 400 ms or 2 s (alternating seconds): mean R's spread keeps it from a 1%
    precision, but p90 < 300 ms plainly fails; the watcher's reason is the SLO's."""
    t0 = 1_700_000_000_000
    rows = ["timeStamp,elapsed,label,responseCode,success,threadName,allThreads"]
    for second in range(60):
        elapsed = 400 if second % 2 else 2000
        rows += [f"{t0 + second * 1000 + 900 - elapsed + i},{elapsed},GET /,200,true,T 1-1,10" for i in range(20)]
    jtl = tmp_path / "results.jtl"
    jtl.write_text("\n".join(rows) + "\n")
    rule = Rule(precision=0.01, min_s=10, max_s=120)
    slo = SloClear(parse_slo(["p90 < 300ms"]), rule)
    watcher = Watcher(jtl, rule, precise_conditions(rule) + [("slo", slo)], check_s=0)
    try:
        assert watcher.check(0.0)
        assert watcher.reason == "slo" and watcher.verdict.decision == "not met"
        assert watcher.stop("complete").slo == "not met"
        assert not precise_conditions(rule)[0][1](watcher.rows.counts.seconds()).answered
    finally:
        watcher.close()


def test_a_look_that_decides_stands_only_when_the_windows_first_half_decides_the_same():
    """The sequential rule: 30 s at a slow share of 7% against p90's 10%: clear over the window (4.9% to 8.5% at
    99%), not over its first 15 s, so not yet decided; a max criterion is failed by one slow answer in the window,
    a fact that needs no confirmation."""
    v = condition("p90 < 300ms")(seconds(n=30, slow_share=0.07, seed=1))
    assert not v.answered and v.why.startswith("SLO met over 30 s but not yet over its first 15 s")
    assert condition("p90 < 300ms")(seconds(n=60, slow_share=0.07, seed=1)).decision == "met"  # 30 s on, it is
    one = seconds()
    one.above[300][40] = 1
    fact = condition("max < 300ms")(one)
    assert fact.answered and fact.decision == "not met" and "1 answers of 300 ms or more in the window" in fact.why
    assert not condition("max < 300ms")(seconds()).answered  # no pass is ever decided early


def test_probes_near_the_slo_are_seldom_decided_and_seldom_wrongly():
    """The issue's question: probes whose true p90 lies within ±5% of the SLO, judged every second as the watcher
    judges them (the precision rule, ±2%, then the SLO stop), until max_s 40: an open M/M/1 (ρ = 0.5, SLO 30 ms)
    and a closed M/M/10//N loop (N = 25, 100-ms exponential service, no think time, the SLO set around its exact
    p90 of 388 ms). 120 probes, one wrong decision (an M/M/1 probe at 1.026× the SLO said met at 10 s): a true rate
    of 5% would give at most one in 120 with probability 0.95^120 + 120·0.05·0.95^119 = 1.5%, so ≤ 5% is no luck
    (the one-sided 95% bound of 1 in 120 is 3.9%). The same rule far
    from the SLO (p90 at 0.6×) decides nearly every probe early, in a median 10 s (bench/bench_coverage.py has 400
    probes a row at max_s 60; a look at 95% without the confirmation decided 5-12% of such probes wrongly)."""
    from coverage import slo_probes
    rule = Rule(precision=0.02, min_s=10, max_s=30)
    near = [slo_probes("M/M/1", 80, 81, rule), slo_probes("closed", 40, 82, rule)]
    assert sum(t["wrong"] for t in near) <= 1, near
    far = slo_probes("M/M/1", 20, 83, rule, around=0.6)
    assert far["wrong"] == 0 and far["right"] >= 18 and far["median SLO stop s"] <= 15, far
