"""Evaluating criteria against summary.json: one entry per criterion x cell in scope, never a crash on a gap."""

import json

import pytest

from criteria_summaries import cell, closed_law, summary
from summary_contract import typed
from littlegrid.commands.check import explain
from littlegrid.criteria import evaluate as criteria_stage
from littlegrid.summary import plain
from littlegrid.summary.model import CriterionResult
from littlegrid.usererror import UserError


def evaluate(criteria: list, summary_data: dict) -> list[dict]:
    """The criteria stage on a hand-written summary, read into the typed model as analyze hands it over."""
    return criteria_stage.evaluate(criteria, typed(summary_data))


def typed_result(entry: dict) -> CriterionResult:
    """A criteria-stage entry as check reads it (the summary's model)."""
    return CriterionResult.model_validate(plain(entry))

ONE_CELL = [
    # criterion, the cell's overall figures, value in canonical units, passed
    ("p90 < 300ms", {"p90_ms": 250.0}, 250.0, True),
    ("p90 < 300ms", {"p90_ms": 300.0}, 300.0, False),
    ("p90 <= 300ms", {"p90_ms": 300.0}, 300.0, True),
    ("p99 <= 1s", {"p99_ms": 1001.0}, 1001.0, False),
    ("p99.9 < 2s", {"p999_ms": 1999.0}, 1999.0, True),
    ("p100 < 2s", {"max_ms": 2500.0}, 2500.0, False),
    ("mean < 100ms", {"mean_ms": 120.0}, 120.0, False),
    ("latency_mean < 100ms", {"latency_mean_ms": 90.0}, 90.0, True),
    ("connect_mean < 1ms", {"connect_mean_ms": 1.5}, 1.5, False),
    ("error_rate < 1%", {"error_rate": 0.009}, 0.009, True),
    ("error_rate < 1%", {"error_rate": 0.01}, 0.01, False),
    ("errors == 0", {"errors": 0}, 0, True),
    ("errors == 0", {"errors": 3}, 3, False),
    ("throughput > 50/s", {"throughput_per_s": 49.9}, 49.9, False),
    ("throughput > 3000/min", {"throughput_per_s": 50.1}, 50.1, True),
    ("goodput >= 99/s", {"successes_per_s": 99.0}, 99.0, True),
    ("min > 0ms", {"min_ms": 0.0}, 0.0, False),
    ("max == 1500ms", {"max_ms": 1500.0}, 1500.0, True),
]


@pytest.mark.parametrize("text, figures, value, passed", ONE_CELL, ids=[
    "p90_under_300ms_passes_at_250ms", "p90_under_300ms_fails_at_exactly_300ms",
    "p90_at_most_300ms_passes_at_exactly_300ms", "p99_at_most_1s_fails_at_1001ms", "p99_9_reads_p999_ms",
    "p100_reads_the_max", "mean_under_100ms_fails_at_120ms", "latency_mean_reads_time_to_first_byte",
    "connect_mean_reads_connect_time", "error_rate_under_1pct_passes_at_0_9pct",
    "error_rate_under_1pct_fails_at_exactly_1pct", "no_errors_passes_with_zero",
    "no_errors_fails_with_three", "throughput_over_50_per_s_fails_at_49_9",
    "throughput_per_minute_is_compared_per_second", "goodput_reads_successes_per_second",
    "min_over_zero_fails_at_zero", "equality_on_the_max",
])
def test_one_cell(text, figures, value, passed):
    [entry] = evaluate([text], summary(cell(20, **figures)))
    assert entry["value"] == pytest.approx(value)
    assert entry["passed"] is passed
    assert (entry["criterion"], entry["cell"], entry["scope"], entry["reason"]) == (
        text, "users=20,think_ms=0", "all cells", None)


def test_an_entry_has_the_contract_fields_in_canonical_units():
    [entry] = evaluate(["p99 <= 1s"], summary(cell(20, p99_ms=400.0)))
    assert entry == {"criterion": "p99 <= 1s", "scope": "all cells", "cell": "users=20,think_ms=0",
                     "metric": "p99", "value": 400.0, "threshold": 1000.0, "passed": True,
                     "reason": None, "unit": "ms"}
    json.dumps(entry, allow_nan=False)


def test_units_of_entries_name_the_canonical_unit_of_each_kind():
    entries = evaluate(["p90 < 1s", "error_rate < 1%", "throughput > 1/min", "errors == 0"], summary(cell(1)))
    assert [e["unit"] for e in entries] == ["ms", "fraction", "per_s", "count"]


GRID = summary(
    cell(10, 0, p90_ms=100.0), cell(40, 0, p90_ms=280.0), cell(100, 0, p90_ms=900.0),
    cell(10, 50, p90_ms=90.0), cell(40, 50, p90_ms=260.0), cell(100, 50, p90_ms=700.0),
)

SCOPES = [
    # criterion, cells in scope in grid order, the failing ones
    ("p90 < 300ms", ["users=10,think_ms=0", "users=40,think_ms=0", "users=100,think_ms=0",
                     "users=10,think_ms=50", "users=40,think_ms=50", "users=100,think_ms=50"],
     ["users=100,think_ms=0", "users=100,think_ms=50"]),
    ("p90 < 300ms where users <= 40", ["users=10,think_ms=0", "users=40,think_ms=0",
                                       "users=10,think_ms=50", "users=40,think_ms=50"], []),
    ("p90 < 300ms where users < 40", ["users=10,think_ms=0", "users=10,think_ms=50"], []),
    ("p90 < 800ms where users > 40 and think_ms == 50", ["users=100,think_ms=50"], []),
    ("p90 < 200ms where think_ms != 0 and users >= 40", ["users=40,think_ms=50", "users=100,think_ms=50"],
     ["users=40,think_ms=50", "users=100,think_ms=50"]),
]


@pytest.mark.parametrize("text, in_scope, failing", SCOPES, ids=[
    "no_scope_means_every_cell", "users_at_most_40_takes_the_small_cells", "strictly_below_40_excludes_40",
    "and_joins_conditions_on_two_axes", "not_equal_and_at_least",
])
def test_where_scopes_select_cells_by_axis(text, in_scope, failing):
    entries = evaluate([text], GRID)
    assert [e["cell"] for e in entries] == in_scope
    assert [e["cell"] for e in entries if e["passed"] is False] == failing


def test_a_label_scope_reads_that_labels_statistics_not_the_cells():
    grid = summary(cell(10, p90_ms=100.0, labels={"Login": {"p90_ms": 450.0}, "Home": {"p90_ms": 50.0}}))
    [login] = evaluate(['p90 < 300ms label "Login"'], grid)
    assert (login["value"], login["passed"], login["scope"]) == (450.0, False, 'label "Login"')


def test_a_label_missing_from_a_cell_is_not_evaluated_there_with_a_reason():
    grid = summary(cell(10, labels={"Login": {"p90_ms": 100.0}}), cell(40))
    entries = evaluate(['p90 < 300ms label "Login"'], grid)
    assert [(e["cell"], e["passed"]) for e in entries] == [("users=10,think_ms=0", True), ("users=40,think_ms=0", None)]
    assert entries[1]["reason"] == 'label "Login" has no samples in this cell'


def test_closed_law_error_is_the_absolute_relative_error_of_the_cells_closed_law_check():
    grid = summary(cell(10, checks=[closed_law(-0.045)]), cell(40, checks=[closed_law(0.012)]))
    entries = evaluate(["closed_law_error < 3%"], grid)
    assert [(e["value"], e["passed"]) for e in entries] == [(pytest.approx(0.045), False), (pytest.approx(0.012), True)]


def test_check_errors_read_their_own_check_not_another_cells_or_anothers_name():
    workload = {**closed_law(0.07), "name": "workload"}
    grid = summary(cell(10, checks=[closed_law(0.01), workload]))
    [closed, load] = evaluate(["closed_law_error < 3%", "workload_error < 5%"], grid)
    assert (closed["value"], closed["passed"]) == (pytest.approx(0.01), True)
    assert (load["value"], load["passed"]) == (pytest.approx(0.07), False)


def test_closed_law_error_without_the_check_is_not_evaluated_and_says_why():
    grid = summary(cell(10), cell(40, checks=[closed_law(None)]))
    first, second = evaluate(["closed_law_error < 3%"], grid)
    assert (first["passed"], first["reason"]) == (None, "the cell has no closed_law check")
    assert second["passed"] is None
    assert second["reason"] == "the closed_law check could not be made: no think-time gaps in the window"


def test_a_figure_the_summary_lacks_is_not_evaluated_never_a_crash():
    grid = summary(cell(10, p999_ms=None), cell(40, no_stats=True, status="failed"))
    first, second = evaluate(["p99.9 < 1s"], grid)
    assert (first["value"], first["passed"], first["reason"]) == (None, None, "the cell has no p999_ms in the summary")
    assert (second["passed"], second["reason"]) == (None, "the cell has no statistics (cell status: failed)")


def test_a_nan_figure_is_treated_as_missing():
    [entry] = evaluate(["mean < 1s"], summary(cell(10, mean_ms=float("nan"))))
    assert entry["passed"] is None


def test_a_scope_no_cell_matches_gives_one_entry_without_a_cell():
    [entry] = evaluate(["p90 < 300ms where users > 1000"], GRID)
    assert (entry["cell"], entry["value"], entry["passed"]) == (None, None, None)
    assert entry["reason"] == "no cell matches where users > 1000"


def test_a_scope_on_an_axis_the_grid_lacks_is_a_user_error_naming_the_axes():
    with pytest.raises(UserError, match=r"criterion 'p90 < 300ms where userz <= 40': the grid has no axis "
                                        r"'userz' \(axes: think_ms, users\)"):
        evaluate(["p90 < 300ms where userz <= 40"], GRID)


def test_ordering_a_text_axis_against_a_number_is_a_user_error():
    grid = summary(cell(10))
    grid["cells"][0]["axes"]["think_dist"] = "poisson"
    with pytest.raises(UserError, match="axis 'think_dist' has the value 'poisson'"):
        evaluate(["p90 < 300ms where think_dist < 3"], grid)
    assert evaluate(["p90 < 300ms where think_dist == poisson"], grid)[0]["passed"] is True
    assert evaluate(["p90 < 300ms where think_dist == 3"], grid)[0]["cell"] is None


def test_a_malformed_criterion_is_a_user_error_from_evaluate_too():
    with pytest.raises(UserError, match="percentile p101 is over 100"):
        evaluate(["p101 < 1s"], GRID)


def test_entries_come_in_criterion_then_cell_order():
    entries = evaluate(["p90 < 1s where users == 10", "mean < 1s where users == 100"], GRID)
    assert [(e["criterion"], e["cell"]) for e in entries] == [
        ("p90 < 1s where users == 10", "users=10,think_ms=0"), ("p90 < 1s where users == 10", "users=10,think_ms=50"),
        ("mean < 1s where users == 100", "users=100,think_ms=0"), ("mean < 1s where users == 100", "users=100,think_ms=50"),
    ]


def test_no_criteria_give_no_entries():
    assert evaluate([], GRID) == []


EXPLAINED = [
    ("p90 < 300ms", {"p90_ms": 412.0}, "p90 < 300ms [users=20,think_ms=0]: p90 is 412 ms, needs < 300 ms"),
    ("p99 <= 1s", {"p99_ms": 1234.0}, "p99 <= 1s [users=20,think_ms=0]: p99 is 1.234 s, needs <= 1 s"),
    ("error_rate < 1%", {"error_rate": 0.025}, "error_rate < 1% [users=20,think_ms=0]: error_rate is 2.5%, needs < 1%"),
    ("throughput > 50/s", {"throughput_per_s": 61.25}, "throughput > 50/s [users=20,think_ms=0]: throughput is 61.25/s, holds > 50/s"),
]


@pytest.mark.parametrize("text, figures, line", EXPLAINED, ids=[
    "a_failure_names_criterion_cell_value_and_threshold", "seconds_stay_seconds", "fractions_shown_as_percent",
    "a_pass_says_it_holds",
])
def test_explain(text, figures, line):
    [entry] = evaluate([text], summary(cell(20, **figures)))
    assert explain(typed_result(entry)) == line


def test_explaining_an_unevaluated_entry_gives_the_reason():
    [entry] = evaluate(["p90 < 300ms where users > 1000"], GRID)
    assert explain(typed_result(entry)) == "p90 < 300ms where users > 1000 [no cell]: not evaluated: no cell matches where users > 1000"
