"""CSV sub-result rows are not counted twice; Transaction Controller rows are named, their children kept."""

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
