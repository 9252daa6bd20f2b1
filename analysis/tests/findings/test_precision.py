"""Figures at the precision their interval supports (findings.precision): known answers on paper."""

from littlegrid.findings import precision


def test_a_change_known_to_about_8_percent_is_written_to_the_tens():
    # +885.3%, 95% interval +812.2% to +967.8%: the half-width is 82.5 points, so the tens place
    assert precision.about(885.3, 812.2, 967.8, "%") == "about 890%"
    assert precision.interval(885.3, 812.2, 967.8, "%") == "about 890% (810% to 970%)"


def test_a_large_change_reads_as_the_ratio_with_its_interval():
    assert precision.ratio(8.853, 8.122, 9.678) == "about 9.9× (9.1× to 10.7×)"


def test_a_small_change_reads_as_a_signed_percentage():
    assert precision.ratio(0.12, 0.08, 0.16) == "about +12% (+8% to +16%)"
    assert precision.ratio(-0.2, -0.3, -0.1) == "about -20% (-30% to -10%)"


def test_a_halving_reads_as_a_ratio_below_one():
    assert precision.ratio(-0.6, -0.65, -0.55) == "about 0.40× (0.35× to 0.45×)"


def test_a_figure_without_an_interval_is_written_as_given():
    assert precision.figure(0.61) == "0.61"
    assert precision.about(0.61, unit=" ms") == "0.61 ms"


def test_a_wide_interval_never_rounds_the_figure_to_zero():
    assert precision.figure(4.2, 0.1, 40.0) == "4"
    assert precision.figure(153.4, 151.2, 155.6) == "153"


def test_a_count_is_an_integer_only_when_its_interval_lies_within_half_of_it():
    assert precision.count(4.19, 4.05, 4.33) == "about 4"
    assert precision.count(4.1, 3.55, 4.65) == "3.5 to 4.7"  # ends outwards: never narrower
    assert precision.count(3.5, 3.45, 3.55) == "3.45 to 3.55"
    assert precision.count(4.19, None, None) == "about 4.2"


def test_a_ratio_names_the_figure_it_multiplies():
    assert precision.ratio(8.853, 8.122, 9.678, "the throughput") == "about 9.9× the throughput (9.1× to 10.7×)"
    assert precision.ratio(0.12, 0.08, 0.16, "the throughput") == "about +12% on the throughput (+8% to +16%)"


def test_significant_figures_never_turn_to_exponents():
    """'{:.2g}' writes 150 as '1.5e+02': a count of requests in a sentence must read 150."""
    assert [precision.significant(v, 2) for v in (150, 90.3, 4.23, 0.0456, 1234)] == ["150", "90", "4.2", "0.046", "1200"]
    assert precision.significant(9.996, 3) == "10" and precision.significant(1.0, 2) == "1"
    assert precision.count(1234.0, None, None) == "about 1200"
