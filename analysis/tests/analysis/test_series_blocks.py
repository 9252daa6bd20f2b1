"""The per-second series read block by block (issue 17): TimeSeriesAccumulator and LabelSeriesAccumulator fed a cell's
rows in 1, 2, 5 or 13 row-contiguous blocks cut at random give exactly (==) the dicts the one-table time_series and
label_series gave before the accumulators existed, on real JTLs of the corpus and on synthetic tables that reach the
corners (more codes than CODES_MAX with ties, null codes, labels and threads, allThreads in a few late rows only, a
negative and a huge elapsed, bucket_s > 1, server and host gauges).

The known answers come from `_reference_*` at the bottom: a verbatim copy of series.py's functions as they were
before the accumulators (renamed, constants imported), kept here as the oracle."""

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from littlegrid.analysis.observed.server_metrics import frame_points, per_bucket_mean
from littlegrid.analysis.reading.error_classes import classify
from littlegrid.analysis.reading.histogram import ExactHistogram, HistogramAccumulator
from littlegrid.analysis.statistics.rowblock import Block, Frame
from littlegrid.analysis.statistics.series import (CODES_MAX, LABEL_SERIES_MAX, LABEL_SERIES_RULE, POINT_BUDGET,
                                                   SERIES_PERCENTILES, LabelSeriesAccumulator, TimeSeriesAccumulator,
                                                   label_series, series_labels, time_series)
from littlegrid.analysis.steady.window import EmptyWindow, SteadyWindow, steady_window, window_mask
from littlegrid.jtl import read_jtl

SPLITS = (1, 2, 5, 13)
# real JTLs, each for a corner: many labels (> LABEL_SERIES_MAX), errors and several codes, no allThreads column,
# Transaction Controller rows, rows with timeStamp 0 (bucket clipped to 0) and appended runs (bucket_s > 1)
CORPUS_FILES = {
    "insta-rzd-errors-large.jtl": 2,  # 176 labels, 1,028 failures, 7 codes, two runs 158 days apart: engines 2
    "amisha-results-clean.csv": None,  # no allThreads: threads by name; all of one label failed (404, Non HTTP)
    "apache-sample_log1.jtl": None,  # XML, 10,000 rows, no allThreads
    "sonar-test-trans.jtl.xml": None,  # XML transaction parents, failures, no allThreads
    "karang-tc-commas.jtl": 1,  # 123 labels, Transaction Controller rows, labels with commas
    "perfplugin-filewithtransactions.csv": 1,  # nested Transaction Controllers
    "cedric-asserts-csv-content.xml": None,  # errors-only listener file with Transaction Controller rows
    "flood-uuid-zero-ts.jtl": 3,  # 335 rows at timeStamp 0, several runs over 1.5 days
    "taurus-distributed-multiline-crlf.jtl": None,  # 5 generators, 500s
    "supercomp-noheader-crlf-errors.jtl": None,  # 9 rows: more splits asked than rows
}


def _blocks(everything: pd.DataFrame, transactions: frozenset, window: SteadyWindow, k: int,
            seed: int) -> list[Block]:
    """The cell's rows in file order cut into min(k, rows) row-contiguous blocks at random places."""
    rng = np.random.default_rng(seed)
    k = max(1, min(k, len(everything)))
    cuts = np.sort(rng.choice(np.arange(1, len(everything)), k - 1, replace=False)) if k > 1 else []
    out = []
    for lo, hi in zip([0, *cuts], [*cuts, len(everything)]):
        part = everything.iloc[lo:hi]
        is_tx = part["label"].isin(transactions).to_numpy()
        out.append(Block(everything=part, is_transaction=is_tx, samples=part[~is_tx] if is_tx.any() else part,
                         classes=classify(part), types=None, keys=np.zeros(len(part), np.int64),
                         in_window=window_mask(part, window)))
    return out


def _rows_per_label(everything: pd.DataFrame) -> dict[str, int]:
    """What pass 1 counts: rows per label, a null label as "" (JMeter shows it so)."""
    return dict(Counter("" if pd.isna(v) else str(v) for v in everything["label"].astype(object)))


def _frame(everything: pd.DataFrame, transactions: frozenset, window: SteadyWindow, blocks: int) -> Frame:
    return Frame(window=window, transactions=transactions, series_labels=series_labels(_rows_per_label(everything)),
                 rows=len(everything), blocks=blocks)


def _window(samples: pd.DataFrame) -> SteadyWindow:
    try:
        return steady_window(samples, 0.5, 0.5)
    except EmptyWindow:  # a cell shorter than a second
        return steady_window(samples, 0, 0)


def _expected(everything, transactions, window, engines, server=None, host=None, budget=POINT_BUDGET):
    """Today's answers: time_series over the samples (no transaction rows), label_series over every row."""
    samples = everything[~everything["label"].isin(transactions)] if transactions else everything
    ts = _reference_time_series(samples, classify(samples).notna().to_numpy(), window, engines, server, host, budget)
    ls = _reference_label_series(everything, classify(everything).notna().to_numpy(), window, budget)
    return ts, ls


def _by_blocks(everything, transactions, window, engines, k, seed, server=None, host=None, budget=None):
    frame = _frame(everything, transactions, window, k)
    ts, ls = TimeSeriesAccumulator(frame, engines, budget=budget), LabelSeriesAccumulator(frame, budget=budget)
    for block in _blocks(everything, transactions, window, k, seed):
        ts.add(block)
        ls.add(block)
    return ts.result(server, host), ls.result()


@pytest.fixture(scope="module")
def corpus_cells(corpus) -> dict:
    cells = {}
    for name, engines in CORPUS_FILES.items():
        reading = read_jtl(corpus / name)
        everything = reading.samples
        transactions = frozenset(reading.transaction_labels or ())
        samples = everything[~everything["label"].isin(transactions)] if transactions else everything
        window = _window(samples)
        cells[name] = (everything, transactions, window, engines,
                       _expected(everything, transactions, window, engines))
    return cells


def test_the_corpus_cells_reach_the_corners_they_are_here_for(corpus_cells):
    ts = {name: cell[4][0] for name, cell in corpus_cells.items()}
    assert len(corpus_cells["insta-rzd-errors-large.jtl"][4][1]["labels"]) == LABEL_SERIES_MAX
    assert corpus_cells["insta-rzd-errors-large.jtl"][0]["label"].nunique() > LABEL_SERIES_MAX
    assert ts["insta-rzd-errors-large.jtl"]["bucket_s"] > 1 and len(ts["insta-rzd-errors-large.jtl"]["codes"]) > 3
    assert any(corpus_cells[n][1] for n in ("karang-tc-commas.jtl", "perfplugin-filewithtransactions.csv"))
    assert corpus_cells["amisha-results-clean.csv"][0]["all_threads"].isna().all()
    assert max(ts["amisha-results-clean.csv"]["active_threads"]) > 0  # the threads seen, by name
    assert sum(map(sum, ts["amisha-results-clean.csv"]["codes"].values())) > 0 and sum(
        ts["amisha-results-clean.csv"]["errors"]) > 0


@pytest.mark.parametrize("k", SPLITS)
@pytest.mark.parametrize("name", list(CORPUS_FILES))
def test_a_corpus_cell_in_any_blocks_gives_today_s_series(corpus_cells, name, k):
    everything, transactions, window, engines, (ts, ls) = corpus_cells[name]
    for seed in range(3 if k > 1 else 1):
        assert _by_blocks(everything, transactions, window, engines, k, seed) == (ts, ls)


def test_the_wrappers_give_today_s_series_on_the_corpus(corpus_cells):
    for everything, transactions, window, engines, (ts, ls) in corpus_cells.values():
        samples = everything[~everything["label"].isin(transactions)] if transactions else everything
        assert time_series(samples, classify(samples).notna().to_numpy(), window, engines, None, None) == ts
        assert label_series(everything, classify(everything).notna().to_numpy(), window) == ls


def _synthetic(rows: int, seed: int, all_threads: str) -> tuple[pd.DataFrame, frozenset]:
    """A cell of `rows` rows over ~1.4 h (bucket_s > 1 on the default budget), not quite in time order: 30 labels
    and nulls, a transaction label, 12 codes (a tie at the CODES_MAX-th) and nulls, null threads, the same thread
    name on two hosts, a negative and a huge elapsed (the per-bucket keys cannot all be counted: sorted).
    all_threads: "all", "late" (only in the last rows), "none"."""
    rng = np.random.default_rng(seed)
    start = 1_700_000_000_000 + np.sort(rng.integers(0, 1_500_000, rows))
    start[rng.random(rows) < 0.05] -= 2000  # a few rows out of order, as several threads write them
    elapsed = rng.gamma(2.0, 40.0, rows).astype(np.int64)
    elapsed[rng.integers(0, rows, 3)] = -7  # a clock step
    elapsed[rng.integers(0, rows, 2)] = 3_600_000  # one hour: the per-bucket keys cannot all be counted
    labels = [f"L{i:02d}" for i in range(29)] + ["tx"]
    label = np.array(labels, dtype=object)[rng.integers(0, len(labels), rows)]
    label[rng.random(rows) < 0.01] = None
    # 403 and 503 tie for the CODES_MAX-th place: 403 keeps its series, 503 goes into "other"
    shares = {"201": .15, "204": .10, "301": .08, "302": .06, "500": .05, "404": .04, "503": .03, "403": .03,
              "502": .02, "400": .01, "401": .005, None: .02}
    requests = label != "tx"  # the rows time_series counts codes over
    counts = {c: int(share * requests.sum()) for c, share in shares.items()}
    code = np.full(rows, "200", dtype=object)
    code[requests] = np.array([c for c, n in {"200": requests.sum() - sum(counts.values()), **counts}.items()
                               for _ in range(n)], dtype=object)[rng.permutation(requests.sum())]
    ok = np.isin(code.astype(str), ["200", "201", "204", "301", "302"])
    thread = np.array([f"TG 1-{i}" for i in range(1, 41)], dtype=object)[rng.integers(0, 40, rows)]
    thread[rng.random(rows) < 0.01] = None
    threads = pd.array(rng.integers(1, 60, rows), dtype="Int32")
    if all_threads == "none":
        threads[:] = pd.NA
    elif all_threads == "late":
        threads[: rows - 5] = pd.NA
    table = pd.DataFrame({
        "start_ms": start, "end_ms": start + elapsed, "elapsed_ms": elapsed,
        "label": pd.Categorical(label), "success": pd.array(ok, dtype="boolean"),
        "response_code": pd.Categorical(code),
        "response_message": pd.array(np.where(ok, "OK", "Bad"), dtype="string"),
        "failure_message": pd.array([None] * rows, dtype="string"),
        "thread": pd.Categorical(thread), "all_threads": threads,
        "host": pd.Categorical(np.where(rng.random(rows) < 0.5, "gen-a", "gen-b")),
    })
    return table, frozenset({"tx"})


def _gauges(window: SteadyWindow) -> tuple[pd.DataFrame, pd.DataFrame]:
    t = window.first_start_ms + np.arange(0, window.last_end_ms - window.first_start_ms, 700)
    server = {"in_flight": list(zip(t.tolist(), ((t // 1000) % 17 * 1.0).tolist())),
              "busy_threads": list(zip(t.tolist(), ((t // 300) % 5 * 1.0).tolist()))}
    return server, pd.DataFrame({"time_ms": t[::3], "load1": np.linspace(0.1, 3.0, len(t[::3]))})


@pytest.mark.parametrize("all_threads", ["all", "late", "none"])
@pytest.mark.parametrize("k", SPLITS)
def test_a_synthetic_cell_in_any_blocks_gives_today_s_series(all_threads, k):
    everything, transactions = _synthetic(20_000, 5, all_threads)
    samples = everything[~everything["label"].isin(transactions)]
    window = steady_window(samples, 60, 30)
    server, host = _gauges(window)
    ts, ls = _expected(everything, transactions, window, 3, server, host)
    assert ts["bucket_s"] > 1 and list(ts["codes"])[CODES_MAX - 1:] == ["403", "other", "none"]
    active = ts["active_threads"]
    assert any(v is not None for v in active) and (all_threads != "late" or active[0] is None)  # late: peaks only
    assert (all_threads == "none") == (None not in active)  # no allThreads: the thread names, 0 where none
    for seed in range(3 if k > 1 else 1):
        assert _by_blocks(everything, transactions, window, 3, k, seed, server, host) == (ts, ls)


@pytest.mark.parametrize("k", SPLITS)
def test_a_budget_gives_the_axis_today_s_series_had_on_it(k):
    everything, transactions = _synthetic(5_000, 6, "all")
    samples = everything[~everything["label"].isin(transactions)]
    window = steady_window(samples, 0, 0)
    ts, ls = _expected(everything, transactions, window, None, budget=50)
    assert len(ts["t_s"]) <= 50 and ts["bucket_s"] > 60
    assert _by_blocks(everything, transactions, window, None, k, 1, budget=50) == (ts, ls)
    failed = classify(samples).notna().to_numpy()
    assert time_series(samples, failed, window, None, None, None, budget=50) == ts
    every_failed = classify(everything).notna().to_numpy()
    assert label_series(everything, every_failed, window, budget=50) == ls
    assert label_series(everything, every_failed, window, budget=50, top=3) == _reference_label_series(
        everything, every_failed, window, budget=50, top=3)


def test_series_labels_are_the_labels_with_most_rows_ties_by_label_a_null_label_as_empty():
    assert series_labels({"b": 3, "a": 3, "c": 5, "": 1, "d": 0}) == ("c", "a", "b", "")
    assert series_labels({"b": 3, "a": 3, "c": 5}, top=2) == ("c", "a")
    assert series_labels({}) == ()
    many = {f"L{i:03d}": 1 + i % 4 for i in range(100)}
    chosen = series_labels(many)
    assert len(chosen) == LABEL_SERIES_MAX and chosen[:3] == ("L003", "L007", "L011")


def test_accumulators_fed_nothing_give_empty_series():
    everything, transactions = _synthetic(100, 7, "all")
    window = steady_window(everything, 0, 0)
    frame = _frame(everything, transactions, window, 0)
    assert LabelSeriesAccumulator(frame).result() == {"rule": LABEL_SERIES_RULE, "labels": {}}
    out = TimeSeriesAccumulator(frame, 1).result(None, None)
    assert sum(out["throughput"]) == 0 and set(out["p50_ms"]) == {None} and set(out["active_threads"]) == {0.0}


def _held_bytes(obj, seen=None) -> int:
    """The bytes of every numpy array an accumulator holds (through its attributes, lists, dicts, histograms)."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, (list, tuple)):
        return sum(_held_bytes(v, seen) for v in obj)
    if isinstance(obj, dict):
        return sum(_held_bytes(v, seen) for v in obj.values())
    if isinstance(obj, (ExactHistogram, HistogramAccumulator, TimeSeriesAccumulator, LabelSeriesAccumulator)):
        return sum(_held_bytes(v, seen) for v in vars(obj).values())
    return 0


@pytest.mark.parametrize("all_threads", ["all", "none"])
def test_what_the_accumulators_hold_does_not_grow_with_the_rows(all_threads):
    everything, transactions = _synthetic(50_000, 8, all_threads)
    window = steady_window(everything, 0, 0)
    blocks = _blocks(everything, transactions, window, 5, 0)
    frame = _frame(everything, transactions, window, 5)
    ts, ls = TimeSeriesAccumulator(frame, 1), LabelSeriesAccumulator(frame)
    held = []
    for repeat in range(12):  # the same rows again and again: new counts, no new keys
        for block in blocks:
            ts.add(block)
            ls.add(block)
        held.append(_held_bytes(ts) + _held_bytes(ls))
    assert held[-1] <= 1.1 * held[1] and held[-1] < 8 * len(everything)  # not a byte per row fed
    once, twelve = _by_blocks(everything, transactions, window, 1, 1, 0)[0], ts.result(None, None)
    assert [round(t * 12 * once["bucket_s"]) for t in once["throughput"]] == [
        round(t * twelve["bucket_s"]) for t in twelve["throughput"]]


# ----- the oracle: series.py's functions before the accumulators, verbatim but for their names -----------------

def _reference_bucket_percentiles(bucket: np.ndarray, elapsed: np.ndarray, buckets: int, overwrite: bool = False) -> dict:
    """Exact nearest-rank percentiles of `elapsed` within each bucket (None for empty buckets).
    `overwrite`: `bucket` (int64) may be used as the keys' room (the caller is done with it).

    Both ways below key each sample by bucket·scale + (elapsed − low), which orders by bucket, then elapsed.
    Usually a count per (bucket, value) takes no more room than the samples: the counts, summed along each
    bucket, give every rank at once with no sorted copy of 5 M keys. Otherwise one sort of the keys."""
    if len(elapsed) == 0:
        return {key: [None] * buckets for key, _ in SERIES_PERCENTILES}
    low = min(0, int(elapsed.min()))  # a negative elapsed (clock step) must not borrow from the bucket
    scale = int(elapsed.max()) - low + 1
    combined = bucket if overwrite and bucket.dtype == np.int64 else bucket.astype(np.int64)
    combined *= scale
    combined += elapsed
    combined -= low
    out = {}
    if buckets * scale <= len(combined):
        cumulative = np.bincount(combined, minlength=buckets * scale).reshape(buckets, scale)
        del combined
        np.cumsum(cumulative, axis=1, out=cumulative)
        counts = cumulative[:, -1]
        for key, p in SERIES_PERCENTILES:
            rank = np.maximum(-(-counts * p // 100), 1)  # ceil(p·n/100) in integers
            value = (cumulative < rank[:, None]).sum(axis=1)  # the first value whose count reaches the rank
            out[key] = [float(v + low) if c else None for v, c in zip(value, counts)]
        return out
    combined.sort()
    # bucket k holds the keys in [k·scale, (k+1)·scale): its bounds are found on `combined` itself, and
    # elapsed is decoded only at the ranks picked (no full bucket and elapsed arrays: 80 MB at 5 M rows)
    bounds = np.searchsorted(combined, np.arange(buckets + 1, dtype=np.int64) * scale, side="left")
    starts, counts = bounds[:-1], np.diff(bounds)
    for key, p in SERIES_PERCENTILES:
        rank = np.maximum(-(-counts * p // 100), 1)
        idx = np.minimum(starts + rank - 1, len(combined) - 1)
        e = combined[idx] % scale + low
        out[key] = [float(v) if c else None for v, c in zip(e, counts)]
    return out


def _reference_bucketing(window: SteadyWindow, budget: int = POINT_BUDGET) -> tuple[int, int, int]:
    """(t0_ms, bucket_s, buckets): the time axis of a cell's series, shared by every series of the cell."""
    t0 = window.first_start_ms
    span_s = max(1, math.ceil((window.last_end_ms - t0 + 1) / 1000))
    bucket_s = max(1, math.ceil(span_s / budget))
    return t0, bucket_s, math.ceil(span_s / bucket_s)


def _reference_bucket_of(samples: pd.DataFrame, t0: int, bucket_s: int, buckets: int) -> np.ndarray:
    """Each sample's bucket by completion time (samples ending after the last bucket go into it)."""
    bucket = samples["end_ms"].to_numpy(dtype=np.int64) - t0  # then in place: one 8-byte-a-row array
    bucket //= 1000 * bucket_s
    np.clip(bucket, 0, buckets - 1, out=bucket)
    return bucket


def _reference_time_series(samples: pd.DataFrame, failed: np.ndarray, window: SteadyWindow, engines: int | None,
                server: pd.DataFrame | None, host: pd.DataFrame | None, budget: int = POINT_BUDGET) -> dict:
    """Series over the whole cell (warm-up and cool-down included, so the report can show what was trimmed).

    Time is seconds since the first sample's start; each point covers `bucket_s` seconds (1 unless the cell
    is longer than the budget), and rates are per second. Samples are placed by completion time, like X.
    """
    t0, bucket_s, buckets = _reference_bucketing(window, budget)
    bucket = _reference_bucket_of(samples, t0, bucket_s, buckets)
    counts = np.bincount(bucket, minlength=buckets)
    errors = np.bincount(bucket[failed], minlength=buckets)  # not weights: a float copy of every sample
    out = {
        "t0_ms": t0,
        "bucket_s": bucket_s,
        "window_start_s": (window.start_ms - t0) / 1000.0,
        "window_end_s": (window.end_ms - t0) / 1000.0,
        "t_s": [float(i * bucket_s) for i in range(buckets)],
        "throughput": (counts / bucket_s).tolist(),
        "errors": (errors / bucket_s).tolist(),
    }
    out |= _reference_bucket_percentiles(bucket, samples["elapsed_ms"].to_numpy(dtype=np.int64), buckets)
    if "response_code" in samples.columns:
        out["codes"] = _reference_response_codes(samples["response_code"], bucket, buckets, bucket_s)
    all_threads = samples["all_threads"]
    if all_threads.notna().any():
        # int32 with −1 for null (allThreads ≥ 0); np.maximum.at: 10× faster than a groupby, no copies
        peak = np.full(buckets, -1, dtype=np.int32)
        np.maximum.at(peak, bucket, all_threads.to_numpy(dtype=np.int32, na_value=-1))
        active = [None if v < 0 else float(v) * (engines or 1) for v in peak.tolist()]
        out["active_threads"] = active
    else:  # no allThreads column: threads that completed a sample in the bucket
        distinct = pd.Series(samples["thread"].astype("string").to_numpy()).groupby(bucket).nunique()
        out["active_threads"] = [float(distinct.get(i, 0)) for i in range(buckets)]
    out["in_flight"] = per_bucket_mean((server or {}).get("in_flight", ()), t0, bucket_s, buckets)
    out["busy_threads"] = per_bucket_mean((server or {}).get("busy_threads", ()), t0, bucket_s, buckets)
    out["load1"] = per_bucket_mean(frame_points(host, "load1"), t0, bucket_s, buckets)
    return out


def _reference_response_codes(codes: pd.Series, bucket: np.ndarray, buckets: int, bucket_s: int) -> dict:
    """{response code: samples per second}, the CODES_MAX most frequent codes (ties by code), then "other"
    for the rest and "none" for samples without a code (JMeter's "Codes per second")."""
    cat = codes.astype("category")
    index = cat.cat.codes.to_numpy().astype(np.int64)  # −1: no code; then in place: + 1
    index += 1
    names = [str(c) for c in cat.cat.categories]
    per_code = np.bincount(index, minlength=len(names) + 1)
    ranked = sorted((i for i in range(len(names)) if per_code[i + 1]), key=lambda i: (-per_code[i + 1], names[i]))
    slot = np.full(len(names) + 1, CODES_MAX, dtype=np.int64)  # slot per code (+1 for none): CODES_MAX = other
    for s, i in enumerate(ranked[:CODES_MAX]):
        slot[i + 1] = s
    slot[0] = CODES_MAX + 1
    key = slot[index]  # then in place: slot · buckets + bucket (one 8-byte-a-row temporary at a time)
    del index
    key *= buckets
    key += bucket
    counts = np.bincount(key, minlength=(CODES_MAX + 2) * buckets)
    counts = counts.reshape(CODES_MAX + 2, buckets) / bucket_s
    out = {names[i]: counts[s].tolist() for s, i in enumerate(ranked[:CODES_MAX])}
    for s, name in ((CODES_MAX, "other"), (CODES_MAX + 1, "none")):
        if counts[s].any():
            out[name] = counts[s].tolist()
    return out


def _reference_label_series(samples: pd.DataFrame, failed: np.ndarray, window: SteadyWindow, budget: int = POINT_BUDGET,
                 top: int = LABEL_SERIES_MAX) -> dict:
    """Per-label series (samples and errors per second, exact p50/p90/p99 per bucket) for the `top` labels
    with the most samples, on the same time axis as time_series: one pass keyed by (label rank, bucket).

    Bounded so that a JTL with thousands of labels keeps a small summary: top × buckets × 5 values."""
    from littlegrid.analysis.statistics.stats import count_codes, label_codes  # stats imports nothing from here: stays acyclic

    if len(samples) == 0:
        return {"rule": LABEL_SERIES_RULE, "labels": {}}
    t0, bucket_s, buckets = _reference_bucketing(window, budget)
    codes, names = label_codes(samples["label"])
    per_label = count_codes(codes, len(names))
    chosen = sorted(range(len(names)), key=lambda i: (-per_label[i], names[i]))[:top]
    rank = np.full(len(names), -1, dtype=np.int64)
    rank[chosen] = np.arange(len(chosen))
    key = rank[codes]  # then in place: rank · buckets + bucket
    elapsed = samples["elapsed_ms"].to_numpy(dtype=np.int64)
    if len(chosen) < len(names):  # only the chosen labels' rows (else every row, no copies)
        keep = key >= 0
        key, elapsed, failed = key[keep], elapsed[keep], failed[keep]
        key *= buckets
        key += _reference_bucket_of(samples, t0, bucket_s, buckets)[keep]
    else:
        key *= buckets
        key += _reference_bucket_of(samples, t0, bucket_s, buckets)
    width = len(chosen) * buckets
    counts = np.bincount(key, minlength=width).reshape(len(chosen), buckets) / bucket_s
    errors = np.bincount(key[failed], minlength=width).reshape(len(chosen), buckets) / bucket_s
    pct = _reference_bucket_percentiles(key, elapsed, width, overwrite=True)  # key's last use
    out = {}
    for r, i in enumerate(chosen):
        part = slice(r * buckets, (r + 1) * buckets)
        out[names[i]] = {"throughput": counts[r].tolist(), "errors": errors[r].tolist(),
                         **{k: v[part] for k, v in pct.items()}}
    return {"rule": LABEL_SERIES_RULE, "labels": out}
