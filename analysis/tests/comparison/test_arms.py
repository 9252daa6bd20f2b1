"""Two arms of one run: cells split on one axis and paired on the others."""

import pytest

from littlegrid.comparison import arms
from littlegrid.comparison.deltas import pair_cells
from littlegrid.usererror import UserError
from summary_contract import typed


def _summary():
    cells = [{"id": f"server.tomcat.threads.max={t},users={n}", "axes": {"server.tomcat.threads.max": t, "users": n}}
             for t in (10, 100) for n in (10, 20)]
    return typed({"run": {"id": "ll"}, "axes": {"server.tomcat.threads.max": [10, 100], "users": [10, 20]},
                  "cells": cells})


def test_each_arm_keeps_its_cells_without_the_arm_axis_and_with_their_ids():
    a = arms.arm(_summary(), "server.tomcat.threads.max", "10")
    assert [c.id for c in a.cells] == ["server.tomcat.threads.max=10,users=10", "server.tomcat.threads.max=10,users=20"]
    assert [c.axes for c in a.cells] == [{"users": 10}, {"users": 20}]
    assert a.axes == {"users": [10, 20]}
    assert a.run.id == "ll [server.tomcat.threads.max=10]"


def test_the_arms_pair_on_the_remaining_axes():
    s = _summary()
    pairs, only_a, only_b = pair_cells(arms.arm(s, "server.tomcat.threads.max", "10").cells,
                                       arms.arm(s, "server.tomcat.threads.max", "100").cells)
    assert [(a.id, b.id) for a, b in pairs] == [
        ("server.tomcat.threads.max=10,users=10", "server.tomcat.threads.max=100,users=10"),
        ("server.tomcat.threads.max=10,users=20", "server.tomcat.threads.max=100,users=20")]
    assert only_a == [] and only_b == []


def test_the_original_summary_is_not_changed():
    s = _summary()
    arms.arm(s, "users", "10")
    assert s.cells[0].axes == {"server.tomcat.threads.max": 10, "users": 10}


@pytest.mark.parametrize("text, message", [
    ("threads=10", "write AXIS=A,B"),
    ("=10,100", "write AXIS=A,B"),
    ("threads=10,100,1000", "write AXIS=A,B"),
    ("threads=10,", "write AXIS=A,B"),
])
def test_a_malformed_arms_option_is_refused_with_the_expected_form(text, message):
    with pytest.raises(UserError, match=message):
        arms.parse_arms(text)


def test_an_unknown_axis_is_refused_naming_the_run_axes():
    with pytest.raises(UserError, match=r"no axis 'threads' \(its axes: server.tomcat.threads.max, users\)"):
        arms.arm(_summary(), "threads", "10")


def test_a_value_no_cell_has_is_refused_naming_the_values():
    with pytest.raises(UserError, match=r"no cell has users = 40 \(its values: 10, 20\)"):
        arms.arm(_summary(), "users", "40")
