"""The models of one curve: asymptotic bounds, USL, knee, SLO capacity and the exact M/M/c//N prediction
(which cells form a curve: analysis.modelling.curves)."""

import math
import re
from dataclasses import dataclass

import numpy as np

from littlegrid.analysis.modelling import mmcn, usl
from littlegrid.analysis.queueing import little
from littlegrid.analysis.queueing.laws import verdict
from littlegrid.analysis.reading.histogram import read_cell_histogram, whole_seconds
from littlegrid.analysis.steady.window import regular_edge_error
from littlegrid.criteria.grammar import parse
from littlegrid.summary import plain
from littlegrid.summary.model import (BoundPoint, Bounds, Cell, Check, Concurrency, Knee, MmcnPrediction, SloCapacity,
                                      UslFit)

KNEE_EFFICIENCY = 0.9
KNEE_RULE = (f"largest measured N whose throughput is still at least {KNEE_EFFICIENCY:.0%} of the contention-free "
             f"line N/(D+Z); beyond it queueing costs more than {1 - KNEE_EFFICIENCY:.0%} of the throughput")
EXPONENTIAL_THINK = ("exponential", "exp")
POOL_FULL = 0.9  # busy threads / threads.max at which a pool counts as full (the findings use it too)
OFFSET_MARGIN = 0.25  # a gap R − bound is "constant" when every cell's lies within ± this share of their mean
CONFIDENCE_Z = 1.959964  # each cell's gap with its 95% interval (normal: its mean R over thousands of samples)
PAIR_SIGMAS = 3.0     # two cells' gaps differ beyond this many standard errors of their difference


def latency_slos(criteria) -> list[tuple[str, str, float, bool]]:
    """(criterion text, percentile, threshold ms, strict) for the unscoped "pNN < / <= T" criteria of a grid.

    Criteria are parsed by littlegrid.criteria (the one grammar); scoped ones ("where users <= 40", a label)
    are left to `check`, since a capacity table needs the criterion to hold in every cell.
    """
    out = []
    for text in criteria or ():
        crit = parse(str(text))
        if (re.fullmatch(r"p\d+(\.\d+)?", crit.metric) and crit.op in ("<", "<=")
                and crit.scope.label is None and not crit.scope.where):
            out.append((crit.text or str(text), crit.metric[1:], float(crit.threshold), crit.op == "<"))
    return out


def think_of(c: Cell) -> float | None:
    """A cell's think time for the models: the intended one, else the realised mean (bare JTLs; a mean within
    the 1 ms rounding below zero is 0), else 0 when no gap was measured; None when think time does not apply
    (a thread's samples overlap: think_gaps.ThinkSequence), so that no bound is drawn with a made-up Z."""
    if c.intended.think_ms is not None:
        return c.intended.think_ms
    think = c.think_time
    if think is not None and think.sequence.rule == "does not apply":
        return None
    return max(0.0, (think.mean_ms if think is not None else None) or 0.0)


def served_per_s(c: Cell) -> float:
    """The cell's throughput of successful requests (all responses' in a summary without the split): the models'
    X, since a failure answered fast (a refused connection, a proxy's 502) holds no server for its service time
    and would put 1/D_max above what the service can serve."""
    ok = c.overall.successes_per_s
    return ok if ok is not None else c.overall.throughput_per_s


def bounds(members: list[Cell], service, open_: bool = False) -> Bounds:
    """Closed: X(N) ≤ min(N/(D+Z), 1/D_max), R(N) ≥ max(D, N·D_max − Z), N* = (D+Z)/D_max. Open (x = the offered rate
    λ): X(λ) ≤ min(λ, 1/D_max), R(λ) ≥ D; there is no N*, and 1/D_max is the capacity past which the queue grows.

    D and D_max come from the grid when the server's c and S are known (D = S, D_max = S/c); otherwise they are
    estimates, marked as such in "basis": D_max = 1/(highest X of successful requests measured), and D = R at the lightest cell, or its
    R_server when that cell's thread pool is already full. Then its R holds the wait for a thread in front of the
    server (a blocking proxy with 10 threads at N = 20: R = 208 ms for 100 ms of service), and a D with that queue
    in it puts N* and the "lower" bound too high. Only then: R_server leaves out the client's and the network's
    share of D too, which is the larger part where the service itself is short (a 0.05 ms transform).
    """
    z = 0.0 if open_ else think_of(members[0])
    if service is not None:
        d, d_max, basis = service.service_ms, service.service_ms / service.servers, "grid: S and c of the server"
    else:
        d = members[0].overall.mean_ms
        basis = "estimated: D = R at the lightest cell, D_max = 1/max X"
        lightest = members[0].server
        r_server, busy = (lightest.service_mean_ms, lightest.busy_threads_mean) if lightest else (None, None)
        pool = (lightest.threads_max if lightest else None) or members[0].axes.get("server.tomcat.threads.max")
        if r_server and busy is not None and pool and busy >= POOL_FULL * float(pool) and r_server < d:
            d = r_server
            basis = "estimated: D = R_server at the lightest cell (its thread pool is full), D_max = 1/max X"
        # a curve without one success has no served rate to bound: its responses' rate, as before the split
        d_max = 1000.0 / (max(served_per_s(c) for c in members) or max(c.overall.throughput_per_s for c in members))
    capacity = 1000.0 / d_max
    if open_:
        points = [BoundPoint(load=c.intended.rate_per_s, x_upper=min(c.intended.rate_per_s, capacity), r_lower_ms=d)
                  for c in members]
        return Bounds(d_ms=d, d_max_ms=d_max, n_star=None, capacity_per_s=capacity, basis=basis, points=points)
    points = [BoundPoint(load=c.users.n,
                         x_upper=min(c.users.n / ((d + z) / 1000.0) if d + z > 0 else math.inf, capacity),
                         r_lower_ms=max(d, c.users.n * d_max - z)) for c in members]
    return Bounds(d_ms=d, d_max_ms=d_max, n_star=(d + z) / d_max, capacity_per_s=capacity, basis=basis,
                  points=points)


def mean_standard_error_ms(cell: Cell) -> float | None:
    """The standard error of the cell's mean R from its exact elapsed histogram (sd/√n), None without one."""
    h = cell.histogram
    if h is None or not h.elapsed_ms.counts:
        return None
    v, n = np.asarray(h.elapsed_ms.values, float), np.asarray(h.elapsed_ms.counts, float)
    total = n.sum()
    if total < 2:
        return None
    mean = (v * n).sum() / total
    return float(math.sqrt(((v - mean) ** 2 * n).sum() / (total - 1) / total))


def successes_standard_error_per_s(cell: Cell) -> float | None:
    """The standard error of the cell's throughput of successful requests: sd/√k of its k whole seconds'
    completions (the summary's histogram, its window's last longer bin left out: histogram.whole_seconds;
    neighbouring seconds taken as independent), scaled by the successes' share of them; without those, a Poisson count's √successes/T. None without successes or a window."""
    x, successes = cell.overall.successes_per_s, cell.overall.successes
    if not x or not successes:
        return None
    got = read_cell_histogram(cell)
    window = cell.window.length_s if cell.window is not None else None
    per_second = whole_seconds(got[1], window).astype(float) if got is not None else None
    if per_second is not None and len(per_second) >= 2:
        share = successes / cell.overall.count
        return float(share * per_second.std(ddof=1) / math.sqrt(len(per_second)))
    return math.sqrt(successes) / window if window else None


CONCURRENCY_RULE = ("L = X_max·D (Little's law at the server): X_max the highest throughput of successful requests, "
                    "D the mean R at the lightest cell; 95% intervals: X's from its completions per second with, on a "
                    "closed curve, its window edges' error √(1/6)·(R+Z)/(T·√N) in quadrature, D's from its histogram "
                    "(sd/√n), L's the product of their ends; an upper bound when the lightest cell is not shown below "
                    "the knee")
BELOW_KNEE_SHARE = 0.5  # the lightest cell is below the knee when its X is at most this share of X_max (N ≤ N*/2)


def _is_open(c: Cell) -> bool:
    return c.intended.workload == "open" or c.intended.rate_per_s is not None


def x_standard_error_per_s(cell: Cell) -> tuple[float | None, float | None]:
    """(the standard error of the cell's throughput of successful requests, the share of it that is its window
    edges' error): its seconds' spread (successes_standard_error_per_s), joined in quadrature on a closed cell by
    the least edge error a closed loop of N users has (window.regular_edge_error, with R+Z = N/X): batches of
    seconds of a regular loop count nearly the same every time and cannot see it. (None, None) without an error."""
    se = successes_standard_error_per_s(cell)
    n, x, window = (cell.users.n if cell.users is not None else None), served_per_s(cell), \
        (cell.window.length_s if cell.window is not None else None)
    if se is None or _is_open(cell) or not n or not x or not window:
        return se, None
    edge = regular_edge_error(n / x, window, n) * x
    return math.hypot(se, edge), edge


def below_knee(light: Cell, top: Cell) -> tuple[bool, str]:
    """Whether the lightest cell, where D = R is measured, is shown below the knee (nothing there waits for another
    request), and why: one user of a closed curve never waits for another; otherwise its throughput, with its
    interval, at most BELOW_KNEE_SHARE of X_max's lower end (with D = R there, N/N* = X/X_max: the cell holds at
    most half the requests the limit holds). Otherwise R there may hold queueing and L = X_max·D is only an upper
    bound (a grid starting at N > c overstates L)."""
    if not _is_open(light) and light.users is not None and light.users.n == 1:
        return True, "one user, who never waits for another request"
    x_light, x_top = served_per_s(light), served_per_s(top)
    se_light, se_top = x_standard_error_per_s(light)[0] or 0.0, x_standard_error_per_s(top)[0] or 0.0
    high, low = x_light + CONFIDENCE_Z * se_light, x_top - CONFIDENCE_Z * se_top
    share = high / low if low > 0 else math.inf
    if light is not top and share <= BELOW_KNEE_SHARE:
        return True, (f"its X ({x_light:.3g}/s, at most {high:.3g}/s) is {share:.0%} of X_max's lower end at most: "
                      f"below half the knee")
    return False, (f"its X ({x_light:.3g}/s, up to {high:.3g}/s) is {min(share, 9.99):.0%} of X_max's lower end, "
                   f"above half of it: R there may hold queueing, so D and L are upper bounds")


def concurrency(members: list[Cell]) -> Concurrency | None:
    """The requests in service at the curve's highest throughput, L = X_max·D, with its interval (the record's
    docstring says what each part is). Little's law holds for any stable system whatever its inside, so L is
    the size of the limit a plateau meets (c workers with service time S serve at most c/S, and then
    X_max·S = c) without knowing what the limit is. D is R where nothing queues, at the lightest cell: on a
    closed curve its smallest N (at N = 1 a request never waits for another; the realised Z only spaces them
    out), on an open one its smallest λ; when that cell is not shown below the knee (`below_knee`), L is an upper
    bound. On a closed curve the heaviest cell's users are X·Z thinking, X·D in service and X·(R − D) waiting: the
    last is `waiting`. None when no cell has successes or the lightest no mean R."""
    light = next((c for c in members if c.overall is not None and c.overall.mean_ms), None)
    rated = [c for c in members if c.overall is not None and served_per_s(c)]
    if light is None or not rated:
        return None
    top = max(rated, key=served_per_s)
    x, d = served_per_s(top), light.overall.mean_ms
    (x_se, edge), d_se = x_standard_error_per_s(top), mean_standard_error_ms(light)
    x_lo, x_hi = (None, None) if x_se is None else (max(0.0, x - CONFIDENCE_Z * x_se), x + CONFIDENCE_Z * x_se)
    d_lo, d_hi = (None, None) if d_se is None else (max(0.0, d - CONFIDENCE_Z * d_se), d + CONFIDENCE_Z * d_se)
    known = None not in (x_lo, d_lo)
    below, why = below_knee(light, top)
    heaviest = rated[-1]
    r, x_heavy = heaviest.overall.mean_ms, served_per_s(heaviest)
    waiting = (little.in_flight(x_heavy, r - d) if not _is_open(heaviest) and r is not None and r > d
               else None)
    return Concurrency(in_service=little.in_flight(x, d), low=little.in_flight(x_lo, d_lo) if known else None,
                       high=little.in_flight(x_hi, d_hi) if known else None, x_max_per_s=x, x_low_per_s=x_lo,
                       x_high_per_s=x_hi, x_cell=top.id, d_ms=d, d_low_ms=d_lo, d_high_ms=d_hi, d_cell=light.id,
                       rule=CONCURRENCY_RULE, d_below_knee=below, d_why=why,
                       x_edge_rel=edge / x if edge is not None else None,
                       waiting=waiting, waiting_cell=heaviest.id if waiting is not None else None)


def usl_fit(members: list[Cell]) -> UslFit:
    return UslFit.model_validate(plain(usl.fit([c.users.n for c in members],
                                               [c.overall.throughput_per_s for c in members])))


def knee(members: list[Cell], bound: Bounds) -> Knee:
    """The knee of a closed curve by KNEE_RULE (load None when even the lightest cell is below it)."""
    z, d = think_of(members[0]), bound.d_ms
    load = None
    for c in members:
        line = c.users.n / ((d + z) / 1000.0) if d + z > 0 else math.inf
        if served_per_s(c) >= KNEE_EFFICIENCY * line:
            load = c.users.n
        else:
            break
    return Knee(load=load, n_star=bound.n_star, rule=KNEE_RULE)


def slo_capacity(members: list[Cell], loads: list[float], slos, percentile_of, unit: str = "N") -> list[SloCapacity]:
    """For each latency criterion, the largest load (N, or λ) of the curve meeting it.

    Walks the load upwards while the criterion holds; at the first failure, interpolates the percentile linearly
    between the last passing and the first failing load ("interpolated"; "measured" when that lands on the
    passing load; N is rounded down to a whole user). If every load passes, the largest tested is reported as
    measured (capacity may be higher); if the lightest fails, "none".
    """
    whole = unit == "N"
    out = []
    for text, percentile, limit, strict in slos:
        last = None
        entry = {"criterion": text, "max_load": None, "how": "none", "note": None}
        for c, load in zip(members, loads):
            value = percentile_of(c.id, percentile)
            if value is not None and (value < limit if strict else value <= limit):
                last = (load, value)
                continue
            if last is not None and value is not None:
                a, v_a = last
                cross = a + (limit - v_a) * (load - a) / (value - v_a)
                found = max(a, math.floor(cross) if whole else cross)
                entry |= {"max_load": found, "how": "interpolated" if found > a else "measured",
                          "note": f"p{percentile} crosses {limit:g} ms between {unit} = {a:g} and {unit} = {load:g}"}
            break
        else:
            if last is not None:
                entry |= {"max_load": last[0], "how": "measured", "note": f"every tested {unit} meets it"}
        out.append(SloCapacity.model_validate(plain(entry)))
    return out


def mmcn_prediction(cell: Cell, service) -> MmcnPrediction | None:
    """Exact M/M/c//N throughput beside the measurement, for exponential think and service times only."""
    think = cell.intended
    if service is None or service.dist != "exp" or think.think_dist not in EXPONENTIAL_THINK:
        return None
    if think.think_ms is None or cell.overall is None or not cell.overall.count:
        return None
    n = int(cell.users.n)
    predicted = mmcn.throughput_per_s(n, service.servers, service.service_ms, think.think_ms)
    measured = cell.overall.throughput_per_s
    # The same model with the service time the server measured and the think time the threads realised:
    # when the grid's S is not what the server delivers (overhead, a loaded host), this tells the two apart.
    measured_s = cell.server.service_mean_ms if cell.server else None
    realised_z = cell.think_time.mean_ms if cell.think_time else None
    with_measured = (mmcn.throughput_per_s(n, service.servers, measured_s, realised_z)
                     if measured_s and realised_z is not None and realised_z >= 0 else None)
    return MmcnPrediction.model_validate(plain({
        "think_ms": think.think_ms, "users": n, "servers": service.servers, "service_ms": service.service_ms,
        "predicted_x": predicted, "measured_x": measured, "rel_error": abs(measured - predicted) / predicted,
        "predicted_r_ms": mmcn.response_ms(n, service.servers, service.service_ms, think.think_ms),
        "measured_r_ms": cell.overall.mean_ms, "measured_service_ms": measured_s,
        "realised_think_ms": realised_z, "predicted_x_measured_inputs": with_measured, "cell": cell.id}))


def mmcn_check(row: MmcnPrediction, cycle_cv: float | None, completions: int, floor: float) -> Check:
    """Measured X against the exact model. Exponential service and think times make X itself noisy: its
    relative standard error is about cycle_cv/√completions (renewal cycles), so the tolerance is
    max(floor, 3 × that), with cycle_cv the measured CV of R+Z per cycle."""
    noise = (cycle_cv or 1.0) / math.sqrt(max(completions, 1))
    tol = max(floor, 3 * noise)
    ok = row.rel_error <= tol
    why = (f"X = {row.measured_x:.2f}/s vs M/M/{row.servers}//{row.users} {row.predicted_x:.2f}/s "
           f"(statistical error of X ≈ {noise:.1%}): "
           + ("the server behaves as the exact model predicts." if ok else
              "the system is not the M/M/c//N the grid describes (service or think time not exponential, "
              "extra servers or overhead)."))
    if not ok and row.predicted_x_measured_inputs:
        why += (f" With the server's measured S = {row.measured_service_ms:.1f} ms and the realised Z = "
                f"{row.realised_think_ms:.1f} ms the model gives {row.predicted_x_measured_inputs:.2f}/s.")
    return verdict("mmcn", row.cell, row.measured_x, row.predicted_x, row.rel_error, tol, ok, why)


@dataclass(frozen=True)
class GapTrend:
    """How the gap R − bound changes over a curve (gap_trend): the margin "constant" is held to, the widest a cell's
    95% interval reaches from the mean gap (None without every cell's standard error), the pairs of cells, those
    whose gaps differ beyond PAIR_SIGMAS standard errors and the margin, upwards and downwards (heavier minus
    lighter), the verdict: "constant", "rises", "falls" or "not shown"."""

    margin_ms: float
    deviation_ms: float | None
    pairs: int
    rising: int
    falling: int
    trend: str


def gap_trend(loads: list[float], gaps: list[float], standard_errors: list[float | None]) -> GapTrend:
    """Whether the gap between R and its lower bound changes with the load, judged by its trend against the cells'
    own noise, not by its spread against a share of its mean.

    "constant" is an equality claim, so it needs an equivalence test: every cell's gap, with its 95% interval
    (± CONFIDENCE_Z standard errors of its mean R, sd/√n from its exact histogram), lies within ±OFFSET_MARGIN of the
    mean gap: the margin, stated with the claim. Otherwise the trend is read from every pair of cells, the heavier
    against the lighter: their gaps differ when by more than PAIR_SIGMAS standard errors of the difference
    (√(se_i² + se_j²)), a real difference, and by more than the margin, one that 'constant' would not allow.
    "rises" when some pairs rise so and none falls, "falls" when some fall and none rises (a sign test of pairs
    that weighs each difference by its noise, whatever the shape: a gap that climbs past the knee, or a lightest
    cell slowed by its warm-up while the rest differ by less than the margin); else "not shown": pairs both ways (a
    gap that wanders by more than its noise and its margin: neither constant nor a trend), or none while the
    intervals are too wide for the margin. Without a cell's standard error no constancy is claimed, and its
    differences are taken at face value against the margin."""
    n = len(gaps)
    mean = sum(gaps) / n
    margin = OFFSET_MARGIN * abs(mean)
    known = all(se is not None and se >= 0 for se in standard_errors)
    ses = [se if se is not None else 0.0 for se in standard_errors]
    deviation = max(abs(g - mean) + CONFIDENCE_Z * se for g, se in zip(gaps, ses)) if known else None
    order = sorted(range(n), key=lambda i: loads[i])
    rising = falling = pairs = 0
    for a, i in enumerate(order):
        for j in order[a + 1:]:
            if loads[j] == loads[i]:
                continue
            pairs += 1
            apart = max(PAIR_SIGMAS * math.hypot(ses[i], ses[j]), margin)  # real, and more than 'constant' allows
            rising += gaps[j] - gaps[i] > apart
            falling += gaps[i] - gaps[j] > apart
    if deviation is not None and deviation <= margin:
        trend = "constant"
    elif rising and not falling:
        trend = "rises"
    elif falling and not rising:
        trend = "falls"
    else:
        trend = "not shown"
    return GapTrend(margin, deviation, pairs, rising, falling, trend)
