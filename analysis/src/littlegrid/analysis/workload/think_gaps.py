"""Realised think time per thread, next start − (start + elapsed): each thread's gaps in time order, and which samples
the sequence rule takes them between (every sample, the outermost, or none when a thread's samples overlap)."""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from littlegrid.analysis.steady.window import SteadyWindow
from littlegrid.analysis.workload.clock_steps import STEP_MAX_MS, ClockSteps


def _codes(column: pd.Series) -> np.ndarray:
    """Integer codes of a column (nulls share one code): categorical codes when it is one, else factorized."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy(dtype=np.int64)
    return pd.factorize(column, use_na_sentinel=True)[0].astype(np.int64)


def thread_keys(samples: pd.DataFrame) -> np.ndarray:
    """Thread identity as an integer: engine host + thread name (distributed engines reuse thread names;
    remote mode's name prefix tells engines apart on one host, the Hostname column across hosts)."""
    thread = _codes(samples["thread"])
    thread += 1  # -1 (null) becomes 0; in place: each temporary is 8 bytes a sample
    key = _codes(samples["host"])
    key += 1
    key *= int(thread.max(initial=0)) + 1
    key += thread
    # int32 when it fits (always, short of 46,000 hosts × threads): it lives through the whole analysis
    return key.astype(np.int32) if int(key.max(initial=0)) < 2**31 else key


def _thread_time_order(key: np.ndarray, start: np.ndarray, end: np.ndarray):
    """(order, thread keys, rows per thread, start[order]): rows by thread, then start (ties keep file order);
    the threads in ascending key order, each with its number of rows.

    A thread's samples follow one another, and JMeter writes each when it ends, so within a thread the file
    is already in start order: a stable sort on the thread key alone (a radix sort when keys fit 16 bits,
    5× faster than any sort involving start) is enough, and it is checked. When it fails (files of one
    thread combined out of order), one stable argsort of key·span + start, or a lexsort beyond 62 bits."""
    if int(key.max()) < 2 ** 16:
        order = np.argsort(key.astype(np.uint16), kind="stable")
        counts = np.bincount(key)
        threads = np.flatnonzero(counts)
        sizes = counts[threads]
        start_sorted = start[order]
        backwards = start_sorted[1:] < start_sorted[:-1]
        backwards[np.cumsum(sizes)[:-1] - 1] = False  # where one thread ends and the next begins, any order
        if not backwards.any():
            return order, threads, sizes, start_sorted
        del backwards, start_sorted
    first = int(start.min())
    span = int(start.max()) - first + 1
    if (int(key.max()) + 1) * span < 2 ** 62:
        packed = key.astype(np.int64)  # int32 keys: the product must not wrap
        packed *= span
        packed += start
        packed -= first
        order = np.argsort(packed, kind="stable")
        del packed
    else:
        order = np.lexsort((end, start, key))
    key_sorted = key[order]
    firsts = np.concatenate(([0], np.flatnonzero(key_sorted[1:] != key_sorted[:-1]) + 1))
    return order, key_sorted[firsts], np.diff(np.append(firsts, len(key))), start[order]


# JMeter writes whole milliseconds: a sample may seem to start up to 1 ms before the previous one of its
# thread ended (start and elapsed come from two clocks). Beyond this, the two samples overlap, really or by a
# step of JMeter's clock (clock_steps.py).
OVERLAP_TOLERANCE_MS = 1
RULE_EVERY, RULE_OUTERMOST, RULE_NONE = "every sample", "outermost samples", "does not apply"


@dataclass(frozen=True)
class ThinkSequence:
    """The samples think time is measured between, and why those.

    A thread's samples overlap when Transaction Controller rows wrap their samplers, when a parallel controller
    or embedded resources run beside one another, or when sub-results are kept. Think time and the closed law
    need one sequence of samples per thread that follow one another: every sample when none overlaps (beyond
    OVERLAP_TOLERANCE_MS), else the outermost ones (a sample contained in another of its thread is dropped); when
    outermost samples still overlap (parallel requests), there is no such sequence and `gaps` is None.
    Overlaps that JMeter's clock explains (clock_steps.py) are not overlaps: `clock_steps` holds them, their
    gaps are taken as written (a few ms below 0), and the cell decides whether its clock explains them all.
    count / elapsed_sum: the sequence's samples completed in the window (its X and R)."""

    rule: str
    gaps: pd.DataFrame | None
    rows: int
    contained: int = 0
    transaction_rows: int = 0  # outermost samples that are Transaction Controller rows
    partial_overlaps: int = 0  # outermost samples starting before the previous one of their thread ended
    successive_pairs: int = 0  # outermost samples that have a previous one in their thread
    count: int = 0
    elapsed_sum: int = 0
    active_ms: int = 0  # Σ over threads of [first start, last end] of the sequence, clipped to the window
    clock_steps: ClockSteps | None = None  # overlaps of at most STEP_MAX_MS, taken for JMeter's clock

    def text(self, window: SteadyWindow | None = None) -> str:
        """The rule in words, with its figures (the window: the cell's span, for its clock steps)."""
        steps = ""
        if self.clock_steps is not None and window is not None:
            found = self.clock_steps.as_dict(window.first_start_ms, window.last_end_ms)
            steps = (f" beyond JMeter's clock: {found['pairs']:,} samples started up to {found['largest_ms']} ms "
                     f"before the previous one of their thread ended, and all of them span {found['instants']} "
                     f"instant{'s' if found['instants'] != 1 else ''}, within the {found['re_measurements']} "
                     f"times JMeter re-measured its clock offset: its steps, taken as written")
        if self.rule == RULE_EVERY:
            return "think time from every sample: no sample overlaps another of its thread" + steps
        if self.rule == RULE_NONE:
            dropped = f", after dropping {self.contained:,} samples contained in another" if self.contained else ""
            return (f"does not apply: samples overlap within threads ({self.partial_overlaps:,} of "
                    f"{self.successive_pairs:,} successive samples{dropped})")
        wrappers = (f"{self.transaction_rows:,} transaction rows and {self.rows - self.contained - self.transaction_rows:,}"
                    f" other outermost samples" if self.transaction_rows else
                    f"{self.rows - self.contained:,} outermost samples")
        return (f"think time from the outermost samples: {wrappers} wrap {self.contained:,} samples; "
                f"{self.partial_overlaps} partial overlaps{steps}")

    def as_dict(self, window: SteadyWindow) -> dict:
        applies = self.rule != RULE_NONE
        window_s = window.length_s
        return {"rule": self.rule, "text": self.text(window), "rows": self.rows, "contained": self.contained,
                "transaction_rows": self.transaction_rows, "partial_overlaps": self.partial_overlaps,
                "successive_pairs": self.successive_pairs,
                "clock_steps": (None if self.clock_steps is None else
                                self.clock_steps.as_dict(window.first_start_ms, window.last_end_ms)),
                "count": self.count if applies else None,
                "throughput_per_s": self.count / window_s if applies and window_s > 0 else None,
                "mean_ms": self.elapsed_sum / self.count if applies and self.count else None,
                # threads active on average through the window: the N of N = X·(R+Z) when nobody says N
                "active_threads": self.active_ms / 1000.0 / window_s if applies and window_s > 0 else None}


def realised_gaps(samples: pd.DataFrame, window: SteadyWindow, keys: np.ndarray | None = None) -> pd.DataFrame:
    """The gaps between a thread's successive samples, taken as they are (overlapping or not): see
    think_sequence for the gaps think time is measured from."""
    key = thread_keys(samples) if keys is None else keys
    if len(key) == 0:
        return no_gaps(key)
    start = samples["start_ms"].to_numpy(dtype=np.int64)
    end = samples["end_ms"].to_numpy(dtype=np.int64)
    order, threads, sizes, start = _thread_time_order(key, start, end)
    return _gaps(threads, sizes, start, end[order], window)


def no_gaps(key: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({"key": key[:0], "gap_ms": key[:0], "cycle_ms": key[:0]})


def think_sequence(samples: pd.DataFrame, window: SteadyWindow, keys: np.ndarray | None = None,
                   transactions: frozenset = frozenset()) -> ThinkSequence:
    """The sequence think time is measured on (ThinkSequence) and its gaps, from every row of `samples`
    (Transaction Controller rows included: their labels in `transactions`): sequence_of_rows on its columns."""
    key = thread_keys(samples) if keys is None else keys
    is_transaction = samples["label"].isin(transactions).to_numpy() if transactions and len(key) else None
    columns = (key, samples["start_ms"].to_numpy(dtype=np.int64), samples["end_ms"].to_numpy(dtype=np.int64),
               idle_times(samples), is_transaction, window)
    seq = sequence_of_rows(*columns)
    return seq if clock_explains(seq, window) else sequence_of_rows(*columns, clock_steps=False)


def clock_explains(seq: ThinkSequence, window: SteadyWindow) -> bool:
    """Whether JMeter's clock explains the overlaps `seq` took for its steps (none: yes), over the cell's span."""
    return seq.clock_steps is None or seq.clock_steps.explained(window.first_start_ms, window.last_end_ms)


def idle_times(samples: pd.DataFrame) -> np.ndarray | None:
    """IdleTime per row (null as 0) when any is positive, else None (nothing to add to the spans)."""
    if "idle_ms" not in samples:
        return None
    longest = samples["idle_ms"].max()  # nulls skipped
    if pd.isna(longest) or longest <= 0:
        return None
    return samples["idle_ms"].to_numpy(dtype=np.int64, na_value=0)


def sequence_of_rows(key: np.ndarray, start: np.ndarray, end: np.ndarray, idle: np.ndarray | None,
                     is_transaction: np.ndarray | None, window: SteadyWindow,
                     outermost: bool = False, clock_steps: bool = True) -> ThinkSequence:
    """think_sequence on columns: per row its thread `key`, start and end (int64), `idle` (IdleTime, null as 0;
    None when the cell has no positive one) and `is_transaction` (None: no Transaction Controller rows).

    Threads are independent: the rows of some threads give their figures, which add up over sets of threads,
    except for the rule, which is the cell's. `outermost`: measure on the outermost samples even when none of
    these rows overlaps (another set of the cell's threads did); they differ from every sample by the samples
    contained in another (equal starts, an end within the tolerance).

    A sample's occupied span is [start, end + IdleTime]: a transaction's elapsed leaves out the timers inside
    it (IdleTime), and its last sampler may end in that idle tail. The gaps themselves run from end (start +
    elapsed), so a timer inside a transaction counts as think time, as the closed law needs (R + Z = cycle).
    The common case (nothing overlaps) costs one comparison over the gaps and gives today's figures.

    `clock_steps`: overlaps of at most STEP_MAX_MS are kept in ThinkSequence.clock_steps instead of counting as
    overlaps; the caller asks ClockSteps.explained of the whole cell's and measures again without them when
    JMeter's clock does not explain them (clock_explains)."""
    rows = len(key)
    if rows == 0:
        return ThinkSequence(RULE_EVERY, no_gaps(key), 0)
    order, threads, sizes, start = _thread_time_order(key, start, end)
    span = end = end[order]
    if idle is not None:  # the timers inside transactions
        span = end + idle[order]
    firsts = np.cumsum(sizes) - sizes  # each thread's first row
    if not outermost:
        overlapping = np.subtract(start[1:], span[:-1]) < -OVERLAP_TOLERANCE_MS
        overlapping[firsts[1:] - 1] = False  # a thread's first sample follows nothing
        steps = None
        if overlapping.any() and clock_steps:
            at = np.flatnonzero(overlapping)
            steps = ClockSteps(start[at], start[at + 1], span[at] - start[at + 1])
            # a step moves the later sample whole: it starts after the earlier one and ends after it; a sample
            # starting with another, or ending inside it, is contained (the outermost samples below)
            if (steps.overlap_ms.max() > STEP_MAX_MS or (start[at + 1] <= start[at]).any()
                    or (span[at + 1] <= span[at] + OVERLAP_TOLERANCE_MS).any()):
                steps = None
        if steps is not None or not overlapping.any():
            del overlapping, span, order
            count, elapsed = _window_totals(start, end, window)
            active = _active_ms(start, end, sizes, window)
            return ThinkSequence(RULE_EVERY, _gaps(threads, sizes, start, end, window), rows, count=count,
                                 elapsed_sum=elapsed, active_ms=active, clock_steps=steps)
        del overlapping
    # the transaction flags in thread order now, so that `order` (8 bytes a row) is gone before _outermost
    is_transaction = is_transaction[order] if is_transaction is not None else None
    del order
    outer, overlaps, overlap_ms = _outermost(start, end, span, firsts)
    del span
    partial, steps = len(overlaps), None
    if partial and clock_steps and overlap_ms.max() <= STEP_MAX_MS:
        # each overlap's earlier sample: the outermost one before it in its thread (a thread's first never
        # overlaps); they are the clock's or nothing's: no partial overlap then
        steps = ClockSteps(start[outer[overlaps - 1]], start[outer[overlaps]], overlap_ms)
        partial = 0
    # every thread keeps its first sample
    present = np.bincount(_thread_of(firsts, outer), minlength=len(threads))
    transaction_rows = int(np.count_nonzero(is_transaction[outer])) if is_transaction is not None else 0
    start, end = start[outer], end[outer]
    count, elapsed = _window_totals(start, end, window)
    common = {"rows": rows, "contained": rows - len(outer), "transaction_rows": transaction_rows,
              "partial_overlaps": partial, "successive_pairs": len(outer) - len(threads),
              "count": count, "elapsed_sum": elapsed, "active_ms": _active_ms(start, end, present, window)}
    if partial:
        return ThinkSequence(RULE_NONE, None, **common)
    return ThinkSequence(RULE_OUTERMOST, _gaps(threads, present, start, end, window), **common, clock_steps=steps)


def _outermost(start: np.ndarray, end: np.ndarray, span: np.ndarray, firsts: np.ndarray):
    """(positions of the outermost samples, the indices among them of those that overlap an earlier sample of
    their thread, and by how many ms each does), rows sorted by thread then start.

    Samples starting together form a run: its longest span (the last written of equal spans: JMeter writes a
    transaction after its samplers, with the first one's start) stands for it, the others are contained in it.
    A run's sample is contained when its span ends no later (+ tolerance) than an earlier one's: a running
    maximum per thread, reset by offsetting each thread's values past the previous thread's.

    An outermost sample overlaps when it starts before an earlier sample of its thread ended (− tolerance),
    by the ends of the samples themselves (start + elapsed), not the spans: IdleTime counts a nested
    transaction's timers twice (its own and its child transaction's), so a span can reach a few ms past the
    work it wraps, enough to contain a sample but not to fake an overlap."""
    tol = OVERLAP_TOLERANCE_MS
    n = len(start)
    # Row positions fit int32 below 2**31 rows: every row-long temporary here is half the size (this path
    # runs beside the sample statistics; at 5 M rows each int64 temporary is 40 MB of peak RSS).
    index = _index_type(n)
    new_run = np.ones(n, dtype=bool)
    np.not_equal(start[1:], start[:-1], out=new_run[1:])
    new_run[firsts] = True
    run_firsts = np.flatnonzero(new_run).astype(index)
    run_of_row = np.cumsum(new_run, dtype=index)
    run_of_row -= 1
    del new_run
    longest = np.maximum.reduceat(span, run_firsts)
    is_longest = span == longest[run_of_row]
    del run_of_row
    candidate = np.arange(n, dtype=index)
    candidate[~is_longest] = -1
    del is_longest
    rep = np.maximum.reduceat(candidate, run_firsts)  # one sample per run
    del candidate
    base = int(start.min())
    stride = int(span.max()) - base + 2 * tol + 2
    if len(firsts) * stride < 2**62:
        # the offsets in place of each run's thread (the run's thread from `firsts`, no thread per row)
        offset = _thread_of(firsts, run_firsts)
        offset *= stride
        offset -= base
        longest += offset
        earlier = _before(longest)  # longest[k] = span[rep[k]]
        earlier += tol
        contained = longest <= earlier
        del longest, earlier
        run_end = np.maximum.reduceat(end, run_firsts)
        del run_firsts
        run_end += offset
        earlier = _before(run_end)
        del run_end
        earlier -= tol
        starts = start[rep]
        starts += offset
        del offset
        earlier -= starts  # how far each run's sample starts before an earlier one ended, less the tolerance
        del starts
        shortfall = earlier
    else:  # spans too wide to pack: one thread at a time
        run_end = np.maximum.reduceat(end, run_firsts)
        run_thread = _thread_of(firsts, run_firsts)
        contained = np.zeros(len(rep), dtype=bool)
        shortfall = np.zeros(len(rep), dtype=np.int64)
        bounds = np.flatnonzero(np.diff(run_thread)) + 1
        for lo, hi in zip(np.concatenate(([0], bounds)), np.append(bounds, len(rep))):
            contained[lo:hi] = longest[lo:hi] <= _before(longest[lo:hi]) + tol
            shortfall[lo:hi] = _before(run_end[lo:hi]) - tol - start[rep[lo:hi]]
    keep = ~contained
    shortfall = shortfall[keep]
    overlaps = np.flatnonzero(shortfall > 0)
    return rep[keep], overlaps, shortfall[overlaps] + tol


def _thread_of(firsts: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The thread (0, 1, ...) of each row position, rows sorted by thread: `firsts` holds each thread's first
    row. int64 (the callers scale it in place)."""
    thread = np.searchsorted(firsts, rows, side="right")
    thread -= 1
    return thread


def _index_type(rows: int):
    """The narrowest NumPy type of a row position among `rows` rows (int32 below 2**31)."""
    return np.int32 if rows < 2**31 else np.int64


def _before(values: np.ndarray) -> np.ndarray:
    """The largest of the values before each one (far below any value for the first)."""
    out = np.empty_like(values)
    out[0] = np.iinfo(np.int64).min // 2
    np.maximum.accumulate(values[:-1], out=out[1:])
    return out


def _active_ms(start: np.ndarray, end: np.ndarray, sizes: np.ndarray, window: SteadyWindow) -> int:
    """Σ over threads of the time from its first start to its last end (rows by thread then start, followed
    by one another), within the window."""
    last = np.cumsum(sizes)[sizes > 0] - 1
    first = last - sizes[sizes > 0] + 1
    active = np.minimum(end[last], window.end_ms) - np.maximum(start[first], window.start_ms)
    return int(np.clip(active, 0, None).sum())


def _window_totals(start: np.ndarray, end: np.ndarray, window: SteadyWindow) -> tuple[int, int]:
    """Samples completing in the window and the sum of their elapsed times (end − start)."""
    inside = (end >= window.start_ms) & (end <= window.end_ms)
    return int(np.count_nonzero(inside)), int(end[inside].sum() - start[inside].sum())


def _gaps(threads: np.ndarray, sizes: np.ndarray, start: np.ndarray, end: np.ndarray,
          window: SteadyWindow) -> pd.DataFrame:
    """One row per gap: thread key, the gap in ms, and the cycle (elapsed of the sample it follows + gap),
    grouped by thread key in ascending order; rows by thread (`sizes` rows each, threads with none allowed)
    then start.

    The gap after sample i of a thread is start(i+1) − end(i); it is kept when sample i completed in the
    window (the same samples as throughput and R, so X·(R+Z) sums whole cycles), whatever the next start.
    The cycle (end(i) − start(i)) + gap is start(i+1) − start(i). This runs beside the sample statistics,
    so memory is spent sparingly: at most three 8-byte-a-row arrays at once (each is 40 MB at 5 M samples),
    computed in place where they can be, freed as soon as used; the outputs are int32 when they fit.
    `end` is overwritten.
    """
    # keep[i]: row i has a next row in its thread and completed in the window (the last row never has one)
    ends = np.cumsum(sizes)  # one past each thread's last row
    keep = end >= window.start_ms
    keep &= end <= window.end_ms
    keep[ends[sizes > 0] - 1] = False
    kept = int(np.count_nonzero(keep))
    keep = keep[:-1]
    gap = _kept(np.subtract(start[1:], end[:-1], out=end[:-1]), keep, kept)  # end[i] is read before it is replaced
    del end
    cycle = _kept(np.diff(start), keep, kept)
    del start
    per_thread = np.add.reduceat(np.append(keep, False), np.minimum(ends - sizes, len(keep)), dtype=np.int64)
    per_thread[sizes == 0] = 0
    key = np.repeat(threads.astype(np.int32 if int(threads.max()) < 2**31 else np.int64), per_thread)
    # copy=False: three blocks instead of one consolidated copy (0.3 s and 120 MB at 5 M gaps)
    return pd.DataFrame({"key": key, "gap_ms": gap, "cycle_ms": cycle}, copy=False)


def _kept(values: np.ndarray, keep: np.ndarray, kept: int) -> np.ndarray:
    """values[keep], as int32 when every value fits (ms gaps under 24 days): half the memory of the gaps
    table and of its sort."""
    small = len(values) == 0 or (int(values.min()) >= -2**31 and int(values.max()) < 2**31)
    return np.compress(keep, values, out=np.empty(kept, dtype=np.int32 if small else values.dtype))
