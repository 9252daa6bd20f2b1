"""Think time of a cell fed block by block (ThinkTimeAccumulator: one block in memory, more spilled to partition
files by thread) gives what think_sequence and think_time_stats give on the whole table, as cell._think_time
computes them: the same rule, counters, gaps and figures whatever the blocks and partitions."""

import dataclasses
import gc
import math
import tempfile

import numpy as np
import pandas as pd
import pytest

from analysis_synthetic import T0, clock_stepped, closed_loop, started_early, table
from littlegrid.analysis.reading.error_classes import classify
from littlegrid.analysis.statistics.rowblock import Block, Frame
from littlegrid.analysis.steady.window import steady_window, window_mask
from littlegrid.analysis.workload import think_blocks, think_time
from littlegrid.analysis.workload.think_gaps import RULE_EVERY, RULE_NONE, RULE_OUTERMOST, think_sequence, thread_keys
from littlegrid.analysis.workload.think_moments import GapSummary
from littlegrid.analysis.workload.think_time import ThinkTimeAccumulator, gap_stats, think_time_stats
from littlegrid.jtl import read_jtl


def whole_table(samples, window, transactions, dist, offset) -> dict:
    """cell._think_time's figures: the in-memory path on every row."""
    seq = think_sequence(samples, window, thread_keys(samples), transactions)
    gaps = seq.gaps if seq.gaps is not None else pd.DataFrame({"key": [], "gap_ms": [], "cycle_ms": []},
                                                              dtype=np.int64)
    return think_time_stats(gaps, dist, offset) | {"sequence": seq.as_dict(window)}


def blocks_of(samples, window, transactions, k, seed):
    """(frame, blocks): the table cut into k row-contiguous blocks at random places."""
    n = len(samples)
    cuts = np.sort(np.random.default_rng(seed).choice(np.arange(1, n), k - 1, replace=False)) if k > 1 else []
    keys = thread_keys(samples)  # global thread ids, sliced per block
    frame = Frame(window=window, transactions=transactions, series_labels=(), rows=n, blocks=k)
    blocks = []
    for lo, hi in zip([0, *cuts], [*cuts, n]):
        part = samples.iloc[lo:hi]
        is_transaction = part["label"].isin(transactions).to_numpy()
        blocks.append(Block(everything=part, is_transaction=is_transaction,
                            samples=part[~is_transaction] if transactions else part, classes=classify(part),
                            types=None, keys=keys[lo:hi], in_window=window_mask(part, window)))
    return frame, blocks


def accumulated(samples, window, transactions, dist, offset, k, seed=0) -> dict:
    frame, blocks = blocks_of(samples, window, transactions, k, seed)
    accumulator = ThinkTimeAccumulator(frame, dist, offset)
    for block in blocks:
        accumulator.add(block)
    return accumulator.result()


def assert_same(got, want, where="think_time"):
    """Every figure equal, floats too: sd_ms, cv and cycle_cv come from exact sums (think_moments.Moments)."""
    if isinstance(want, dict):
        assert got.keys() == want.keys(), where
        for key in want:
            assert_same(got[key], want[key], f"{where}.{key}")
    else:
        assert got == want, where


def partitions_only(monkeypatch):
    """The blocks' own measure (SlicedSequence as they come) dropped: result() measures the spilled partitions."""
    monkeypatch.setattr(ThinkTimeAccumulator, "_run", lambda self, rows: setattr(self, "_running", None))


def partition_reads(monkeypatch) -> list:
    """The spilled partitions result() reads (think_blocks.ThreadPartitions.read), recorded."""
    reads, read = [], think_blocks.ThreadPartitions.read
    monkeypatch.setattr(think_blocks.ThreadPartitions, "read", lambda self, *a: reads.append(a) or read(self, *a))
    return reads


def assert_blocks_give_the_whole(monkeypatch, samples, transactions=frozenset(), warmup=0.0, cooldown=0.0,
                                 dist=None, offset=0.0) -> dict:
    """k = 1 (in memory: exactly), then k = 2, 3, 7 blocks spilled to 3 partitions and to one per ~40 rows, each
    measured as the blocks come where that holds, and again from the partitions alone."""
    window = steady_window(samples[~samples["label"].isin(transactions)], warmup, cooldown)
    want = whole_table(samples, window, transactions, dist, offset)
    assert_same(accumulated(samples, window, transactions, dist, offset, 1), want)
    for route in ("as the blocks come", "partitions"):
        with monkeypatch.context() as m:
            if route == "partitions":
                partitions_only(m)
            for parts in (3, max(3, len(samples) // 40)):
                m.setattr(think_blocks, "ROWS_PER_PARTITION", math.ceil(len(samples) / parts))
                # whole partitions, then slices of 25 rows with each thread's last row carried over
                for slice_rows in (1 << 40, 25):
                    m.setattr(think_blocks, "SLICE_ROWS", slice_rows)
                    for k in (2, 3, 7):
                        assert_same(accumulated(samples, window, transactions, dist, offset, k, seed=k + parts),
                                    want, where=f"think_time ({route})")
    return want


@pytest.mark.parametrize("name, rule", [
    ("karang-tc-commas.jtl", RULE_OUTERMOST),  # Transaction Controller rows, a parallel parent, sub-results
    ("perfplugin-filewithtransactions.csv", RULE_OUTERMOST),  # nested transactions, IdleTime
    ("cedric-asserts-csv-content.xml", RULE_OUTERMOST),  # embedded resources inside transactions, 503 threads
    ("apache-sample_log1.jtl", RULE_NONE),  # samples of one thread name overlapping at random
    ("insta-rzd-errors-large.jtl", RULE_EVERY),
    ("xplorin-distributed-2servers.csv", RULE_EVERY),  # two engines
])
@pytest.mark.parametrize("dist", [None, "poisson"])
def test_real_files_fed_in_blocks_give_the_figures_of_the_whole_table(monkeypatch, corpus, name, rule, dist):
    reading = read_jtl(str(corpus / name))
    transactions = frozenset(getattr(reading, "transaction_labels", ()) or ())
    want = assert_blocks_give_the_whole(monkeypatch, reading.samples, transactions, dist=dist, offset=20.0)
    assert want["sequence"]["rule"] == rule


def test_a_long_closed_loop_with_a_trimmed_window_and_two_engines(monkeypatch):
    samples = closed_loop(7, 40, lambda r: r.poisson(60), duration_s=30, engines=2)
    want = assert_blocks_give_the_whole(monkeypatch, samples, warmup=3, cooldown=2, dist="poisson", offset=10)
    assert want["sequence"]["rule"] == RULE_EVERY and want["gaps"] > 2000


def test_long_threads_are_measured_a_slice_at_a_time_with_the_figures_of_the_whole(monkeypatch):
    # 3 threads of ~600 rows in one partition, slices of 100 rows: the sliced path must be the one taken
    samples = closed_loop(3, 40, lambda r: r.poisson(60), duration_s=60)
    partitions_only(monkeypatch)
    taken = []
    sliced = think_time.ThinkTimeAccumulator._sliced
    monkeypatch.setattr(think_time.ThinkTimeAccumulator, "_sliced",
                        lambda self, *a: taken.append(sliced(self, *a)) or taken[-1])
    monkeypatch.setattr(think_blocks, "SLICE_ROWS", 100)
    monkeypatch.setattr(think_blocks, "ROWS_PER_PARTITION", len(samples))
    window = steady_window(samples, 2, 1)
    want = whole_table(samples, window, frozenset(), "poisson", 10)
    assert_same(accumulated(samples, window, frozenset(), "poisson", 10, 7), want)
    assert taken and all(t is not None for t in taken) and want["gaps"] > 1500


def test_threads_combined_out_of_order_zero_length_samples_and_a_19_hour_pause(monkeypatch):
    samples = closed_loop(5, 30, lambda r: r.exponential(50), duration_s=20)
    pause = samples[samples["thread"] == "Thread Group 1-2"].tail(3).assign(
        start_ms=lambda t: t["start_ms"] + 19 * 3600 * 1000, end_ms=lambda t: t["end_ms"] + 19 * 3600 * 1000)
    zero = samples.head(20).assign(end_ms=lambda t: t["start_ms"], elapsed_ms=0)
    shuffled = pd.concat([samples, pause, zero]).sample(frac=1.0, random_state=3).reset_index(drop=True)
    want = assert_blocks_give_the_whole(monkeypatch, shuffled)
    assert want["sequence"]["rule"] == RULE_OUTERMOST  # a zero-length sample starting with another is contained


@pytest.mark.parametrize("spread", [False, True])
def test_clock_steps_fed_in_blocks_give_the_figures_of_the_whole_table(monkeypatch, spread):
    # 4 ms overlaps at two instants of JMeter's clock (its steps: every sample), or at each thread's own times
    # (too many instants: the samples' own overlaps, found only when the partitions' steps are put together)
    samples = closed_loop(12, 50, 0, duration_s=30)
    samples = (started_early(samples, every=120, by_ms=4) if spread else
               clock_stepped(clock_stepped(samples, T0 + 9_000, -4), T0 + 19_000, -2))
    want = assert_blocks_give_the_whole(monkeypatch, samples, warmup=2, cooldown=1)
    seq = want["sequence"]
    if spread:
        assert (seq["rule"], seq["partial_overlaps"], seq["clock_steps"]) == (RULE_NONE, 60, None)
    else:
        assert seq["rule"] == RULE_EVERY and seq["clock_steps"]["pairs"] == 24 and seq["clock_steps"]["instants"] == 2


def transactions_beside_plain_threads(overlapping_thread: str, partial: bool) -> pd.DataFrame:
    """12 threads; one (`overlapping_thread`) runs transactions of 3 samplers (IdleTime 20, a null or a
    negative one now and then), or two requests in parallel when `partial`. The others run plain samples, one
    of them a zero-length sample at the start of another now and then: contained under the outermost rule,
    though it overlaps nothing."""
    rows, idle, labels = [], [], []
    for t in range(12):
        name = f"T-{t + 1:02d}"
        now = T0 + 17 * t
        for i in range(40):
            if name == overlapping_thread and partial:
                rows += [(now, 100, name), (now + 40, 100, name)]
                idle += [0, 0]
                labels += ["main", "side"]
            elif name == overlapping_thread:
                rows += [(now, 60, name), (now + 70, 50, name), (now + 130, 30, name), (now, 180, name)]
                idle += [0, 0, 0, None if i % 7 == 3 else -2 if i % 11 == 5 else 20]
                labels += ["A", "B", "C", "Transaction"]
            else:
                rows += [(now, 25 + i % 9, name)] + ([(now, 0, name)] if t == 2 and i % 5 == 0 else [])
                idle += [0] * (len(rows) - len(idle))
                labels += ["GET /"] * (len(rows) - len(labels))
            now += 400 + (37 * i * (t + 1)) % 101
    order = np.argsort([s + e for s, e, _ in rows], kind="stable")  # written as they end
    samples = table([rows[i] for i in order], 12)
    # `table` sorts by start (stably): keep the file order it gives, with the idle times and labels of its rows
    by_start = np.argsort([rows[i][0] for i in order], kind="stable")
    return samples.assign(idle_ms=pd.array([idle[order[i]] for i in by_start], dtype="Int64"),
                          label=pd.Categorical([labels[order[i]] for i in by_start]))


@pytest.mark.parametrize("thread", ["T-06", "T-01", "T-02"])  # keys 6, 1, 2
def test_one_thread_of_transactions_makes_the_whole_cell_take_the_outermost_samples(monkeypatch, thread):
    # with 3 partitions (key % 3) the transaction thread's partition comes first, second or third: those
    # measured before it are measured again by the outermost rule, and lose their zero-length samples
    samples = transactions_beside_plain_threads(thread, partial=False)
    want = assert_blocks_give_the_whole(monkeypatch, samples, frozenset({"Transaction"}), warmup=0.5, cooldown=0.5)
    seq = want["sequence"]
    assert seq["rule"] == RULE_OUTERMOST and seq["transaction_rows"] == 40 and seq["contained"] == 3 * 40 + 8


@pytest.mark.parametrize("thread", ["T-01", "T-12"])
def test_one_thread_of_parallel_requests_leaves_the_cell_without_think_time(monkeypatch, thread):
    want = assert_blocks_give_the_whole(monkeypatch, transactions_beside_plain_threads(thread, partial=True))
    assert want["sequence"]["rule"] == RULE_NONE and want["sequence"]["partial_overlaps"] == 40
    assert want["gaps"] == 0 and want["sequence"]["successive_pairs"] > 11 * 39


def frame_and_blocks(samples, k):
    window = steady_window(samples, 0, 0)
    return blocks_of(samples, window, frozenset(), k, seed=1)


def test_the_partition_files_are_removed_by_result_by_a_failure_and_with_the_accumulator(monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(think_blocks, "ROWS_PER_PARTITION", 100)
    frame, blocks = frame_and_blocks(closed_loop(6, 30, 70, duration_s=10), 3)
    accumulator = ThinkTimeAccumulator(frame, None, 0.0)
    for block in blocks:
        accumulator.add(block)
    folder = accumulator.spill_folder
    files = list(folder.iterdir())
    assert folder.parent == tmp_path and len(files) > 1  # a file of rows per partition
    assert {f.suffix for f in files} == {".rows"}
    first = accumulator.result()
    assert list(tmp_path.iterdir()) == [] and accumulator.result() == first

    partitions_only(monkeypatch)  # so that result() measures, and fails, there
    failing = ThinkTimeAccumulator(frame, None, 0.0)
    for block in blocks:
        failing.add(block)
    monkeypatch.setattr(think_time, "sequence_of_rows", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failing.result()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(RuntimeError, match="rows are gone"):
        failing.result()

    dropped = ThinkTimeAccumulator(frame, None, 0.0)
    dropped.add(blocks[0])
    assert list(tmp_path.iterdir()) != []
    del dropped
    gc.collect()
    assert list(tmp_path.iterdir()) == []


def test_a_cell_of_one_block_is_measured_in_memory_and_more_blocks_than_the_frame_said_are_spilled(monkeypatch,
                                                                                                   tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(think_blocks, "ROWS_PER_PARTITION", 10)
    samples = closed_loop(3, 30, 70, duration_s=5)
    frame, (block,) = frame_and_blocks(samples, 1)
    accumulator = ThinkTimeAccumulator(frame, None, 0.0)
    accumulator.add(block)
    assert accumulator.spill_folder is None
    want = accumulator.result()
    assert want["gaps"] > 100
    _, (first, second) = frame_and_blocks(samples, 2)
    empty = dataclasses.replace(first, everything=first.everything.iloc[:0], keys=first.keys[:0],
                                is_transaction=first.is_transaction[:0])
    more = ThinkTimeAccumulator(frame, None, 0.0)  # the frame says one block; three come
    for b in (first, empty, second):
        more.add(b)
    assert more.spill_folder is not None
    assert_same(more.result(), want)


def test_gap_summaries_of_any_split_of_the_gaps_merge_into_that_of_all_of_them():
    samples = closed_loop(9, 30, lambda r: r.poisson(40), duration_s=20)
    gaps = think_sequence(samples, steady_window(samples, 1, 1)).gaps
    shuffled = gaps.sample(frac=1.0, random_state=5)
    parts = [shuffled.iloc[i::4] for i in range(4)]  # every thread in every part
    got = gap_stats(GapSummary.merged([GapSummary.of(part) for part in parts]), "poisson", 0.0)
    assert_same(got, think_time_stats(gaps, "poisson", 0.0))


def test_a_closed_loop_in_blocks_is_measured_as_they_come_and_no_partition_is_read(monkeypatch):
    samples = closed_loop(6, 40, lambda r: r.exponential(50), duration_s=30)
    window = steady_window(samples, 2, 1)
    want = whole_table(samples, window, frozenset(), "exponential", 0)
    assert want["sequence"]["rule"] == RULE_EVERY and want["gaps"] > 1500
    reads = partition_reads(monkeypatch)
    for k in (2, 5, 11):
        assert_same(accumulated(samples, window, frozenset(), "exponential", 0, k, seed=k), want)
    assert reads == []


@pytest.mark.parametrize("case", ["overlap", "written out of order", "idle time"])
def test_blocks_that_break_the_every_sample_rule_are_measured_from_the_partitions(monkeypatch, case):
    samples = closed_loop(4, 40, lambda r: r.exponential(50), duration_s=20).reset_index(drop=True)
    late = samples.index[-len(samples) // 3]  # a row in a late block
    if case == "overlap":  # its thread's next sample starts 30 ms before it ends
        thread = samples.at[late, "thread"]
        after = samples.index[(samples["thread"] == thread) & (samples.index > late)][0]
        samples.loc[after, "start_ms"] = samples.at[late, "start_ms"] + samples.at[late, "elapsed_ms"] - 30
        samples.loc[after, "end_ms"] = samples.at[after, "start_ms"] + samples.at[after, "elapsed_ms"]
    elif case == "written out of order":  # a thread's first row written last
        first = samples.index[samples["thread"] == samples.at[late, "thread"]][0]
        samples = pd.concat([samples.drop(index=first), samples.loc[[first]]], ignore_index=True)
    else:
        samples["idle_ms"] = 0
        samples.loc[late, "idle_ms"] = 7
    window = steady_window(samples, 0, 0)
    want = whole_table(samples, window, frozenset(), None, 0)
    reads = partition_reads(monkeypatch)
    assert_same(accumulated(samples, window, frozenset(), None, 0, 6, seed=1), want)
    assert reads  # the blocks' own measure gave up: the partitions were read


def test_each_thread_s_last_row_is_its_latest_start_and_of_equal_starts_the_last_written():
    rows = think_blocks.ThreadRows(key=np.array([3, 0, 3, 0, 3, 5, 0]), start=np.array([10, 40, 30, 40, 20, 7, 5]),
                                   end=np.array([11, 41, 31, 42, 21, 8, 6]), idle=None,
                                   is_transaction=np.array([False] * 6 + [True]))
    last = rows.last_of_each_thread()
    assert last.key.tolist() == [0, 3, 5]  # by ascending thread
    assert last.start.tolist() == [40, 30, 7] and last.end.tolist() == [42, 31, 8]  # 0's second row at 40
    assert last.is_transaction.tolist() == [False, False, False]
