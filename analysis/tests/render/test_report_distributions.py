"""Distribution page data: overlays grouped the right way, think-time overlays with known expected counts."""

import math

import pytest

from littlegrid.render import distributions
from littlegrid.summary.model import Summary


def cells_of(summary: dict):
    return Summary.model_validate(summary).cells


def test_exponential_overlay_counts_are_the_gaps_times_the_bin_probability():
    counts = distributions._expected_counts([0, 10, 20], 1000, 10.0, "exponential")
    assert counts == pytest.approx([1000 * (1 - math.exp(-1)), 1000 * (math.exp(-1) - math.exp(-2))])


def test_poisson_overlay_is_shifted_by_the_timer_offset_and_counts_whole_milliseconds():
    # offset 5 ms + Poisson(λ = 10): P(pause = 15 ms) = P(K = 10) = e^-10 10^10 / 10!
    edges = list(range(0, 60))
    counts = distributions._expected_counts(edges, 1000, 15.0, "poisson", offset_ms=5.0)
    assert counts[15] == pytest.approx(1000 * math.exp(-10) * 10**10 / math.factorial(10), rel=1e-6)
    assert sum(counts[:5]) == 0 and sum(counts) == pytest.approx(1000, rel=1e-6)
    assert distributions._expected_counts(edges, 1000, 4.0, "poisson", offset_ms=5.0) is None  # mean below offset


def test_overlays_per_n_need_two_think_times_and_overlays_per_think_time_list_every_n(golden_summary):
    pdf = distributions.overlay_charts(Summary.model_validate(golden_summary), "pdf")
    assert len(pdf["fixed_n"]) == 3 and all(len(c["series"]) == 2 for c in pdf["fixed_n"])
    assert len(pdf["fixed_z"]) == 2 and [s["label"] for s in pdf["fixed_z"][0]["series"]] == ["N = 1", "N = 5", "N = 20"]
    ccdf = distributions.overlay_charts(Summary.model_validate(golden_summary), "ccdf")
    assert ccdf["fixed_z"][0]["log_x"] and ccdf["fixed_z"][0]["log_y"]
    assert all(v is None or v > 0 for s in ccdf["fixed_z"][0]["series"] for v in s["values"])
    assert "(α = " in ccdf["fixed_z"][0]["series"][0]["label"]


def test_think_time_charts_show_the_poisson_overlay_only_for_the_poisson_timer(golden_summary):
    charts = distributions.think_charts(cells_of(golden_summary))
    assert len(charts) == 3  # the cells with 50 ms think time; Z = 0 has no gaps to show
    assert [s["label"] for s in charts[0]["series"]] == ["realised", "exponential, same mean",
                                                          "Poisson, same mean (JMeter Poisson timer)"]
    for c in golden_summary["cells"]:
        c["intended"]["think_dist"] = "exponential"
    assert all(len(c["series"]) == 2 for c in distributions.think_charts(cells_of(golden_summary)))
