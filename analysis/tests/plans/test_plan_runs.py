"""Each plan, run non-GUI against the sample server, delivers the workload it promises, as measured from its JTL.

Sample sizes set the tolerances: with n gaps the relative standard error of a mean exponential think time is
1/sqrt(n), so the ~6 000 gaps of the exponential run put the issue's 5% at nearly four standard errors. JMeter's
own per-iteration overhead is part of the realised think time by definition (a few ms on a quiet machine);
a 500 ms think time keeps it near 1% of the mean. Many users with long think times cost sleeping threads,
not CPU, so the generator's load (at most about 800 requests/s) stays modest.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from littlegrid.plan_properties import JTL_COLUMNS
from littlegrid.think_time import realised_gaps, think_time_stats
from littlegrid.window import steady_window

pytestmark = pytest.mark.integration

THINK_MS = 500
CLOSED = dict(think_ms=THINK_MS, duration_s=14, rampup_s=1, path="/io?ms=0")
# The exponential's mean needs many gaps (relative standard error 1/sqrt(n)); constant and Poisson gaps vary
# little, so half the users suffice and the generator stays well below saturation (a busy 2-core generator
# delays threads and stretches every think time).
USERS = {"exponential": 400, "constant": 200, "poisson": 200}
# Gaps count when their sample ends inside the window; a gap cut off by the end of the test is never written,
# so the cool-down is 5 mean think times: an exponential gap outlives it with probability e^-5, which biases
# the mean by about -0.3% over this window.
# The warm-up covers the start: hundreds of first connections at once, each thread's first pass through its timers.
WARMUP_S, COOLDOWN_S = 3.0, 5 * THINK_MS / 1000
OPEN_RATE, OPEN_DURATION_S = 50, 15


@pytest.fixture(scope="session")
def closed_runs(run_plan):
    """think_dist -> PlanRun of closed.jmx, each run once per session and shared by the tests below."""
    runs = {}

    def get(dist: str):
        if dist not in runs:
            runs[dist] = run_plan("closed.jmx", think_dist=dist, users=USERS[dist], **CLOSED)
        return runs[dist]

    return get


def _think_time(run, dist):
    assert run.exit_code == 0, run.log.read_text(encoding="utf-8")[-2000:]
    samples = run.samples
    assert samples["success"].all(), samples.loc[~samples["success"], "response_message"].head().tolist()
    gaps = realised_gaps(samples, steady_window(samples, WARMUP_S, COOLDOWN_S))
    stats = think_time_stats(gaps, dist)
    assert stats["gaps"] >= 2000 and stats["negative_gaps"] == 0, (stats, run.context())
    return stats, run.context()


def test_exponential_think_time_has_the_mean_cv_and_shape_of_an_exponential(closed_runs):
    stats, context = _think_time(closed_runs("exponential"), "exponential")
    n = stats["gaps"]
    assert 0.05 >= 3 / math.sqrt(n), f"{n} gaps are too few for a 5% test of the mean"
    assert abs(stats["mean_ms"] / THINK_MS - 1) < 0.05, (stats["mean_ms"], context)
    assert abs(stats["cv"] - 1) < 0.1, (stats["cv"], context)
    assert stats["ks_exponential"]["p"] > 0.01, stats["ks_exponential"]  # KS does not reject the exponential


def test_constant_think_time_is_constant(closed_runs):
    stats, context = _think_time(closed_runs("constant"), "constant")
    # the mean also shows that the other two timers add nothing
    assert abs(stats["mean_ms"] / THINK_MS - 1) < 0.05, (stats["mean_ms"], context)
    assert stats["cv"] < 0.05, (stats["cv"], context)


def test_poisson_timer_is_jmeters_poisson_not_an_exponential(closed_runs):
    """JMeter's Poisson Random Timer: a Poisson count of ms with mean λ, so CV ≈ 1/√λ (0.045 at 500 ms)."""
    stats, context = _think_time(closed_runs("poisson"), "poisson")
    assert abs(stats["mean_ms"] / THINK_MS - 1) < 0.05, (stats["mean_ms"], context)
    # JMeter's overhead adds its own jitter to the √λ of the timer: allow half of 1/√λ either way
    assert abs(stats["cv"] * math.sqrt(THINK_MS) - 1) < 0.5, (stats["cv"], context)
    assert stats["ks_exponential"]["p"] < 1e-6, stats["ks_exponential"]  # far from memoryless


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
    # The timer fixes the total count, so the count in this window is binomial: sd about 1.2% here.
    assert abs(rate / OPEN_RATE - 1) < 0.05, (rate, open_run.context())
    inter = np.diff(window)
    cv = inter.std(ddof=1) / inter.mean()
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


@pytest.mark.parametrize("which", ["closed", "open", "spike"])
def test_every_plan_writes_exactly_the_documented_columns(which, closed_runs, open_run, spike_run):
    run = {"closed": lambda: closed_runs("exponential"), "open": lambda: open_run, "spike": lambda: spike_run}[which]()
    assert run.header() == list(JTL_COLUMNS)
    assert len(run.samples) > 0
    assert (run.samples["start_ms"] <= run.samples["end_ms"]).all()
