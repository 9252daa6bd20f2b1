"""Samples tables whose answers are known on paper: N closed-loop threads with fixed elapsed S and gaps Z."""

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd

T0 = 1_700_000_000_000  # epoch ms of the first sample

JMETER_COLUMNS = ["timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType",
                  "success", "failureMessage", "bytes", "sentBytes", "grpThreads", "allThreads", "URL",
                  "Latency", "IdleTime", "Connect"]


def closed_loop(users, service_ms, gap_ms, duration_s, stop_s=None, label="GET /", engines=1, start_ms=T0):
    """Each thread loops: request of `service_ms`, then a gap of `gap_ms` (an int, or a callable(rng) -> int).

    Thread i starts at start_ms + i·(S+Z)/N so phases are uniform. `stop_s` maps a thread index to the
    second (after start_ms) at which it stops starting samples. Engines multiply the threads, each engine
    naming its threads with a "engine-k-" prefix as JMeter's remote mode does.
    """
    rng = np.random.default_rng(7)
    rows = []
    cycle = service_ms + (gap_ms if isinstance(gap_ms, (int, float)) else 0)
    for e in range(engines):
        for i in range(users):
            t = start_ms + (i * cycle) // max(users, 1) + e
            stop = start_ms + int(1000 * (stop_s(i) if stop_s else duration_s))
            name = (f"engine-{e + 1}-" if engines > 1 else "") + f"Thread Group 1-{i + 1}"
            while t + service_ms <= stop:
                rows.append((t, service_ms, name))
                gap = gap_ms(rng) if callable(gap_ms) else gap_ms
                t = t + service_ms + int(gap)
    return table(rows, users, label)


def table(rows, all_threads, label="GET /", success=None, codes=None) -> pd.DataFrame:
    """A samples table (contract §2) from (start_ms, elapsed_ms, thread) rows."""
    n = len(rows)
    start = np.array([r[0] for r in rows], dtype=np.int64)
    elapsed = np.array([r[1] for r in rows], dtype=np.int64)
    ok = np.ones(n, dtype=bool) if success is None else np.asarray(success, dtype=bool)
    return pd.DataFrame({
        "start_ms": start, "end_ms": start + elapsed, "elapsed_ms": elapsed,
        "latency_ms": pd.array(elapsed, dtype="Int64"), "connect_ms": pd.array(np.zeros(n, dtype=np.int64), dtype="Int64"),
        "idle_ms": pd.array(np.zeros(n, dtype=np.int64), dtype="Int64"),
        "label": pd.Categorical([label] * n), "success": pd.array(ok, dtype="boolean"),
        "response_code": pd.Categorical(codes if codes is not None else ["200" if s else "500" for s in ok]),
        "response_message": pd.array(["OK" if s else "Internal Server Error" for s in ok], dtype="string"),
        "failure_message": pd.array([None] * n, dtype="string"),
        "thread": pd.Categorical([r[2] for r in rows]),
        "group_threads": pd.array([all_threads] * n, dtype="Int32"),
        "all_threads": pd.array([all_threads] * n, dtype="Int32"),
        "bytes": pd.array([100] * n, dtype="Int64"), "sent_bytes": pd.array([50] * n, dtype="Int64"),
        "url": pd.array(["http://127.0.0.1/"] * n, dtype="string"),
        "host": pd.Categorical([None] * n), "source": pd.Categorical(["synthetic"] * n),
    }).sort_values("start_ms", kind="stable").reset_index(drop=True)


REFUSED = ("Non HTTP response code: java.net.ConnectException", "Non HTTP response message: Connection refused")
TIMED_OUT = ("Non HTTP response code: java.net.SocketTimeoutException", "Non HTTP response message: Read timed out")


def outcome_loop(users, seconds, elapsed_at, think_ms=50, phase_ms=13):
    """Closed-loop threads: each sample's (elapsed, outcome) from elapsed_at(start offset ms) -> (ms, None | error),
    None for a success (200) and (code, message) for a failure, or (ms, outcome, think ms before the thread's next
    sample) when the pause differs from think_ms (a plan that waits after a failure). Thread i starts phase_ms·i
    after the first."""
    rows, outcome = [], []
    for i in range(users):
        t = T0 + i * phase_ms
        while t < T0 + 1000 * seconds:
            elapsed, error, *think = elapsed_at(t - T0)
            rows.append((t, elapsed, f"Thread Group 1-{i + 1}"))
            outcome.append(error)
            t += elapsed + (think[0] if think else think_ms)
    samples = table(rows, users, success=[e is None for e in outcome],
                    codes=["200" if e is None else e[0] for e in outcome])
    order = np.argsort([r[0] for r in rows], kind="stable")
    messages = ["OK" if e is None else e[1] for e in outcome]
    samples["response_message"] = samples["response_message"].astype(object)
    samples.loc[:, "response_message"] = [messages[i] for i in order]
    return samples


def service_loop(seconds, event, threads=10, service_ms=100, think_ms=0, seed=11):
    """A closed loop of `threads` threads, service time service_ms ± 5%, think think_ms, each sample's outcome
    from event(start offset ms, S drawn) -> None (served in S) or (elapsed, error, think after it): the faults."""
    rng = np.random.default_rng(seed)

    def at(t):
        s = int(rng.integers(round(0.95 * service_ms), round(1.05 * service_ms) + 1))
        return event(t, s) or (s, None, think_ms)
    return outcome_loop(threads, seconds, at, think_ms=think_ms, phase_ms=service_ms // threads + 1)


def held(at_ms, until_ms, error=None):
    """Every request in flight at at_ms is held until until_ms, then answered (or fails with `error`)."""
    return lambda t, s: (until_ms - t, error, 0) if t <= at_ms < t + s else None


def write_jtl(samples: pd.DataFrame, path: Path, append: bool = False) -> Path:
    """The table as a CSV JTL with JMeter 5.x's default columns (what the plans write). append: add the rows to the
    file, as JMeter does while it runs (the header only when the file is new)."""
    header = not (append and path.exists())
    with open(path, "a" if append else "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        if header:
            w.writerow(JMETER_COLUMNS)
        # column by column (each value as a row-wise itertuples gives it), then the rows in one call: a row at a
        # time cost most of the tests that write their synthetic runs
        column = {name: list(samples[name]) for name in _WRITTEN}
        n = len(samples)
        w.writerows(zip(column["start_ms"], column["elapsed_ms"], column["label"], column["response_code"],
                        column["response_message"], column["thread"], ["text"] * n,
                        ["true" if ok else "false" for ok in column["success"]],
                        ["" if pd.isna(m) else m for m in column["failure_message"]],
                        column["bytes"], column["sent_bytes"], column["group_threads"], column["all_threads"],
                        column["url"], column["latency_ms"], [0] * n, [0] * n))
    return path


_WRITTEN = ("start_ms", "elapsed_ms", "label", "response_code", "response_message", "thread", "success",
            "failure_message", "bytes", "sent_bytes", "group_threads", "all_threads", "url", "latency_ms")


class Reading:
    """What `read_jtl` returns, for tests that hand analyze a table directly."""

    def __init__(self, samples):
        self.samples = samples
        self.rows_read = len(samples)
        self.rows_skipped = ()
        self.skipped_total = 0
        self.warnings = []
        self.absent_columns = []
        self.format = "synthetic"
        self.transaction_labels = frozenset()


def make_run(root: Path, cells: list[dict], grid_extra: dict | None = None) -> Path:
    """A run folder (contract §4). Each cell dict: id, axes, samples, and cell-manifest fields; optional
    server_metrics / host_metrics DataFrames."""
    root.mkdir(parents=True, exist_ok=True)
    axes = {}
    for c in cells:
        for k, v in c["axes"].items():
            axes.setdefault(k, [])
            if v not in axes[k]:
                axes[k].append(v)
    grid = {"name": "synthetic", "plan": "plans/closed.jmx", "description": "known answers",
            "cell": {"duration_s": 30, "warmup_s": 2, "cooldown_s": 1}, "axes": axes} | (grid_extra or {})
    (root / "manifest.json").write_text(json.dumps({
        "schema": "littlegrid.run/1", "run_id": root.name, "grid_name": "synthetic", "grid": grid,
        "plan": "plans/closed.jmx", "started": "2026-11-22T12:00:00Z", "ended": "2026-11-22T12:10:00Z",
        "versions": {"jmeter": "5.6.3"}, "host": {"cpus": 2}, "cells": [c["id"] for c in cells]}))
    for index, c in enumerate(cells):
        folder = root / "cells" / c["id"]
        folder.mkdir(parents=True)
        write_jtl(c["samples"], folder / "results.jtl")
        for name in ("server_metrics", "host_metrics"):
            if c.get(name) is not None:
                c[name].to_csv(folder / f"{name.replace('_', '-')}.csv", index=False)
        manifest = {"schema": "littlegrid.cell/1", "id": c["id"], "index": index, "axes": c["axes"],
                    "properties": c.get("properties", {}), "plan": "plans/closed.jmx", "users": c["users"],
                    "engines": c.get("engines", 1), "think_ms": c.get("think_ms"), "think_dist": c.get("think_dist"),
                    "duration_s": 30, "warmup_s": c.get("warmup_s", 2), "cooldown_s": c.get("cooldown_s", 1),
                    "rampup_s": 0, "repetition": 1, "server": c.get("server"), "status": "complete",
                    "reason": None, "exit_code": 0, "samples": len(c["samples"])}
        (folder / "manifest.json").write_text(json.dumps(manifest))
    return root


def machine_repairman(users, servers, service_ms, think_ms, seconds, seed=1, start_ms=T0):
    """A closed M/M/c//N system simulated event by event: users think Exp(Z), then queue FIFO for one of c
    servers that serve Exp(S); JMeter's elapsed is queueing + service. Times are written ms-truncated."""
    import heapq
    rng = np.random.default_rng(seed)
    arrivals = [(start_ms + rng.exponential(think_ms), u) for u in range(users)]
    heapq.heapify(arrivals)
    free = [float(start_ms)] * servers
    rows, end = [], start_ms + 1000 * seconds
    while arrivals:
        a, u = heapq.heappop(arrivals)
        if a > end:
            continue
        s = heapq.heappop(free)
        done = max(a, s) + rng.exponential(service_ms)
        heapq.heappush(free, done)
        rows.append((int(a), int(done) - int(a), f"Thread Group 1-{u + 1}"))
        heapq.heappush(arrivals, (done + rng.exponential(think_ms), u))
    return table(sorted(rows), users)


def open_mm2_window(rng, rate_per_s, service_ms, seconds, warmup_s=5):
    """An open M/M/2 FIFO queue simulated event by event: (elapsed in whole ms, end ms) of the requests that
    complete after the warm-up, as JMeter would write them."""
    import heapq
    t, free, elapsed, end = 0.0, [0.0, 0.0], [], []
    while True:
        t += rng.exponential(1000 / rate_per_s)
        if t > (seconds + warmup_s) * 1000:
            break
        done = max(t, heapq.heappop(free)) + rng.exponential(service_ms)
        heapq.heappush(free, done)
        if done >= warmup_s * 1000:
            elapsed.append(int(done) - int(t))
            end.append(done - warmup_s * 1000)
    return np.array(elapsed), np.array(end)


def clock_stepped(samples: pd.DataFrame, at_ms: int, step_ms: int) -> pd.DataFrame:
    """`samples` as JMeter writes them when a re-measurement of its clock offset at `at_ms` moved every later
    timestamp by `step_ms`: each sample starting at or after it (its SampleResult created then) moves whole."""
    moved = np.where(samples["start_ms"].to_numpy() >= at_ms, step_ms, 0)
    return samples.assign(start_ms=samples["start_ms"] + moved, end_ms=samples["end_ms"] + moved)


def started_early(samples: pd.DataFrame, every: int, by_ms: int) -> pd.DataFrame:
    """`samples` with every `every`-th sample of each thread, at a phase of the thread's own, moved `by_ms`
    earlier: small overlaps at times no clock step shares (the threads' phases differ by 23 samples)."""
    nth = samples.groupby("thread", observed=True).cumcount()
    early = ((nth + 23 * samples["thread"].cat.codes) % every == every // 2).to_numpy()
    moved = np.where(early, -by_ms, 0)
    return samples.assign(start_ms=samples["start_ms"] + moved, end_ms=samples["end_ms"] + moved)
