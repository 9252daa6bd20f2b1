"""CSV sub-result rows are not counted twice; Transaction Controller rows are named, their children kept."""

import numpy as np
import pandas as pd

from littlegrid.jtl import read_jtl
from littlegrid.jtl.assemble import SUBRESULT_REASON


def test_subresult_rows_inside_their_parent_in_the_same_thread_are_dropped_by_default(fixture):
    path = fixture("subresults-and-transactions.jtl")
    reading = read_jtl(path)
    samples = reading.samples
    # login-0/login-1 of Group 1-1 lie inside "login" of that thread; login-1 of Group 2-1 has no parent.
    assert samples.label.tolist() == ["login", "login-1", "Checkout-0", "Checkout-1", "Checkout", "report-2024"]
    assert samples.thread.iloc[1] == "Group 2-1"
    (skip,) = reading.rows_skipped
    assert skip.reason == SUBRESULT_REASON and skip.count == 2
    assert skip.first_lines == (f"{path}:3", f"{path}:4")
    assert any("2 sub-result rows" in w and "dropped" in w for w in reading.warnings)
    assert reading.rows_read == 8


def test_include_subsamples_keeps_subresult_rows_and_says_they_count_twice(fixture):
    reading = read_jtl(fixture("subresults-and-transactions.jtl"), include_subsamples=True)
    assert len(reading.samples) == 8
    assert reading.skipped_total == 0
    assert any("kept as asked" in w for w in reading.warnings)


def test_transaction_controller_rows_are_kept_and_named_and_their_children_are_not_subresults(fixture):
    reading = read_jtl(fixture("subresults-and-transactions.jtl"))
    assert reading.transaction_labels == frozenset({"Checkout"})
    requests = reading.samples[~reading.samples.label.isin(reading.transaction_labels)]
    assert requests.label.tolist() == ["login", "login-1", "Checkout-0", "Checkout-1", "report-2024"]
    assert any("1 Transaction Controller rows kept beside the samples they wrap" in w for w in reading.warnings)


def test_each_label_and_threads_latest_start_is_found_as_a_group_by_finds_it():
    """assemble's carried parents: per (label, thread), in order of first appearance, the first row of its latest
    start; a known answer, then the pandas group-by it replaces on random blocks with nulls, ties, a large product."""
    import importlib

    assemble_module = importlib.import_module("littlegrid.jtl.assemble")
    latest = assemble_module._latest_of_each_pair
    label = np.array([0, 1, 0, -1, 1, 0, 0], np.int8)
    thread = np.array([2, 2, 2, 0, 2, 2, 1], np.int16)
    start = np.array([5, 9, 7, 1, 9, 7, 3], np.int64)
    assert latest(label, thread, start).tolist() == [2, 1, 3, 6]  # (0,2): 7 first at 2; (1,2): 9 first at 1
    rng = np.random.default_rng(7)
    for case in range(300):
        n = int(rng.integers(0, 300))
        label = rng.integers(-1, int(rng.integers(1, 6)), n).astype(np.int8)
        thread = rng.integers(-1, 3000 if case % 50 == 0 else int(rng.integers(1, 8)), n).astype(np.int16)
        start = rng.integers(0, 20, n).astype(np.int64)
        pair = label.astype(np.int64) * (int(thread.max(initial=0)) + 2) + thread
        expected = pd.Series(start).groupby(pair, sort=False).idxmax().to_numpy() if n else []
        assert latest(label, thread, start).tolist() == list(expected), case
