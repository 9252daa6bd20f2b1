"""A plan of your own as a grid, for real: plans/examples/shop.jmx (recorded against an https host, 5 hard-coded
threads, timers, a CSV of users, listeners) runs unedited as grids/example-shop.toml against the sample server.

About 3 minutes of load: run it alone, under the load lock,
    flock "$LOAD_LOCK" target/venv/bin/python -m pytest -m acceptance tests/plan/test_acceptance_own_plan.py
"""

import csv
import hashlib
import json
import math
from pathlib import Path

import pytest

from littlegrid.analysis.steady.window import window_error
from littlegrid.jtl.schema import TRANSACTION_MESSAGE_PREFIX as TRANSACTION_MESSAGE
from littlegrid.plan import inspect as facts
from littlegrid.plan.jmx import load, prop
from littlegrid.run import run_folder as rf
from littlegrid.run.jmeter import repo_root
from littlegrid.summarize import analyze

pytestmark = pytest.mark.acceptance
ROOT = repo_root(Path(__file__).parent)
PLAN, USERS_CSV = ROOT / "plans" / "examples" / "shop.jmx", ROOT / "plans" / "examples" / "users.csv"
TRANSACTIONS = {"01 Home", "02 Login", "03 Account"}
# What the sample server holds each request for (ms): a mean R below these would not be a measurement.
SERVICE_MS = {"/ home": 100.0, "/io catalog": 20.0, "/login": 20.0, "/account": 10.0}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def per_request(jtl: Path, start_ms: int, end_ms: int) -> tuple[float, float, float, int]:
    """X (/s), R and the realised Z (ms) of the requests alone (Transaction Controller rows left out), in the
    steady window [start_ms, end_ms]: a request counts when it ends in the window, a think gap when the request
    after it starts there. Straight from the JTL, beside the analysis."""
    with jtl.open(encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f) if not r["responseMessage"].startswith(TRANSACTION_MESSAGE)]
    by_thread: dict[str, list] = {}
    for r in rows:
        by_thread.setdefault(r["threadName"], []).append((int(r["timeStamp"]), int(r["elapsed"])))
    done = [e for t, e in (s for seq in by_thread.values() for s in seq) if start_ms <= t + e <= end_ms]
    gaps = [t1 - (t0 + e0) for seq in by_thread.values() for (t0, e0), (t1, _) in zip(sorted(seq), sorted(seq)[1:])
            if start_ms <= t1 <= end_ms]
    window_s = (end_ms - start_ms) / 1000
    return len(done) / window_s, sum(done) / len(done), sum(gaps) / len(gaps), len(gaps)


def check_cell(run: Path, cell) -> None:
    """Everything one cell of the example grid must show (known answers and the closed law per request)."""
    n, think_ms = cell.axes["users"], cell.axes["think_ms"]
    folder = run / "cells" / cell.id
    derived = load(folder / "plan.jmx")  # the plan that ran, kept in the cell's folder
    (group,) = facts.load_groups(derived)
    assert prop(group.element, "ThreadGroup.num_threads") == str(n)
    cell_manifest = json.loads((folder / rf.MANIFEST).read_text(encoding="utf-8"))
    server = ("127.0.0.1", int(cell_manifest["properties"]["port"]))
    assert {(t.host, t.port) for t in (facts.http_target(s, {}) for s in facts.samplers(derived))} == {server}
    assert cell_manifest["load_groups"] == {"Shoppers": n} and cell_manifest["plan_source"] == str(PLAN)
    assert not [li for li in facts.listeners(derived) if li.enabled]

    # every login's token reached GET /account (which answers 401 without it, failing its assertion)
    assert cell.overall.error_rate < 0.01, cell.id
    checks = {c.name: c for c in cell.checks}
    assert cell.users.n == n and checks["users"].passed, (cell.id, checks["users"])
    assert checks["closed_law"].passed, (cell.id, checks["closed_law"])  # the analysis's own (outermost samples)
    # N = X·(R+Z) per request with the realised Z, within 3 window errors 2(R+Z)/(T√N) (1% at least)
    x, r_ms, z_ms, gaps = per_request(folder / rf.RESULTS, cell.window.start_ms, cell.window.end_ms)
    assert x == pytest.approx(cell.overall.throughput_per_s, rel=0.01) and r_ms == pytest.approx(cell.overall.mean_ms,
                                                                                                   rel=0.01)
    cycle_s = (r_ms + z_ms) / 1000
    tolerance = max(0.01, 3 * window_error(cycle_s, cell.window.length_s, n))
    assert abs(x * cycle_s - n) / n <= tolerance, (cell.id, x * cycle_s, n, tolerance)
    # littlegrid's exponential timer replaced the plan's pauses: each request's realised Z is at least the asked
    # mean, less the statistical error of that many draws
    assert z_ms >= think_ms * (1 - 4 / math.sqrt(gaps)), (cell.id, z_ms)

    # the label table: the three transactions, then the four requests, each at least its service time
    labels = cell.labels
    assert {k for k, st in labels.items() if st.transaction} == TRANSACTIONS
    for label, service in SERVICE_MS.items():
        assert labels[label].mean_ms >= service, (cell.id, label, labels[label].mean_ms)
    # 01 Home (GET / holds 100 ms of the flow's 150) is the transaction that dominates R
    assert max(TRANSACTIONS, key=lambda t: labels[t].mean_ms) == "01 Home"
    assert abs(labels["/login"].count - labels["/account"].count) <= n  # one of each per iteration


def test_the_example_shop_runs_unedited_as_a_grid_and_the_closed_law_holds_per_request(runnable, tmp_path):
    from littlegrid.run.runner import run_grid
    before = {p: sha256(p) for p in (PLAN, USERS_CSV)}
    run = run_grid(ROOT / "grids" / "example-shop.toml", out=tmp_path, run_id="example-shop")
    assert {p: sha256(p) for p in (PLAN, USERS_CSV)} == before  # the user's files are only read
    manifest = json.loads((run / rf.MANIFEST).read_text(encoding="utf-8"))
    assert manifest["plan_sha256"] == before[PLAN]
    summary = analyze([run])
    assert [c.status for c in summary.cells] == ["complete"] * 4
    for cell in summary.cells:
        check_cell(run, cell)
    assert summary.expectations and all(e.passed for e in summary.expectations), \
        [(e.expectation, e.explanation) for e in summary.expectations]
    named = [f for f in summary.findings if f.kind == "transactions"]  # one per curve (think time)
    assert len(named) == len(summary.curves) == 2
    assert all(dict(f.figures)["transaction"] == "01 Home" for f in named), [f.statement for f in named]
