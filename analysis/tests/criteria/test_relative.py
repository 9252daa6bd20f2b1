"""Relative criteria (`p90 regress < 10%`): parsed into a metric, a direction, a margin in its unit and a scope;
malformed ones refused in one line that says what to write; the rule that fails one only when the regression's whole
interval lies past the margin."""

import pytest

from littlegrid.criteria import relative
from littlegrid.criteria.grammar import Condition
from littlegrid.usererror import UserError


@pytest.mark.parametrize("text, metric, change, op, margin, unit, where", [
    ("p90 regress < 10%", "p90", "regress", "<", 0.1, "%", ()),
    ("throughput regress < 5%", "throughput", "regress", "<", 0.05, "%", ()),
    ("error_rate increase < 0.5 points", "error_rate", "increase", "<", 0.005, "points", ()),
    ("MEAN increase <= 2.5 % where users >= 10 and think_ms == 0", "mean", "increase", "<=", 0.025, "%",
     (Condition("users", ">=", 10.0), Condition("think_ms", "==", 0.0))),
    ("error_rate regress < 1 point", "error_rate", "regress", "<", 0.01, "points", ()),
])
def test_a_relative_criterion_parses_into_its_parts(text, metric, change, op, margin, unit, where):
    crit = relative.parse(text)
    assert (crit.metric, crit.change, crit.op, crit.unit, crit.scope.where) == (metric, change, op, unit, where)
    assert crit.margin == pytest.approx(margin)
    assert relative.is_relative(text)


def test_absolute_criteria_are_not_relative():
    assert not any(relative.is_relative(t) for t in ("p90 < 300ms", "error_rate < 1%", "throughput > 5/s", "", 3))


@pytest.mark.parametrize("text, problem", [
    ("p90 regress < 10", "p90's change is relative to the baseline, in %: write 'p90 regress < 10%', got no unit"),
    ("error_rate increase < 1%", "in percentage points (its baseline is often 0, where a relative change has no "
                                 "meaning): write 'error_rate increase < 1 points', got %"),
    ("throughput increase < 5%", "throughput worsens when it falls: write 'throughput regress < …'"),
    ("p90 regress > 10%", "bounds the regression from above: use < or <=, got '>'"),
    ("p95 regress < 10%", "needs one of throughput, mean, p50, p90, p99, error_rate first, got 'p95'"),
    ('p90 regress < 10% label "Login"', "a relative criterion takes no label scope"),
    ("p90 regress < 10% where", "where needs a condition"),
    ("p90 regress < 10% where users < 4 or users > 8", "only 'and' joins conditions"),
    ("p90 regress < -1%", "expected a margin such as 10% after <, got '-1'"),
])
def test_a_malformed_relative_criterion_is_refused_in_one_line(text, problem):
    with pytest.raises(UserError) as e:
        relative.parse(text)
    assert str(e.value).startswith(f"criterion '{text}': ") and problem in str(e.value)
    assert "\n" not in str(e.value)


def test_it_fails_only_when_the_whole_interval_lies_past_the_margin():
    below, at_most = relative.parse("p90 regress < 10%"), relative.parse("p90 regress <= 10%")
    assert below.fails(0.11) and below.fails(0.10) and not below.fails(0.09)  # the interval's lower end
    assert at_most.fails(0.11) and not at_most.fails(0.10)
    assert below.fails(None) is None  # no interval: not judged
