"""Tiny seeded run folders (contract §4) with real CSV JTLs of a closed system, for end-to-end report/compare tests."""

import json
from pathlib import Path

import numpy as np

HEADER = ("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,"
          "sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect")
T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def _csv(field: str) -> str:
    return '"' + field.replace('"', '""') + '"' if any(ch in field for ch in ',"\n') else field


def write_jtl(path: Path, users: int, think_ms: float, service_ms: float, seconds: float, seed: int,
              labels=("GET /",), error_message: str = "Internal Server Error") -> int:
    """N threads, each looping: elapsed ~ Gamma(k=4) with mean service_ms·max(1, N/4) (4 servers), then an
    exponential think time; labels in turn, 1 % errors with `error_message`. Returns the number of rows."""
    rng = np.random.default_rng(seed)
    labels = [_csv(label) for label in labels]
    message = _csv(error_message)
    mean_r = service_ms * max(1.0, users / 4)
    rows = []
    for thread in range(users):
        t = T0 + int(rng.integers(0, 50))
        while t < T0 + seconds * 1000:
            elapsed = max(1, int(round(rng.gamma(4.0, mean_r / 4.0))))
            ok = rng.random() > 0.01
            label = labels[len(rows) % len(labels)]
            rows.append((t, f"{t},{elapsed},{label},{200 if ok else 500},{'OK' if ok else message},"
                            f"Thread Group 1-{thread + 1},text,{'true' if ok else 'false'},{'' if ok else message},"
                            f"512,120,{users},{users},"
                            f"http://127.0.0.1:8080/,{max(1, elapsed - 1)},0,0"))
            t += elapsed + (int(round(rng.exponential(think_ms))) if think_ms > 0 else 0)
    rows.sort()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + "\n" + "\n".join(r for _, r in rows) + "\n")
    return len(rows)


def write_run(run_dir: Path, *, users=(2, 8), think_ms=(0, 20), service_ms=10.0, seconds=12.0, seed=1,
              run_id="run", arms: str | None = None) -> Path:
    """A run folder as `littlegrid run` writes it: manifests, one results.jtl per cell; 1 s warm-up and cool-down."""
    ids = []
    for z in think_ms:
        for n in users:
            cell_id = f"users={n},think_ms={z}"
            folder = run_dir / "cells" / cell_id
            write_jtl(folder / "results.jtl", n, z, service_ms, seconds, seed * 1000 + len(ids))
            (folder / "manifest.json").write_text(json.dumps({
                "schema": "littlegrid.cell/1", "id": cell_id, "index": len(ids), "axes": {"users": n, "think_ms": z},
                "properties": {"users": n, "think_ms": z, "think_dist": "exponential"}, "users": n, "engines": 1,
                "think_ms": z, "think_dist": "exponential", "duration_s": seconds, "warmup_s": 1, "cooldown_s": 1,
                "status": "complete", "reason": None}))
            ids.append(cell_id)
    (run_dir / "manifest.json").write_text(json.dumps({
        "schema": "littlegrid.run/1", "run_id": run_id, "grid_name": "test-grid", "plan": "plans/closed.jmx",
        "started": "2026-01-01T00:00:00Z", "ended": "2026-01-01T00:01:00Z",
        "grid": {"name": "test-grid", "axes": {"users": list(users), "think_ms": list(think_ms)},
                 "cell": {"warmup_s": 1, "cooldown_s": 1}, "criteria": ["p90 < 200ms", "error_rate < 5%"]}
                | ({"arms": arms} if arms else {}),
        "versions": {"jmeter": "5.6.3"}, "host": {"cpus": 2}, "cells": ids}))
    return run_dir
