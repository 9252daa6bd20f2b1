"""Coverage experiments: how often each interval the analysis prints as "95%" holds the true value of a simulated
queue (tests/queues.py), and how often a sequential stop decides wrongly. The tests run them with few replications
on fixed seeds and assert the bound; bench/bench_coverage.py runs them all with many and prints the table."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import queues as q
from littlegrid.analysis.steady import steady_state as ss
from littlegrid.analysis.steady import trend
from littlegrid.analysis.steady.blocks import BlockHistograms
from littlegrid.analysis.reading.histogram import SecondHistograms
from littlegrid.analysis.statistics import intervals, resample
from littlegrid.comparison import bootstrap
from littlegrid.run.answered import Seconds
from littlegrid.search.early_stop import SloClear
from littlegrid.search.slo import parse_slo

WARMUP_FLOOR_S = 1.0  # the analysis' default floor under MSER-5


@dataclass(frozen=True)
class Model:
    """A simulated system with its truths on paper: `cells(rng, reps, seconds)` draws `reps` cells (queues.Samples),
    `x` and `r_ms` the true X and mean R, `quantile(q)` the true q-th percentile of R (ms), `users` N (closed)."""
    name: str
    cells: object
    x: float
    r_ms: float
    quantile: object = None
    users: int | None = None


def mm1(lam: float, mu: float) -> Model:
    """Open M/M/1 from empty: X = λ, R = 1/(μ − λ), R exponential."""
    return Model(f"M/M/1 ρ = {lam / mu:.2g}, λ = {lam:g}/s", lambda rng, reps, s: [q.mm1(rng, lam, mu, s)
                                                                                   for _ in range(reps)],
                 lam, 1000.0 / (mu - lam), lambda p: -math.log(1 - p) / (mu - lam) * 1000.0)


def repairman(users: int, service_ms: float, think_ms: float) -> Model:
    """Closed M/M/1//N: N users, exponential think time and service, one server, every user thinking at 0."""
    x, r = q.machine_repairman(users, service_ms, think_ms)
    return Model(f"closed M/M/1//N, N = {users}, S = {service_ms:g} ms, Z = {think_ms:g} ms",
                 lambda rng, reps, s: q.closed_loop(rng, reps, users, 1, q.exponential(service_ms),
                                                    q.exponential(think_ms), s),
                 x, r, lambda p: q.repairman_quantile(users, service_ms, think_ms, p), users)


def sample_server(users: int, truth: tuple[float, float]) -> Model:
    """The sample server's shape: 10 Tomcat threads, a 100-ms service of 10% CV (gamma), a Poisson Random Timer of
    50 ms: `truth` (X, R) from a long run (bench: 40 × 1400 s), no formula."""
    return Model(f"closed, 10 servers, S = 100 ms ± 10%, Z = Poisson 50 ms, N = {users}",
                 lambda rng, reps, s: q.closed_loop(rng, reps, users, 10, q.gamma(100.0, 0.1), q.poisson_timer(50.0),
                                                    s), *truth, users=users)


def _covers(p, x: float, r: float) -> tuple[bool, bool]:
    return (p.throughput_rel is not None and abs(p.throughput_per_s - x) <= p.throughput_rel * p.throughput_per_s,
            p.mean_rel is not None and abs(p.mean_ms - r) <= p.mean_rel * p.mean_ms)


def batch_means(model: Model, seconds: int, reps: int, seed: int) -> dict:
    """Fixed windows of `seconds`, the warm-up trimmed as the analysis trims it: the share of X's and of mean R's
    stated intervals holding the truth, and the share of windows whose Precision says mean R's covers less
    (mean_coverage)."""
    rng = np.random.default_rng(seed)
    covered, flagged = np.zeros(2), 0
    for cell in model.cells(rng, reps, seconds):
        s = cell.seconds(seconds)
        start = int(math.ceil(ss.warmup(s.counts, s.sums_ms, WARMUP_FLOOR_S).seconds))
        p = ss.precision(s.counts[start:], s.sums_ms[start:], users=model.users)
        covered += _covers(p, model.x, model.r_ms)
        flagged += p.mean_coverage is not None
    return {"X": covered[0] / reps, "mean R": covered[1] / reps, "flagged": flagged / reps}


def stopped(model: Model, rule: ss.Rule, every: int, reps: int, seed: int) -> dict:
    """Cells judged every `every` seconds (running: every second judged complete) and stopped at the rule's first
    answer: the share of the stopped intervals holding the truth, and the stops' median and 10th-percentile second."""
    rng = np.random.default_rng(seed)
    covered, stops = np.zeros(2), []
    for cell in model.cells(rng, reps, int(rule.max_s)):
        s = cell.seconds(int(rule.max_s))
        for t in range(int(rule.min_s), int(rule.max_s) + 1, every):
            verdict = ss.judge(s.counts[:t], s.sums_ms[:t], rule, running=every == 1)
            if verdict.answered:
                break
        covered += _covers(verdict.precision, model.x, model.r_ms)
        stops.append(t)
    return {"X": covered[0] / reps, "mean R": covered[1] / reps, "median stop s": float(np.median(stops)),
            "tenth stop s": float(np.percentile(stops, 10))}


def regular_edges(users: int, cycle_s: float, seconds: int, reps: int, seed: int) -> dict:
    """A closed loop of regular cycles (every batch holds whole cycles): X's interval, its edge error held."""
    rng = np.random.default_rng(seed)
    covered = 0
    for _ in range(reps):
        counts = q.regular_loop(rng, users, cycle_s, seconds)
        p = ss.precision(counts, counts * 100.0, users=users)
        covered += abs(p.throughput_per_s - users / cycle_s) <= p.throughput_rel * p.throughput_per_s
    return {"X": covered / reps}


def drifting(reps: int, seed: int, seconds: int = 40) -> dict:
    """A JIT's tail on a nearly noise-free series, R = 103 + 17·e^(−t/6) ms ± 0.1 ms at 100/s: mean R's interval,
    the immaterial drift's bias held (Warmup.drift), against the level R drifts to."""
    rng = np.random.default_rng(seed)
    covered = drifted = 0
    t = np.arange(float(seconds))
    counts = np.full(seconds, 100.0)
    for _ in range(reps):
        sums = counts * (103 + 17 * np.exp(-t / 6) + rng.normal(0, 0.1, seconds))
        found = ss.warmup(counts, sums, WARMUP_FLOOR_S)
        start = int(math.ceil(found.seconds))
        p = ss.precision(counts[start:], sums[start:], drift=found.drift)
        covered += abs(p.mean_ms - 103.0) <= p.mean_rel * p.mean_ms
        drifted += bool(found.drift)
    return {"mean R": covered / reps, "drift held": drifted / reps}


def _histograms(cell: q.Samples, seconds: int, start_s: float = 0.0):
    """(per-second histograms, stored blocks) of the whole-ms answers of [start_s, seconds)."""
    ms = np.ceil(cell.response_ms).astype(np.int64)  # JMeter's whole milliseconds
    end = (cell.done_s * 1000).astype(np.int64)
    lo, hi = start_s * 1000, seconds * 1000
    return (SecondHistograms.from_samples(ms, end, lo, hi), BlockHistograms.from_samples(ms, end, lo, hi))


def percentiles(model: Model, seconds: int, reps: int, seed: int, qs=(0.5, 0.9, 0.99), warmup_s: float = 5.0,
                draws: int = 400) -> dict:
    """The bootstrap percentile intervals (analysis/statistics/resample.py) of p50, p90 and p99 and of the mean over blocks of
    seconds: moving blocks (a search probe's, search/slo.py) and the blocks a summary keeps (compare, the history),
    against the truth of whole milliseconds, as JMeter writes them (the q-th quantile of ⌈R⌉ is ⌈R's⌉; its mean,
    E⌈R⌉, from R's quantiles)."""
    rng = np.random.default_rng(seed)
    truth = {p: math.ceil(model.quantile(p)) for p in qs}
    # the mean of whole milliseconds, E⌈R⌉ = ∫⌈Q(u)⌉du (half a millisecond above R's: 5% of a 10-ms mean)
    grid = (np.arange(4000) + 0.5) / 4000
    truth["mean"] = float(np.mean([math.ceil(model.quantile(u)) for u in grid]))
    hits = {(how, p): 0 for how in ("moving blocks", "stored blocks") for p in (*qs, "mean")}
    for cell in model.cells(rng, reps, seconds):
        moving, stored = _histograms(cell, seconds, warmup_s)
        for how, reps_ in (("moving blocks", resample.replicate_latencies_in_blocks(moving, list(qs), rng, draws)),
                           ("stored blocks", resample.replicate_latencies_in_stored_blocks(stored, list(qs), rng,
                                                                                            draws))):
            for p in (*qs, "mean"):
                lo, hi = np.quantile(reps_[p], [(1 - resample.LEVEL) / 2, (1 + resample.LEVEL) / 2])
                value = truth[p]
                hits[how, p] += bool(lo <= value <= hi)
    return {f"{how} {'mean' if p == 'mean' else f'p{p * 100:g}'}": n / reps for (how, p), n in hits.items()}


def throughput(model: Model, seconds: int, reps: int, seed: int, warmup_s: int = 5, draws: int = 400) -> dict:
    """The bootstrap interval of X from per-second completions (resample.replicate_throughput: compare, history)."""
    rng = np.random.default_rng(seed)
    covered = 0
    for cell in model.cells(rng, reps, seconds):
        counts = cell.seconds(seconds).counts[warmup_s:]
        lo, hi = np.quantile(resample.replicate_throughput(counts, rng, draws), [0.025, 0.975])
        covered += lo <= model.x <= hi
    return {"X": covered / reps}


def arms(model: Model, seconds: int, reps: int, seed: int, warmup_s: int = 5, draws: int = 400) -> dict:
    """Two arms of one system (a true difference of zero): how often the 95% interval of B/A − 1 holds zero, for
    X and p90, as compare draws them (each arm's own interval from per-second completions and stored blocks,
    combined on the log scale)."""
    rng = np.random.default_rng(seed)
    hits = {"X": 0, "p90": 0}
    for _ in range(reps):
        a, b = model.cells(rng, 2, seconds)
        held = {"X": [], "p90": []}
        for cell in (a, b):
            counts = cell.seconds(seconds).counts[warmup_s:]
            blocks = _histograms(cell, seconds, warmup_s)[1]
            p90 = float(resample.nearest_rank(blocks.values_ms, blocks.counts.sum(axis=0), 0.9)[0])
            # each arm's figure and interval as the analysis draws them (analysis/statistics/intervals.py)
            held["X"].append(intervals.from_replicates(
                float(counts.mean()), resample.replicate_throughput(counts, rng, draws), False))
            held["p90"].append(intervals.from_replicates(
                p90, resample.replicate_latencies_in_stored_blocks(blocks, [0.9], rng, draws)[0.9], True))
        for key, (ia, ib) in held.items():  # the delta's interval, combined as compare combines it
            d = bootstrap.delta(ia.value, ib.value, ia, ib)
            hits[key] += d.rel_lo is not None and d.rel_lo <= 0 <= d.rel_hi
    return {k: v / reps for k, v in hits.items()}


def error_rate(seconds: int, reps: int, seed: int, per_second: int = 20, draws: int = 400) -> dict:
    """Failures in bursts (a second bad, half its requests failing, or good, 1%; bad stays bad with 0.8, good turns
    bad with 0.05: a true rate of 0.108): the error rate's interval in blocks (bootstrap, search/slo.py)."""
    rng = np.random.default_rng(seed)
    truth = 0.2 * 0.5 + 0.8 * 0.01
    end = np.repeat(np.arange(seconds) * 1000 + 500, per_second)
    covered = 0
    for _ in range(reps):
        bad = np.empty(seconds, bool)
        bad[0] = rng.random() < 0.2
        for s in range(1, seconds):
            bad[s] = rng.random() < (0.8 if bad[s - 1] else 0.05)
        failed = rng.random(seconds * per_second) < np.repeat(np.where(bad, 0.5, 0.01), per_second)
        h = SecondHistograms.from_samples(np.full(seconds * per_second, 10), end, 0, seconds * 1000, failed=failed)
        lo, hi = np.quantile(resample.replicate_error_rate_in_blocks(h, rng, draws), [0.025, 0.975])
        covered += lo <= truth <= hi
    return {"error rate": covered / reps}


def thirds(model: Model, seconds: int, reps: int, seed: int, truth_median_ms: float, warmup_s: int = 5) -> dict:
    """The steady check's thirds: each third's interval for the median of its per-second median R (order
    statistics, trend.median_interval), against the median of a second's median R in steady state
    (`truth_median_ms`, from a long run); the share holding it, and the share whose stated coverage was 95%."""
    rng = np.random.default_rng(seed)
    covered = stated = total = 0
    for cell in model.cells(rng, reps, seconds):
        inside = (cell.done_s >= warmup_s) & (cell.done_s < seconds)
        second = cell.done_s[inside].astype(int) - warmup_s
        order = np.lexsort((cell.response_ms[inside], second))
        by_second = np.split(cell.response_ms[inside][order], np.cumsum(np.bincount(second, minlength=seconds -
                                                                                    warmup_s))[:-1])
        medians = [float(np.median(v)) for v in by_second if len(v)]
        third = len(medians) // 3
        for part in (medians[:third], medians[len(medians) - third:]):
            if len(part) < 1:
                continue
            _, lo, hi, level = trend.median_interval(part)
            covered += lo <= truth_median_ms <= hi
            stated += level >= trend.INTERVAL_LEVEL
            total += 1
    return {"median R of a third": covered / total, "stated at 95%": stated / total}


def slo_probes(model_name: str, reps: int, seed: int, rule: ss.Rule, around: float = 1.0,
               spread: float = 0.05) -> dict:
    """Capacity-search probes whose true p90 lies within ±spread of `around` × the SLO (drawn uniformly: 1 ± 5%
    near the threshold, 0.6 or 1.6 far from it), judged every second
    as the runner's watcher judges them: the precision rule first, then the SLO stop (search/early_stop.py). A
    wrong decision: the SLO stop said "met" of a p90 above the SLO, or "not met" of one below. `model_name`:
    "M/M/1" (ρ = 0.5, SLO p90 < 30 ms, λ about 77/s) or "closed" (M/M/10//N of 100-ms exponential service, no think
    time, N = 25: p90 ≈ 388 ms, the SLO set from it)."""
    rng = np.random.default_rng(seed)
    max_s = int(rule.max_s)
    truths = rng.uniform(around - spread, around + spread, reps)  # p90 / SLO
    if model_name == "closed":
        p90 = q.closed_mmc_quantile(25, 10, 100.0, 0.9)
        cells = q.closed_loop(rng, reps, 25, 10, q.exponential(100.0), q.constant(0.0), max_s + 1)
        slos = [int(round(p90 / f)) for f in truths]
        truths = [p90 / slo for slo in slos]
    else:
        slos = [30] * reps
        cells = [q.mm1(rng, lam, 2 * lam, max_s + 1) for lam in (math.log(10) / (0.030 * f) for f in truths)]
    tally = {"wrong": 0, "right": 0, "precise": 0, "max_s": 0}
    stops = []
    for truth, slo_ms, cell in zip(truths, slos, cells):
        s = cell.seconds(max_s + 1, (slo_ms,))
        slo = SloClear(parse_slo([f"p90 < {slo_ms}ms"]), rule)
        how = "max_s"
        for t in range(1, max_s + 1):
            seconds = Seconds(s.counts[:t], s.sums_ms[:t], np.zeros(t), {slo_ms: s.above[slo_ms][:t]})
            verdict = ss.judge(seconds.counts, seconds.sums_ms, rule, running=True)
            if verdict.answered:
                how = "precise"
                break
            decided = slo.decide(seconds, verdict)
            if decided.answered:
                how = "right" if (decided.decision == "met") == (truth < 1) else "wrong"
                stops.append(t)
                break
        tally[how] += 1
    return tally | {"median SLO stop s": float(np.median(stops)) if stops else None}


def closed_law_edges(model: Model, seconds: int, reps: int, seed: int, warmup_s: int = 20) -> dict:
    """Issue 62 item 10's question: does the closed law's window error estimated from each thread's age at the
    window's two edges hold the law's real error? X·(R+Z_realised) over a window of `seconds` against N (Z realised
    per thread, its gaps ending in the window); beside the laws' own errors, the share of windows where the error was
    within 1.96 times: the ages' estimate √Σ(a_start − a_end)²/(N·T) (a thread's age: the time since its last
    answer), window.regular_edge_error, and the check's window.window_error (2 cycles per thread)."""
    from littlegrid.analysis.steady import window
    rng = np.random.default_rng(seed)
    n, end = model.users, warmup_s + seconds
    hits = {"threads' ages": 0, "regular edges": 0, "2 cycles (window_error)": 0}
    for cell in model.cells(rng, reps, end + 5):
        done, response, thread = cell.done_s, cell.response_ms / 1000, cell.thread
        inside = (done >= warmup_s) & (done < end)
        x, r = inside.sum() / seconds, response[inside].mean()
        gaps, ages = [], []
        for i in range(n):
            mine = np.sort(done[thread == i])
            starts = np.sort((done - response)[thread == i])
            gap, ended = starts[1:] - mine[:-1], mine[:-1]
            gaps.append(gap[(ended >= warmup_s) & (ended < end)])
            before, by_end = mine[mine < warmup_s], mine[mine < end]
            ages.append((warmup_s - (before[-1] if len(before) else 0.0)) - (end - by_end[-1]))
        err = abs(x * (r + np.concatenate(gaps).mean()) - n) / n
        estimates = {"threads' ages": math.sqrt(float(np.sum(np.square(ages)))) / (n * seconds),
                     "regular edges": window.regular_edge_error(n / x, seconds, n),
                     "2 cycles (window_error)": window.window_error(n / x, seconds, n)}
        for name, e in estimates.items():
            hits[name] += err <= 1.96 * e
    return {name: h / reps for name, h in hits.items()}
