"""The criteria grammar: what it accepts (in canonical units) and what it refuses, with one-line reasons."""

import os
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from littlegrid.analysis.statistics import stats
from littlegrid.commands.check import in_unit
from littlegrid.criteria.grammar import PERCENTILE_KEYS, Condition, Criterion, Scope, parse
from littlegrid.usererror import UserError

ACCEPTED = [
    # text, metric, op, threshold in canonical units (ms, fraction, per second, count), scope as shown
    ("p90 < 300ms", "p90", "<", 300.0, "all cells"),
    ("p99 <= 1s", "p99", "<=", 1000.0, "all cells"),
    ("p95 < 250 us", "p95", "<", 0.25, "all cells"),
    ("p50 >= 1.5s", "p50", ">=", 1500.0, "all cells"),
    ("p99.9 < 2s", "p99.9", "<", 2000.0, "all cells"),
    ("p99.90 < 2s", "p99.9", "<", 2000.0, "all cells"),
    ("p100 < 5s", "p100", "<", 5000.0, "all cells"),
    ("mean < 120ms", "mean", "<", 120.0, "all cells"),
    ("max <= 3 s", "max", "<=", 3000.0, "all cells"),
    ("max < 2min", "max", "<", 120000.0, "all cells"),
    ("min > 1ms", "min", ">", 1.0, "all cells"),
    ("latency_mean < 80ms", "latency_mean", "<", 80.0, "all cells"),
    ("connect_mean < 5ms", "connect_mean", "<", 5.0, "all cells"),
    ("error_rate < 1%", "error_rate", "<", 0.01, "all cells"),
    ("error_rate == 0%", "error_rate", "==", 0.0, "all cells"),
    ("errors == 0", "errors", "==", 0.0, "all cells"),
    ("throughput > 50/s", "throughput", ">", 50.0, "all cells"),
    ("throughput >= 3000 / min", "throughput", ">=", 50.0, "all cells"),
    ("throughput > 360000/h", "throughput", ">", 100.0, "all cells"),
    ("goodput > 45/s", "goodput", ">", 45.0, "all cells"),
    ("closed_law_error < 3%", "closed_law_error", "<", 0.03, "all cells"),
    ("closed_law_error < 3% where users <= 40", "closed_law_error", "<", 0.03, "where users <= 40"),
    ("workload_error < 5%", "workload_error", "<", 0.05, "all cells"),
    ("server_little_error <= 2.5%", "server_little_error", "<=", 0.025, "all cells"),
    ('p90 < 300ms label "Login"', "p90", "<", 300.0, 'label "Login"'),
    ("p90<300ms label 'Login'", "p90", "<", 300.0, 'label "Login"'),
    ('P90 < 300MS WHERE users > 10 AND think_ms == 50', "p90", "<", 300.0, "where users > 10 and think_ms == 50"),
    ('p99 < 1s where users <= 40 label "Login"', "p99", "<", 1000.0, 'label "Login" where users <= 40'),
    ('mean < 1s where "server.tomcat.threads.max" == 10', "mean", "<", 1000.0,
     "where server.tomcat.threads.max == 10"),
    ("mean < 1s where think_dist == poisson", "mean", "<", 1000.0, 'where think_dist == "poisson"'),
    ("mean < 1s where users != 1", "mean", "<", 1000.0, "where users != 1"),
    ('p90 < 300ms label "say \\"hi\\""', "p90", "<", 300.0, 'label "say \\"hi\\""'),
]


@pytest.mark.parametrize("text, metric, op, threshold, scope", ACCEPTED, ids=[
    "p90_under_300ms", "p99_at_most_1s_is_1000ms", "microseconds_are_thousandths_of_a_ms",
    "decimal_seconds", "p99_9_is_a_carried_percentile", "p99_90_is_the_same_percentile", "p100_is_the_max",
    "mean", "max_with_a_space_before_the_unit", "minutes_for_long_times", "min", "latency_mean", "connect_mean",
    "percent_is_a_fraction", "zero_percent", "errors_is_a_bare_count", "throughput_per_second",
    "per_minute_is_divided_by_60", "per_hour_is_divided_by_3600", "goodput_counts_successes",
    "closed_law_error_in_percent", "scope_where_users_at_most_40", "workload_error_in_percent",
    "server_little_error_in_percent", "scope_label_in_double_quotes",
    "scope_label_in_single_quotes_without_spaces", "keywords_metrics_and_units_ignore_case",
    "label_and_where_in_either_order", "quoted_axis_name_with_dots", "bare_word_axis_value_is_text",
    "not_equal_in_a_scope", "escaped_quote_inside_a_label",
])
def test_accepted(text, metric, op, threshold, scope):
    crit = parse(text)
    assert (crit.metric, crit.op, crit.scope.__str__()) == (metric, op, scope)
    assert crit.threshold == pytest.approx(threshold, rel=1e-12)


def test_a_scope_is_plain_data_with_typed_values():
    crit = parse('p90 < 300ms label "Login" where users <= 40 and think_dist == "poisson" and warm == true')
    assert crit == Criterion("p90", "<", 300.0, Scope("Login", (
        Condition("users", "<=", 40.0), Condition("think_dist", "==", "poisson"), Condition("warm", "==", True),
    )), text=crit.text, unit="ms")


def test_the_text_is_kept_with_whitespace_collapsed_and_the_unit_as_written():
    crit = parse("  p99   <=\t1s  ")
    assert (crit.text, crit.unit) == ("p99 <= 1s", "s")


def test_whitespace_inside_a_quoted_label_is_kept():
    crit = parse('p90  <  300ms   label "Log  in"')
    assert (crit.text, crit.scope.label) == ('p90 < 300ms label "Log  in"', "Log  in")
    assert parse(crit.text) == crit


def test_one_percent_is_exactly_the_fraction_0_01_so_a_measured_0_01_is_not_below_it():
    assert parse("error_rate < 1%").threshold == 0.01
    assert parse("closed_law_error < 3%").threshold == 0.03
    assert not parse("error_rate < 1%").holds(1 / 100)


@pytest.mark.parametrize("text, value_ms, shown", [
    ("p99 <= 1s", 1234.0, "1.234 s"),
    ("p90 < 300ms", 412.0, "412 ms"),
    ("error_rate < 1%", 0.0125, "1.25%"),
    ("throughput > 3000/min", 48.5, "2910/min"),
    ("errors == 0", 3, "3"),
], ids=["seconds", "milliseconds", "percent", "per_minute", "count"])
def test_figures_are_shown_in_the_unit_the_criterion_was_written_in(text, value_ms, shown):
    assert in_unit(value_ms, parse(text)) == shown


REFUSED = [
    # text, words the one-line message must contain
    ("p101 < 300ms", "percentile p101 is over 100"),
    ("p999 < 300ms", "did you mean p99.9?"),
    ("p0 < 1ms", "percentile p0 must be over 0"),
    ("p0.0 < 1ms", "must be over 0"),
    ("p97 < 300ms", "available: p50, p90, p95, p99, p99.9, p100"),
    ("latency < 300ms", "unknown metric 'latency'; metrics: p50"),
    ("rps > 5/s", "unknown metric 'rps'"),
    ("p90 < 5%", "p90 needs a time unit (us, ms, s, min), got '%'"),
    ("p90 < 300", "p90 needs a time unit (us, ms, s, min), got none"),
    ("p90 < 300m", "got 'm'"),
    ("error_rate < 1", "error_rate needs a percentage (%), got none"),
    ("error_rate < 1ms", "error_rate needs a percentage"),
    ("throughput > 50", "throughput needs a rate unit (/s, /min, /h), got none"),
    ("throughput > 50/day", "got '/day'"),
    ("errors < 1%", "errors is a count; write the threshold without a unit"),
    ("p90 <", "missing threshold after '<'"),
    ("p90 < ms", "missing threshold after '<' (got 'ms')"),
    ("p90", "missing operator after p90"),
    ("p90 300ms", "expected an operator (< <= > >= ==), got '300'"),
    ("p90 = 300ms", "bad operator '=' (use ==)"),
    ("p90 =< 300ms", "bad operator '=<' (use <=)"),
    ("p90 != 300ms", "bad operator '!='"),
    ("", "empty criterion"),
    ("   ", "empty criterion"),
    ("< 300ms", "expected a metric first"),
    ("p90 < 300ms users <= 40", "unexpected 'users' after the threshold"),
    ("p90 < 300ms where", "where needs a condition"),
    ("p90 < 300ms where users", "missing comparison after axis 'users'"),
    ("p90 < 300ms where users <=", "missing value after users <="),
    ("p90 < 300ms where users <= 40 and", "where needs a condition"),
    ("p90 < 300ms where users <= 40 or users > 80", "only 'and' joins conditions"),
    ("p90 < 300ms where users = 40", "bad operator '=' (use ==)"),
    ('p90 < 300ms where think_dist < "poisson"', "think_dist < needs a number"),
    ("p90 < 300ms where users <= 40 where think_ms == 0", "where given twice"),
    ("p90 < 300ms label Login", 'label needs a quoted name, e.g. label "Login"'),
    ('p90 < 300ms label "Login" label "Home"', "label given twice"),
    ('p90 < 300ms label "Login', "unterminated quoted string"),
    ('closed_law_error < 3% label "Login"', "closed_law_error is a whole-cell figure; it takes no label scope"),
    ("p90 < 300ms; p99 < 1s", "unexpected ';' at column 12"),
]


@pytest.mark.parametrize("text, problem", REFUSED, ids=[
    "percentile_over_100_is_refused", "p999_is_refused_with_a_hint_to_p99_9", "percentile_zero_is_refused",
    "percentile_zero_point_zero_is_refused", "percentile_the_summary_lacks_is_refused_with_the_available_ones",
    "unknown_metric_is_refused_with_the_list", "rps_is_not_a_metric_name",
    "percent_on_a_time_metric_is_refused", "time_threshold_without_unit_is_refused",
    "unknown_time_unit_is_refused", "error_rate_without_percent_is_refused", "time_unit_on_a_fraction_is_refused",
    "throughput_without_rate_unit_is_refused", "unknown_rate_unit_is_refused", "unit_on_a_count_is_refused",
    "missing_threshold_is_refused", "unit_without_number_is_refused", "missing_operator_is_refused",
    "number_instead_of_operator_is_refused", "single_equals_is_refused_with_a_hint",
    "reversed_less_equal_is_refused_with_a_hint", "not_equal_is_only_for_scopes", "empty_text_is_refused",
    "blank_text_is_refused", "operator_first_is_refused", "scope_without_where_is_refused",
    "where_without_condition_is_refused", "condition_without_comparison_is_refused",
    "condition_without_value_is_refused", "dangling_and_is_refused", "or_is_refused",
    "single_equals_in_scope_is_refused", "ordering_against_text_is_refused", "where_twice_is_refused",
    "unquoted_label_is_refused", "label_twice_is_refused", "unterminated_label_is_refused",
    "label_scope_on_a_whole_cell_metric_is_refused", "two_criteria_in_one_string_are_refused",
])
def test_refused(text, problem):
    with pytest.raises(UserError) as refused:
        parse(text)
    message = str(refused.value)
    assert problem in message
    assert message.startswith(f"criterion '{' '.join(text.split())}': ")
    assert "\n" not in message


def test_the_percentiles_criteria_accept_are_exactly_those_stats_computes_plus_the_max():
    assert set(PERCENTILE_KEYS.values()) == {key for key, _ in stats.PERCENTILES} | {"max_ms"}
    assert {Fraction(p) for _, p in stats.PERCENTILES} | {Fraction(100)} == set(PERCENTILE_KEYS)


def test_a_criterion_that_is_not_a_string_is_refused():
    with pytest.raises(UserError, match="a criterion is a string"):
        parse(300)


# Any text at all gives a Criterion or one UserError line, never another exception (design habit 5).
# LITTLEGRID_EXAMPLES=5000 searches longer (about 2 minutes); the default keeps the suite fast.
_PIECES = ["p90", "p99.9", "p101", "p0", "mean", "error_rate", "throughput", "closed_law_error", "errors", "<", "<=",
           ">", "==", "=", "!=", "300", "1.5", "-2", "1e3", "ms", "s", "us", "%", "/s", "/min", "where", "label",
           "and", "or", "users", '"Login"', "'x", "40", "think_ms", "poisson", " ", "\t", ";", "\\", '"', '"a  b"', "'a\\' b'"]


@pytest.mark.fuzz
@given(st.one_of(st.text(max_size=40), st.lists(st.sampled_from(_PIECES), max_size=12).map(" ".join)))
@settings(max_examples=int(os.environ.get("LITTLEGRID_EXAMPLES", 250)), deadline=None)
def test_any_text_parses_or_is_refused_in_one_line(text):
    try:
        crit = parse(text)
    except UserError as e:
        assert "\n" not in str(e) and str(e).startswith("criterion '")
        return
    assert parse(crit.text) == crit  # the collapsed text reads back the same
    if crit.scope.label is not None or crit.scope.where:  # and the scope as shown is valid grammar for itself
        assert parse(f"p90 < 1ms {crit.scope}").scope == crit.scope


_UNIT_OF = {"time": {"ms": 1, "s": 1000, "us": 0.001, "min": 60000}, "fraction": {"%": 0.01}, "rate": {"/s": 1, "/min": 1 / 60},
            "count": {"": 1}}
_KIND = {**{m: "time" for m in ("p50", "p90", "p95", "p99", "p99.9", "p100", "mean", "max", "latency_mean")},
         "error_rate": "fraction", "closed_law_error": "fraction", "throughput": "rate", "goodput": "rate",
         "errors": "count"}


@st.composite
def _criteria(draw):
    metric = draw(st.sampled_from(sorted(_KIND)))
    unit = draw(st.sampled_from(sorted(_UNIT_OF[_KIND[metric]])))
    number = draw(st.integers(0, 10**6)) / draw(st.sampled_from([1, 10, 100]))
    gap = draw(st.sampled_from(["", " ", "  "]))
    conditions = draw(st.lists(st.tuples(st.sampled_from(["users", "think_ms", '"a.b"']),
                                         st.sampled_from(["<", "<=", ">", ">=", "==", "!="]),
                                         st.integers(-5, 500)), max_size=3))
    label = draw(st.one_of(st.none(), st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)))
    if metric.endswith("_error"):
        label = None
    text = f"{metric} {draw(st.sampled_from(['<', '<=', '>', '>=', '==']))} {number:g}{gap}{unit}"
    if conditions:
        text += " where " + " and ".join(f"{a} {op} {v}" for a, op, v in conditions)
    if label is not None:
        text += ' label "' + label.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text, metric, number * _UNIT_OF[_KIND[metric]][unit], label, len(conditions)


@pytest.mark.fuzz
@given(_criteria())
@settings(max_examples=int(os.environ.get("LITTLEGRID_EXAMPLES", 200)), deadline=None)
def test_any_well_formed_criterion_parses_to_its_canonical_threshold_and_scope(case):
    text, metric, threshold, label, n_conditions = case
    crit = parse(text)
    assert crit.metric == metric
    assert crit.threshold == pytest.approx(threshold, rel=1e-12, abs=1e-15)
    assert (crit.scope.label, len(crit.scope.where)) == (label, n_conditions)
    assert parse(crit.text) == crit
    if crit.scope.label is not None or crit.scope.where:
        assert parse(f"p90 < 1ms {crit.scope}").scope == crit.scope
