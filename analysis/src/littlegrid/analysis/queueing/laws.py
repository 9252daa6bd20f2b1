"""Queueing-law checks of one cell: closed law, workload fidelity, Little's law at the server, open workload, throughput bound."""

import math
from typing import NamedTuple

from littlegrid.analysis.queueing import little
from littlegrid.analysis.steady import trend as drift_rule
from littlegrid.analysis.steady.trend import DRIFT_TOLERANCE, TREND_P
from littlegrid.analysis.steady.window import window_error
from littlegrid.summary import plain
from littlegrid.summary.model import Check, Trend

# Defaults, overridable per grid in [tolerances]. Where a check's noise can be derived from the window,
# the tolerance is max(default, 3 × expected error) and the default acts as the floor.
DEFAULT_TOLERANCES = {
    "closed_law": 0.02,        # |X·(R+Z_realised) − N| / N
    "workload": 0.02,          # |X·(R+Z_intended) − N| / N
    "think_time": 0.03,        # |Z_realised − Z_intended| / (R + Z_intended): the share of the cycle that drifted
    "users": 0.0,              # allThreads × engines must equal N exactly
    "server_little": 0.05,     # |L_server − X_server·R_server| / (X_server·R_server)
    "open_rate": 0.02,         # |X − λ| / λ
    "interarrival_cv": 0.10,   # |CV − 1|
    "generator_sizing": 0.80,  # λ·W / threads must stay below this
    "throughput_bound": 0.02,  # X may exceed min(N/(D+Z), c/S) by this much
    "mmcn": 0.05,              # |X − X_M/M/c//N| / X_M/M/c//N
    "steady": 0.10,            # |C_last − C_first| / mean: completions in the window's last third against its first
    "steady_r": DRIFT_TOLERANCE,  # max/min − 1 of the median R of the window's thirds, when beyond noise (trend.py)
}
STEADY_SIGMAS = 4.0  # the steady check's noise allowance in standard errors: every cell of a grid is checked


def verdict(name: str, cell: str | None, value, expected, rel_error, tolerance, passed,
            explanation: str) -> Check:
    """One check as the summary holds it (littlegrid.summary.model.Check): value vs expected, relative error vs
    tolerance; passed is None when it could not be made. The analysis's NumPy figures become plain numbers."""
    return Check.model_validate(plain({"name": name, "cell": cell, "value": value, "expected": expected,
                                       "rel_error": rel_error, "tolerance": tolerance, "passed": passed,
                                       "explanation": explanation}))


def tolerances(overrides: dict | None) -> dict:
    """The defaults with the grid's [tolerances] applied; unknown names are refused by the caller."""
    merged = dict(DEFAULT_TOLERANCES)
    merged.update({k: float(v) for k, v in (overrides or {}).items()})
    return merged


def not_made(name: str, cell: str | None, why: str) -> Check:
    return verdict(name, cell, None, None, None, None, None, f"not checked: {why}")


def does_not_apply(name: str, cell: str | None, why: str) -> Check:
    """A check whose premise the data does not meet (e.g. the closed law when a thread's samples overlap)."""
    return verdict(name, cell, None, None, None, None, None, f"does not apply: {why}")


def _rel(value: float, expected: float) -> float:
    return abs(value - expected) / abs(expected)


def closed_law(cell, n, x, r_ms, z_ms, window_s, floor, basis: str | None = None) -> Check:
    """N = X·(R+Z_realised): a consistency check of the data itself. basis: where X and R come from, when not
    from every sample (the outermost samples of each thread)."""
    if None in (n, x, r_ms, z_ms) or not n:
        return not_made("closed_law", cell, "needs N, X, R and a realised think time (no gaps in the window)")
    cycle = (r_ms + z_ms) / 1000.0
    value = x * cycle
    err = window_error(cycle, window_s, n)
    tol = max(floor, 3 * err)
    rel = _rel(value, n)
    if rel <= tol:
        why = (f"N = X·(R+Z) holds with the realised think time (window error expected {err:.1%}): every "
               f"thread was active through the steady window and N is counted right.")
    else:
        why = (f"X·(R+Z_realised) = {value:.2f} but N = {n:g}: threads were not all active through the window "
               f"(ramp-up or early exits inside it), N is miscounted (engines?), or the window is too short "
               f"(expected error {err:.1%}).")
    if basis:
        why += f" ({basis}.)"
    return verdict("closed_law", cell, value, float(n), rel, tol, rel <= tol, why)


# JMeter's per-iteration work between two samples of a thread (measured 0.6-1 ms on this project's VM): a
# think-time excess up to this is named as that overhead rather than as a starved generator.
GENERATOR_OVERHEAD_MS = 2.0


def think_time_fidelity(cell, z_real_ms, z_int_ms, r_ms, sd_ms, gaps, floor) -> Check:
    """Realised vs intended think time, relative to the intended cycle R+Z (what sets the offered load)."""
    if None in (z_real_ms, z_int_ms, r_ms) or not gaps:
        return not_made("think_time", cell, "needs the intended think time and realised gaps")
    cycle = r_ms + z_int_ms
    if cycle <= 0:
        return not_made("think_time", cell, "R + Z_intended is 0")
    rel = abs(z_real_ms - z_int_ms) / cycle
    stat = 3 * (sd_ms or 0.0) / math.sqrt(gaps) / cycle  # 3 standard errors of the mean gap
    tol = max(floor, stat)
    if rel <= tol:
        why = (f"Threads thought {z_real_ms:.1f} ms on average for {z_int_ms:g} ms asked "
               f"({rel:.1%} of the {cycle:.0f} ms cycle): the generator delivered the think time.")
    elif 0 < z_real_ms - z_int_ms <= GENERATOR_OVERHEAD_MS:
        why = (f"Threads thought {z_real_ms:.1f} ms on average but {z_int_ms:g} ms was asked: "
               f"{z_real_ms - z_int_ms:.1f} ms more per cycle, the size of JMeter's own work between samples "
               f"(timers, sampler set-up, writing the result; 0.5-1 ms here), which is {rel:.1%} of this "
               f"{cycle:.0f} ms cycle. Cycles this short measure the generator too; lengthen R+Z or accept it.")
    else:
        why = (f"Threads thought {z_real_ms:.1f} ms on average but {z_int_ms:g} ms was asked ({rel:.1%} of the "
               f"cycle): the generator did not deliver the workload (saturated CPU, timer overhead or drift).")
    return verdict("think_time", cell, z_real_ms, z_int_ms, rel, tol, rel <= tol, why)


def intended_think_sd_ms(dist: str | None, think_ms: float | None) -> float | None:
    """The standard deviation of the think time asked for: an exponential's is its mean, JMeter's Poisson Random
    Timer's √λ, a constant's 0; None for a distribution not known."""
    if think_ms is None:
        return None
    return {"exponential": think_ms, "exp": think_ms, "poisson": math.sqrt(max(think_ms, 0.0)),
            "constant": 0.0}.get(dist or "")


def workload_fidelity(cell, n, x, r_ms, z_int_ms, window_s, floor, z_sd_ms=None, gaps=0, z_real_ms=None,
                      slowest_thread_ms=None, threads=None, z_int_sd_ms=None) -> Check:
    """N vs X·(R+Z_intended+e): did the generator put on the load it claims, at the pace it keeps?

    e = Z_realised − Z_intended is the generator's own time per cycle (JMeter's work between a thread's samples:
    timers, sampler set-up, writing the result), measured. When it is at most GENERATOR_OVERHEAD_MS, and so is
    every thread's own (`slowest_thread_ms`, the largest of the threads' mean gaps, up to its noise: 3 standard
    errors of the think time asked for, `z_int_sd_ms`, over a thread's gaps), it is a constant cost of the loop,
    not a failure to deliver: X·(R+Z) falls short of N by e/(R+Z+e) (2.1% for 0.55 ms on a 25 ms
    cycle), so the check counts it in the cycle and reports it. A generator that fell behind fails: a thread late
    or missing (X short even of N/(R+Z+e)), or starved of CPU (e beyond that cost: then the cycle is the one asked
    for, X·(R+Z_intended), and the shortfall counts).

    Besides the window's edge error, a random think time's realised mean is itself noisy (s.e. sd/√gaps):
    X·(R+Z_intended) = N·(R+Z_intended)/(R+Z_realised) inherits that, and chance is not a generator fault.
    """
    if None in (n, x, r_ms, z_int_ms) or not n:
        return not_made("workload", cell, "needs N, X, R and the intended think time")
    own = z_real_ms - z_int_ms if z_real_ms is not None else None  # the generator's time per cycle
    # a constant cost is every thread's: the slowest thread's own mean gap exceeds the ask by no more than it,
    # beyond its noise (the think time asked for spread over the thread's gaps); a thread late for seconds once
    # hides in the mean of all, not in its own
    sd = z_int_sd_ms if z_int_sd_ms is not None else (z_sd_ms or 0.0)
    noise = 3 * sd * math.sqrt(threads / gaps) if threads and gaps else 0.0
    every_thread = slowest_thread_ms is None or slowest_thread_ms - z_int_ms <= GENERATOR_OVERHEAD_MS + noise
    constant = own is not None and 0 < own <= GENERATOR_OVERHEAD_MS and every_thread
    cycle = (r_ms + z_int_ms + (own if constant else 0.0)) / 1000.0
    value = x * cycle
    err = window_error(cycle, window_s, n)
    # the realised mean's chance spread under the think time asked for (a late thread's outliers widen the realised
    # sd, not what chance allows)
    think_noise = sd / math.sqrt(gaps) / (r_ms + z_int_ms) if gaps and r_ms + z_int_ms > 0 else 0.0
    tol = max(floor, 3 * err, 3 * think_noise)
    rel = _rel(value, n)
    pace = (f" with the generator's own {own:.2f} ms per cycle (JMeter's work between samples, "
            f"{own / (r_ms + z_int_ms + own):.1%} of the {r_ms + z_int_ms + own:.1f} ms cycle: its measured constant "
            f"cost, counted in the cycle, not a shortfall)" if constant else
            f" (the generator's own time per cycle {own:.2f} ms, beyond the {GENERATOR_OVERHEAD_MS:g} ms of JMeter's "
            f"work between samples: it fell behind)" if own is not None and own > GENERATOR_OVERHEAD_MS else
            f" (the generator's own time per cycle {own:.2f} ms, but its slowest thread waited "
            f"{slowest_thread_ms - z_int_ms:.2f} ms beyond the ask per cycle: a thread fell behind)"
            if own is not None and own > 0 and not every_thread else "")
    term = "X·(R+Z_intended+e)" if constant else "X·(R+Z_intended)"
    if rel <= tol:
        why = f"{term} = {value:.2f} matches N = {n:g}{pace}: the load asked for was delivered."
    else:
        why = (f"{term} = {value:.2f} but N = {n:g}{pace}: the generator delivered "
               f"{'less' if value < n else 'more'} load than intended (a thread late or missing, the generator "
               f"starved of CPU, or the rate not kept), so the cell measures another workload.")
    return verdict("workload", cell, value, float(n), rel, tol, rel <= tol, why)


def users_count(cell, n, all_threads_max, peak_share, threads_seen) -> Check:
    """N against JMeter's own allThreads and the distinct threads that completed samples in the window. allThreads
    counts one engine's alive threads, so its peak is the largest engine's share (N itself on one host); more
    threads seen than N means engines or thread groups were not counted."""
    if n is None or (all_threads_max is None and not threads_seen):
        return not_made("users", cell, "needs N from the run manifest and the allThreads column or thread names")
    peak_share = peak_share or n
    scale = n / peak_share
    if all_threads_max is not None:
        # whole threads compared as such: the peak scaled to N is not exact in floating point (61 on 6 engines:
        # 11 × 61/11 = 61.00000000000001), so the check asks whether the peak is the largest share
        agrees = all_threads_max == peak_share
        value = float(n) if agrees else float(all_threads_max * scale)
    else:
        agrees, value = threads_seen == n, float(threads_seen)
    ok = agrees and (threads_seen or 0) <= n
    rel = abs(max(value, threads_seen or 0) - n) / n
    engines = "" if scale == 1 else f" (the largest engine's share {peak_share:g} of N = {n:g})"
    if ok:
        why = f"allThreads peaks at {all_threads_max}{engines} and {threads_seen} threads seen agree with N = {n:g}."
    else:
        why = (f"N = {n:g}, but allThreads peaks at {all_threads_max} where {peak_share:g} was expected{engines}, and "
               f"{threads_seen} distinct threads completed samples: engines or thread groups are miscounted.")
    return verdict("users", cell, value, float(n), rel, 0.0, ok, why)


def server_little(cell, l_server, l_se, x_server, r_server_ms, source, floor) -> Check:
    """Little's law inside the server: L_server = X_server·R_server (same boundary: the service's entry and exit)."""
    if None in (l_server, x_server, r_server_ms):
        return not_made("server_little", cell, "the server metrics lack in-flight, request or service-time counters")
    expected = little.in_flight(x_server, r_server_ms)
    if expected <= 0:
        return not_made("server_little", cell, "no request completed at the server in the window")
    tol = max(floor, 3 * (l_se or 0.0) / expected)
    rel = _rel(l_server, expected)
    how = "the in-flight integral" if source == "integral" else "1 Hz samples of in-flight"
    if rel <= tol:
        why = f"L_server from {how} = {l_server:.2f} matches X·R_server = {expected:.2f}."
    else:
        why = (f"L_server from {how} = {l_server:.2f} but X·R_server = {expected:.2f}: the server's metrics "
               f"disagree (sampling too coarse for the load, a counter reset, or a clock offset).")
    return verdict("server_little", cell, l_server, expected, rel, tol, rel <= tol, why)


def open_rate(cell, x, rate, window_s, floor) -> Check:
    """Achieved vs intended arrival rate of an open workload (Poisson count noise: 1/√(λT))."""
    if None in (x, rate) or rate <= 0:
        return not_made("open_rate", cell, "no intended arrival rate")
    tol = max(floor, 3 / math.sqrt(rate * window_s))
    rel = _rel(x, rate)
    why = (f"Achieved {x:.2f}/s for {rate:g}/s intended." if rel <= tol else
           f"Achieved {x:.2f}/s but {rate:g}/s was intended: the generator could not keep the arrival rate "
           f"(too few threads, saturated CPU) or the server refused work.")
    return verdict("open_rate", cell, x, rate, rel, tol, rel <= tol, why)


def interarrival_cv(cell, cv, arrivals, floor) -> Check:
    """Merged inter-arrival times of Poisson arrivals have CV 1 (standard error about 1/√n)."""
    if cv is None or arrivals < 3:
        return not_made("interarrival_cv", cell, "fewer than 3 arrivals in the window")
    tol = max(floor, 3 / math.sqrt(arrivals))
    rel = abs(cv - 1.0)
    why = (f"Inter-arrival CV {cv:.3f}: arrivals look Poisson." if rel <= tol else
           f"Inter-arrival CV {cv:.3f}, not 1: arrivals are {'burstier' if cv > 1 else 'more regular'} than "
           f"Poisson (batching, a saturated generator, or a pacing timer).")
    return verdict("interarrival_cv", cell, cv, 1.0, rel, tol, rel <= tol, why)


def generator_sizing(cell, rate, r_ms, threads, threshold) -> Check:
    """λ·W (threads busy by Little's law) against the thread pool of an open plan."""
    if None in (rate, r_ms, threads) or not threads:
        return not_made("generator_sizing", cell, "needs the arrival rate, R and the thread count")
    busy = little.in_flight(rate, r_ms)
    share = busy / threads
    why = (f"λ·W = {busy:.1f} of {threads:g} threads busy ({share:.0%})." if share <= threshold else
           f"λ·W = {busy:.1f} of {threads:g} threads busy ({share:.0%} > {threshold:.0%}): arrivals wait for a free "
           f"thread, so the test coordinates with the server and omits the slow cases (coordinated omission).")
    return verdict("generator_sizing", cell, busy, float(threads), share, threshold, share <= threshold, why)


def throughput_bound(cell, x, n, z_ms, d_ms, servers, service_ms, floor, basis) -> Check:
    """X ≤ min(N/(D+Z), c/S), x the successful completions per second; rel_error is the excess over the bound
    (0 when below). n None: an open workload, whose threads wait in a pacing timer, so only the server's c/S
    bounds it."""
    if n is None and servers and service_ms:
        bound = servers / (service_ms / 1000.0)
    elif None in (x, n, z_ms, d_ms) or d_ms + z_ms <= 0:
        return not_made("throughput_bound", cell, "needs X, N, Z and a demand D (or, open, the server's c and S)")
    else:
        bound = n / ((d_ms + z_ms) / 1000.0)
        if servers and service_ms:
            bound = min(bound, servers / (service_ms / 1000.0))
    excess = max(0.0, x / bound - 1.0)
    why = (f"X = {x:.2f}/s successful completions is within the bound {bound:.2f}/s ({basis})." if excess <= floor
           else f"X = {x:.2f}/s successful completions exceeds the bound {bound:.2f}/s ({basis}): the demand or "
                f"server count assumed is wrong, or the samples are not what the grid says.")
    return verdict("throughput_bound", cell, x, bound, excess, floor, excess <= floor, why)


class _Half(NamedTuple):
    """One half of the steady check (the completions, or R): passed None when not compared; words for the
    explanation."""
    passed: bool | None
    value: float | None
    expected: float | None
    rel: float | None
    tol: float | None
    words: str


def _not_compared(words: str) -> _Half:
    return _Half(None, None, None, None, None, words)


def _completions_drift(first, last, third_s, floor) -> _Half:
    """The completions in the window's first and last thirds; passed None
    when not compared."""
    if first is None or last is None or not third_s:
        return _not_compared("completions not compared: the window has fewer than three whole buckets")
    if first + last < 20:
        return _not_compared(f"completions not compared: {first + last:g} in the window's first and last thirds are "
                             "too few to tell a trend from noise")
    mean = (first + last) / 2
    rel = abs(last - first) / mean
    tol = max(floor, STEADY_SIGMAS * math.sqrt(first + last) / mean)
    rates = (f"{first / third_s:.4g}/s completed in the window's first third and {last / third_s:.4g}/s in its last "
             f"({third_s:g} s each, {rel:.0%} apart")
    if rel <= tol:
        return _Half(True, last / third_s, first / third_s, rel, tol, f"{rates}, {tol:.0%} allowed)")
    return _Half(False, last / third_s, first / third_s, rel, tol,
                 f"{rates} against {tol:.0%} allowed): the throughput {'rose' if last > first else 'fell'} through "
                 "the window")


def _ms(v: float) -> str:
    return f"{v:.4g} ms" if abs(v) < 1000 else f"{v:,.0f} ms"


def _response_drift(trend: Trend | None, tol: float) -> _Half:
    """The median R of the window's first and last thirds, judged by the one drift rule (analysis/steady/trend.drift:
    ordered in time, the thirds' intervals apart, the larger median beyond tol); passed None when not compared."""
    if trend is None or trend.first_ms is None or trend.last_ms is None:
        buckets = trend.buckets if trend is not None else 0
        return _not_compared(f"median R not compared: {buckets} bucket{'' if buckets == 1 else 's'} with samples in "
                             "the window, Kendall's test needs 6")
    first, last = trend.first_ms, trend.last_ms
    found = drift_rule.drift(trend, tol)
    rel, ordered, apart = found.rel, found.ordered, found.apart
    level = f"{trend.interval_level:.0%} " if trend.interval_level is not None else ""
    figures = (f"the per-bucket median R was {_ms(first)} in the window's first third "
               f"({level}interval {_ms(trend.first_low_ms)} to {_ms(trend.first_high_ms)}) and {_ms(last)} in its "
               f"last ({_ms(trend.last_low_ms)} to {_ms(trend.last_high_ms)}), {rel:.0%} apart against {tol:.0%} "
               f"allowed; Kendall τ = {trend.tau:.2f}, p = {trend.p:.2g} over {trend.buckets} buckets"
               if trend.tau is not None and trend.p is not None else
               f"the per-bucket median R was {_ms(first)} in the window's first third and {_ms(last)} in its last "
               f"(all buckets alike: no order to test)")
    if found.way is not None:
        return _Half(False, last, first, rel, tol, f"{figures}: R {found.way} through the "
                                                   "window, beyond its noise and beyond the tolerance")
    if rel <= tol:
        noise = " (a drift beyond noise, within the tolerance)" if ordered and apart else ""
    else:
        noise = " (within noise: " + ("the thirds' intervals overlap" if ordered else f"p ≥ {TREND_P:g}") + ")"
    return _Half(True, last, first, rel, tol, figures + noise)


def steady(cell, first: float | None, last: float | None, third_s: float | None, floor,
           trend: Trend | None = None, r_tolerance: float = DEFAULT_TOLERANCES["steady_r"]) -> Check:
    """Whether the steady window is steady, in its completions and in its response time (analysis/steady/trend.py: the
    window's thirds, whole buckets of equal length).

    Completions in the first third against the last: in steady state as many in each, up to counting noise; the
    difference of two Poisson counts has standard error √(C_first + C_last), which closed workloads undercut, so
    STEADY_SIGMAS of it plus the floor bound what noise explains. Completions alone miss a drift of R where the rate
    is set elsewhere: an open workload's rate is the generator's, and a closed one's with a long Z moves little
    (X = N/(R+Z)). So the median R of each bucket too: it drifted when Kendall's test finds it ordered in time
    (p < TREND_P), the thirds' intervals lie apart (both beyond noise) and the larger third's median exceeds the
    smaller's by more than r_tolerance (beyond what matters: a JIT warming up a few percent after the trim is
    ordered in time too). Either drift: the window holds a warm-up the trim left in, a queue growing, or a drift of
    the host, and the cell's averages mix two regimes. The figures are the completions', unless only R drifted."""
    counts = _completions_drift(first, last, third_s, floor)
    response = _response_drift(trend, r_tolerance)
    words = f"{counts.words}; {response.words}"
    if counts.passed is None and response.passed is None:
        return not_made("steady", cell, words)
    passed = counts.passed is not False and response.passed is not False
    only_r = response.passed is False and counts.passed is not False
    carrier = response if only_r or counts.passed is None else counts
    if passed:
        why = f"{words[0].upper()}{words[1:]}: steady."
    else:
        why = (f"{words[0].upper()}{words[1:]}. The cell's averages mix two regimes: a warm-up the trim left in (a "
               "server just started, its JIT still compiling), a queue growing (an open workload above capacity), a "
               "resource filling, or a drift of the host. A longer [cell] warmup_s, or a server warmed before the "
               "cell, gives a steady window when it was a warm-up.")
    return verdict("steady", cell, carrier.value, carrier.expected, carrier.rel, carrier.tol, passed, why)
