"""Small hand-written summary.json dicts (contract section 5) for the criteria and check tests: the figures a test
judges, every other field blank (summary_contract.complete), the grid's criteria judged as analyze judges them."""

import copy

from littlegrid.criteria.evaluate import evaluate
from littlegrid.summary import SCHEMA
from summary_contract import complete, typed

STATS = {
    "count": 1000, "successes": 990, "errors": 10, "error_rate": 0.01,
    "throughput_per_s": 100.0, "successes_per_s": 99.0,
    "mean_ms": 120.0, "min_ms": 80.0, "p50_ms": 110.0, "p90_ms": 250.0, "p95_ms": 280.0,
    "p99_ms": 400.0, "p999_ms": 900.0, "max_ms": 1500.0,
    "latency_mean_ms": 100.0, "connect_mean_ms": 1.5,
}


def stats(**figures) -> dict:
    return {**STATS, **figures}


def closed_law(rel_error, tolerance=0.03, cell=None) -> dict:
    passed = None if rel_error is None else abs(rel_error) <= tolerance
    return {"name": "closed_law", "cell": cell, "value": 20 * (1 + (rel_error or 0)), "expected": 20,
            "rel_error": rel_error, "tolerance": tolerance, "passed": passed,
            "explanation": "N = X(R+Z) with realised think time" if rel_error is not None
            else "no think-time gaps in the window"}


def cell(users: int, think_ms: int = 0, *, labels=None, checks=(), status="complete", no_stats=False, **overall) -> dict:
    cid = f"users={users},think_ms={think_ms}"
    return {
        "id": cid, "axes": {"users": users, "think_ms": think_ms}, "status": status, "reason": None,
        "overall": None if no_stats else stats(**overall),
        "labels": {name: stats(**figs) for name, figs in (labels or {}).items()},
        "checks": [{**c, "cell": cid} for c in checks],
    }


def summary(*cells, criteria=None, grid_criteria=None, checks=()) -> dict:
    out = {
        "schema": SCHEMA, "littlegrid_version": "0.1.0",
        "run": {"id": "ci-20261122T120000Z", "grid_name": "ci", "plan": "plans/closed.jmx",
                "started": "2026-11-22T12:00:00Z", "ended": "2026-11-22T12:03:00Z",
                "host": {"hostname": "ci-box"}},
        "axes": {"users": sorted({c["axes"]["users"] for c in cells}),
                 "think_ms": sorted({c["axes"]["think_ms"] for c in cells})},
        "cells": [copy.deepcopy(c) for c in cells],
        "checks": list(checks),
    }
    out["criteria"] = criteria if criteria is not None else evaluate(list(grid_criteria or []), typed(out))
    return complete(out)
