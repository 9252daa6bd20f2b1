"""Samples that overlap within a thread (Transaction Controller rows, parallel or embedded requests, sub-results):
think time and the closed law run on the outermost samples, or do not apply; never a negative think time."""

import csv
from pathlib import Path

import pandas as pd
import pytest

from analysis_synthetic import JMETER_COLUMNS, T0, clock_stepped, closed_loop, started_early, table
from littlegrid.analysis.steady.window import steady_window
from littlegrid.analysis.workload.clock_steps import STEP_MAX_MS
from littlegrid.analysis.workload.think_gaps import RULE_EVERY, RULE_NONE, RULE_OUTERMOST, realised_gaps, think_sequence
from littlegrid.analysis.workload.think_time import think_time_stats
from littlegrid.summarize import analyze

TRANSACTION_MESSAGE = "Number of samples in transaction : 3, number of failing samples : 0"


def write_jtl(path, rows):
    """rows: (start, elapsed, label, thread, message, idle) in the order JMeter writes them."""
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(JMETER_COLUMNS)
        for start, elapsed, label, thread, message, idle in rows:
            transaction = message.startswith("Number of samples")
            out.writerow([start, elapsed, label, 200, message, thread, "" if transaction else "text", "true", "",
                          100, 50, 4, 4, "null" if transaction else "http://127.0.0.1/", elapsed, idle, 0])
    return path


def transaction_jtl(path, threads=4, iterations=60, think_ms=300):
    """Each thread: a transaction of A (100 ms), a 10 ms timer, B (50 ms), a 10 ms timer, C (30 ms), written
    after C with A's start, elapsed 180 ms and IdleTime 20 ms (JMeter without "generate parent sample", timers
    excluded); then `think_ms` before the next transaction. So Z from the transaction rows is 20 + think_ms."""
    rows = []
    for t in range(threads):
        now = T0 + t * 37
        for _ in range(iterations):
            a, b, c = now, now + 110, now + 170
            rows += [(a, 100, "A", f"TG 1-{t + 1}", "OK", 0), (b, 50, "B", f"TG 1-{t + 1}", "OK", 0),
                     (c, 30, "C", f"TG 1-{t + 1}", "OK", 0),
                     (a, 180, "Transaction", f"TG 1-{t + 1}", TRANSACTION_MESSAGE, 20)]
            now += 200 + think_ms
    rows.sort(key=lambda r: r[0] + r[1] + r[5])  # one file, rows as they ended (ties keep the parent last)
    return write_jtl(path, rows)


def sequence_of(rows, threads=1, transactions=frozenset()):
    samples = table([(s, e, th) for s, e, th, *_ in rows], threads)
    samples = samples.assign(idle_ms=pd.array([r[3] if len(r) > 3 else 0 for r in
                                               sorted(rows, key=lambda r: r[0])], dtype="Int64"))
    return think_sequence(samples, steady_window(samples, 0, 0), transactions=transactions)


def test_a_transaction_wrapping_3_samplers_gives_exactly_the_think_time_between_transactions(tmp_path):
    users, k, think = 4, 60, 300
    cell = analyze([transaction_jtl(tmp_path / "tx.jtl", users, k, think)]).cells[0]
    t = cell.think_time
    assert t.sequence.rule == RULE_OUTERMOST
    assert t.sequence.transaction_rows == users * k and t.sequence.contained == 3 * users * k
    assert t.sequence.partial_overlaps == 0
    assert t.gaps == users * (k - 1)
    assert t.mean_ms == think + 20 and t.sd_ms == 0 and t.negative_gaps == 0  # the inner timers are think time
    assert t.sequence.mean_ms == 180  # R of the transactions
    assert t.sequence.text == (f"think time from the outermost samples: {users * k} transaction rows and 0 other "
                                     f"outermost samples wrap {3 * users * k} samples; 0 partial overlaps")
    law = next(c for c in cell.checks if c.name == "closed_law")
    assert law.passed is True and law.value == pytest.approx(users, rel=0.02)
    assert "outermost samples" in law.explanation
    assert cell.overall.count == 3 * users * k  # X and R still count the requests, not the transactions
    assert cell.reading.transaction_rows_excluded == users * k


def test_before_the_rule_the_same_file_gave_negative_think_time(tmp_path):
    # the gaps between the samples as they are: the transaction row starts with A (A ends 100 ms into the
    # transaction's 180) and B starts before it ends (70 ms before): two negative gaps an iteration
    path = transaction_jtl(tmp_path / "tx.jtl", 2, 10)
    from littlegrid.jtl import read_jtl
    samples = read_jtl(str(path)).samples
    gaps = realised_gaps(samples, steady_window(samples, 0, 0))
    assert (gaps["gap_ms"] < 0).sum() == 2 * 2 * 10 and think_time_stats(gaps)["mean_ms"] < 80


def test_parallel_requests_are_counted_and_think_time_and_the_closed_law_do_not_apply(tmp_path):
    rows = []
    for t in range(3):
        now = T0 + t * 11
        for _ in range(20):  # two requests of 100 ms, the second sent 40 ms after the first
            rows += [(now, 100, "main", f"TG 1-{t + 1}", "OK", 0), (now + 40, 100, "side", f"TG 1-{t + 1}", "OK", 0)]
            now += 400
    summary = analyze([write_jtl(tmp_path / "parallel.jtl", sorted(rows, key=lambda r: r[0] + r[1]))])
    cell = summary.cells[0]
    seq = cell.think_time.sequence
    assert seq.rule == RULE_NONE and seq.partial_overlaps == 3 * 20 and seq.successive_pairs == 3 * 39
    assert seq.text == "does not apply: samples overlap within threads (60 of 117 successive samples)"
    assert cell.think_time.mean_ms is None and cell.think_time.gaps == 0
    assert cell.think_time.negative_gaps == 0 and cell.think_time.histogram.counts == []
    law = next(c for c in cell.checks if c.name == "closed_law")
    assert law.passed is None and law.explanation == "does not apply: " + seq.text[len("does not apply: "):]
    assert all(k.models.bounds is None for k in summary.curves)  # no Z, no bound drawn with a made-up one
    assert all(c.name != "throughput_bound" or c.passed is None for c in cell.checks)


def test_without_overlaps_the_figures_are_those_of_the_samples_as_they_are(tmp_path):
    samples = closed_loop(10, 100, 50, duration_s=20)
    window = steady_window(samples, 2, 1)
    seq = think_sequence(samples, window)
    assert seq.rule == RULE_EVERY and seq.contained == 0 and seq.partial_overlaps == 0
    pd.testing.assert_frame_equal(seq.gaps, realised_gaps(samples, window))
    jtl = write_jtl(tmp_path / "loop.jtl", [(s, e, "GET /", th, "OK", 0) for s, e, th in
                                            samples[["start_ms", "elapsed_ms", "thread"]].itertuples(index=False)])
    cell = analyze([jtl], warmup_s=2, cooldown_s=1).cells[0]
    o, t = cell.overall, cell.think_time
    law = next(c for c in cell.checks if c.name == "closed_law")
    assert t.mean_ms == 50 and t.sequence.rule == RULE_EVERY
    assert law.value == o.throughput_per_s * ((o.mean_ms + t.mean_ms) / 1000.0)  # X and R as reported
    assert "outermost" not in law.explanation


def test_a_child_written_before_its_parent_with_the_same_start_is_contained_not_an_overlap():
    seq = sequence_of([(0, 10, "a"), (12, 10, "a"), (0, 22, "a"), (100, 5, "a")])  # file order irrelevant here
    assert (seq.rule, seq.contained, seq.partial_overlaps) == (RULE_OUTERMOST, 2, 0)
    assert seq.gaps["gap_ms"].tolist() == [78]


def test_a_sampler_ending_in_the_idle_tail_of_its_transaction_is_contained():
    # the transaction's elapsed (100) leaves out its 30 ms of timers; its last sampler ends at 125
    seq = sequence_of([(0, 40, "a"), (70, 55, "a"), (0, 100, "a", 30), (200, 10, "a")])
    assert (seq.rule, seq.contained, seq.partial_overlaps) == (RULE_OUTERMOST, 2, 0)
    assert seq.gaps["gap_ms"].tolist() == [100]  # from the transaction's end (0 + 100): its timers are think time


def test_one_millisecond_of_overlap_is_rounding_and_two_are_an_overlap_unless_jmeters_clock_explains_them():
    rounding = sequence_of([(0, 10, "a"), (9, 10, "a"), (40, 10, "a")])
    assert rounding.rule == RULE_EVERY and rounding.clock_steps is None
    once = sequence_of([(0, 10, "a"), (8, 10, "a"), (40, 10, "a")])  # one instant: a step of JMeter's clock
    assert (once.rule, once.partial_overlaps, once.clock_steps.pairs) == (RULE_EVERY, 0, 1)
    assert once.gaps["gap_ms"].tolist() == [-2, 22]  # taken as written
    # 2 ms every 100 ms of a 20 s thread: 200 instants, while JMeter re-measured its clock 5 times
    seq = sequence_of([row for i in range(200) for row in ((100 * i, 10, "a"), (100 * i + 8, 10, "a"))])
    assert (seq.rule, seq.partial_overlaps, seq.successive_pairs, seq.clock_steps) == (RULE_NONE, 200, 399, None)


def test_identical_spans_keep_one_sample_and_threads_do_not_contain_each_other():
    seq = sequence_of([(0, 10, "a"), (0, 10, "a"), (0, 50, "b"), (5, 10, "b"), (20, 10, "a"), (60, 5, "b")], 2)
    assert (seq.rule, seq.contained, seq.partial_overlaps) == (RULE_OUTERMOST, 2, 0)
    assert sorted(seq.gaps["gap_ms"].tolist()) == [10, 10]


def test_an_overlap_is_measured_from_the_ends_of_the_samples_not_an_idle_time_counted_twice():
    # nested transactions: the outer one's IdleTime counts the inner timers twice, its span reaching 2 ms past
    # the sampler it wraps; the next iteration starting there is not an overlap
    seq = sequence_of([(0, 50, "a"), (0, 60, "a", 10), (0, 60, "a", 22), (80, 50, "a"), (80, 60, "a", 10)])
    assert (seq.rule, seq.partial_overlaps) == (RULE_OUTERMOST, 0)


@pytest.mark.parametrize("name, rule, partial", [
    ("karang-tc-commas.jtl", RULE_OUTERMOST, 0),  # 25 transaction rows, a parallel parent, sub-results
    ("perfplugin-filewithtransactions.csv", RULE_OUTERMOST, 0),  # nested transactions
    ("cedric-asserts-csv-content.xml", RULE_OUTERMOST, 0),  # embedded resources inside transactions
    ("apache-sample_log1.jtl", RULE_NONE, 2475),  # samples of one thread name overlapping at random
    ("shnyr-cyrillic.jtl", RULE_EVERY, 0),
])
def test_real_files_say_which_rule_and_never_carry_a_negative_think_time(corpus, name, rule, partial):
    cell = analyze([corpus / name]).cells[0]
    t = cell.think_time
    assert (t.sequence.rule, t.sequence.partial_overlaps) == (rule, partial)
    assert t.mean_ms is None or t.mean_ms > 0
    assert t.histogram.edges_ms[:1] in ([], [0.0], [-1.0]) or t.histogram.edges_ms[0] > 0


def test_a_bare_jtl_whose_threads_come_and_go_in_the_window_gets_no_closed_law_failure(tmp_path):
    # half the 20 threads stop halfway: 15 active on average of 20 seen; a run folder would fail the law
    samples = closed_loop(20, 100, 100, duration_s=30, stop_s=lambda i: 15 if i >= 10 else 30)
    jtl = write_jtl(tmp_path / "ramp.jtl", [(s, e, "GET /", th, "OK", 0) for s, e, th in
                                            samples[["start_ms", "elapsed_ms", "thread"]].itertuples(index=False)])
    cell = analyze([jtl]).cells[0]
    assert cell.think_time.sequence.active_threads == pytest.approx(15, rel=0.01)
    law = next(c for c in cell.checks if c.name == "closed_law")
    assert law.passed is None and law.explanation.startswith(
        "does not apply: the number of active threads changes inside the window (20 threads seen, 14.9 active")  # 15, less the last cycle of each stopped thread
    steady = write_jtl(tmp_path / "steady.jtl", [(s, e, "GET /", th, "OK", 0) for s, e, th in closed_loop(
        20, 100, 100, duration_s=30)[["start_ms", "elapsed_ms", "thread"]].itertuples(index=False)])
    law = next(c for c in analyze([steady]).cells[0].checks if c.name == "closed_law")
    assert law.passed is True


def test_a_multi_step_plans_per_request_think_time_is_not_judged_on_its_transactions_gaps(tmp_path):
    """Two requests of 20 ms with 50 ms of think before each, wrapped by one transaction per iteration: the threads'
    successive outermost samples are the transactions, whose gaps (50 ms) are not the per-request think time asked
    (50 ms before each request, one of them inside the transaction), so fidelity does not apply; the closed law still
    holds on the transactions."""
    import pandas as pd

    from analysis_synthetic import make_run, table
    from littlegrid.summarize import analyze
    from littlegrid.jtl.schema import TRANSACTION_MESSAGE_PREFIX

    requests, transactions = [], []
    for i in range(4):
        t = 1_700_000_000_000 + 30 * i
        while t < 1_700_000_000_000 + 30_000:
            t += 50  # think before the first request
            first = (t, 20, f"Thread Group 1-{i + 1}")
            t += 20 + 50  # the first request, then the think before the second
            second = (t, 20, f"Thread Group 1-{i + 1}")
            t += 20
            requests += [first, second]
            transactions.append((first[0], t - first[0], f"Thread Group 1-{i + 1}"))
    req = table(requests, 4, label="step")
    tx = table(transactions, 4, label="Checkout")
    tx["response_message"] = pd.array([f"{TRANSACTION_MESSAGE_PREFIX} : 2, number of failing samples : 0"] * len(tx),
                                      dtype="string")
    tx["url"] = pd.array(["null"] * len(tx), dtype="string")
    samples = pd.concat([req, tx]).sort_values("start_ms", kind="stable").reset_index(drop=True)
    run = make_run(tmp_path / "run", [{"id": "users=4", "axes": {"users": 4}, "samples": samples, "users": 4,
                                       "think_ms": 50, "think_dist": "constant"}])
    cell = analyze([run]).cells[0]
    checks = {c.name: c for c in cell.checks}
    assert cell.think_time.sequence.rule == "outermost samples"
    for name in ("think_time", "workload"):
        assert checks[name].passed is None and checks[name].explanation.startswith("does not apply: the think time "
                                                                                    "asked for (50 ms) is per request")
    assert checks["closed_law"].passed  # N = X·(R+Z) on the transactions: 4 = (1/140 ms)·4·(90 + 50) ms


def test_a_plans_setup_and_teardown_groups_are_no_part_of_the_load_and_their_rows_are_left_out(tmp_path):
    """A user's plan with a setUp group (one thread logging in 40 s before the load) and a tearDown group: its rows
    would start the steady window 40 s early and count as samples; the cell manifest names those groups, and the
    analysis leaves their rows out, saying how many."""
    import json

    import pandas as pd

    from analysis_synthetic import T0, closed_loop, make_run, table
    from littlegrid.summarize import analyze

    load = closed_loop(4, 20, 80, 30, start_ms=T0 + 40_000)
    setup = table([(T0 + 1000 * i, 500, "setUp Thread Group 1-1") for i in range(5)], 1, label="login")
    teardown = table([(T0 + 75_000, 300, "tearDown Thread Group 3-1")], 1, label="logout")
    samples = pd.concat([setup, load, teardown]).sort_values("start_ms", kind="stable").reset_index(drop=True)
    run = make_run(tmp_path / "run", [{"id": "users=4", "axes": {"users": 4}, "samples": samples, "users": 4,
                                       "think_ms": 80, "think_dist": "constant"}])
    manifest = run / "cells" / "users=4" / "manifest.json"
    # negative control: without the groups named, their rows start the window 35 s before the load (MSER, looking
    # over the whole series, finds its minimum in the load itself, the second half, the login and the silence a
    # transient beyond noise: never settled, only the floor trimmed)
    unnamed = analyze([run]).cells[0]
    assert unnamed.window.start_ms < T0 + 40_000 and not unnamed.window.warmup_settled
    manifest.write_text(json.dumps(json.loads(manifest.read_text())
                                   | {"setup_groups": ["setUp Thread Group", "tearDown Thread Group"]}))
    cell = analyze([run]).cells[0]
    assert cell.window.start_ms >= T0 + 40_000  # the window starts with the load, not with the setUp group
    assert cell.overall.count <= len(load) and "login" not in cell.labels and "logout" not in cell.labels
    assert any(w.startswith("6 rows of the thread groups setUp Thread Group, tearDown Thread Group") for w in cell.warnings)
    assert {c.name: c for c in cell.checks}["closed_law"].passed  # N = X·(R+Z) of the load alone


FIXTURES = Path(__file__).parent / "fixtures"


def test_a_real_run_whose_clock_stepped_back_6_ms_keeps_its_think_time_and_closed_law():
    # JMeter 5.6.3, 20 users without think time against 2 Tomcat threads on a busy host (the CI run of session
    # 18): each thread's first sample took JMeter's first clock offset, its second the re-measurement, 3-6 ms
    # lower; so 16 threads' second samples start 3-6 ms before their first ended, all across one instant
    cell = analyze([FIXTURES / "clock-step.jtl"], warmup_s=3, cooldown_s=1).cells[0]
    seq = cell.think_time.sequence
    assert seq.rule == RULE_EVERY and seq.partial_overlaps == 0
    assert seq.clock_steps.model_dump() == {"pairs": 16, "instants": 1, "re_measurements": 5, "largest_ms": 6}
    assert "16 samples started up to 6 ms before the previous one of their thread ended" in seq.text
    law = next(c for c in cell.checks if c.name == "closed_law")
    assert law.passed is True and law.value == pytest.approx(20, rel=law.tolerance)


def test_steps_of_jmeters_clock_across_every_thread_are_not_overlaps():
    samples = clock_stepped(clock_stepped(closed_loop(20, 50, 0, duration_s=30), T0 + 10_000, -4), T0 + 21_000, -3)
    window = steady_window(samples, 2, 1)
    seq = think_sequence(samples, window)
    assert (seq.rule, seq.partial_overlaps, seq.clock_steps.pairs) == (RULE_EVERY, 0, 40)
    assert seq.clock_steps.instants(window.first_start_ms, window.last_end_ms) == 2
    assert sorted(seq.gaps["gap_ms"].unique().tolist()) == [-4, -3, 0]
    assert seq.as_dict(window)["clock_steps"] == {"pairs": 40, "instants": 2, "re_measurements": 7, "largest_ms": 4}


def test_the_same_small_overlaps_at_each_threads_own_instants_are_the_samples_own():
    # 4 ms, as the steps above, but 5 samples of each thread start early at times of their own: 100 instants
    samples = started_early(closed_loop(20, 50, 0, duration_s=30), every=120, by_ms=4)  # 600 samples a thread
    seq = think_sequence(samples, steady_window(samples, 2, 1))
    assert (seq.rule, seq.partial_overlaps, seq.clock_steps) == (RULE_NONE, 100, None)


def test_a_step_larger_than_a_clocks_is_an_overlap():
    samples = clock_stepped(closed_loop(20, 50, 0, duration_s=30), T0 + 10_000, -(STEP_MAX_MS + 1))
    seq = think_sequence(samples, steady_window(samples, 2, 1))
    assert (seq.rule, seq.partial_overlaps, seq.clock_steps) == (RULE_NONE, 20, None)


def test_a_clock_step_between_outermost_samples_is_not_a_partial_overlap():
    # each iteration: a 30 ms sample wrapping a 10 ms one that starts with it, the next iteration at its end
    rows = [(T0 + 30 * i + (-3 if i >= 50 else 0), e, f"t{t}") for t in range(4) for i in range(100) for e in (30, 10)]
    seq = sequence_of(rows, threads=4)
    assert (seq.rule, seq.partial_overlaps, seq.contained) == (RULE_OUTERMOST, 0, 400)
    assert seq.clock_steps.pairs == 4 and seq.gaps["gap_ms"].min() == -3
    spread = [(T0 + 30 * i - (3 if i % 10 == 5 else 0), e, f"t{t}") for t in range(4) for i in range(100)
              for e in (30, 10)]
    seq = sequence_of(spread, threads=4)
    assert (seq.rule, seq.partial_overlaps, seq.clock_steps) == (RULE_NONE, 40, None)
