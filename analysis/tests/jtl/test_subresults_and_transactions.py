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


def test_the_parents_carried_to_the_next_block_are_those_a_group_by_and_drop_duplicates_give():
    """latest_parents: per (label, thread) among the carried rows and this block's kept rows, the last row of its
    latest start, in the rows' order; against the pandas formulation it replaced, on random blocks with ties."""
    from littlegrid.jtl.assemble import PARENT_COLUMNS, _latest_of_each_pair, latest_parents

    def reference(table, keep, carried):  # the pandas code latest_parents had
        rows = np.flatnonzero(keep)
        chosen = rows[_latest_of_each_pair(table["label"].cat.codes.to_numpy()[rows],
                                           table["thread"].cat.codes.to_numpy()[rows],
                                           table["start_ms"].to_numpy()[rows])]
        mine = pd.DataFrame({"parent": table["label"].astype(str).to_numpy()[chosen],
                             "thread": table["thread"].astype(str).to_numpy()[chosen],
                             "start": table["start_ms"].to_numpy()[chosen], "parent_end": table["end_ms"].to_numpy()[chosen]})
        both = pd.concat([carried[PARENT_COLUMNS], mine], ignore_index=True)
        latest = both.groupby(["parent", "thread"], sort=False)["start"].transform("max").to_numpy() == both["start"]
        return both[latest].drop_duplicates(["parent", "thread"], keep="last").reset_index(drop=True)

    rng = np.random.default_rng(11)
    carried = pd.DataFrame({"parent": np.array([], object), "thread": np.array([], object),
                            "start": np.array([], np.int64), "parent_end": np.array([], np.int64)})
    for case in range(200):
        n = int(rng.integers(0, 200))
        start = rng.integers(case, case + 15, n).astype(np.int64)
        table = pd.DataFrame({"label": pd.Categorical(rng.choice(["a", "b", "a-1", None], n)),
                              "thread": pd.Categorical(rng.choice(["T 1-1", "T 1-2", "T 1-3"], n)),
                              "start_ms": start, "end_ms": start + rng.integers(0, 5, n)})
        keep = rng.random(n) < 0.9
        got = latest_parents(table, keep, carried)
        want = reference(table, keep, carried)
        pd.testing.assert_frame_equal(got, want, check_dtype=False, obj=f"case {case}")
        assert got["start"].dtype == np.int64 and got["parent_end"].dtype == np.int64
        carried = got
    assert len(carried) == 4 * 3  # a row for each label (a null one read "nan") and thread, however many blocks
