"""The requests in service at a curve's highest throughput, L = X_max·D (analysis.modelling.models.concurrency), with answers
known on paper: c workers with service time S serve at most c/S, so X_max·S = c whatever c, S and Z, closed or open,
and a service that fails the excess fast holds only its successful requests. The pool's answer is checked on
simulated curves (plateau_cells.simulated_curve: workers serving S ± 10%, users thinking Exp(Z)), whose X and R
are what the simulation measured, so a model that took D or X_max from the wrong cell, or an interval too narrow,
fails; a curve that starts past its knee gives L only as an upper bound."""

import math

import pytest

from littlegrid.analysis.modelling import curves, models
from littlegrid.summary.model import Cell
from plateau_cells import WINDOW_S, cell, closed_curve, open_curve, simulated_curve
from summary_contract import typed


@pytest.mark.parametrize("c", [2, 4, 8])
@pytest.mark.parametrize("s_ms", [25.0, 100.0])
@pytest.mark.parametrize("z_ms", [0.0, 1000.0])
def test_a_simulated_pool_of_c_workers_holds_c_requests_at_its_plateau(c, s_ms, z_ms):
    members = simulated_curve(c, s_ms, z_ms, seed=c)
    got = models.concurrency(members)
    top = max(members, key=lambda m: m.overall.successes_per_s)
    assert got.d_cell == members[0].id and got.x_cell == top.id and got.d_below_knee is True
    assert got.in_service == pytest.approx(c, rel=0.05)
    assert got.low < c < got.high and got.high - got.low < 1.0  # narrow enough to name c itself
    # X_max and D are what the simulation measured, their product the law's L (nothing put in)
    assert got.in_service == pytest.approx(top.overall.successes_per_s * members[0].overall.mean_ms / 1000)


def test_a_curve_starting_past_its_knee_gives_l_only_as_an_upper_bound():
    # c = 4, S = 25 ms, Z = 0: the knee is N = 4; a grid starting at N = 8 measures R = 50 ms there, twice S
    members = simulated_curve(4, 25.0, 0.0, loads=[8, 16, 32])
    got = models.concurrency(members)
    assert got.d_below_knee is False and "upper bound" in got.d_why
    assert got.in_service == pytest.approx(8, rel=0.1)  # X_max·R_8 = 160/s × 50 ms: twice the pool
    # the same pool measured from N = 1: below the knee, L = 4
    assert models.concurrency(simulated_curve(4, 25.0, 0.0, loads=[1, 8, 16])).d_below_knee is True


def test_the_lightest_cell_below_half_the_knee_is_shown_below_it():
    # c = 4, S = 25 ms, Z = 1 s: N* = 164; N = 40 serves 39/s of X_max = 160/s, well under half
    members = simulated_curve(4, 25.0, 1000.0, loads=[40, 328, 656])
    got = models.concurrency(members)
    assert got.d_below_knee is True and "below half the knee" in got.d_why
    assert got.in_service == pytest.approx(4, rel=0.1)


def test_the_users_neither_thinking_nor_in_service_wait_x_times_r_minus_d_at_the_heaviest_cell():
    members = closed_curve(4, 25.0, 0.0)
    got = models.concurrency(members)
    heaviest = members[-1]
    x, r = heaviest.overall.successes_per_s, heaviest.overall.mean_ms
    assert got.waiting_cell == heaviest.id and got.waiting == pytest.approx(x * (r - got.d_ms) / 1000)
    assert models.concurrency(open_curve(4, 50.0)).waiting is None  # an open curve's users are not N


def test_an_open_curve_takes_d_at_its_smallest_offered_rate():
    # c = 4, S = 50 ms: capacity 80/s; λ = 20/s queues little (R = 52 ms), 60 and 120/s are served at 60 and 80/s
    members = [cell(20, 20, 52.0, open_=True), cell(60, 60, 75.0, open_=True), cell(120, 80, 900.0, open_=True)]
    got = models.concurrency(members)
    assert got.d_ms == pytest.approx(52.0) and got.x_max_per_s == pytest.approx(80.0)
    assert got.in_service == pytest.approx(80 * 0.052)


def test_requests_failed_fast_past_a_proxys_limit_count_no_time_in_service():
    # nginx with an upstream limit of k = 3 over S = 40 ms: successes cap at 75/s, the excess gets a 502 in 1 ms
    members = [cell(1, 25, 40.0), cell(3, 75, 40.0), cell(6, 75, 40.0, failed_per_s=600),
               cell(12, 75, 40.0, failed_per_s=1800)]
    got = models.concurrency(members)
    assert got.x_max_per_s == pytest.approx(75.0, abs=0.5)
    assert got.in_service == pytest.approx(3.0, abs=0.05)
    assert members[-1].overall.throughput_per_s * got.d_ms / 1000 > 10  # all responses' rate would say 3.5× more


def test_the_interval_is_the_product_of_the_ends_of_x_and_d():
    # D: 100 samples at 24 and 26 ms: mean 25, sd √(100/99), se sd/10. X: seconds of 148 and 152: sd √(80/19)·…
    # X's also holds its window edges' error: √(1/6)·(R+Z)/(T·√N) of X, R+Z = N/X = 8/150 s, T = 20 s, N = 8
    members = [cell(1, 40, 25.0, spread_ms=1, wobble=0), cell(8, 150, 53.0, wobble=2)]
    got = models.concurrency(members)
    light = members[0]
    n = light.overall.successes
    d_se = math.sqrt(n / (n - 1)) / math.sqrt(n)
    per_second = [150 + (2 if k % 2 else -2) for k in range(WINDOW_S)]
    mean = sum(per_second) / WINDOW_S
    edge = math.sqrt(1 / 6) * (8 / 150) / (WINDOW_S * math.sqrt(8)) * 150
    x_se = math.hypot(math.sqrt(sum((v - mean) ** 2 for v in per_second) / (WINDOW_S - 1)) / math.sqrt(WINDOW_S),
                      edge)
    assert got.x_edge_rel == pytest.approx(edge / 150)
    z = models.CONFIDENCE_Z
    assert got.low == pytest.approx((150 - z * x_se) * (25 - z * d_se) / 1000, rel=1e-9)
    assert got.high == pytest.approx((150 + z * x_se) * (25 + z * d_se) / 1000, rel=1e-9)


def test_without_histograms_x_falls_back_to_a_poisson_count_and_d_has_no_interval():
    bare = [typed({"id": f"users={n}", "axes": {"users": n}, "users": {"n": n}, "intended": {"think_ms": 0.0},
                   "overall": {"count": 20 * x, "successes": 20 * x, "throughput_per_s": x, "successes_per_s": x,
                               "mean_ms": r}, "window": {"length_s": 20.0}, "checks": []}, Cell)
            for n, x, r in ((1, 40, 25.0), (4, 160, 25.0))]
    got = models.concurrency(bare)
    assert got.in_service == pytest.approx(4.0)
    edge = math.sqrt(1 / 6) * (4 / 160) / (20 * math.sqrt(4)) * 160  # the closed loop's window edges
    assert got.x_high_per_s == pytest.approx(160 + models.CONFIDENCE_Z * math.hypot(math.sqrt(3200) / 20, edge))
    assert got.d_low_ms is None and got.low is None and got.high is None


def test_every_curve_carries_its_concurrency_in_its_models():
    built = curves.curves_of(closed_curve(4, 25.0, 0.0))
    assert built[0].models.concurrency.in_service == pytest.approx(4.0, rel=0.05)
    opened = curves.curves_of(open_curve(4, 50.0))
    assert opened[0].models.concurrency.in_service == pytest.approx(4 * 1.02, rel=0.01)


def test_the_windows_last_longer_second_does_not_widen_x_s_interval():
    # analyze's completions per second over a 19.99 s window: 19 bins, the last holding 1.99 s of completions.
    # Counted as one second it reads as a 2× outlier and widens X's interval about 20-fold (gunicorn's 4 workers
    # were said as "3.5 to 4.9"); left out, the pool of 4 is named.
    def lengthened(m: Cell) -> Cell:
        counts = list(m.histogram.completions_per_s.count)
        per_second = counts[:18] + [counts[18] + counts[19]]
        done = m.histogram.completions_per_s.model_copy(update={"seconds": 19, "second": list(range(19)),
                                                               "count": per_second})
        return m.model_copy(update={"window": m.window.model_copy(update={"length_s": 19.99}),
                                    "histogram": m.histogram.model_copy(update={"completions_per_s": done})})

    got = models.concurrency([lengthened(m) for m in closed_curve(4, 25.0, 0.0)])
    # the whole seconds alternate 160 ± 2: X's half-width about 1.96·2/√18 = 0.9/s, L's about ±0.03 with D's
    assert got.low < 4 < got.high and got.high - got.low < 0.2
