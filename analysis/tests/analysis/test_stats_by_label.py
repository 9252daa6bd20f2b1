"""Statistics per label in one pass (exact nearest-rank, errors by class and type, bytes) and per-label series."""

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from analysis_synthetic import T0, table
from littlegrid.analysis.reading.error_classes import classify, error_type_one, error_types
from littlegrid.analysis.statistics.series import label_series, response_codes, time_series
from littlegrid.analysis.statistics.stats import PERCENTILES, sample_stats, stats_by_label
from littlegrid.analysis.steady.window import steady_window


def _plain_nearest_rank(values, p):
    ordered = sorted(values)
    return ordered[max(math.ceil(Fraction(p) * len(ordered) / 100), 1) - 1]


def _mixed(seed=5, labels=40, rows=6000):
    """Labels of very different sizes and spreads, some failing, interleaved in time."""
    rng = np.random.default_rng(seed)
    names = [f"L{i:02d} {'x' * (i % 3)}" for i in range(labels)]
    which = rng.zipf(1.6, rows) % labels
    elapsed = (rng.lognormal(3 + (which % 5), 0.8) + which).astype(np.int64)
    ok = rng.random(rows) > 0.03 * (which % 4)
    codes = np.where(ok, "200", np.where(which % 2 == 0, "503", "404"))
    samples = table([(T0 + 3 * r, int(elapsed[r]), f"t{r % 7}") for r in range(rows)], 7, success=ok,
                    codes=list(codes))
    samples["label"] = pd.Categorical([names[w] for w in which])
    return samples


def test_every_labels_percentiles_min_max_and_mean_equal_a_plain_sort_of_its_samples():
    samples = _mixed()
    by_label = stats_by_label(samples, classify(samples), 10.0, error_types(samples))
    assert list(by_label) == sorted(set(samples["label"].astype(str)))
    for label, st in by_label.items():
        mine = samples[samples["label"] == label]
        values = mine["elapsed_ms"].tolist()
        assert st["count"] == len(values) and st["throughput_per_s"] == len(values) / 10.0
        assert st["min_ms"] == min(values) and st["max_ms"] == max(values)
        assert st["mean_ms"] == sum(values) / len(values)
        for key, p in PERCENTILES:
            assert st[key] == _plain_nearest_rank(values, p), (label, key)
        failed = int((~mine["success"].astype(bool)).sum())
        assert st["errors"] == failed and st["successes"] == len(values) - failed
        assert st["bytes_mean"] == 100 and st["sent_bytes_mean"] == 50
        assert st["received_bytes_per_s"] == 100 * len(values) / 10.0


def test_a_labels_figures_are_the_same_as_the_cells_statistics_of_that_label_alone():
    samples = _mixed(seed=9)
    classes = classify(samples)
    by_label = stats_by_label(samples, classes, 4.0)
    label = max(by_label, key=lambda k: by_label[k]["count"])
    alone = sample_stats(samples[samples["label"] == label], classes, 4.0)
    for key in ("count", "errors", "error_rate", "errors_by_class", "mean_ms", "min_ms", "p50_ms", "p90_ms",
                "p95_ms", "p99_ms", "p999_ms", "max_ms", "latency_mean_ms", "connect_mean_ms", "throughput_per_s"):
        assert by_label[label][key] == alone[key], key


def test_errors_per_label_by_class_and_its_top_five_types_largest_first():
    rows = [(T0 + i, 5, "t") for i in range(12)]
    codes = ["200", "500", "500", "500", "404", "404", "503", "502", "501", "Non HTTP response code: x", "200", "200"]
    ok = [True] + [False] * 9 + [True, True]
    samples = table(rows, 1, label="GET /a", success=ok, codes=codes)
    samples.loc[11, "success"] = False  # a 200 failed by an assertion
    samples.loc[11, "failure_message"] = "Test failed: text expected to contain /welcome/"
    st = stats_by_label(samples, classify(samples), 1.0, error_types(samples))["GET /a"]
    assert st["errors"] == 10 and st["errors_by_class"] == {"http_5xx": 6, "http_4xx": 2, "http_2xx": 1,
                                                                  "other": 1}
    assert st["top_errors"] == [{"type": "500/Internal Server Error", "count": 3},
                                {"type": "404/Internal Server Error", "count": 2},
                                {"type": "501/Internal Server Error", "count": 1},  # ties by name
                                {"type": "502/Internal Server Error", "count": 1},
                                {"type": "503/Internal Server Error", "count": 1}]
    assert sorted(error_types(samples).dropna().unique()) == [
        "404/Internal Server Error", "500/Internal Server Error", "501/Internal Server Error",
        "502/Internal Server Error", "503/Internal Server Error", "Non HTTP response code: x/Internal Server Error",
        "Test failed: text expected to contain /welcome/"]


def test_the_error_type_is_code_and_message_or_the_assertion_message_as_jmeter_counts_it():
    assert error_type_one("500", "Internal Server Error", None) == "500/Internal Server Error"
    assert error_type_one("404", None, None) == "404"
    assert error_type_one("200", "OK", "Response was null") == "Response was null"
    assert error_type_one("200", "OK", None) == "Assertion failed"
    assert error_type_one(None, None, None) == "no response code"


def test_transaction_labels_are_marked_and_labels_come_in_label_order_whatever_the_category_order():
    samples = table([(T0, 5, "t"), (T0 + 10, 7, "t"), (T0 + 20, 9, "t")], 1)
    samples["label"] = pd.Categorical(["z tx", "a", "z tx"], categories=["z tx", "unused", "a"])
    by_label = stats_by_label(samples, classify(samples), 1.0, transactions=frozenset({"z tx"}))
    assert list(by_label) == ["a", "z tx"]
    assert by_label["z tx"]["transaction"] and not by_label["a"]["transaction"]
    assert by_label["z tx"]["p50_ms"] == 5 and by_label["z tx"]["max_ms"] == 9


def test_label_series_keep_the_busiest_labels_with_exact_percentiles_per_second():
    rows, labels = [], []
    for s in range(3):
        rows += [(T0 + 1000 * s + i, 1 + i, "t") for i in range(100)]
        labels += ["busy"] * 100
        rows += [(T0 + 1000 * s + 500, 40 + s, "u")]
        labels += ["rare"]
    samples = table(rows, 2)
    samples["label"] = pd.Categorical(labels)
    failed = np.zeros(len(samples), dtype=bool)
    failed[0] = True
    window = steady_window(samples, 0, 0)
    out = label_series(samples, failed, window, top=1)
    assert list(out["labels"]) == ["busy"]
    busy = out["labels"]["busy"]
    # the same time axis as the cell's series, and the same exact figures (every busy sample ends in its second)
    whole = time_series(samples[samples["label"] == "busy"], failed[:len(samples)][samples["label"] == "busy"],
                        window, 1, None, None)
    assert len(busy["throughput"]) == len(whole["t_s"])
    assert busy["throughput"][:3] == [100.0, 100.0, 100.0] and busy["errors"][:2] == [1.0, 0.0]
    assert busy["p50_ms"][:3] == [50, 50, 50] and busy["p99_ms"][1] == 99
    both = label_series(samples, failed, window)
    assert set(both["labels"]) == {"busy", "rare"} and both["labels"]["rare"]["p90_ms"][:3] == [40, 41, 42]


def test_codes_per_second_keep_the_most_frequent_codes_and_sum_the_rest():
    codes = pd.Series(pd.Categorical(["200"] * 5 + ["404", "500", None]))
    bucket = np.array([0, 0, 1, 1, 1, 0, 1, 1])
    out = response_codes(codes, bucket, 2, 1)
    assert out == {"200": [2.0, 3.0], "404": [1.0, 0.0], "500": [0.0, 1.0], "none": [0.0, 1.0]}


def test_errors_by_type_list_the_hundred_largest_and_count_the_rest():
    from littlegrid.analysis.statistics.stats import ERROR_TYPES_MAX, error_tables

    names = [f"500/order {i:03d} failed" for i in range(150)]
    types = pd.Series(pd.Categorical([n for i, n in enumerate(names) for _ in range(1 + (i == 7))] + [None]))
    out = error_tables(types, 2.0)
    assert ERROR_TYPES_MAX == 100 and len(out["by_type"]) == 100
    assert out["by_type"][0] == {"type": "500/order 007 failed", "count": 2, "share_of_errors": 2 / 151, "per_s": 1.0}
    assert out["by_type"][1]["type"] == "500/order 000 failed"  # ties by type
    assert out["types_not_listed"] == 50 and out["errors_not_listed"] == 50


def test_label_codes_keep_only_the_labels_that_occur_in_label_order_and_a_missing_label_is_the_empty_one():
    from littlegrid.analysis.statistics.stats import label_codes

    labels = pd.Series(pd.Categorical(["b", None, "a", "b"], categories=["b", "zz unused", "a"]))
    codes, names = label_codes(labels)
    assert names == ["", "a", "b"] and codes.tolist() == [2, 0, 1, 2]
