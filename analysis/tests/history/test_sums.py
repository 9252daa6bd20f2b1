"""history/sums.py adds a series' figures in numpy's own order: the same sums and means as numpy's, bit for bit, on
lengths across the three branches of its pairwise summation and on values of very different sizes (where the order
shows)."""

import numpy as np

from littlegrid.history import sums


def test_sums_and_means_are_numpys_to_the_last_bit():
    rng = np.random.default_rng(67)
    for n in [*range(0, 40), 127, 128, 129, 136, 200, 256, 263, 600, 1031]:
        for _ in range(5):
            a = rng.normal(0, 1, n) * 10.0 ** rng.integers(-6, 9, n)
            assert sums.total(a.tolist()) == float(a.sum()), n
            assert sums.total(a) == float(a.sum()), n  # an array's values, as np.float64
            if n:
                assert sums.mean(a.tolist()) == float(a.mean()), n


def test_the_order_is_numpys_not_left_to_right():
    """A sum where the order decides: left to right loses the small values against the large one, numpy's eight
    running sums keep some of them."""
    a = [1e16] + [1.0] * 15
    left_to_right = 0.0
    for v in a:
        left_to_right += v
    assert sums.total(a) == float(np.sum(a)) != left_to_right
