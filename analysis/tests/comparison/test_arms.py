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
    with pytest.raises(UserError, match=r"no finished cell has users = 40 \(the finished cells' values: 10, 20\)"):
        arms.arm(_summary(), "users", "40")


def _interrupted(unfinished=True):
    """Two arms of two cells; the run stopped in the second arm: its first cell interrupted (its axes known), the
    last one never started (no manifest, so no axes)."""
    s = _summary()
    cells = [c.model_copy(update={"status": "incomplete"}) if c.id == "server.tomcat.threads.max=100,users=10"
             else c.model_copy(update={"status": "incomplete", "axes": {}})
             if c.id == "server.tomcat.threads.max=100,users=20" else c for c in s.cells]
    run = typed({"run": {"id": "ll", "unfinished": {"cells_finished": 2, "cells_total": 4, "reason": "interrupted by SIGINT",
                                                   "resume": "littlegrid run --resume reports/ll"}}}).run
    return s.model_copy(update={"cells": cells, "run": run if unfinished else s.run})


def test_an_arm_without_finished_cells_is_named_with_the_values_the_finished_cells_have():
    note = arms.arm_without_cells(_interrupted(), "server.tomcat.threads.max=10,100")
    assert note == ("the arms server.tomcat.threads.max = 10 vs 100 are not compared: no finished cell has "
                    "server.tomcat.threads.max = 100 yet (the finished cells' values: 10)")
    with pytest.raises(UserError) as refused:
        arms.arm(_interrupted(), "server.tomcat.threads.max", "100")
    assert str(refused.value) == ("arms: no finished cell has server.tomcat.threads.max = 100 yet "
                                  "(the finished cells' values: 10)")


def test_both_arms_with_finished_cells_need_no_note_and_an_interrupted_cell_joins_no_arm():
    assert arms.arm_without_cells(_summary(), "server.tomcat.threads.max=10,100") is None
    s = _interrupted()
    finished_only = s.model_copy(update={"cells": s.cells[:2] + [s.cells[0].model_copy(update={
        "id": "server.tomcat.threads.max=100,users=20", "axes": {"server.tomcat.threads.max": 100, "users": 20}})]
        + s.cells[2:]})
    assert arms.arm_without_cells(finished_only, "server.tomcat.threads.max=10,100") is None
    assert [c.id for c in arms.arm(finished_only, "server.tomcat.threads.max", "100").cells] == [
        "server.tomcat.threads.max=100,users=20"]  # not the interrupted users=10 cell
