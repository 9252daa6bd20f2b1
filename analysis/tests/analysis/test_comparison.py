"""The comparison stage: cells paired by the axes both runs have, and its refusals."""

import pytest

from littlegrid.comparison import compare_runs, pair_cells
from littlegrid.usererror import UserError


def test_cells_pair_on_the_axes_both_runs_have_and_the_rest_are_listed():
    a = [{"id": "a1", "axes": {"users": 1, "think_ms": 0}}, {"id": "a2", "axes": {"users": 2, "think_ms": 0}}]
    b = [{"id": "b1", "axes": {"users": 1, "think_ms": 0, "threads": 10}}, {"id": "b3", "axes": {"users": 3, "think_ms": 0, "threads": 10}}]
    pairs, only_a, only_b = pair_cells(a, b)
    assert [(x["id"], y["id"]) for x, y in pairs] == [("a1", "b1")]
    assert [c["id"] for c in only_a] == ["a2"] and [c["id"] for c in only_b] == ["b3"]
    twins = [{"id": "b1", "axes": {"users": 1, "think_ms": 0, "threads": 10}}, {"id": "b2", "axes": {"users": 1, "think_ms": 0, "threads": 100}}]
    pairs, _, _ = pair_cells(a, twins)
    assert pairs == []  # ambiguous: A's cell matches two of B's


def test_too_few_replicates_or_a_minimum_effect_outside_0_to_1_is_refused_in_one_line():
    with pytest.raises(UserError, match="--reps 10: at least 100 replicates"):
        compare_runs({"cells": []}, {"cells": []}, reps=10)
    with pytest.raises(UserError, match="--min-effect 5: give a fraction between 0 and 1"):
        compare_runs({"cells": []}, {"cells": []}, min_effect=5)
    empty = compare_runs({"cells": []}, {"cells": []})
    assert empty["rows"] == [] and empty["counts"] == {"better": 0, "worse": 0, "same": 0, "unknown": 0}
