"""Cells of curves whose answers are known on paper, for the laws' limit (analysis.modelling.models.concurrency and the
findings that read it): c workers of service time S, closed (X = min(N/(S+Z), c/S), R = N/X − Z) or open, each
cell with its exact histogram and completions per second, as analyze writes them; no server metrics, no host."""

import numpy as np

from littlegrid.summary.model import Cell
from summary_contract import typed

WINDOW_S = 20


def cell(load: float, x: float, r: float, think: float = 0.0, open_: bool = False, failed_per_s: float = 0.0,
         spread_ms: int = 1, wobble: int = 2, rising: bool = False) -> Cell:
    """A cell of `load` users (or offered λ/s when open_) that completed x successes per second with mean R = r
    (to the whole ms, as JMeter's elapsed): its exact histogram holds R ± spread_ms in equal halves, and its
    seconds alternate x ± wobble completions (plus failed_per_s failures, answered in 1 ms). rising: R grew through
    the window (the cell's trend), as an open cell's past capacity does."""
    r = round(r)
    wobble = min(wobble, int(x) // 4)  # a second never counts fewer than none
    per_second = [round(x + failed_per_s) + (wobble if k % 2 else -wobble) for k in range(WINDOW_S)]
    count = sum(per_second)
    failures = round(failed_per_s * WINDOW_S)
    successes = count - failures
    values = sorted({r - spread_ms, r + spread_ms} | ({1} if failures else set()))
    counts = {r - spread_ms: successes // 2, r + spread_ms: successes - successes // 2, 1: failures}
    axes = {"rate_per_s": load} if open_ else {"users": load, "think_ms": think}
    return typed({"id": ",".join(f"{k}={v:g}" for k, v in axes.items()), "axes": axes, "status": "complete",
                  "users": {"n": int(load) if not open_ else 50},
                  "intended": ({"rate_per_s": load, "workload": "open"} if open_
                               else {"think_ms": think, "think_dist": "constant"}),
                  "overall": {"count": count, "successes": successes, "errors": failures,
                              "throughput_per_s": count / WINDOW_S, "successes_per_s": successes / WINDOW_S,
                              "mean_ms": sum(v * counts[v] for v in values) / count},
                  "window": {"length_s": float(WINDOW_S)},
                  "histogram": {"elapsed_ms": {"values": values, "counts": [counts[v] for v in values]},
                                "completions_per_s": {"seconds": WINDOW_S, "second": list(range(WINDOW_S)),
                                                      "count": per_second}},
                  "trend": {"buckets": 10, "tau": 0.6, "p": 1e-6, "rising": True} if rising else None,
                  "checks": []}, Cell)


def closed_curve(c: int, s_ms: float, z_ms: float) -> list[Cell]:
    """N = 1 and ½, 1, 2 and 4 times the knee N* = c(S+Z)/S: X = min(N/(S+Z), c/S) exactly, R = N/X − Z
    (deterministic service, FIFO)."""
    out = []
    knee = c * (s_ms + z_ms) / s_ms
    for n in sorted({1, *(max(2, round(k * knee)) for k in (0.5, 1, 2, 4))}):
        x = min(n / ((s_ms + z_ms) / 1000), c / (s_ms / 1000))
        out.append(cell(n, x, max(s_ms, 1000 * n / x - z_ms), z_ms))
    return out




def open_curve(c: int, s_ms: float) -> list[Cell]:
    """λ at ¼, ½, 1½ and 3 times the capacity c/S: below it X = λ and R ≈ S (a little queueing at ½), past it X = c/S
    and R grows through the window for as long as the cell lasts."""
    cap = c / (s_ms / 1000)
    return [cell(cap / 4, cap / 4, s_ms * 1.02, open_=True), cell(cap / 2, cap / 2, s_ms * 1.1, open_=True),
            cell(1.5 * cap, cap, 20 * s_ms, open_=True, rising=True),
            cell(3 * cap, cap, 60 * s_ms, open_=True, rising=True)]


def _pool_loop(users: int, servers: int, s_ms: float, z_ms: float, seconds: float, rng, warmup_s: float = 5.0):
    """A closed loop simulated event by event: `users` think Exp(Z) (none when Z = 0), then queue FIFO for one of
    `servers` workers, each serving S ± 10% (uniform). (elapsed in whole ms, end ms from the window's start) of the
    requests that completed inside the window after `warmup_s`, as JMeter would write them."""
    import heapq
    ready = [(rng.exponential(z_ms) if z_ms else i * s_ms / users, i) for i in range(users)]
    heapq.heapify(ready)
    free = [0.0] * servers
    elapsed, end = [], []
    start, stop = 1000.0 * warmup_s, 1000.0 * (warmup_s + seconds)
    while ready:
        at, u = heapq.heappop(ready)
        if at > stop:
            continue
        done = max(at, heapq.heappop(free)) + s_ms * rng.uniform(0.9, 1.1)
        heapq.heappush(free, done)
        if start <= done < stop:
            elapsed.append(int(done) - int(at))
            end.append(done - start)
        heapq.heappush(ready, (done + (rng.exponential(z_ms) if z_ms else 0.0), u))
    return np.array(elapsed, dtype=np.int64), np.array(end)


def simulated_cell(users: int, servers: int, s_ms: float, z_ms: float, rng, seconds: int = WINDOW_S) -> Cell:
    """A cell of a simulated pool of `servers` workers (nothing of the answer put in): its overall figures, exact
    histogram and completions per second from the requests the simulation completed in its window."""
    elapsed, end = _pool_loop(users, servers, s_ms, z_ms, seconds, rng)
    values, counts = np.unique(elapsed, return_counts=True)
    per_second = np.bincount((end // 1000).astype(np.int64), minlength=seconds)[:seconds]
    busy = np.flatnonzero(per_second)
    n = len(elapsed)
    return typed({"id": f"users={users},think_ms={z_ms:g}", "axes": {"users": users, "think_ms": z_ms},
                  "status": "complete", "users": {"n": users},
                  "intended": {"think_ms": z_ms, "think_dist": "exponential"},
                  "overall": {"count": n, "successes": n, "errors": 0, "throughput_per_s": n / seconds,
                              "successes_per_s": n / seconds, "mean_ms": float(elapsed.mean())},
                  "window": {"length_s": float(seconds)},
                  "histogram": {"elapsed_ms": {"values": values.tolist(), "counts": counts.tolist()},
                                "completions_per_s": {"seconds": seconds, "second": busy.tolist(),
                                                      "count": per_second[busy].tolist()}},
                  "checks": []}, Cell)


def simulated_curve(c: int, s_ms: float, z_ms: float, loads=None, seed: int = 1) -> list[Cell]:
    """The cells of a simulated closed curve at N = 1 and ½, 1, 2 and 4 times the knee N* = c(S+Z)/S (or `loads`)."""
    rng = np.random.default_rng(seed)
    knee = c * (s_ms + z_ms) / s_ms
    loads = loads or sorted({1, *(max(2, round(k * knee)) for k in (0.5, 1, 2, 4))})
    return [simulated_cell(n, c, s_ms, z_ms, rng) for n in loads]
