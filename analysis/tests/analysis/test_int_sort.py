"""sort_ints is np.sort for integers: known answers, every dtype, the edges, and the fallback."""

import numpy as np
import pytest

from littlegrid.analysis.reading.int_sort import counts_of, sort_ints


def test_known_answer():
    assert sort_ints(np.array([3, 1, 2, 1, 3, 3])).tolist() == [1, 1, 2, 3, 3, 3]
    assert counts_of(np.array([3, 1, 2, 1, 3, 3])) is not None
    low, counts = counts_of(np.array([3, 1, 2, 1, 3, 3]))
    assert low == 1 and counts.tolist() == [2, 1, 3]


def test_negative_values_and_a_single_value():
    assert sort_ints(np.array([-2, 5, -7, 0, -2, 1, 3, 2, 4, 0, 1, 2, 3])).tolist() == \
        sorted([-2, 5, -7, 0, -2, 1, 3, 2, 4, 0, 1, 2, 3])
    assert sort_ints(np.array([7])).tolist() == [7]
    assert sort_ints(np.array([], dtype=np.int64)).tolist() == []


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_matches_np_sort_for_every_integer_dtype(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(3)
    low = max(int(info.min), -50)
    values = rng.integers(low, min(int(info.max), low + 200), 1000, endpoint=True).astype(dtype)
    got = sort_ints(values)
    assert got.dtype == dtype
    assert np.array_equal(got, np.sort(values))


def test_values_near_the_ends_of_int64():
    values = np.array([2**63 - 1, 2**63 - 3, 2**63 - 2, 2**63 - 1], dtype=np.int64)
    assert np.array_equal(sort_ints(values), np.sort(values))
    values = np.array([-2**63, -2**63 + 2, -2**63 + 1, -2**63], dtype=np.int64)
    assert np.array_equal(sort_ints(values), np.sort(values))
    values = np.array([2**64 - 1, 2**64 - 2, 2**64 - 1], dtype=np.uint64)
    assert np.array_equal(sort_ints(values), np.sort(values))


def test_wide_range_falls_back_to_np_sort():
    values = np.array([0, 10**12, 5, 3], dtype=np.int64)  # range far beyond the count
    assert counts_of(values) is None
    assert sort_ints(values).tolist() == [0, 3, 5, 10**12]


def test_range_equal_to_count_is_counted():
    values = np.array([4, 1, 3, 2])
    assert counts_of(values) is not None  # range 4 = 4 values
    assert counts_of(np.array([5, 1, 3, 2])) is None  # range 5 > 4 values


def test_gamma_elapsed_times_like_a_jtl():
    rng = np.random.default_rng(1)
    values = rng.gamma(2.0, 25.0, 200_000).astype(np.int64) + 1
    assert np.array_equal(sort_ints(values), np.sort(values))


def test_refuses_floats():
    with pytest.raises(TypeError):
        sort_ints(np.array([1.5, 0.5]))


@pytest.mark.parametrize("values", [[5, 3, 5, 9, 3, 3, 4], [7], [-2, 0, -2, 1, 1], [0, 10**12, 3]])
def test_unique_inverse_is_numpys_whether_counted_or_sorted(values):
    from littlegrid.analysis.reading.int_sort import unique_inverse

    values = np.array(values, np.int64)
    want_values, want_inverse = np.unique(values, return_inverse=True)
    got_values, got_inverse = unique_inverse(values)
    assert got_values.tolist() == want_values.tolist() and got_inverse.tolist() == want_inverse.tolist()


def test_pair_counts_are_every_distinct_pair_in_order_with_its_count():
    from littlegrid.analysis.reading.int_sort import pair_counts

    second = np.array([3, 1, 3, 1, 2, 3, 1, 1], np.int64)
    elapsed = np.array([8, 9, 8, 8, 9, 8, 9, 9], np.int64)
    major, minor, counts = pair_counts(second, elapsed)  # box 3 × 2 = 6 cells ≤ 8 pairs: counted
    assert list(zip(major.tolist(), minor.tolist(), counts.tolist())) == [
        (1, 8, 1), (1, 9, 3), (2, 9, 1), (3, 8, 3)]
    assert pair_counts(np.array([0, 10**6]), np.array([1, 2])) is None  # a box wider than the pairs: the caller sorts
