"""A multi-step plan's findings name the transaction that holds most of the time, and a possible wrapper is said as
such; a single-request plan gets nothing here."""

from littlegrid.analysis.cells import Service
from littlegrid.analysis.modelling import curves
from littlegrid.analysis.queueing.laws import DEFAULT_TOLERANCES
from littlegrid.findings import findings
from littlegrid.summary.model import Cell
from summary_contract import typed
from typed_cells import costed, summary as typed_summary


def cell(n, steps: dict) -> Cell:
    """A cell at N users whose iterations run each transaction of `steps` (name -> mean ms) once per iteration."""
    cycle = sum(steps.values()) + 100.0
    x = 1000.0 * n / cycle
    labels = {name: {"count": int(x * 30), "mean_ms": mean, "transaction": True, "errors": 0}
              for name, mean in steps.items()}
    labels["GET /"] = {"count": int(x * 30) * len(steps), "mean_ms": 20.0, "transaction": False, "errors": 0}
    return typed({"id": f"users={n}", "axes": {"users": n}, "status": "complete", "users": {"n": n},
                  "intended": {"think_ms": 100.0, "workload": "closed"},
                  "overall": {"count": int(x * 30), "throughput_per_s": x, "successes_per_s": x,
                              "mean_ms": cycle - 100.0, "error_rate": 0.0},
                  "window": {"length_s": 30.0}, "think_time": {"mean_ms": 100.0, "gaps": 100},
                  "labels": labels, "checks": []}, Cell)


def summary_of(cells):
    run = {"host": {"cpus": 2}}
    cells, built, _ = curves.build(costed(cells, run), {}, [], lambda cid, q: None, DEFAULT_TOLERANCES)
    return typed_summary(cells, run=run, curves=built, tolerances=dict(DEFAULT_TOLERANCES))


def test_the_transaction_holding_most_of_the_time_is_named_with_its_share():
    s = summary_of([cell(n, {"01 Home": 125.0, "02 Login": 30.0, "03 Account": 20.0}) for n in (4, 8)])
    (t,) = [f for f in findings(s) if f.kind == "transactions"]
    # 125 of the 175 ms per iteration: 71%
    assert t.statement.startswith("The transaction '01 Home' dominates response time at N = 8: 71% of the time")
    assert "Shorten '01 Home' first." in t.statement and dict(t.figures)["share"] == 125 / 175


def test_a_transaction_as_long_as_the_others_together_may_wrap_them_and_the_next_is_named():
    s = summary_of([cell(n, {"Scenario": 160.0, "HP": 80.0, "Search": 60.0, "Buy": 20.0}) for n in (4, 8)])
    (t,) = [f for f in findings(s) if f.kind == "transactions"]
    assert "if it wraps them, the step to shorten first is 'HP'" in t.statement


def test_no_transactions_no_finding_and_an_even_spread_names_none():
    plain = summary_of([typed({**cell(n, {}).model_dump(), "labels": {}}, Cell) for n in (4, 8)])
    assert not [f for f in findings(plain) if f.kind == "transactions"]
    even = summary_of([cell(n, {f"{i:02d} step": 50.0 for i in range(6)}) for n in (4, 8)])  # 17% each
    assert not [f for f in findings(even) if f.kind == "transactions"]
