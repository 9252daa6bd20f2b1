"""The window's statistics block by block (issue 17): overall, per label and errors by type, fed one block or k
row-contiguous blocks of real JTLs and synthetic tables, equal (==) what the whole-table functions gave before
the accumulators, kept below as the known answer."""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from analysis_synthetic import T0, table
from littlegrid.analysis.reading import tail
from littlegrid.analysis.reading.error_classes import classify, error_types
from littlegrid.analysis.reading.histogram import ExactHistogram
from littlegrid.analysis.reading.int_sort import sort_ints
from littlegrid.analysis.statistics.rowblock import Block
from littlegrid.analysis.statistics.stats import (ERROR_TYPES_MAX, PERCENTILES, ErrorTypesAccumulator,
                                                  LabelStatsAccumulator, SampleStatsAccumulator, error_tables,
                                                  percentile_of, sample_stats, stats_by_label)
from littlegrid.analysis.steady.window import steady_window, window_mask
from littlegrid.jtl import read_jtl

# ---------------------------------------------------------------------------------------------------------------
# The known answer: today's code (stats.sample_stats, stats.stats_by_label and cell._error_tables as they were
# before the accumulators, at 9e00045), copied unchanged so that the block-by-block results are compared with what
# the whole-table computation gave, not with themselves.


def _oracle_count_by_class(classes: pd.Series) -> dict:
    counts = classes.dropna().value_counts()
    counts = counts[counts > 0]
    return {str(k): int(v) for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))}


def _oracle_mean(series):
    if series is None:
        return None
    mean = series.mean()
    return None if pd.isna(mean) else float(mean)


def oracle_sample_stats(samples, error_class, window_length_s, elapsed=None) -> dict:
    n = len(samples)
    classes = error_class if error_class.index.equals(samples.index) else error_class.reindex(samples.index)
    errors = int(classes.notna().sum())
    elapsed = elapsed if elapsed is not None else ExactHistogram.of(samples["elapsed_ms"].to_numpy(dtype=np.int64))
    out = {
        "count": n,
        "successes": n - errors,
        "errors": errors,
        "error_rate": errors / n if n else None,
        "errors_by_class": _oracle_count_by_class(classes),
        "throughput_per_s": n / window_length_s if window_length_s > 0 else None,
        "successes_per_s": (n - errors) / window_length_s if window_length_s > 0 else None,
        "mean_ms": elapsed.mean(),
        "min_ms": float(elapsed.values[0]) if n else None,
    }
    for key, p in PERCENTILES:
        out[key] = percentile_of(elapsed, p)
    out["max_ms"] = float(elapsed.values[-1]) if n else None
    out["latency_mean_ms"] = _oracle_mean(samples["latency_ms"])
    out["connect_mean_ms"] = _oracle_mean(samples["connect_ms"])
    out["pdf"] = tail.log_pdf(elapsed)
    out["ccdf"] = tail.ccdf(elapsed)
    out["tail"] = tail.tail_index(elapsed)
    return out


_TOP_ERRORS = 5
_LABEL_MEANS = (("latency_ms", "latency_mean_ms"), ("connect_ms", "connect_mean_ms"),
                ("bytes", "bytes_mean"), ("sent_bytes", "sent_bytes_mean"))
_CHUNK = 1 << 20


def _oracle_rank(counts, percentile):
    num, den = Fraction(str(percentile)).as_integer_ratio()
    return np.maximum(-(-counts * num // (den * 100)), 1)


def _oracle_label_codes(labels):
    cat = labels if isinstance(labels.dtype, pd.CategoricalDtype) else labels.astype("category")
    if cat.isna().any():
        cat = cat.cat.add_categories([""]).fillna("") if "" not in cat.cat.categories else cat.fillna("")
    raw = cat.cat.codes.to_numpy()
    categories = cat.cat.categories
    used = np.flatnonzero(_oracle_count_codes(raw, len(categories)))
    names = [str(categories[i]) for i in used]
    order = sorted(range(len(used)), key=names.__getitem__)
    narrow = np.int16 if len(used) < 2**15 else np.int32
    remap = np.full(len(categories), -1, dtype=narrow)
    remap[used[order]] = np.arange(len(used), dtype=narrow)
    return remap[raw], [names[j] for j in order]


def _oracle_count_codes(codes, k):
    counts = np.zeros(k, dtype=np.int64)
    for lo in range(0, len(codes), _CHUNK):
        counts += np.bincount(codes[lo:lo + _CHUNK], minlength=k)
    return counts


def _oracle_sums_by_code(codes, values, k):
    total = np.zeros(k)
    for lo in range(0, len(codes), _CHUNK):
        if isinstance(values, pd.Series):
            weights = values.iloc[lo:lo + _CHUNK].to_numpy(dtype=np.float64, na_value=0)
        else:
            weights = values[lo:lo + _CHUNK]
        total += np.bincount(codes[lo:lo + _CHUNK], weights=weights, minlength=k)
    return total


def _oracle_sorted_keys_at(codes, elapsed, low, scale, k, positions):
    size = k * scale
    if size <= len(codes):
        counts = np.zeros(size, dtype=np.int64)
        for lo in range(0, len(codes), _CHUNK):
            keys = codes[lo:lo + _CHUNK].astype(np.int64)
            keys *= scale
            keys += elapsed[lo:lo + _CHUNK]
            keys -= low
            counts += np.bincount(keys, minlength=size)
        np.cumsum(counts, out=counts)
        return {name: np.searchsorted(counts, at, side="right") for name, at in positions.items()}
    keys = codes.astype(np.int64)
    keys *= scale
    keys += elapsed
    keys -= low
    keys = sort_ints(keys)
    return {name: keys[at] for name, at in positions.items()}


def _oracle_count_pairs(group, value, value_names, limit=None):
    if len(group) == 0:
        return {}
    width = max(len(value_names), 1)
    pairs, n = np.unique(group.astype(np.int64) * width + value, return_counts=True)
    g, v = pairs // width, pairs % width
    out = {}
    for gi, vi, c in sorted(zip(g.tolist(), v.tolist(), n.tolist()), key=lambda r: (r[0], -r[2], str(value_names[r[1]]))):
        row = out.setdefault(gi, {})
        if limit is None or len(row) < limit:
            row[str(value_names[vi])] = int(c)
    return out


def oracle_stats_by_label(samples, error_class, window_length_s, error_type=None, transactions=frozenset()):
    if len(samples) == 0:
        return {}
    codes, names = _oracle_label_codes(samples["label"])
    k = len(names)
    counts = _oracle_count_codes(codes, k)
    elapsed = samples["elapsed_ms"].to_numpy(dtype=np.int64)
    low = int(elapsed.min())
    scale = int(elapsed.max()) - low + 1
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    positions = {"min_ms": starts, "max_ms": starts + counts - 1,
                 **{key: starts + _oracle_rank(counts, p) - 1 for key, p in PERCENTILES}}
    offsets = np.arange(k, dtype=np.int64) * scale - low
    per_label = {key: value - offsets for key, value in _oracle_sorted_keys_at(codes, elapsed, low, scale, k,
                                                                                positions).items()}
    per_label["count"] = counts
    sums = _oracle_sums_by_code(codes, elapsed, k)
    classes = error_class if error_class.index.equals(samples.index) else error_class.reindex(samples.index)
    failed = classes.notna().to_numpy()
    errors = np.bincount(codes[failed], minlength=k)
    by_class = _oracle_count_pairs(codes[failed], classes.cat.codes.to_numpy()[failed], list(classes.cat.categories))
    means = {}
    for column, name in _LABEL_MEANS:
        if column in samples.columns:
            values = samples[column]
            present = values.notna().to_numpy()
            total = _oracle_sums_by_code(codes, values, k)
            seen = counts if present.all() else np.bincount(codes[present], minlength=k)
            means[name] = [None if s == 0 else float(t / s) for t, s in zip(total, seen)]
        else:
            means[name] = [None] * k
    top = {}
    if error_type is not None and failed.any():
        types = error_type if error_type.index.equals(samples.index) else error_type.reindex(samples.index)
        top = _oracle_count_pairs(codes[failed], types.cat.codes.to_numpy()[failed], list(types.cat.categories),
                                  limit=_TOP_ERRORS)
    rate = window_length_s if window_length_s > 0 else None
    out = {}
    for i, label in enumerate(names):
        n, e = int(counts[i]), int(errors[i])
        st = {"count": n, "successes": n - e, "errors": e, "error_rate": e / n,
              "errors_by_class": by_class.get(i, {}),
              "throughput_per_s": n / rate if rate else None, "successes_per_s": (n - e) / rate if rate else None,
              "mean_ms": float(sums[i] / n), "min_ms": float(per_label["min_ms"][i])}
        for key, _ in PERCENTILES:
            st[key] = float(per_label[key][i])
        st["max_ms"] = float(per_label["max_ms"][i])
        for _, name in _LABEL_MEANS:
            st[name] = means[name][i]
        received, sent = st["bytes_mean"], st["sent_bytes_mean"]
        st["received_bytes_per_s"] = received * n / rate if rate and received is not None else None
        st["sent_bytes_per_s"] = sent * n / rate if rate and sent is not None else None
        st["transaction"] = label in transactions
        st["top_errors"] = [{"type": t, "count": c} for t, c in top.get(i, {}).items()]
        out[label] = st
    return out


_ERROR_TYPES_MAX = 100


def oracle_error_tables(types, window_s):
    counts = types.dropna().value_counts()
    counts = counts[counts > 0]
    total = int(counts.sum())
    rows = sorted(((str(t), int(n)) for t, n in counts.items()), key=lambda r: (-r[1], r[0]))
    rest = rows[_ERROR_TYPES_MAX:]
    return {"by_type": [{"type": t, "count": n, "share_of_errors": n / total,
                         "per_s": n / window_s if window_s > 0 else None} for t, n in rows[:_ERROR_TYPES_MAX]],
            "types_not_listed": len(rest), "errors_not_listed": sum(n for _, n in rest)}


# ---------------------------------------------------------------------------------------------------------------
# The cases: real JTLs (many labels, errors of many types, transactions, whole columns missing) and synthetic
# tables (partial nulls, a missing label, an elapsed spread too wide to count densely).

CORPUS_FILES = (
    "insta-rzd-errors-large.jtl",  # 144 labels, 33 error types, two runs 158 days apart
    "cedric-asserts-csv-content.xml",  # every row failed, a Transaction Controller label, no bytes columns
    "perfplugin-filewithtransactions.csv",  # nested Transaction Controllers
    "karang-tc-commas.jtl",  # 121 labels, 9 of them transactions
    "amisha-results-clean.csv",  # half the rows failed, no sentBytes
    "taurus-distributed-multiline-crlf.jtl",  # 8 error types, no bytes
    "flood-uuid-zero-ts.jtl",  # no Connect, rows at timestamp 0 with an empty label
)


def _synthetic(seed: int, rows: int = 4000, spread: str = "lognormal"):
    """Labels of very different sizes (one missing, categories out of label order, one unused), failures of
    several classes and types, nulls scattered in latency, connect, bytes and sent bytes, and a transaction label.
    spread "narrow": elapsed within 60 ms, so every (label, elapsed) pair is counted densely; "wide": a few
    elapsed times of hours, so the pairs are sorted."""
    rng = np.random.default_rng(seed)
    names = [f"L{i:02d}" for i in range(30)] + ["TX checkout"]
    which = rng.zipf(1.5, rows) % len(names)
    elapsed = (rng.lognormal(3 + which % 4, 0.7) + which).astype(np.int64)
    if spread == "narrow":
        elapsed = elapsed % 30 + which
    if spread == "wide":
        elapsed[rng.choice(rows, 5, replace=False)] = rng.integers(3_600_000, 20_000_000, 5)
    start = T0 + np.sort(rng.integers(0, 600_000, rows))
    ok = rng.random(rows) > 0.04 * (which % 5)
    codes = rng.choice(["500", "503", "404", "Non HTTP response code: java.net.SocketTimeoutException",
                        "Non HTTP response code: java.net.ConnectException", "200"], rows)
    samples = table([(int(s), int(e), f"t{r % 11}") for r, (s, e) in enumerate(zip(start, elapsed))], 11,
                    success=ok, codes=list(np.where(ok, "200", codes)))
    asserted = (~ok) & (samples["response_code"] == "200").to_numpy()
    samples.loc[asserted, "failure_message"] = "Test failed: text expected to contain /welcome/"
    labels = np.array(names, dtype=object)[which]
    labels[rng.random(rows) < 0.01] = None
    samples["label"] = pd.Categorical(labels, categories=[*reversed(names), "unused"])
    for column, share in (("latency_ms", 0.05), ("connect_ms", 0.3), ("bytes", 0.02), ("sent_bytes", 0.5)):
        values = rng.integers(0, 2_000_000, rows) if column.endswith("bytes") else elapsed // 2
        samples[column] = pd.array(np.where(rng.random(rows) < share, None, values), dtype="Int64")
    return samples, frozenset({"TX checkout"})


def _case(name: str, corpus):
    if name.startswith("synthetic"):
        return _synthetic(seed=len(name), spread=name.removeprefix("synthetic").strip() or "lognormal")
    reading = read_jtl([str(corpus / name)])
    return reading.samples, frozenset(reading.transaction_labels)


def _trimmed_window(samples: pd.DataFrame):
    """A window that leaves out about a tenth of the samples at each end (warm-up and cool-down)."""
    ends = np.sort(samples["end_ms"].to_numpy())
    first, last = int(samples["start_ms"].min()), int(ends[-1])
    warmup_s = (int(ends[len(ends) // 10]) - first) / 1000
    cooldown_s = (last - int(ends[-1 - len(ends) // 10])) / 1000
    return steady_window(samples, warmup_s, cooldown_s)


def _expected(everything: pd.DataFrame, transactions: frozenset, window) -> tuple[dict, dict, dict]:
    """(overall, labels, errors) as cell._sample_figures computed them on the whole table."""
    is_tx = everything["label"].isin(transactions).to_numpy()
    samples = everything[~is_tx] if transactions else everything
    mask = window_mask(samples, window)
    T = window.length_s
    overall = oracle_sample_stats(samples[mask], classify(samples)[mask], T)
    everything_mask = window_mask(everything, window)
    types = error_types(everything)
    labels = oracle_stats_by_label(everything[everything_mask], classify(everything)[everything_mask], T,
                                   types[everything_mask], transactions)
    errors = oracle_error_tables(types[everything_mask & ~is_tx], T)
    return overall, labels, errors


def _block(part: pd.DataFrame, transactions: frozenset, window) -> Block:
    is_tx = part["label"].isin(transactions).to_numpy()
    return Block(everything=part, is_transaction=is_tx, samples=part[~is_tx] if transactions else part,
                 classes=classify(part), types=error_types(part), keys=np.zeros(len(part), int),
                 in_window=window_mask(part, window))


def _parts(everything: pd.DataFrame, k: int, rng) -> list[pd.DataFrame]:
    """k row-contiguous blocks cut at random rows, each with its own label categories (shuffled, unused ones
    dropped) as a block read on its own has them."""
    cuts = [0, *np.sort(rng.choice(np.arange(1, len(everything)), k - 1, replace=False)).tolist(), len(everything)]
    parts = []
    for lo, hi in zip(cuts, cuts[1:]):
        part = everything.iloc[lo:hi].copy()
        labels = part["label"].cat.remove_unused_categories()
        part["label"] = labels.cat.reorder_categories(list(rng.permutation(labels.cat.categories)))
        parts.append(part)
    return parts


def _fed(parts, transactions, window) -> tuple[dict, dict, dict, SampleStatsAccumulator]:
    overall, labels, errors = SampleStatsAccumulator(), LabelStatsAccumulator(transactions), ErrorTypesAccumulator()
    for part in parts:
        block = _block(part, transactions, window)
        for accumulator in (overall, labels, errors):
            accumulator.add(block)
    T = window.length_s
    return overall.result(T), labels.result(T), errors.result(T), overall


CASES = (*CORPUS_FILES, "synthetic", "synthetic narrow", "synthetic wide")


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("k", [1, 2, 5, 13])
def test_blocks_give_exactly_the_whole_tables_statistics(name, k, corpus):
    everything, transactions = _case(name, corpus)
    window = _trimmed_window(everything[~everything["label"].isin(transactions)])
    assert not window_mask(everything, window).all()  # the window trims rows at both ends
    overall, labels, errors = _expected(everything, transactions, window)
    got_overall, got_labels, got_errors, accumulator = _fed(_parts(everything, k, np.random.default_rng(k)),
                                                            transactions, window)
    assert got_overall == overall
    assert list(got_labels) == list(labels) and got_labels == labels
    assert got_errors == errors
    steady = everything[~everything["label"].isin(transactions) & window_mask(everything, window)]
    whole = ExactHistogram.of(steady["elapsed_ms"].to_numpy(np.int64))
    assert np.array_equal(accumulator.elapsed.values, whole.values)
    assert np.array_equal(accumulator.elapsed.counts, whole.counts)


@pytest.mark.parametrize("name", CASES)
def test_the_whole_table_functions_still_give_todays_answers(name, corpus):
    everything, transactions = _case(name, corpus)
    window = _trimmed_window(everything[~everything["label"].isin(transactions)])
    overall, labels, errors = _expected(everything, transactions, window)
    is_tx = everything["label"].isin(transactions).to_numpy()
    samples = everything[~is_tx]
    mask = window_mask(samples, window)
    steady, classes, T = samples[mask], classify(samples)[mask], window.length_s
    assert sample_stats(steady, classes, T) == overall
    assert sample_stats(steady, classes, T, ExactHistogram.of(steady["elapsed_ms"].to_numpy(np.int64))) == overall
    assert sample_stats(steady, classify(samples), T) == overall  # classes of more rows, aligned by index
    everything_mask = window_mask(everything, window)
    types = error_types(everything)
    assert stats_by_label(everything[everything_mask], classify(everything)[everything_mask], T,
                          types[everything_mask], transactions) == labels
    assert error_tables(types[everything_mask & ~is_tx], T) == errors


def test_an_empty_window_and_empty_blocks_give_todays_empty_figures():
    samples, transactions = _synthetic(seed=3, rows=200)
    window = steady_window(samples, 0, 0)
    none = samples.iloc[:0]
    assert sample_stats(none, classify(none), 2.0) == oracle_sample_stats(none, classify(none), 2.0)
    assert stats_by_label(none, classify(none), 2.0, error_types(none)) == {}
    assert SampleStatsAccumulator().result(2.0) == oracle_sample_stats(none, classify(none), 2.0)
    assert LabelStatsAccumulator(transactions).result(2.0) == {}
    assert ErrorTypesAccumulator().result(2.0) == oracle_error_tables(error_types(none), 2.0)
    # blocks with no row, or no row in the window, change nothing
    parts = [none, samples.iloc[:100], none, samples.iloc[100:]]
    assert _fed(parts, transactions, window)[:3] == _expected(samples, transactions, window)
    outside = samples.assign(start_ms=samples["start_ms"] + 10**9, end_ms=samples["end_ms"] + 10**9)
    assert _fed([samples, outside], transactions, window)[:3] == _expected(samples, transactions, window)


def test_byte_sums_beyond_float_precision_stay_exact():
    # 2**53 + 1 bytes a sample: a float sum of two of them loses the 1, the mean of exact integers keeps it
    samples = table([(T0 + i, 3, "t") for i in range(3)], 1)
    big = 2**53 + 1
    samples["bytes"] = pd.array([big, big, big + 2], dtype="Int64")
    samples["sent_bytes"] = pd.array([big, None, 1], dtype="Int64")
    st = stats_by_label(samples, classify(samples), 1.0)["GET /"]
    assert st["bytes_mean"] == (3 * big + 2) / 3 and st["sent_bytes_mean"] == (big + 1) / 2
    accumulator = LabelStatsAccumulator(frozenset())
    window = steady_window(samples, 0, 0)
    for part in (samples.iloc[:1], samples.iloc[1:]):
        accumulator.add(_block(part, frozenset(), window))
    assert accumulator.result(1.0)["GET /"]["bytes_mean"] == (3 * big + 2) / 3


def test_the_error_table_lists_the_hundred_largest_types_over_blocks_with_their_own_categories():
    names = [f"500/order {i:03d} failed" for i in range(150)]
    types = [n for i, n in enumerate(names) for _ in range(1 + (i == 7))]
    accumulator = ErrorTypesAccumulator()
    for lo in range(0, len(types), 40):  # each block's categories: only its own types
        accumulator.add_types(pd.Series(pd.Categorical(types[lo:lo + 40])))
    out = accumulator.result(2.0)
    assert out == error_tables(pd.Series(pd.Categorical(types + [None])), 2.0)
    assert len(out["by_type"]) == ERROR_TYPES_MAX and out["types_not_listed"] == 50
    assert out["by_type"][0] == {"type": "500/order 007 failed", "count": 2, "share_of_errors": 2 / 151, "per_s": 1.0}
