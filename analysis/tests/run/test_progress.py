"""Progress: JMeter's summariser lines parsed, live totals, and the expected time learnt from finished cells."""

from littlegrid.run.progress import JMETER_START_S, SERVER_START_S, Clock, Live, hms, parse_summary

INTERVAL = "summary +    187 in 00:00:05 =   35.7/s Avg:     3 Min:     1 Max:    10 Err:     2 (1.07%) Active: 2 Started: 2 Finished: 0"
TOTAL = "summary =   1234 in 00:01:12 =   17.1/s Avg:     3 Min:     1 Max:    42 Err:     5 (0.41%)"


def test_interval_and_cumulative_lines_are_told_apart():
    i, t = parse_summary(INTERVAL), parse_summary(TOTAL)
    assert (i.cumulative, i.count, i.seconds, i.rate_per_s, i.errors) == (False, 187, 5, 35.7, 2)
    assert (t.cumulative, t.count, t.seconds, t.rate_per_s, t.errors) == (True, 1234, 72, 17.1, 5)


def test_other_console_lines_are_not_summaries():
    assert parse_summary("Creating summariser <summary>") is None
    assert parse_summary("Tidying up ...    @ 2026 Nov 22 12:29:55 UTC (1795350595501)") is None
    assert parse_summary(INTERVAL.replace("summary", "other")) is None


def test_live_totals_add_intervals_until_the_first_cumulative_line_then_follow_it():
    live = Live()
    assert live.text() == "waiting for the first summary"
    live.feed(INTERVAL)
    live.feed(INTERVAL)
    assert live.totals == (374, 4) and live.rate_per_s == 35.7
    live.feed(TOTAL)
    assert live.totals == (1234, 5)
    live.feed(INTERVAL)  # an interval after a total: the total plus what came since
    assert live.totals == (1421, 7)
    assert "X 35.7/s" in live.text() and "errors 7 (0.49%)" in live.text()


def test_expected_time_is_durations_plus_an_overhead_learnt_from_the_cells_done():
    clock = Clock([30.0, 30.0, 30.0], server_starts=0)
    assert clock.expected_total() == 90 + 3 * JMETER_START_S
    clock.cell_done(30.0, took_s=36.0)
    assert clock.expected_total() == 60 + 2 * 6.0
    clock.cell_skipped(30.0)
    assert clock.expected_total() == 30 + 6.0


def test_a_server_start_is_first_guessed_with_its_warm_up_then_measured():
    clock = Clock([30.0], server_starts=2, server_warmup_s=30.0)
    assert clock.expected_total() == 30 + JMETER_START_S + 2 * (SERVER_START_S + 30.0)
    clock.server_started(took_s=50.0)  # the measured time holds the warm-up
    assert clock.expected_total() == 30 + JMETER_START_S + 50.0


def test_hms_reads_like_a_clock():
    assert hms(5) == "0:05" and hms(125.4) == "2:05" and hms(3725) == "1:02:05"
