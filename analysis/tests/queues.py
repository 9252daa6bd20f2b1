"""Simulated queues whose true X and mean R are known on paper, as the per-second series the analysis and the runner's
rules read (answers and their elapsed sums by completion second, from the first start): an open M/M/1 queue, a
closed loop of N users with think time in front of c servers, and a closed loop of regular cycles. The coverage
tests (tests/analysis/test_steady_state.py, tests/search/test_early_stop.py) and the coverage benchmark
(bench/bench_coverage.py) draw from these same models."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Samples:
    """One simulated cell: each answer's completion time (s from the first start), its response time (ms) and, of a
    closed loop, the thread that sent it."""
    done_s: np.ndarray
    response_ms: np.ndarray
    thread: np.ndarray | None = None

    def seconds(self, seconds: int, above_ms: tuple[int, ...] = ()) -> "PerSecond":
        """The answers of whole seconds [0, seconds) by completion second; for each cut c the answers of ≥ c ms
        (response times kept exact: the truths on paper are of the continuous model)."""
        inside = self.done_s < seconds
        second = self.done_s[inside].astype(int)
        ms = self.response_ms[inside]
        counts = np.bincount(second, minlength=seconds).astype(float)
        sums = np.bincount(second, weights=ms, minlength=seconds)
        above = {c: np.bincount(second, weights=(ms >= c).astype(float), minlength=seconds) for c in above_ms}
        return PerSecond(counts, sums, above)


@dataclass(frozen=True)
class PerSecond:
    counts: np.ndarray
    sums_ms: np.ndarray
    above: dict


def mm1(rng: np.random.Generator, arrival_rate: float, service_rate: float, seconds: float) -> Samples:
    """An M/M/1 queue from empty (FIFO), by Lindley's recursion in cumulative sums: with U_n = Σ_{i<n}(S_i − A_{i+1}),
    the wait W_n = U_n − min(0, min_{k≤n} U_k). True X = λ, mean R = 1/(μ − λ), P(R > t) = e^{−(μ−λ)t}."""
    n = int(arrival_rate * seconds * 1.2) + 100
    gaps = rng.exponential(1 / arrival_rate, n)
    service = rng.exponential(1 / service_rate, n)
    u = np.concatenate(([0.0], np.cumsum(service[:-1] - gaps[1:])))
    response = u - np.minimum.accumulate(np.minimum(u, 0.0)) + service
    return Samples(np.cumsum(gaps) + response, response * 1000)


def mm1_seconds(rng: np.random.Generator, arrival_rate: float, service_rate: float, seconds: int):
    """(answers, elapsed sums in ms) per second of an M/M/1 queue from empty (mm1), whole seconds [0, seconds)."""
    s = mm1(rng, arrival_rate, service_rate, seconds).seconds(seconds)
    return s.counts, s.sums_ms


def exponential(mean_ms: float):
    return lambda rng, size: rng.exponential(mean_ms, size)


def constant(ms: float):
    return lambda rng, size: np.full(size, float(ms))


def gamma(mean_ms: float, cv: float):
    """A service time of mean `mean_ms` and coefficient of variation `cv` (gamma): a sleep with jitter."""
    shape = 1.0 / cv ** 2
    return lambda rng, size: rng.gamma(shape, mean_ms / shape, size)


def poisson_timer(mean_ms: float):
    """JMeter's Poisson Random Timer with no offset: a Poisson integer of mean λ ms (sd √λ)."""
    return lambda rng, size: rng.poisson(mean_ms, size).astype(float)


def closed_loop(rng: np.random.Generator, reps: int, users: int, servers: int, service, think,
                seconds: float) -> list[Samples]:
    """`reps` independent cells of a closed loop: `users` threads, each sending a request, waiting for its answer and
    thinking (`think`(rng, size) ms) before the next, in front of `servers` FCFS servers of service `service`(rng,
    size) ms. Every thread starts thinking at 0 (all at once, as a plan without ramp-up: a start-up transient), so
    the warm-up is real. Simulated for all replications at once, one completion a step."""
    arrive = think(rng, (reps, users)) / 1000.0
    free = np.zeros((reps, servers))
    rows = np.arange(reps)
    done, resp, who = [], [], []
    alive = np.ones(reps, bool)
    while alive.any():
        user = np.argmin(arrive, axis=1)
        a = arrive[rows, user]
        server = np.argmin(free, axis=1)
        start = np.maximum(a, free[rows, server])
        end = start + service(rng, reps) / 1000.0
        free[rows, server] = end
        arrive[rows, user] = end + think(rng, reps) / 1000.0
        done.append(end)
        resp.append(end - a)
        who.append(user)
        alive = a < seconds  # a request that arrived after the cell's end is past every window
    done_s, resp_s = np.array(done).T, np.array(resp).T
    users_of = np.array(who).T
    return [Samples(d, r * 1000, u) for d, r, u in zip(done_s, resp_s, users_of)]


def machine_repairman(users: int, service_ms: float, think_ms: float) -> tuple[float, float]:
    """(X per s, mean R in ms) of the closed M/M/1//N loop (exponential service and think time, one server): the
    exact finite-source queue, p0 = 1 / Σ_k N!/(N−k)!·(S/Z)^k, X = (1 − p0)/S, R = N/X − Z."""
    r = service_ms / think_ms
    terms = [math.exp(math.lgamma(users + 1) - math.lgamma(users - k + 1)) * r ** k for k in range(users + 1)]
    p0 = 1.0 / sum(terms)
    x = (1 - p0) / (service_ms / 1000.0)
    return x, users / x * 1000.0 - think_ms


def regular_loop(rng: np.random.Generator, users: int, cycle_s: float, seconds: int) -> np.ndarray:
    """Completions per second of `users` threads with a regular cycle, each at an independent phase."""
    counts = np.zeros(seconds)
    for _ in range(users):
        ends = rng.uniform(0, cycle_s) + cycle_s * np.arange(int(seconds / cycle_s) + 2)
        np.add.at(counts, ends[ends < seconds].astype(int), 1)
    return counts


def _erlang_cdf(k: int, rate: float, t: float) -> float:
    if t <= 0:
        return 0.0
    x = rate * t  # the Poisson terms in log space: (rate·t)^n overflows a float for long waits
    return 1.0 - sum(math.exp(-x + n * math.log(x) - math.lgamma(n + 1)) for n in range(k))


class ClosedMMc:
    """N users, Z = 0, c exponential servers of mean S: every user is always at the server, so a request finds
    the N−1 others there and waits for N−c departures (rate c/S each) before its own service:
    R = Erlang(N−c, c/S) + Exp(1/S) for N > c, Exp(1/S) otherwise."""

    def __init__(self, servers: int = 10, service_ms: float = 100.0):
        self.c, self.s = servers, service_ms

    def cdf(self, n: int, t: float) -> float:
        b = 1.0 / self.s
        if n <= self.c:
            return 1.0 - math.exp(-b * t)
        k, a = n - self.c, self.c / self.s
        return _erlang_cdf(k, a, t) - math.exp(-b * t) * (a / (a - b)) ** k * _erlang_cdf(k, a - b, t)

    def quantile(self, n: int, q: float) -> float:
        lo, hi = 0.0, self.s * (n / self.c + 30)
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if self.cdf(n, mid) < q else (lo, mid)
        return (lo + hi) / 2

    def mean_ms(self, n: int) -> float:
        return max(self.s, n * self.s / self.c)

    def throughput_per_s(self, n: int) -> float:
        return min(n, self.c) / self.s * 1000.0

    def samples(self, n: int, count: int, rng: np.random.Generator) -> np.ndarray:
        wait = rng.gamma(max(n - self.c, 0), self.s / self.c, count) if n > self.c else np.zeros(count)
        return np.ceil(wait + rng.exponential(self.s, count)).astype(np.int64)  # whole ms, as JMeter writes


def closed_mmc_quantile(users: int, servers: int, service_ms: float, p: float) -> float:
    """The p-th percentile of R (ms) in ClosedMMc (closed M/M/c//N, no think time)."""
    return ClosedMMc(servers, service_ms).quantile(users, p)


def repairman_quantile(users: int, service_ms: float, think_ms: float, p: float) -> float:
    """The p-th percentile of R (ms) in the closed M/M/1//N loop (machine_repairman, FCFS): an arriving request
    finds k others with the N−1-user system's stationary probabilities (the arrival theorem) and waits for k + 1
    exponential services (the one in service is memoryless), so P(R > t) = Σ_k π_k·P(Erlang(k+1, 1/S) > t)."""
    r = service_ms / think_ms
    weights = [math.exp(math.lgamma(users) - math.lgamma(users - k)) * r ** k for k in range(users)]
    pi = [w / sum(weights) for w in weights]

    def survival(t: float) -> float:
        return sum(pk * (1.0 - _erlang_cdf(k + 1, 1.0 / service_ms, t)) for k, pk in enumerate(pi))

    lo, hi = 0.0, service_ms * (users + 30)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if 1 - survival(mid) < p else (lo, mid)
    return (lo + hi) / 2
