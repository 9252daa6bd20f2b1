"""The gate's known answers by simulation (gate_simulation.py: histories drawn with a chosen run-to-run spread and
within-run noise, driven through the gate as CI wires it, 500 histories per figure, fixed seeds): false alarms with
no change at most 5% a build, power of at least 80% for a step twice the detectable size the gate prints (and about
80% at the size itself: its definition), a +20% step at the second run of a new series flagged by the third, five 4%
steps flagged by the seventh run, histories whose own spread measures 0 neither failing nor blind, and a host twice
as noisy as the prior says still under 5% of false alarms. bench/bench_gate.py prints the same figures with their
intervals, for more worlds. Each bound is asserted on the binomial 95% interval's far end, so luck cannot pass it."""


import pytest

from gate_simulation import scenarios

from littlegrid.analysis.statistics.intervals import wilson

REPS = 500
CELLS = (120.0, 480.0, 2000.0)  # three cells: the figures are per build (any cell) or per cell, as each says


@pytest.fixture(scope="module")
def calibrated():
    """σ_b 2% and s 1% (a quiet host's p90), the gate's prior the true σ_b."""
    return scenarios(0.02, 0.01, REPS, seed=61, cells=CELLS)


def rate(figures, name):
    hits, n, _, _ = figures[name]
    return hits / n, wilson(hits, n)[:2]


def test_an_unchanged_system_fails_at_most_5_percent_of_its_builds(calibrated):
    _, (_, hi) = rate(calibrated, "false alarms, no change: builds 2-8 failed")
    assert hi <= 0.05
    _, (_, hi) = rate(calibrated, "  … histories with any false alarm in 8 builds")
    assert hi <= 0.10  # what the seven looks spend together


def test_a_step_twice_the_printed_detectable_size_fails_at_least_80_percent_and_the_size_itself_about_80(calibrated):
    _, (lo, _) = rate(calibrated, "cells failed by a step of 2× the printed detectable size (build 5)")
    assert lo >= 0.80
    _, (lo, hi) = rate(calibrated, "cells failed by a step of 1× the printed detectable size (build 5)")
    assert lo <= 0.80 <= hi or 0.70 <= lo <= hi <= 0.90  # the size is what fails 80% of the time: not hedged up


def test_a_20_percent_step_at_the_second_run_of_a_new_series_is_flagged_by_the_third(calibrated):
    _, (lo, _) = rate(calibrated, "+20% from build 2 of a new series, flagged at build 2 or 3")
    assert lo >= 0.80


def test_five_4_percent_steps_are_flagged_by_the_seventh_run_by_the_change_points(calibrated):
    _, (lo, _) = rate(calibrated, "  … of them by a persistent shift (change points)")
    assert lo >= 0.80


def test_a_history_that_measures_no_spread_neither_fails_alone_nor_goes_blind(calibrated):
    _, (_, hi) = rate(calibrated, "σ_b = 0 (σ̂_b ≈ 0), the prior as above: builds 2-4 failed")
    assert hi <= 0.05
    _, (lo, _) = rate(calibrated, "σ_b = 0: +20% at build 5, flagged at build 5 or 6")
    assert lo >= 0.80


def test_a_host_twice_as_noisy_as_the_prior_says_still_fails_at_most_5_percent_of_unchanged_builds():
    figures = scenarios(0.04, 0.015, REPS, seed=62, prior_sd=0.02, cells=CELLS, only=("false alarms",))
    _, (_, hi) = rate(figures, "false alarms, no change: builds 2-8 failed")
    assert hi <= 0.05
