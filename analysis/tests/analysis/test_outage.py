"""Outages (analysis/outage.py): a stretch in which no request succeeded is found from the JTL, the cell's figures
are those of the part before it, its status and reason say when it began and how long it lasted; a spike whose
failures interleave with successes is not one. Small real JTLs: one from a run whose sample server was SIGKILLed
mid-cell (fixtures/killed-server.jtl), and constructed ones written as JMeter writes them."""

from pathlib import Path

import numpy as np
import pytest

import littlegrid.summarize
import littlegrid.jtl
from analysis_synthetic import REFUSED, T0, TIMED_OUT, outcome_loop, table, write_jtl
from littlegrid.analysis.outage import AnsweredSeconds
from littlegrid.usererror import UserError

FIXTURES = Path(__file__).parent / "fixtures"


def _cell(tmp_path, samples, name="cell.jtl", warmup_s=2):
    summary = littlegrid.summarize.analyze([write_jtl(samples, tmp_path / name)], warmup_s=warmup_s, cooldown_s=0)
    return summary.cells[0]


def test_a_server_killed_mid_cell_is_an_outage_and_the_figures_are_those_before_it(tmp_path):
    # 20 ms requests, then from 12 s on refused at once: 5 threads with 50 ms think time fail at ~100/s
    samples = outcome_loop(5, 30, lambda t: (20, None) if t < 12_000 else (0, REFUSED))
    cell = _cell(tmp_path, samples)
    o = cell.outage
    assert o is not None and o.error_class == "connection_refused" and not o.recovered and o.figures == "before"
    assert 11.9 <= o.began_s <= 12.05 and 17.9 <= o.lasted_s <= 18.1
    assert o.failed == o.failed_by_class["connection_refused"] and 90 * 18 <= o.failed <= 100 * 18
    assert cell.status == "outage" and "outage 12.0 s into the cell, lasting 18.0 s (to the cell's end)" in cell.reason
    # the window ends where the outage began, the last success's end (inclusive): it counts the failures that
    # ended before (threads already refused while another's last request was in service); X is 5/(20+50 ms)
    assert cell.window.length_s == pytest.approx(o.began_s - 2, abs=0.05)
    last_success = samples.loc[samples["success"].astype(bool), "end_ms"].max()
    failed = samples.loc[~samples["success"].astype(bool), "end_ms"]
    assert cell.overall.errors == (failed <= last_success).sum() > 0 and o.failed == (failed > last_success).sum()
    assert cell.overall.throughput_per_s == pytest.approx(5 / 0.07, rel=0.03)


def test_a_hung_target_whose_requests_time_out_from_t_on_is_an_outage(tmp_path):
    cell = _cell(tmp_path, outcome_loop(5, 40, lambda t: (20, None) if t < 15_000 else (5_000, TIMED_OUT)))
    o = cell.outage
    assert o.error_class == "read_timeout" and 14.9 <= o.began_s <= 15.05 and not o.recovered
    assert o.failed == o.failed_by_class["read_timeout"] > 0
    assert cell.overall.errors == 0 and cell.overall.mean_ms == 20


def test_no_completion_for_a_stretch_then_recovery_is_an_outage_with_its_length(tmp_path):
    # requests started in [12 s, 20 s) hang and all complete, successfully, at 20 s; then the loop resumes
    cell = _cell(tmp_path, outcome_loop(5, 30, lambda t: (20, None) if not 12_000 <= t < 20_000 else (20_000 - t, None)))
    o = cell.outage
    assert o.recovered and o.failed == 0 and o.error_class is None and o.failed_per_s is None or o.failed == 0
    assert 11.9 <= o.began_s <= 12.05 and 7.9 <= o.lasted_s <= 8.1
    assert "until requests were answered again" in cell.reason and "no request completed" in cell.reason


def test_a_spike_past_the_connection_limits_with_failures_among_successes_is_not_an_outage(tmp_path):
    # 60 users, most connections refused at once, the rest served in 100 ms: failures interleave with successes
    rng = np.random.default_rng(3)
    cell = _cell(tmp_path, outcome_loop(60, 20, lambda t: (100, None) if rng.random() < 0.2 else (1, REFUSED), think_ms=0))
    assert cell.outage is None and cell.status == "complete"
    assert cell.overall.error_rate > 0.7


def test_every_request_failing_from_the_start_is_an_outage_with_no_figures(tmp_path):
    cell = _cell(tmp_path, outcome_loop(3, 10, lambda t: (0, REFUSED)))
    o = cell.outage
    assert o.began_s == 0 and o.figures == "none" and o.error_class == "connection_refused"
    assert o.failed == cell.reading.rows_read
    assert cell.overall is None and cell.window is None and "no figures" in cell.reason


def test_a_healthy_cell_has_no_outage(tmp_path):
    cell = _cell(tmp_path, outcome_loop(5, 20, lambda t: (20, None)))
    assert cell.outage is None and cell.status == "complete" and cell.reason is None


def test_answered_seconds_count_across_tables_in_any_order_and_keep_only_seconds_with_completions():
    # blocks arrive in file order, which need not be time order (several engines' files)
    late = outcome_loop(2, 30, lambda t: (20, None)).iloc[-50:]
    early = outcome_loop(2, 30, lambda t: (20, None)).iloc[:50]
    s = AnsweredSeconds()
    s.add(late)
    s.add(early)
    seconds = s.seconds()
    assert seconds["count"].sum() == 100 and seconds["first"].min() == int(early["end_ms"].min())
    assert seconds["last"].max() == int(late["end_ms"].max()) and seconds.index.is_monotonic_increasing
    # 27 s without a success, but nothing failed and nothing was in flight: the generator paused, as between two
    # sessions in one JTL; the server did not stop
    assert s.outage(int(early["start_ms"].min()), int(late["end_ms"].max())) is None
    assert seconds["failed"].sum() == 0 and seconds["earliest"].min() == int(early["start_ms"].min())
    assert len(seconds) == 4  # 50 samples of 2 threads every 70 ms, 1.75 s: 2 seconds at each end, none between


def test_a_tables_seconds_counted_by_bincount_are_its_seconds_grouped_row_by_row():
    # a block's rows span a few seconds, counted over their range; a block spanning years, grouped: either way
    # every second with completions, its answers' count, first and last end, failures and earliest start
    import pandas as pd

    from littlegrid.analysis.outage import NO_END, answered
    rng = np.random.default_rng(5)
    dense = outcome_loop(20, 40, lambda t: (int(rng.integers(1, 900)), None if rng.random() > 0.2 else REFUSED))
    sparse = dense.iloc[:200].copy()
    sparse.loc[sparse.index[::7], ["start_ms", "end_ms"]] -= 3 * 10**11  # a damaged clock, years before
    for rows in (dense, sparse):
        s = AnsweredSeconds()
        s.add(rows)
        ok, end = answered(rows), rows["end_ms"].to_numpy()
        expected = pd.DataFrame({"second": end // 1000, "count": ok.astype(np.int64),
                                 "first": np.where(ok, end, NO_END), "last": np.where(ok, end, -NO_END),
                                 "failed": (~ok).astype(np.int64), "earliest": rows["start_ms"].to_numpy()}
                                ).groupby("second").agg({"count": "sum", "first": "min", "last": "max",
                                                         "failed": "sum", "earliest": "min"})
        pd.testing.assert_frame_equal(s.seconds(), expected)
        assert s.seconds()["failed"].sum() > 0


def test_the_killed_sample_server_jtl_of_a_real_run():
    """A real cell (the CI grid's users=5, think_ms=50, 20 s) whose sample server got SIGKILL 10 s after JMeter
    started: 241 requests answered, then 1,070 refused and 5 reset at ~95/s, counted as samples, to the end."""
    cell = littlegrid.summarize.analyze([FIXTURES / "killed-server.jtl"]).cells[0]
    o = cell.outage
    assert (o.error_class, o.recovered, o.figures) == ("connection_refused", False, "before")
    assert o.failed_by_class == {"connection_refused": 1070, "connection_reset": 5} and o.failed == 1075
    assert o.began_s == 7.861 and o.lasted_s == 11.291 and o.failed_per_s == pytest.approx(95.2, abs=0.05)
    assert cell.status == "outage" and cell.reason.startswith("outage 7.9 s into the cell, lasting 11.3 s")
    assert (cell.overall.count, cell.overall.errors, cell.window.length_s) == (241, 0, 7.861)


def test_timestamps_years_apart_cost_two_seconds_of_memory_not_the_years_between(tmp_path):
    # a damaged timestamp (1 ms after 1970) beside a real one: the seconds between are never allocated
    path = tmp_path / "span.jtl"
    path.write_text("timeStamp,elapsed,label,responseCode,success\n1,20,a,200,true\n1700000000000,20,a,200,true\n")
    s = AnsweredSeconds()
    s.add(littlegrid.jtl.read_jtl(path).samples)
    assert list(s.seconds().index) == [0, 1_700_000_000] and s.outage(1, 1_700_000_000_020) is None


def test_a_jtl_spanning_decades_is_refused_in_one_line_not_counted_second_by_second(tmp_path):
    path = tmp_path / "span.jtl"
    path.write_text("timeStamp,elapsed,label,responseCode,success\n1,20,a,200,true\n1700000000000,20,a,200,true\n")
    with pytest.raises(UserError) as refused:
        littlegrid.summarize.analyze([path])
    assert str(refused.value) == (f"{path}: the samples span 19,676 days, more than 366 (a damaged timestamp?): no "
                                  "window is counted second by second")


def test_answered_reads_each_distinct_code_once_and_agrees_with_the_rule_row_by_row():
    # categorical codes (as the reader gives them) and plain strings: the same answer for every row, nulls,
    # padded codes, non-numeric messages, 5xx and 1xx-4xx among the failures
    import pandas as pd

    from littlegrid.analysis.outage import _ANSWER, answered
    rng = np.random.default_rng(3)
    n = 2000
    codes = rng.choice(["200", "404", " 302 ", "500", "503", "Non HTTP response code: java.net.ConnectException",
                        "", None, "499", "600", "101"], n)
    success = rng.random(n) < 0.6
    table = pd.DataFrame({"success": pd.array(success, dtype="boolean"),
                          "response_code": pd.Categorical(codes)})
    expected = success | np.array([c is not None and bool(_ANSWER.match(c)) for c in codes])
    assert answered(table).tolist() == expected.tolist()
    plain = table.assign(response_code=pd.array(codes, dtype="string"))
    assert answered(plain).tolist() == expected.tolist()
    assert 0 < int((~expected).sum()) < n - int(success.sum())  # some failures answered, some not
