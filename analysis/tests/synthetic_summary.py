"""Seeded synthetic summary.json documents shaped like `littlegrid analyze` output (contract §5), for the report's
tests and benchmarks (bench/bench_report.py puts this folder on its path).

The samples are drawn here; every figure the analysis owns is computed by the analysis's own functions from them:
percentiles (analysis.statistics.stats), the think-time tests, histogram and expected counts (analysis.workload.think_fits), the USL fit
and its curve (analysis.modelling.usl), each cell's facet (analysis.modelling.curves) and the default tolerances (analysis.queueing.laws).
"""

from __future__ import annotations

import math

import numpy as np

from littlegrid.analysis.modelling import curves as curve_rules, usl
from littlegrid.analysis.queueing.laws import DEFAULT_TOLERANCES
from littlegrid.analysis.statistics.stats import nearest_rank
from littlegrid.analysis.workload import think_fits
from littlegrid.summary import SCHEMA, plain
from littlegrid.summary.model import Cell

# Hostile strings a server under test may put into labels and messages: the report must show them as text.
HOSTILE = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "javascript:alert(1)"]


def _counts(elapsed: np.ndarray, ok: np.ndarray, classes: np.ndarray, window_s: float) -> dict:
    """The counts, rates, mean and exact nearest-rank percentiles a cell and a label share (contract §5)."""
    s = np.sort(elapsed)
    n = len(s)
    errors = int((~ok).sum())
    by_class: dict[str, int] = {}
    for c in classes[~ok]:
        by_class[str(c)] = by_class.get(str(c), 0) + 1
    return {
        "count": n, "successes": n - errors, "errors": errors, "error_rate": errors / n,
        "errors_by_class": by_class, "throughput_per_s": n / window_s, "successes_per_s": (n - errors) / window_s,
        "mean_ms": float(s.mean()), "min_ms": float(s[0]),
        "p50_ms": nearest_rank(s, "50"), "p90_ms": nearest_rank(s, "90"), "p95_ms": nearest_rank(s, "95"),
        "p99_ms": nearest_rank(s, "99"), "p999_ms": nearest_rank(s, "99.9"), "max_ms": float(s[-1]),
        "latency_mean_ms": float(s.mean() * 0.8), "connect_mean_ms": 0.3,
    }


def _stats(elapsed: np.ndarray, ok: np.ndarray, classes: np.ndarray, window_s: float) -> dict:
    """A cell's STATS: the shared counts plus the distribution's shape (PDF, CCDF, tail)."""
    s = np.sort(elapsed)
    n = len(s)
    hi = max(nearest_rank(s, "99.9"), 1.0)
    density, edges = np.histogram(s, bins=60, range=(0.0, hi), density=True)
    xs = np.unique(np.round(np.geomspace(max(float(s[0]), 1.0), float(s[-1]), 80)))
    p = 1.0 - np.searchsorted(s, xs, side="right") / n
    k = max(10, n // 100)  # Hill estimator over the top 1 %
    top = s[-k:].astype(float)
    threshold = max(float(s[-k - 1]), 1.0) if n > k else None
    alpha = float(1.0 / np.mean(np.log(np.maximum(top, 1.0) / threshold) + 1e-12)) if threshold else None
    excess = top - threshold if threshold else None
    verdict = "too few samples" if alpha is None else (
        "heavy (alpha <= 2: variance unbounded)" if alpha <= 2 else "light")
    return _counts(elapsed, ok, classes, window_s) | {
        "pdf": {"edges_ms": [round(float(e), 3) for e in edges], "density": [float(d) for d in density]},
        "ccdf": {"x_ms": [float(x) for x in xs[p > 0]], "p": [float(v) for v in p[p > 0]]},
        "tail": {"hill_alpha": alpha, "k": k, "threshold_ms": threshold,
                 "excess_cv": float(excess.std() / excess.mean()) if excess is not None and excess.mean() > 0 else None,
                 "verdict": verdict},
    }


def _label_stats(elapsed: np.ndarray, ok: np.ndarray, classes: np.ndarray, window_s: float) -> dict:
    """A label's statistics: the shared counts, bytes, and its most frequent errors."""
    counts = _counts(elapsed, ok, classes, window_s)
    top = sorted(counts["errors_by_class"].items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    return counts | {"bytes_mean": 1834.0, "sent_bytes_mean": 212.0,
                     "received_bytes_per_s": 1834.0 * counts["throughput_per_s"],
                     "sent_bytes_per_s": 212.0 * counts["throughput_per_s"], "transaction": False,
                     "top_errors": [{"type": t, "count": c} for t, c in top]}


def _errors(stats: dict, window_s: float) -> dict | None:
    """The window's errors by type, largest first (null when there are none, as analyze writes)."""
    if not stats["errors"]:
        return None
    ranked = sorted(stats["errors_by_class"].items(), key=lambda kv: (-kv[1], kv[0]))
    return {"by_type": [{"type": t, "count": c, "share_of_errors": c / stats["errors"], "per_s": c / window_s}
                        for t, c in ranked], "types_not_listed": 0, "errors_not_listed": 0}


def _histogram(elapsed: np.ndarray, window_s: float) -> dict:
    """Exact counts of the window's elapsed values, completions per second and 3-second blocks (contract §5)."""
    values, counts = np.unique(elapsed.astype(int), return_counts=True)
    seconds = max(1, math.ceil(window_s))
    second_of = np.minimum((np.arange(len(elapsed)) * seconds) // len(elapsed), seconds - 1)
    per_s = np.bincount(second_of, minlength=seconds)
    index, block_counts = [], []
    for b in range(0, seconds, 3):
        in_block = elapsed[(second_of >= b) & (second_of < b + 3)].astype(int)
        v, c = np.unique(in_block, return_counts=True)
        index.append(np.searchsorted(values, v).tolist())
        block_counts.append(c.tolist())
    return {"elapsed_ms": {"values": values.tolist(), "counts": counts.tolist()},
            "completions_per_s": {"seconds": seconds, "second": np.flatnonzero(per_s).tolist(),
                                  "count": per_s[per_s > 0].tolist()},
            "blocks": {"seconds": 3, "index": index, "counts": block_counts}}


def _check(name, cell, value, expected, tolerance, explanation) -> dict:
    rel = None if value is None or not expected else abs(value - expected) / abs(expected)
    return {"name": name, "cell": cell, "value": value, "expected": expected, "rel_error": rel,
            "tolerance": tolerance, "passed": None if rel is None else bool(rel <= tolerance),
            "explanation": explanation}


def _think_time(rng, think_ms: float, dist: str, n: int, users: int, x: float, r_ms: float) -> dict | None:
    """Gaps drawn as a Poisson timer's or an exponential one's, measured in whole milliseconds (as JMeter's timestamps
    give them), and everything the analysis says of them computed by analysis.workload.think_fits."""
    if think_ms <= 0:
        return None
    z = rng.poisson(think_ms, n) + rng.exponential(0.3, n) if dist == "poisson" else rng.exponential(think_ms, n)
    gaps = np.floor(z).astype(np.int64)
    poisson = dist == "poisson"
    ks = think_fits.ks_exponential(gaps)
    fit = think_fits.poisson_fit(gaps, 0.0) if poisson else None
    mean, sd = float(gaps.mean()), float(gaps.std(ddof=1))
    return plain({"gaps": n, "threads": users, "mean_ms": mean, "sd_ms": sd,
            "cv": sd / mean, "negative_gaps": 0, "cycle_cv": sd / (mean + r_ms),
            "thread_mean_ms": {"min": mean * 0.97, "max": mean * 1.03},
            "ks_exponential": ks, "ks_poisson": fit,
            "histogram": think_fits.histogram_with_nulls(gaps, ks, fit),
            "sequence": {"rule": "every sample", "text": "think time from every sample: no sample overlaps another of its thread",
                         "rows": n + users, "contained": 0, "transaction_rows": 0, "partial_overlaps": 0,
                         "successive_pairs": 0, "count": n, "throughput_per_s": x, "mean_ms": r_ms,
                         "active_threads": float(users)}})


def _series(rng, seconds: int, x: float, r_ms: float, n: int, servers: int, error_rate: float) -> dict:
    t = np.arange(seconds)
    ramp = np.minimum(1.0, (t + 1) / 3.0)  # a short ramp-up, as a real cell has before the window
    tput = rng.poisson(x * ramp).astype(float)
    p50 = r_ms * 0.8 * (1 + 0.1 * rng.standard_normal(seconds))
    busy = np.minimum(servers, x * r_ms / 1000.0) * ramp
    errors = rng.binomial(tput.astype(int), error_rate).astype(float)
    return {
        "t0_ms": 1_700_000_000_000, "bucket_s": 1, "window_start_s": 5.0, "window_end_s": float(max(seconds - 2, 5)),
        "t_s": [float(v) for v in t], "throughput": tput.tolist(),
        "errors": errors.tolist(),
        "p50_ms": np.round(np.abs(p50), 2).tolist(), "p90_ms": np.round(np.abs(p50) * 2.1, 2).tolist(),
        "p99_ms": np.round(np.abs(p50) * 4.3, 2).tolist(), "active_threads": np.round(n * ramp).tolist(),
        "in_flight": np.round(busy + 0.2 * rng.standard_normal(seconds), 3).tolist(),
        "busy_threads": np.round(busy, 3).tolist(), "load1": np.round(1.2 + 0.1 * t / max(seconds, 1), 3).tolist(),
        "codes": {"200": (tput - errors).tolist(), "500": errors.tolist()},
    }


def _server(x: float, r_ms: float, servers: int, service_ms: float, seconds: int) -> dict:
    """The server's side of the cell: Little's law at the server holds on 97% of the client's response time."""
    in_service = min(r_ms, service_ms) * 0.97
    in_flight = x * r_ms * 0.97 / 1000.0
    return {"readings": seconds, "failed_scrapes": 0, "longest_gap_s": 1.0, "threads_max": servers,
            "in_flight_mean": in_flight, "in_flight_source": "integral", "in_flight_se": 0.0,
            "in_flight_sampled_mean": in_flight, "busy_threads_mean": min(servers, x * service_ms / 1000),
            "connections_mean": float(servers), "throttle_queue_mean": 0.0, "service_mean_ms": r_ms * 0.97,
            "throughput_per_s": x, "throttle_wait_ms": 0.0, "in_service_ms": in_service,
            "client_in_flight": x * r_ms / 1000.0, "waiting_in_front": x * r_ms * 0.03 / 1000.0,
            "wait_in_front_ms": r_ms * 0.03, "in_front_reason": None, "client_minus_server_ms": r_ms * 0.03}


def _usl_fit(cells: list[dict]) -> dict:
    """The analysis's USL fit (analysis.modelling.usl) of the cells' X(N), with its curve."""
    return plain(usl.fit([c["users"]["n"] for c in cells], [c["overall"]["throughput_per_s"] for c in cells]))


def _mmcn(n: int, z: float, cell: dict, servers: int, service_ms: float) -> dict:
    """The asymptotic M/M/c//N prediction (c servers of mean service_ms) against the cell's measured X and R."""
    predicted_x = 1000.0 * min(n / (service_ms + z), servers / service_ms)
    measured_x = cell["overall"]["throughput_per_s"]
    return {"think_ms": z, "users": n, "servers": servers, "service_ms": service_ms, "predicted_x": predicted_x,
            "measured_x": measured_x, "rel_error": abs(measured_x / predicted_x - 1),
            "predicted_r_ms": 1000.0 * n / predicted_x - z, "measured_r_ms": cell["overall"]["mean_ms"],
            "measured_service_ms": cell["server"]["service_mean_ms"],
            "realised_think_ms": (cell["think_time"] or {}).get("mean_ms", 0.0), "predicted_x_measured_inputs": None,
            "cell": cell["id"]}


def synthetic_summary(*, users=(1, 2, 5, 10, 20, 40), think_ms=(0, 50), samples_total=24_000, seed=1,
                      service_ms=10.0, servers=4, think_dist="exponential", labels=("GET /", "POST /order"),
                      hostile=False, series_seconds=None, run_id="synthetic-1", extra_axes=None) -> dict:
    """A whole summary for a users × think_ms grid served by `servers` parallel servers of mean `service_ms`.

    Throughput follows the closed-system asymptotes (X = min(N/(S+Z), c/S), smoothed), response times
    R = N/X − Z, so the laws the report shows hold on the numbers.
    """
    rng = np.random.default_rng(seed)
    extra = dict(extra_axes or {})  # further axes, one value each, in every cell's axes and id and every curve
    labels = list(labels) + (HOSTILE if hostile else [])
    grid = [(n, z) for z in think_ms for n in users]
    per_cell = max(200, samples_total // len(grid))
    d_max = service_ms / servers
    cells = []
    for index, (n, z) in enumerate(grid):
        x_bound = min(n / (service_ms + z), 1.0 / d_max)
        x = 1000.0 * x_bound / (1 + 0.15 * x_bound * d_max)  # below the asymptote near the knee, as queues are
        r = max(service_ms, 1000.0 * n / x - z)
        elapsed = np.maximum(1, np.round(rng.gamma(2.0, r / 2.0, per_cell) + rng.pareto(2.5, per_cell) * 0.05 * r))
        ok = rng.random(per_cell) > (0.002 + 0.02 * (n >= 40))
        classes = rng.choice(["500", "Non HTTP response code: java.net.SocketTimeoutException"]
                             + ([HOSTILE[0]] if hostile else []), per_cell)
        window_s = per_cell / x
        label_of = rng.integers(0, len(labels), per_cell)
        cell_id = f"users={n},think_ms={z}" + "".join(f",{k}={v}" for k, v in extra.items())
        overall = _stats(elapsed, ok, classes, window_s)
        r_mean, x_meas = overall["mean_ms"], overall["throughput_per_s"]
        seconds = int(series_seconds or max(10, math.ceil(window_s) + 7))
        cells.append({
            "id": cell_id, "axes": {"users": n, "think_ms": z, **extra}, "status": "complete", "reason": None, "warnings": [],
            "reading": {"rows_read": per_cell + int(7 * x), "rows_skipped": 0, "transaction_rows_excluded": 0,
                        "absent_columns": [], "format": "csv ',' header"},
            "window": {"start_ms": 1_700_000_000_000 + index * 60_000, "end_ms": 1_700_000_000_000 + index * 60_000
                       + int(window_s * 1000), "length_s": window_s, "warmup_s": 5.0, "cooldown_s": 2.0,
                       "samples_trimmed_before": int(5 * x), "samples_trimmed_after": int(2 * x)},
            "users": {"n": n, "plan_users": n, "engines": 1, "all_threads_max": n, "threads_seen": n,
                      "basis": "plan users × engines"},
            "intended": {"think_ms": z, "think_dist": think_dist, "think_offset_ms": 0.0, "rate_per_s": None,
                         "workload": "closed"},
            "overall": overall,
            "labels": {lab: _label_stats(elapsed[label_of == i], ok[label_of == i], classes[label_of == i], window_s)
                       for i, lab in enumerate(labels) if (label_of == i).sum() > 0},
            "errors": _errors(overall, window_s),
            "label_series": None,
            "think_time": _think_time(rng, z, think_dist, min(per_cell, 5000), n, x_meas, r_mean),
            "server": _server(x_meas, r_mean, servers, service_ms, seconds),
            "host": {"readings": seconds, "load1_mean": 1.3, "run_queue_mean": 1.1,
                     "cpu_util_mean": min(0.95, x_meas * d_max / 1000 + 0.1),
                     "cpu_user_mean": min(0.8, x_meas * d_max / 1000), "cpu_system_mean": 0.05, "cpu_iowait_mean": 0.0},
            "series": _series(rng, seconds, x_meas, r_mean, n, servers, overall["error_rate"]),
            "histogram": _histogram(elapsed, window_s),
            "checks": [
                _check("closed_law", cell_id, x_meas * (r_mean + z) / 1000.0, n, 0.03,
                       "N = X·(R+Z) with the realised think time: a failure means threads were not all active, N is miscounted or the window is too short."),
                _check("little_server", cell_id, x_meas * r_mean * 0.97 / 1000.0, x_meas * r_mean * 0.97 / 1000.0 * (1 + 0.01 * rng.standard_normal()), 0.05,
                       "L_server = X·R_server at the server."),
                _check("workload_fidelity", cell_id, x_meas * (r_mean + z) / 1000.0, n * (1 + 0.02 * (n >= 20)), 0.03,
                       "N = X·(R+Z) with the intended think time: a failure means the generator did not deliver the load asked for."
                       + (" " + HOSTILE[1] if hostile else "")),
            ],
        })
    for c in cells:  # the facet as the analysis records it on every cell (analysis.modelling.curves.facet_of)
        c["facet"] = curve_rules.facet_of(Cell.model_validate(plain(c)))
    curves = []
    for z in think_ms:
        n_star = (service_ms + z) / d_max
        members = [c for c in cells if c["axes"]["think_ms"] == z]
        ok_users = [c["users"]["n"] for c in members if c["overall"]["p90_ms"] < 100]
        curves.append({
            "key": f"think_ms={z}" + "".join(f",{k}={v}" for k, v in extra.items()),
            # named by every fixed axis, as a lone curve is: hostile axis values reach the legends this way too
            "label": f"think_ms = {z}" + "".join(f", {k} = {v}" for k, v in extra.items()),
            "workload": "closed", "x_axis": "users", "x_name": "N", "think_ms": z, "fixed": {"think_ms": z, **extra}, "cells": [c["id"] for c in members],
            "x": [float(c["users"]["n"]) for c in members], "left_out": [], "overload": [],
            "models": {
                "bounds": {"d_ms": service_ms, "d_max_ms": d_max, "n_star": n_star, "capacity_per_s": 1000.0 / d_max,
                           "basis": "grid: S and c of the server",
                           "points": [{"load": n, "x_upper": 1000.0 * min(n / (service_ms + z), 1 / d_max),
                                       "r_lower_ms": max(service_ms, n * d_max - z)} for n in users]},
                "usl": _usl_fit(members),
                "knee": {"load": int(round(n_star)), "n_star": n_star,
                         "rule": "largest measured N whose throughput is still at least 90% of the contention-free line"},
                "slo_capacity": [{"criterion": "p90 < 100ms", "max_load": max(ok_users) if ok_users else None,
                                  "how": "measured" if ok_users else "none", "note": None}],
                "mmcn": [_mmcn(c["users"]["n"], z, c, servers, service_ms) for c in members],
                "overhead": None, "host_limit": None}})
    criteria = [{"criterion": "p90 < 100ms", "scope": "cell", "cell": c["id"], "metric": "p90_ms",
                 "value": c["overall"]["p90_ms"], "threshold": 100.0, "passed": c["overall"]["p90_ms"] < 100,
                 "reason": None, "unit": "ms"}
                for c in cells]
    criteria.append({"criterion": "error_rate < 1%", "scope": "grid", "cell": None, "metric": "error_rate",
                     "value": max(c["overall"]["error_rate"] for c in cells), "threshold": 0.01,
                     "passed": max(c["overall"]["error_rate"] for c in cells) < 0.01, "reason": None,
                     "unit": "fraction"})
    return {
        "schema": SCHEMA, "littlegrid_version": "0.1.0",
        "run": {"id": run_id, "grid_name": "synthetic", "plan": "plans/closed.jmx",
                "description": "Synthetic grid: " + (" ".join(HOSTILE) if hostile else "closed system, c servers"),
                "arms": None, "expect": [],
                "started": "2026-01-01T00:00:00Z", "ended": "2026-01-01T00:30:00Z",
                "versions": {"jmeter": "5.6.3", "java": "17.0.9", "python": "3.11.2", "littlegrid": "0.1.0"},
                "host": {"hostname": "ci-host", "cpus": 2, "memory_bytes": 8 << 30, "os": "Linux"},
                "server_knobs": {"server.tomcat.threads.max": servers} | ({HOSTILE[1]: HOSTILE[2]} if hostile else {}),
                "source": "run", "inputs": []},
        "trim": {"warmup_s": 5.0, "cooldown_s": 2.0, "basis": "first sample"},
        "axes": {"users": list(users), "think_ms": list(think_ms), **{k: [v] for k, v in extra.items()}},
        "tolerances": dict(DEFAULT_TOLERANCES),
        "cells": cells,
        "curves": curves,
        "checks": [_check("usl_fit", None, 0.991, 1.0, 0.05, "The USL fits the measured throughput (R² near 1).")],
        "criteria": criteria,
        "findings": [], "expectations": [],
    }
