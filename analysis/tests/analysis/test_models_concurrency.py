"""The requests in service at a curve's highest throughput, L = X_max·D (analysis.models.concurrency), with answers
known on paper: c workers with service time S serve at most c/S, so X_max·S = c whatever c, S and Z, closed or open,
and a service that fails the excess fast holds only its successful requests."""

import math

import pytest

from littlegrid.analysis import curves, models
from littlegrid.summary.model import Cell
from plateau_cells import WINDOW_S, cell, closed_curve, open_curve
from summary_contract import typed


@pytest.mark.parametrize("c", [2, 4, 8])
@pytest.mark.parametrize("s_ms", [25.0, 100.0])
@pytest.mark.parametrize("z_ms", [0.0, 1000.0])
def test_a_pool_of_c_workers_holds_c_requests_at_its_plateau(c, s_ms, z_ms):
    members = closed_curve(c, s_ms, z_ms)
    got = models.concurrency(members)
    assert got.in_service == pytest.approx(c, rel=0.05)
    assert got.low < c < got.high and got.high - got.low < 1.0  # narrow enough to name c itself
    assert got.d_cell == members[0].id and got.x_cell == max(members, key=lambda m: m.overall.successes_per_s).id


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
    members = [cell(1, 40, 25.0, spread_ms=1, wobble=0), cell(8, 150, 53.0, wobble=2)]
    got = models.concurrency(members)
    light = members[0]
    n = light.overall.successes
    d_se = math.sqrt(n / (n - 1)) / math.sqrt(n)
    per_second = [150 + (2 if k % 2 else -2) for k in range(WINDOW_S)]
    mean = sum(per_second) / WINDOW_S
    x_se = math.sqrt(sum((v - mean) ** 2 for v in per_second) / (WINDOW_S - 1)) / math.sqrt(WINDOW_S)
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
    assert got.x_high_per_s == pytest.approx(160 + models.CONFIDENCE_Z * math.sqrt(3200) / 20)
    assert got.d_low_ms is None and got.low is None and got.high is None


def test_every_curve_carries_its_concurrency_in_its_models():
    built = curves.curves_of(closed_curve(4, 25.0, 0.0))
    assert built[0].models.concurrency.in_service == pytest.approx(4.0, rel=0.05)
    opened = curves.curves_of(open_curve(4, 50.0))
    assert opened[0].models.concurrency.in_service == pytest.approx(4 * 1.02, rel=0.01)
