"""Each plan, run non-GUI against the sample server, delivers the workload it promises, as measured from its JTL.

What these runs assert is what a busy host cannot change. The closed plan's timer records each think time it
draws in the JTL (column think_drawn_ms), so the think-time tests judge the draws: their distribution, and that
every thread slept at least its draw. The realised think time (next start − end) is the draw plus whatever the
generator added, which grows with the host's load (a busy 2-core host stretched a 500 ms mean to 602 ms): it is a
workload-fidelity figure, which the report shows and these tests print, never a pass/fail of the plan. So is
the closed law N = X·(R + Z_realised) over the steady window: when a busy host slows every thread at once, its
error no longer shrinks with the number of users (seen: 374 to 399 for N = 400 over windows of one run at load
average 21), so it is printed, not asserted.

Sample sizes set the tolerances, at four standard errors: with n draws an exponential's mean has relative
standard error 1/sqrt(n) and so has its sample CV (the exponential run's ~10 000 draws put four standard errors
under the 5% the plan promises for its mean); a Poisson count with mean λ has standard error sqrt(λ/n) and a
dispersion index (variance/mean) with standard error sqrt((2 + 1/λ)/n). Many users with long think times cost sleeping threads, not CPU, so the generator's load
(at most about 800 requests/s) stays modest.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from littlegrid.analysis.queueing import laws
from littlegrid.analysis.steady.window import steady_window
from littlegrid.analysis.workload.clock_steps import STEP_MAX_MS, ClockSteps, instants_spanned, re_measurements
from littlegrid.analysis.workload.think_fits import ks_exponential, poisson_fit
from littlegrid.run.plan_properties import JTL_COLUMNS, THINK_DRAWN_VARIABLE
from plan_files import PLANS

pytestmark = pytest.mark.integration

THINK_MS = 500
POISSON_OFFSET_MS = 50  # a Poisson run with an offset shows that think_offset_ms reaches the timer
CLOSED = dict(think_ms=THINK_MS, rampup_s=1, path="/io?ms=0")
# The exponential's mean needs many draws (four standard errors within 5%: n >= 6 400); constant and Poisson
# draws vary little, so half the users and a shorter run suffice. Long runs of sleeping threads cost no CPU.
USERS = {"exponential": 400, "constant": 200, "poisson": 200}
# On a busy host the generator's cycles stretch (mean response times of 400 ms were seen at load average 21),
# so the runs are long enough for the draws to count in that case too (30 s gave 6,022 exponential draws under
# two busy loops, 4 s.e. = 5.2%: 40 s keeps 4 s.e. under 5% there).
DURATION_S = {"exponential": 40, "constant": 20, "poisson": 20}
# Those durations are ceilings: a run stops once its JTL holds what its test needs (run_plan's stop_at_rows), which a
# quiet host reaches in about 16 s (exponential) and 10 s. The draws needed: the exponential's n >= 6 400 above, the
# others the 2 000 every closed run is asked for (_draws). Twice that, and each thread's first request (no draw
# before it): the cool-down trims 5 think times' worth of the last draws (about 2 000 at 800/s), and a busy host,
# slower, trims fewer.
DRAWS_NEEDED = {"exponential": 6400, "constant": 2000, "poisson": 2000}
# A draw counts when the sample before it ends inside the window. A think time cut off by the end of the test
# is never written, so the cool-down is 5 mean think times: an exponential draw outlives it with probability
# e^-5, which biases the mean by about -0.3% here. The draws need no warm-up (the timer's draws do not depend
# on how fast JMeter starts); the realised think time and the closed law do: hundreds of first connections at
# once, each thread's first pass through the timer, and a start-up that a busy host delays by seconds.
WARMUP_S, COOLDOWN_S = 3.0, 5 * THINK_MS / 1000
OPEN_RATE, OPEN_DURATION_S = 50, 15


@pytest.fixture(scope="session")
def closed_runs(run_plan):
    """think_dist -> PlanRun of closed.jmx, each run once per session and shared by the tests below."""
    runs = {}

    def get(dist: str):
        if dist not in runs:
            offset = {"think_offset_ms": POISSON_OFFSET_MS} if dist == "poisson" else {}
            runs[dist] = run_plan("closed.jmx", stop_at_rows=2 * DRAWS_NEEDED[dist] + USERS[dist], think_dist=dist,
                                  users=USERS[dist], duration_s=DURATION_S[dist], **offset, **CLOSED)
        return runs[dist]

    return get


def think_times(run, warmup_s: float) -> pd.DataFrame:
    """One row per think time in the window: what the timer drew and what the thread realised.

    The timer runs before its request, so a row's think_drawn_ms is the draw slept just before that row's
    sample; its realised counterpart is this start − the end of the thread's previous sample. Kept when that
    previous sample ended in the window, as the report's realised gaps are.
    """
    jtl = pd.read_csv(run.jtl, usecols=["timeStamp", "elapsed", "threadName", THINK_DRAWN_VARIABLE])
    assert jtl[THINK_DRAWN_VARIABLE].notna().all(), "a sample without a recorded draw"
    jtl = jtl.sort_values(["threadName", "timeStamp"], kind="stable")
    by_thread = jtl.groupby("threadName")
    previous_end = (jtl["timeStamp"] + jtl["elapsed"]).groupby(jtl["threadName"]).shift()
    window = steady_window(run.samples, warmup_s, COOLDOWN_S)
    kept = previous_end.between(window.start_ms, window.end_ms)
    return pd.DataFrame({"drawn_ms": jtl.loc[kept, THINK_DRAWN_VARIABLE],
                         "realised_ms": (jtl["timeStamp"] - previous_end)[kept],
                         "previous_start_ms": by_thread["timeStamp"].shift()[kept],
                         "start_ms": jtl.loc[kept, "timeStamp"]})


def short_gaps(think: pd.DataFrame) -> tuple[ClockSteps, int, int]:
    """The think times realised shorter than their draws, as the analysis takes JMeter's clock steps (a gap
    spans the instants from its previous sample's start, when that SampleResult took the clock offset, to its
    own start), and the span (first, last ms) the clock was re-measured over."""
    short = think[think["realised_ms"] < think["drawn_ms"]]
    steps = ClockSteps(*(c.to_numpy(dtype=np.int64) for c in (short["previous_start_ms"], short["start_ms"],
                                                              short["drawn_ms"] - short["realised_ms"])))
    return steps, int(think["previous_start_ms"].min()), int(think["start_ms"].max())


def _draws(run, dist: str) -> np.ndarray:
    """The draws of a closed run, after the checks every think time shares: the run ended cleanly, every
    request succeeded, there are enough draws, and each thread slept at least its draw. Prints the realised
    think time beside the drawn one, and the closed law with it: host load shows there."""
    assert run.exit_code == 0, run.log.read_text(encoding="utf-8")[-2000:]
    samples = run.samples
    assert samples["success"].all(), samples.loc[~samples["success"], "response_message"].head().tolist()
    think = think_times(run, warmup_s=0.0)
    assert len(think) >= DRAWS_NEEDED[dist], (len(think), run.context())
    # A sleep never ends early: a realised think time shorter than its draw would mean the column is not the
    # draw that thread slept. JMeter's clock is the one exception. A timestamp is floor(System.nanoTime() in
    # ms) plus an offset to the wall clock, which each SampleResult takes when it is created; a daemon thread
    # re-measures that offset (currentTimeMillis() - nanoTime) every sampleresult.nanoThreadSleep = 5 s. Without
    # a re-measurement, truncation cannot shorten a gap: floor(x) - floor(y) >= floor(x - y). A re-measurement
    # moves every later timestamp by the same step, -1 ms from the two clocks' fractions alone, more when the
    # thread is preempted between its two reads (2 ms seen at load average 5). So a short gap must span a
    # re-measurement, and all the short gaps of a run fit in as many instants as the run had re-measurements.
    # A column that is not the slept draw makes short gaps all through the run, which no few instants explain.
    short, first, last = short_gaps(think)
    # the analysis's rule (ClockSteps.explained: each short by at most a step, the instants widened by one), and
    # the stricter count this test had before it: the intervals as written within the re-measurements
    assert short.pairs == 0 or short.explained(first, last), (short.as_dict(first, last), run.context())
    assert instants_spanned(short.low, short.high) <= re_measurements(first, last), (short.pairs, run.context())
    drawn = think["drawn_ms"].to_numpy()
    assert pd.api.types.is_integer_dtype(think["drawn_ms"]) and drawn.min() >= 0, drawn[:10]
    steady = think_times(run, warmup_s=WARMUP_S)
    closed_law = _closed_law(run, USERS[dist], float(steady["realised_ms"].mean()))
    overhead = steady["realised_ms"] - steady["drawn_ms"]
    print(f"\n{dist}: {len(think)} draws, mean {drawn.mean():.1f} ms for think_ms {THINK_MS}; steady window: "
          f"drawn mean {steady['drawn_ms'].mean():.1f} ms, realised mean {steady['realised_ms'].mean():.1f} ms "
          f"(the generator added {overhead.mean():.1f} ms on average, p99 {overhead.quantile(0.99):.0f} ms); "
          f"closed law X·(R+Z_realised) = {closed_law.value:.1f} for N = {USERS[dist]}; {run.context()}")
    return drawn


def _closed_law(run, users: int, z_realised_ms: float) -> laws.Check:
    """The report's closed-law check N = X·(R + Z_realised) over the steady window (throughput X and mean
    response time R of the samples that completed in it)."""
    samples = run.samples
    window = steady_window(samples, WARMUP_S, COOLDOWN_S)
    done = samples[samples["end_ms"].between(window.start_ms, window.end_ms)]
    x = len(done) / window.length_s
    r_ms = float((done["end_ms"] - done["start_ms"]).mean())
    return laws.closed_law(run.plan.name, users, x, r_ms, z_realised_ms, window.length_s,
                           laws.DEFAULT_TOLERANCES["closed_law"])


def test_draws_paired_with_the_wrong_gaps_are_not_explained_by_clock_steps(closed_runs):
    """The check above can fail: the same run's draws moved one think time along each thread (each gap judged
    against the draw slept before the next request) leave short gaps all through the run."""
    think = think_times(closed_runs("poisson"), warmup_s=0.0)
    think["drawn_ms"] = think["drawn_ms"].shift(-1)
    short, first, last = short_gaps(think.dropna())
    assert not short.explained(first, last)
    assert instants_spanned(short.low, short.high + STEP_MAX_MS) > 3 * re_measurements(first, last), short.pairs


def test_exponential_think_time_has_the_mean_cv_and_shape_of_an_exponential(closed_runs):
    drawn = _draws(closed_runs("exponential"), "exponential")
    n = len(drawn)
    tolerance = 4 / math.sqrt(n)  # four standard errors of the relative mean, and of the sample CV
    assert tolerance <= 0.05, f"{n} draws are too few for a 5% test of the mean"
    assert abs(drawn.mean() / THINK_MS - 1) < tolerance, (drawn.mean(), n)
    cv = drawn.std(ddof=1) / drawn.mean()
    assert abs(cv - 1) < tolerance, (cv, n)
    # KS against an exponential of the same mean does not reject. (ks_exponential models whole-ms gaps as
    # floor(g + f); the timer rounds, floor(g + 1/2): the two CDFs differ by under 0.5 ms, nothing at 500 ms.)
    ks = ks_exponential(np.sort(drawn))
    assert ks["p"] > 0.01, ks


def test_constant_think_time_is_constant(closed_runs):
    drawn = _draws(closed_runs("constant"), "constant")
    assert (drawn == THINK_MS).all(), np.unique(drawn)


def test_poisson_timer_is_jmeters_poisson_not_an_exponential(closed_runs):
    """JMeter's Poisson Random Timer: think_offset_ms + a Poisson count of ms with mean λ = think_ms, so its
    variance is λ (dispersion index 1) and its CV about 1/√λ: far from memoryless."""
    drawn = _draws(closed_runs("poisson"), "poisson")
    n, lam = len(drawn), THINK_MS
    counts = drawn - POISSON_OFFSET_MS
    assert counts.min() >= 0, counts.min()  # the offset is added to every draw
    assert abs(counts.mean() - lam) < 4 * math.sqrt(lam / n), (counts.mean(), n)
    dispersion = counts.var(ddof=1) / lam
    assert abs(dispersion - 1) < 4 * math.sqrt((2 + 1 / lam) / n), (dispersion, n)
    fit = poisson_fit(np.sort(drawn), POISSON_OFFSET_MS)
    assert fit["p"] > 0.001, fit  # chi-square goodness of fit: does not reject offset + Poisson(λ)
    assert ks_exponential(np.sort(drawn))["p"] < 1e-6  # rejects an exponential of the same mean


@pytest.fixture(scope="session")
def open_run(run_plan):
    return run_plan("open.jmx", rate_per_s=OPEN_RATE, duration_s=OPEN_DURATION_S, path="/io?ms=0")


def test_open_plan_sizes_its_pool_by_littles_law(open_run):
    # defaults: L = 50/s x 100 ms = 5 in flight, so ceil(5 + 4*sqrt(5)) + 2 = 16 threads
    assert open_run.samples["all_threads"].max() == math.ceil(5 + 4 * math.sqrt(5)) + 2 == 16


def test_open_plan_delivers_poisson_arrivals_at_the_rate(open_run):
    assert open_run.exit_code == 0
    samples = open_run.samples
    assert samples["success"].all()
    starts = np.sort(samples["start_ms"].to_numpy())
    # The first second holds JMeter's start-up (late arrivals released together), so it is trimmed.
    window = starts[starts >= starts[0] + 1000]
    span_s = (window[-1] - window[0]) / 1000
    rate = (len(window) - 1) / span_s
    inter = np.diff(window)
    cv = inter.std(ddof=1) / inter.mean()
    print(f"\nopen: {len(samples)} arrivals for {OPEN_RATE}/s x {OPEN_DURATION_S} s; after the first second "
          f"{rate:.2f}/s, inter-arrival CV {cv:.3f}; {open_run.context()}")
    # The timer fixes the total count, so the count in this window is binomial: sd about 1.2% here. A busy
    # host delays starts by a few ms, which moves only the window's two ends.
    assert abs(rate / OPEN_RATE - 1) < 0.05, (rate, open_run.context())
    assert abs(cv - 1) < 0.15, (cv, open_run.context())  # sd of a sample CV of ~650 exponential gaps is about 0.04


SPIKE_USERS, SPIKE_REQUESTS = 30, 2


@pytest.fixture(scope="session")
def spike_run(run_plan):
    return run_plan("spike.jmx", users=SPIKE_USERS, requests_per_user=SPIKE_REQUESTS, path="/io?ms=200",
                    release_timeout_ms=20000)


def test_spike_releases_every_user_at_once(spike_run):
    assert spike_run.exit_code == 0
    samples = spike_run.samples
    assert len(samples) == SPIKE_USERS * SPIKE_REQUESTS and samples["success"].all()
    assert samples.groupby("thread", observed=True).size().eq(SPIKE_REQUESTS).all()
    first = samples.sort_values("start_ms").groupby("thread", observed=True).head(1)
    # all first requests were in flight together: the last one started before the first one ended
    assert first["start_ms"].max() < first["end_ms"].min(), first[["start_ms", "end_ms"]].describe()


def test_unknown_think_dist_stops_the_test_with_a_message(run_plan):
    run = run_plan("closed.jmx", think_dist="gaussian", users=2, duration_s=60, path="/io?ms=0")
    assert "think_dist = 'gaussian': expected poisson, exponential or constant" in run.log.read_text(encoding="utf-8")
    assert run.wall_s < 45, run.wall_s


def test_a_field_holding_a_per_request_function_is_read_before_every_request(run_plan, tmp_path):
    """The timer reads ${__P()} fields once per thread (fixed for the test), anything else before each request: a
    mean of ${__Random(0,40)} with the constant distribution gives each draw its own value, within one thread too."""
    plan = tmp_path / "closed-random-mean.jmx"
    text = (PLANS / "closed.jmx").read_text(encoding="utf-8")
    fixed = '<stringProp name="meanMs">${__P(think_ms,1000)}</stringProp>'
    assert fixed in text
    plan.write_text(text.replace(fixed, '<stringProp name="meanMs">${__Random(0,40)}</stringProp>'), encoding="utf-8")
    run = run_plan(plan, think_dist="constant", users=2, duration_s=4, rampup_s=0, path="/io?ms=0")
    assert run.exit_code == 0, run.log.read_text(encoding="utf-8")[-2000:]
    drawn = pd.read_csv(run.jtl, usecols=["threadName", THINK_DRAWN_VARIABLE])
    assert len(drawn) >= 40 and drawn[THINK_DRAWN_VARIABLE].notna().all(), (len(drawn), run.context())
    assert drawn[THINK_DRAWN_VARIABLE].between(0, 40).all()
    # 41 equally likely values: a thread's n draws all alike has probability 41^-(n-1), nil for n >= 10
    per_thread = drawn.groupby("threadName")[THINK_DRAWN_VARIABLE]
    assert (per_thread.size() >= 10).all() and (per_thread.nunique() > 1).all(), per_thread.unique()


@pytest.mark.parametrize("which", ["closed", "open", "spike"])
def test_every_plan_writes_exactly_the_documented_columns(which, closed_runs, open_run, spike_run):
    run = {"closed": lambda: closed_runs("exponential"), "open": lambda: open_run, "spike": lambda: spike_run}[which]()
    # JMeter quotes a sample variable's name in the header ("think_drawn_ms"); CSV readers unquote it
    assert [name.strip('"') for name in run.header()] == list(JTL_COLUMNS)
    assert len(run.samples) > 0
    assert (run.samples["start_ms"] <= run.samples["end_ms"]).all()
