"""Outages (analysis/steady/outage.py): a stretch in which no request succeeded is found from the JTL, the cell's figures
are those of the part before it, its status and reason say when it began and how long it lasted; a spike whose
failures interleave with successes is not one. Small real JTLs: one from a run whose sample server was SIGKILLed
mid-cell (fixtures/killed-server.jtl), and constructed ones written as JMeter writes them."""

from pathlib import Path

import numpy as np
import pytest

import littlegrid.summarize
import littlegrid.jtl
from analysis_synthetic import REFUSED, T0, TIMED_OUT, held, outcome_loop, service_loop, table, write_jtl
from littlegrid.analysis.steady.outage import AnsweredSeconds, Silences
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


def test_requests_held_for_8_s_then_all_answered_are_a_stall_not_an_outage(tmp_path):
    # requests started in [12 s, 20 s) hang and all complete, successfully, at 20 s; then the loop resumes. Nothing
    # failed: the server paused and answered every held request (once read as a recovered outage with no failure)
    samples = outcome_loop(5, 30, lambda t: (20, None) if not 12_000 <= t < 20_000 else (20_000 - t, None))
    cell = _cell(tmp_path, samples)
    assert cell.outage is None and cell.status == "complete" and cell.reason is None
    (s,) = cell.stalls
    assert 11.9 <= s.began_s <= 12.05 and 7.9 <= s.lasted_s <= 8.1 and s.in_window
    # held: in flight at its start (the last answer's end); the other threads were thinking then and started
    # while it lasted: they waited part of it (issue 62: counted as held, they made "R's p50 includes it" sayable)
    assert s.held >= 1 and s.held + s.joined == 5 and s.held_failed == 0
    assert 7_900 <= s.shortest_ms <= s.longest_ms <= 8_000 and s.joined_longest_ms <= s.longest_ms
    # the whole window (30 s less the 2 s warm-up) and every sample in it, the held ones included
    assert cell.window.length_s == pytest.approx(samples["end_ms"].max() / 1000 - T0 / 1000 - 2, abs=0.001)
    assert cell.overall.count == int((samples["end_ms"] >= T0 + 2000).sum()) and cell.overall.max_ms >= 7_900


def test_a_recovered_outage_counts_its_failures_and_keeps_the_window_whole(tmp_path):
    # the precedence bug this test once had (`a and b or c` asserted only c): every clause now stands alone.
    # 5 threads of 20 ms; requests in [12 s, 15 s) refused at once (then 50 ms think), answered again after
    failing = outcome_loop(5, 30, lambda t: (20, None) if not 12_000 <= t < 15_000 else (0, REFUSED))
    cell = _cell(tmp_path, failing)
    o = cell.outage
    refused = int((~failing["success"].astype(bool)).sum())
    assert o.recovered and o.figures == "whole" and o.error_class == "connection_refused"
    assert o.failed == o.failed_in_window == _failed_in(failing, o) and o.failed_per_s == o.failed / o.lasted_s
    assert 0 <= refused - o.failed <= 5  # those refused while the last answer before it was in service
    assert 11.9 <= o.began_s <= 12.05 and 2.9 <= o.lasted_s <= 3.1
    assert cell.overall.errors == refused and cell.window.length_s > 27
    assert "until requests were answered again" in cell.reason and f"{o.failed:,} requests failed" in cell.reason


def _failed_in(samples, o):
    """The failures of samples that completed inside the outage o: after the last answer before it (unless it
    began with the cell) and before the first answer after it (at or before the cell's end when none came)."""
    began = samples["start_ms"].min() + round(1000 * o.began_s)
    ended = began + round(1000 * o.lasted_s)
    end, failed = samples["end_ms"], ~samples["success"].astype(bool)
    return int((failed & (end > began) & ((end < ended) if o.recovered else (end <= ended))).sum())


def _stall_checks(tmp_path, samples, stalls, threads, warmup_s=2, name="stall.jtl"):
    """The cell of a loop with these stalls ((at s, lasted s) each): no outage, its whole window, every stall
    found with all its threads held, and the cell a point of its curve."""
    summary = littlegrid.summarize.analyze([write_jtl(samples, tmp_path / name)], warmup_s=warmup_s, cooldown_s=0)
    (cell,) = summary.cells
    assert cell.outage is None and cell.status == "complete", cell.reason
    first, last = samples["start_ms"].min(), samples["end_ms"].max()
    assert cell.window.start_ms == first + 1000 * warmup_s and cell.window.end_ms == last
    assert cell.overall.count == int((samples["end_ms"] >= first + 1000 * warmup_s).sum())
    service_s = samples["elapsed_ms"].median() / 1000
    # every thread caught: in flight at its start (held), or started while it lasted (joined) under think time
    assert [(s.held + s.joined, s.held_failed) for s in cell.stalls] == [(threads, 0)] * len(stalls)
    assert all(s.held >= 1 for s in cell.stalls)
    for s, (at, lasted) in zip(cell.stalls, stalls):  # from the last answer before `at` to the first after
        assert at - service_s <= s.began_s <= at and lasted <= s.lasted_s <= lasted + service_s, s
    assert any(cell.id in k.cells for k in summary.curves) and not [o for k in summary.curves for o in k.left_out]
    return cell


def test_a_2_5_s_pause_of_10_threads_at_60_s_of_300_s_is_a_stall_and_the_cell_keeps_its_whole_window(tmp_path):
    # issue 49: every request in flight at 60 s held until 62.5 s, then answered. It was read as an outage, and the
    # 240 s after it were dropped
    samples = service_loop(300, held(60_000, 62_500))
    cell = _stall_checks(tmp_path, samples, [(60, 2.5)], threads=10)
    assert cell.window.length_s == pytest.approx(298, abs=0.2) and cell.overall.count > 29_000
    assert 2_500 <= cell.stalls[0].longest_ms <= 2_600 and cell.overall.max_ms == cell.stalls[0].longest_ms


def test_a_stall_at_another_pool_and_service_time(tmp_path):
    # 4 threads of 250 ms with 50 ms think time, a 3 s pause at 40 s of 120 s
    samples = service_loop(120, held(40_000, 43_000), threads=4, service_ms=250, think_ms=50)
    _stall_checks(tmp_path, samples, [(40, 3.0)], threads=4)


def test_a_stall_near_the_cells_start(tmp_path):
    # requests in flight at 1 s held until 3.5 s: it overlaps the 2 s warm-up, which is trimmed as ever
    cell = _stall_checks(tmp_path, service_loop(60, held(1_000, 3_500)), [(1, 2.5)], threads=10)
    assert cell.stalls[0].in_window


def test_two_stalls_are_both_found_and_neither_cuts_the_window(tmp_path):
    first, second = held(30_000, 32_500), held(80_000, 83_000)
    _stall_checks(tmp_path, service_loop(120, lambda t, s: first(t, s) or second(t, s)), [(30, 2.5), (80, 3.0)],
                  threads=10)


def test_a_hang_that_ends_with_read_timeouts_is_a_recovered_outage_inside_the_whole_window(tmp_path):
    # requests in flight at 60 s held 10 s and then timed out (read timeout); then normal service again
    samples = service_loop(120, held(60_000, 70_000, TIMED_OUT))
    cell = _cell(tmp_path, samples)
    o = cell.outage
    assert cell.stalls == [] and cell.status == "outage"
    assert (o.recovered, o.figures, o.failed, o.failed_by_class) == (True, "whole", 10, {"read_timeout": 10})
    assert 59.9 <= o.began_s <= 60 and 10 <= o.lasted_s <= 10.2 and o.failed_in_window == 10
    assert cell.window.length_s == pytest.approx(samples["end_ms"].max() / 1000 - T0 / 1000 - 2, abs=0.001)
    assert o.before.count + o.after.count + 10 == cell.overall.count
    assert o.before.error_rate == 0 and o.after.error_rate == 0
    assert o.before.throughput_per_s == pytest.approx(100, rel=0.03)
    assert o.after.throughput_per_s == pytest.approx(100, rel=0.03)
    assert o.after.length_s == pytest.approx(cell.window.length_s - o.began_s + 2 - o.lasted_s, abs=0.01)


def test_ten_seconds_of_refused_connections_then_service_is_a_recovered_outage_with_both_parts(tmp_path):
    # issue 49: refused at once (then 49 ms before the next try) from 60 s to 70 s, 50 s of service after
    samples = service_loop(120, lambda t, s: (1, REFUSED, 49) if 60_000 <= t < 70_000 else None)
    cell = _cell(tmp_path, samples, warmup_s=0)
    o = cell.outage
    refused = int((~samples["success"].astype(bool)).sum())
    assert o.recovered and o.figures == "whole" and o.failed == o.failed_in_window == _failed_in(samples, o)
    assert 0 <= refused - o.failed <= 20 and 59.9 <= o.began_s <= 60.1 and 10 <= o.lasted_s <= 10.1
    assert cell.overall.count == cell.reading.samples == len(samples) and cell.reading.failed == refused
    assert refused / len(samples) == pytest.approx(0.15, abs=0.01)
    # the part before it holds the refusals that came while its last answer was in service
    assert o.before.length_s == pytest.approx(o.began_s, abs=0.001) and o.before.errors == refused - o.failed
    assert o.after.count == pytest.approx(5_000, rel=0.03) and o.after.errors == 0
    assert o.after.mean_ms == pytest.approx(100, rel=0.02)


def test_a_server_that_never_comes_back_ends_the_window_where_it_stopped(tmp_path):
    # refused from 60 s to the end of 120 s: the only outage that ends the window; the file's errors still counted
    samples = service_loop(120, lambda t, s: (1, REFUSED, 49) if t >= 60_000 else None)
    cell = _cell(tmp_path, samples)
    o = cell.outage
    refused = int((~samples["success"].astype(bool)).sum())
    assert (o.recovered, o.figures, o.after) == (False, "before", None) and o.failed == _failed_in(samples, o)
    assert cell.window.end_ms == T0 + round(1000 * o.began_s) and cell.window.length_s == pytest.approx(58, abs=0.2)
    assert o.before.length_s == cell.window.length_s and o.before.count == cell.overall.count
    assert (cell.reading.samples, cell.reading.failed) == (len(samples), refused)
    assert "never came back" in cell.reason


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
    assert s.silences(int(early["start_ms"].min()), int(late["end_ms"].max())) == Silences()
    assert seconds["failed"].sum() == 0 and seconds["earliest"].min() == int(early["start_ms"].min())
    assert len(seconds) == 4  # 50 samples of 2 threads every 70 ms, 1.75 s: 2 seconds at each end, none between


def test_a_tables_seconds_counted_by_bincount_are_its_seconds_grouped_row_by_row():
    # a block's rows span a few seconds, counted over their range; a block spanning years, grouped: either way
    # every second with completions, its answers' count, first and last end, failures and earliest start
    import pandas as pd

    from littlegrid.analysis.steady.outage import NO_END, answered
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
                                 "failed": (~ok).astype(np.int64), "failed_first": np.where(ok, NO_END, end),
                                 "failed_last": np.where(ok, -NO_END, end), "earliest": rows["start_ms"].to_numpy()}
                                ).groupby("second").agg({"count": "sum", "first": "min", "last": "max",
                                                         "failed": "sum", "failed_first": "min", "failed_last": "max",
                                                         "earliest": "min"})
        pd.testing.assert_frame_equal(s.seconds(), expected)
        assert s.seconds()["failed"].sum() > 0


def test_the_killed_sample_server_jtl_of_a_real_run():
    """A real cell (the CI grid's users=5, think_ms=50, 20 s) whose sample server got SIGKILL 10 s after JMeter
    started: 241 requests answered, then 1,070 refused and 5 reset at ~95/s, counted as samples, to the end."""
    cell = littlegrid.summarize.analyze([FIXTURES / "killed-server.jtl"]).cells[0]
    o = cell.outage
    assert (o.error_class, o.recovered, o.figures) == ("connection_refused", False, "before")
    assert (cell.reading.samples, cell.reading.failed) == (1316, 1075) and o.before.count == 241
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
    assert list(s.seconds().index) == [0, 1_700_000_000] and s.silences(1, 1_700_000_000_020) == Silences()


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

    from littlegrid.analysis.steady.outage import _ANSWER, answered
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


def test_a_server_that_recovers_once_then_dies_ends_the_window_where_it_died(tmp_path):
    # refused 20-25 s, answered again, refused from 60 s to the end: the death is the outage recorded (it ends the
    # window); the first, recovered one stays inside the window, its failures among the window's errors
    samples = service_loop(90, lambda t, s: (1, REFUSED, 49) if 20_000 <= t < 25_000 or t >= 60_000 else None)
    cell = _cell(tmp_path, samples)
    o = cell.outage
    assert (o.recovered, o.figures) == (False, "before") and 59.9 <= o.began_s <= 60.1
    assert cell.window.end_ms == T0 + round(1000 * o.began_s)
    # both are recorded (issue 62: only one was): the first, recovered, with its own failures by class
    first_outage, death = cell.outages
    assert death == o and first_outage.recovered and 19.9 <= first_outage.began_s <= 20.1
    assert 4.9 <= first_outage.lasted_s <= 5.1 and first_outage.failed == first_outage.failed_by_class[
        "connection_refused"] > 0 and first_outage.before is None and first_outage.figures == "whole"
    first = int(((~samples["success"].astype(bool)) & (samples["start_ms"] < T0 + 25_000)).sum())
    assert cell.overall.errors >= first > 900 and o.before.errors == cell.overall.errors
