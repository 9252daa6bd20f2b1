"""The timer's realised shape is named when its CV is the one the timer promises (JMeter's Poisson Random Timer:
CV = √λ/λ = 1/√λ), with what that regularity does to response times against M/M/c//N's exponential think time; the
SLO capacity per think time names the curves' cells, so a grid can expect both."""

import math

import pytest

from littlegrid.findings import findings
from littlegrid.findings.expect import evaluate
from test_findings import cell, littles_law, of_kind, summary_of
from typed_cells import think_time, update, update_cells


def poisson(s, lam, cv):
    return update_cells(s, lambda c: update(c, intended=update(c.intended, think_ms=lam, think_dist="poisson",
                                                               think_offset_ms=0.0),
                                            think_time=think_time({"mean_ms": lam + 0.5, "gaps": 2000, "cv": cv})))


def with_mmcn(s, cell_index, predicted_r, measured_r):
    target = s.cells[cell_index]
    row = {"think_ms": 25.0, "users": int(target.users.n), "servers": 10, "service_ms": 100.0, "predicted_x": 90.0,
           "measured_x": 90.0, "rel_error": 0.0, "predicted_r_ms": predicted_r, "measured_r_ms": measured_r,
           "measured_service_ms": 100.0, "realised_think_ms": 25.5, "predicted_x_measured_inputs": None,
           "cell": target.id}
    return update(s, curves=[update(k, models=update(k.models, mmcn=[row] if target.id in k.cells else []))
                             for k in s.curves])


@pytest.mark.parametrize("lam", [5.0, 25.0, 50.0, 400.0])
def test_a_poisson_timer_whose_cv_is_one_over_root_lambda_is_named_poisson_and_one_far_off_is_not(lam):
    t = of_kind(findings(poisson(littles_law(), lam, 1 / math.sqrt(lam))), "think_time")[0]
    assert t.resource == "poisson" and dict(t.figures)["expected_cv"] == pytest.approx(1 / math.sqrt(lam))
    off = of_kind(findings(poisson(littles_law(), lam, 1 / math.sqrt(lam) + 0.5)), "think_time")[0]
    assert off.resource is None and "off the timer's" in off.statement
    got = evaluate(["think_time poisson"], poisson(littles_law(), lam, 1 / math.sqrt(lam)),
                   [f.as_dict() for f in findings(poisson(littles_law(), lam, 1 / math.sqrt(lam)))])
    assert got[0]["passed"] is True


def test_regular_pauses_queue_less_than_the_exponential_model_predicts_and_the_finding_says_by_how_much():
    s = with_mmcn(poisson(littles_law(), 25.0, 0.2), 2, predicted_r=1100.0, measured_r=880.0)
    t = of_kind(findings(s), "think_time")[0]
    assert "M/M/c//N (exponential think and service times), at N = 100 R is 880 ms where the model predicts 1100 ms " \
        "(-20%)" in t.statement
    assert "less queueing near the knee, and lower percentiles there" in t.statement
    # R above the model's: said with its figure, and no claim about regular pauses
    s = with_mmcn(poisson(littles_law(), 25.0, 0.2), 2, predicted_r=700.0, measured_r=880.0)
    t = of_kind(findings(s), "think_time")[0]
    assert "(+26%)." in t.statement and "less queueing" not in t.statement
    # within 10% of the model: the shape changes R little, and no more is claimed
    s = with_mmcn(poisson(littles_law(), 25.0, 0.2), 2, predicted_r=900.0, measured_r=880.0)
    t = of_kind(findings(s), "think_time")[0]
    assert "(-2%): within 10% of it, the timer's shape changes R little" in t.statement


def test_slo_capacity_per_think_time_is_about_the_curves_cells_and_named_capacity():
    cells = [cell(n, 9.0 * n, 50.0, z=z, extra_axes={"think_ms": z}) for z in (5, 25) for n in (10, 20)]
    s = summary_of(cells, axes={"users": [10, 20], "think_ms": [5, 25]})
    s = update(s, curves=[update(k, models=update(k.models, slo_capacity=[
        {"criterion": "p90 < 50ms", "max_load": {5: 15, 25: 18}[k.think_ms], "how": "interpolated", "note": None}]))
        for k in s.curves])
    cap = [f for f in of_kind(findings(s), "think_time") if f.resource == "capacity"]
    assert len(cap) == 1 and set(cap[0].cells) == {c.id for c in s.cells}
    found = [f.as_dict() for f in findings(s)]
    assert [e["passed"] for e in evaluate(["think_time capacity where think_ms == 25"], s, found)] == [True]


def test_without_the_analysis_s_prediction_the_model_is_asked_at_the_cell_nearest_the_knee():
    """The analysis predicts M/M/c//N only for exponential timers; for a Poisson timer on grid bounds (c = 10, S =
    100 ms, Z = 25 ms: N* = 12.5) the finding asks the model at N = 10, the cell nearest N*."""
    from littlegrid.analysis.modelling import mmcn
    s = poisson(littles_law(), 25.0, 0.2)
    assert not [m for k in s.curves for m in k.models.mmcn]
    t = of_kind(findings(s), "think_time")[0]
    predicted = mmcn.response_ms(10, 10, 100.0, 25.0)
    assert f"at N = 10 R is 102 ms where the model predicts {predicted:.0f} ms" in t.statement
