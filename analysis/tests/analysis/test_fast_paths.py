"""The NumPy fast paths of the analysis give exactly what the plain definitions give (pandas groupby, .loc,
a per-bucket nearest rank), on seeded samples with ties, nulls, several hosts and a trimmed window."""

import math

import numpy as np
import pandas as pd
import pytest

from littlegrid.analysis.reading.histogram import ExactHistogram
from littlegrid.analysis.reading.tail import ccdf
from littlegrid.analysis.statistics.series import SERIES_PERCENTILES, bucket_percentiles
from littlegrid.analysis.statistics.stats import nearest_rank
from littlegrid.analysis.steady.window import in_window, steady_window
from littlegrid.analysis.workload.think_gaps import realised_gaps
from littlegrid.analysis.workload.think_time import think_time_stats

WINDOW_COLUMNS = ["start_ms", "end_ms", "elapsed_ms", "latency_ms", "connect_ms", "label", "thread", "host"]


def _samples(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    start = 1_700_000_000_000 + np.sort(rng.integers(0, 60_000, n))  # many equal starts: ties in file order
    elapsed = rng.integers(0, 40, n)
    latency = pd.array(rng.integers(0, 40, n), dtype="Int64")
    latency[rng.random(n) < 0.1] = pd.NA
    return pd.DataFrame({
        "start_ms": start, "end_ms": start + elapsed, "elapsed_ms": elapsed,
        "latency_ms": latency, "connect_ms": pd.array(rng.integers(0, 3, n), dtype="Int64"),
        "label": pd.Categorical(rng.choice(["a", "b", "c"], n)),
        "thread": pd.Categorical(rng.choice([f"T 1-{i}" for i in range(1, 8)], n)),
        "host": pd.Categorical(rng.choice(["h1", "h2", None], n)),
    })


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_window_taken_per_column_equals_pandas_loc_and_is_the_table_itself_when_nothing_is_trimmed(seed):
    samples = _samples(5000, seed)
    window = steady_window(samples, 7, 5)
    mask = (samples["end_ms"] >= window.start_ms) & (samples["end_ms"] <= window.end_ms)
    pd.testing.assert_frame_equal(in_window(samples, window, WINDOW_COLUMNS), samples.loc[mask, WINDOW_COLUMNS])
    whole = steady_window(samples, 0, 0)
    assert in_window(samples, whole, WINDOW_COLUMNS) is samples


@pytest.mark.parametrize("seed, file_order", [(1, "by start"), (2, "by start"), (3, "by start"), (4, "shuffled")])
def test_realised_gaps_equal_a_groupby_by_host_and_thread_in_start_order(seed, file_order):
    # "by start" takes the radix sort on thread keys alone; "shuffled" (files of one thread combined out of
    # order) fails its check and takes the sort on thread and start
    samples = _samples(5000, seed)
    if file_order == "shuffled":
        samples = samples.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    window = steady_window(samples, 7, 5)
    frame = samples.assign(row=np.arange(len(samples)), host=samples["host"].astype(str),
                           thread=samples["thread"].astype(str))
    frame = frame.sort_values(["host", "thread", "start_ms", "row"], kind="stable")
    nxt = frame.groupby(["host", "thread"], sort=False)["start_ms"].shift(-1)
    ok = nxt.notna() & (frame["end_ms"] >= window.start_ms) & (frame["end_ms"] <= window.end_ms)
    expected_gaps = (nxt[ok] - frame["end_ms"][ok]).astype(np.int64).to_numpy()
    expected_cycles = (nxt[ok] - frame["start_ms"][ok]).astype(np.int64).to_numpy()
    gaps = realised_gaps(samples, window)
    assert sorted(gaps["gap_ms"].tolist()) == sorted(expected_gaps.tolist())
    assert sorted(zip(gaps["gap_ms"], gaps["cycle_ms"])) == sorted(zip(expected_gaps, expected_cycles))
    stats = think_time_stats(gaps)
    per_thread = frame[ok].assign(gap=expected_gaps).groupby(["host", "thread"])["gap"].mean()
    assert stats["threads"] == len(per_thread)
    assert stats["thread_mean_ms"] == {"min": per_thread.min(), "max": per_thread.max()}
    assert stats["mean_ms"] == pytest.approx(expected_gaps.mean(), rel=1e-12)


@pytest.mark.parametrize("seed, spread", [(1, 500), (2, 500), (3, 500), (1, 40), (2, 40), (3, 7)])
def test_per_bucket_percentiles_equal_the_nearest_rank_of_each_bucket(seed, spread):
    # spread 500: more (bucket, value) pairs than samples, so the keys are sorted; 40 and 7: counted
    rng = np.random.default_rng(seed)
    buckets = 13
    bucket = rng.integers(0, buckets - 2, 4000)  # the last two buckets stay empty
    elapsed = rng.integers(-3, spread, 4000)  # a clock step can make elapsed negative
    got = bucket_percentiles(bucket, elapsed, buckets)
    for key, p in SERIES_PERCENTILES:
        expected = [nearest_rank(np.sort(elapsed[bucket == b]), p) if (bucket == b).any() else None
                    for b in range(buckets)]
        assert got[key] == expected, key


def test_ccdf_distinct_values_of_the_sorted_sample_match_np_unique():
    values = np.sort(np.random.default_rng(4).integers(0, 50, 3000))
    got = ccdf(ExactHistogram.of(values), budget=10_000)
    distinct = np.unique(values)
    assert got["x_ms"] == distinct.astype(float).tolist()
    assert got["p"] == [(len(values) - np.searchsorted(values, v)) / len(values) for v in distinct]
    assert math.isclose(got["p"][0], 1.0)


def test_per_bucket_percentiles_known_answer_with_counted_keys():
    # 3 buckets × values 0..4 = 15 keys for 40 samples: counted. Bucket 0: 1, 2, 3, 4 five times each;
    # bucket 1: empty; bucket 2: 1 nineteen times, then 4
    bucket = np.array([0] * 20 + [2] * 20)
    elapsed = np.array([1, 2, 3, 4] * 5 + [1] * 19 + [4])
    got = bucket_percentiles(bucket, elapsed, 3)
    assert got == {"p50_ms": [2.0, None, 1.0], "p90_ms": [4.0, None, 1.0], "p99_ms": [4.0, None, 4.0]}
