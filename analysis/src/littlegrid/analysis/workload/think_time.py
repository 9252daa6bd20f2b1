"""Realised think time per thread (next start − (start + elapsed)) and how its distribution compares with the intended one."""

import dataclasses
import functools
import math
from fractions import Fraction
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from littlegrid.analysis.reading.histogram import ExactHistogram, merged
from littlegrid.analysis.steady.window import SteadyWindow
from littlegrid.analysis.workload import think_blocks
from littlegrid.analysis.workload.clock_steps import STEP_MAX_MS, ClockSteps
from littlegrid.analysis.workload.kolmogorov import kolmogorov_sf

if TYPE_CHECKING:
    from pathlib import Path

    from littlegrid.analysis.statistics.rowblock import Block, Frame

HISTOGRAM_MAX_BINS = 80
CHI2_MIN_EXPECTED = 5.0


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
        return _no_gaps(key)
    start = samples["start_ms"].to_numpy(dtype=np.int64)
    end = samples["end_ms"].to_numpy(dtype=np.int64)
    order, threads, sizes, start = _thread_time_order(key, start, end)
    return _gaps(threads, sizes, start, end[order], window)


def _no_gaps(key: np.ndarray) -> pd.DataFrame:
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
        return ThinkSequence(RULE_EVERY, _no_gaps(key), 0)
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


def exponential_cdf_measured(k: np.ndarray, mean_ms: float) -> np.ndarray:
    """P(G ≤ k) for G = floor(g + f): a continuous exponential gap g measured between ms-truncated timestamps.

    The previous sample's end has a uniform fractional millisecond f, so the measured gap is floor(g + f) and
    P(G ≤ k) = ∫_k^{k+1} F(t) dt = 1 − μ·e^{−k/μ}·(1 − e^{−1/μ}) for k ≥ 0. Comparing integer gaps with the
    continuous F directly would reject a true exponential at large n from the truncation alone.
    """
    k = np.asarray(k, dtype=float)
    mu = mean_ms
    out = 1.0 - mu * np.exp(-k / mu) * (1.0 - math.exp(-1.0 / mu))
    return np.where(k < 0, 0.0, np.clip(out, 0.0, 1.0))


def _as_histogram(gaps) -> ExactHistogram:
    """The gaps as an ExactHistogram: one already, or an array of whole milliseconds (sorted or not)."""
    if isinstance(gaps, ExactHistogram):
        return gaps
    values = np.asarray(gaps)
    if values.dtype.kind == "f":  # whole ms read as floats
        whole = values.astype(np.int64)
        if not np.array_equal(whole, values):
            raise TypeError("gaps are whole milliseconds")
        values = whole
    return ExactHistogram.of(values)


def _discrete_ks(gaps: ExactHistogram, cdf) -> float:
    """sup |F_n − F| for integer data against a CDF that jumps only at integers.

    Between two consecutive distinct data values u < u', F_n is flat and F rises, so the supremum is at
    k = u or k = u' − 1: evaluating at every distinct value and the integer below it is exact, and costs
    nothing when a run has a 19-hour pause in it (an integer grid from min to max would not).
    """
    ks = np.unique(np.concatenate((gaps.values, gaps.values - 1)))
    f_n = gaps.below(ks + 1) / gaps.n  # the gaps ≤ k
    return float(np.max(np.abs(f_n - cdf(ks))))


def ks_exponential(gaps) -> dict:
    """KS distance and p-value against an exponential of the same mean, as measured in whole milliseconds.
    `gaps`: an ExactHistogram, or an array of whole-ms gaps.

    The measured gap G = floor(g + f) keeps the mean: E[G] = Σ_k P(G > k) = μ under exponential_cdf_measured,
    so μ is the gaps' mean as measured (no half-millisecond correction: that would shift the null by 0.5 ms,
    which a long run's KS rejects on a true exponential). The p-value is the Kolmogorov distribution's
    (ks_p_value): with the mean estimated from the data and a discrete null it is conservative (the true p
    is smaller), so a rejection (p < 0.05) stands.
    """
    gaps = _as_histogram(gaps)
    n = gaps.n
    mu = gaps.mean() if n else None
    if n < 2 or mu <= 0 or gaps.values[0] < 0:
        return {"d": None, "p": None, "mean_ms": mu}
    d = _discrete_ks(gaps, lambda k: exponential_cdf_measured(k, mu))
    return {"d": d, "p": ks_p_value(d, n), "mean_ms": mu}


EXACT_KS_MAX_N = 10_000


def ks_p_value(d: float, n: int) -> float:
    """P(D_n ≥ d) for the two-sided one-sample KS statistic. Up to EXACT_KS_MAX_N gaps: scipy's exact kstwo.
    Beyond: the Kolmogorov limit with Stephens' finite-n correction, K((√n + 0.12 + 0.11/√n)·d), within
    0.0014 of the exact p at n = 10 000 and closer as n grows (test_think_time checks it against kstwo). It
    spares the large runs the imports of scipy.stats (0.8 s) and scipy.special (0.17 s; see kolmogorov.py)."""
    if n <= EXACT_KS_MAX_N:
        from scipy.stats import kstwo  # noqa: PLC0415 (lazy: 0.8 s to import)
        return float(kstwo.sf(d, n))
    root = math.sqrt(n)
    return kolmogorov_sf((root + 0.12 + 0.11 / root) * d)


def poisson_fit(gaps, offset_ms: float) -> dict:
    """Gaps (an ExactHistogram, or an array of whole-ms gaps) against offset + Poisson(λ) with λ = mean − offset
    (JMeter's Poisson Random Timer).

    d is the KS distance on the discrete CDF; p comes from a chi-square goodness-of-fit test on integer
    bins pooled from both ends until each expects ≥ 5 gaps (dof = bins − 2, one parameter fitted), the
    textbook test for a discrete null (KS p-values are not valid there).
    """
    gaps = _as_histogram(gaps)
    n = gaps.n
    offset = int(round(offset_ms))
    lam = gaps.mean() - offset if n else None
    none = {"d": None, "p": None, "lambda_ms": lam, "offset_ms": offset,
            "test": "chi-square", "chi2": None, "dof": None}
    if n < 2 or lam <= 0:
        return none
    from scipy import special, stats as sps  # noqa: PLC0415 (lazy: only Poisson-timer cells need it)
    dist = sps.poisson(lam, loc=offset)
    d = _discrete_ks(gaps, dist.cdf)
    # integer bins over the null's range; data beyond it falls into the end bins with the null's tail mass
    lo, hi = int(dist.ppf(1e-9)), int(dist.isf(1e-9)) + 1
    support = np.arange(lo, hi + 1)
    observed = np.diff(gaps.below(np.append(support, hi + 1))).astype(float)
    observed[0] += gaps.below(lo)
    observed[-1] += n - gaps.below(hi + 1)
    expected = n * dist.pmf(support)
    expected[0] += n * dist.cdf(lo - 1)
    expected[-1] += n * dist.sf(hi)
    obs_bins, exp_bins = _pool(observed, expected)
    dof = len(obs_bins) - 2
    if dof < 1:
        return none | {"d": d}
    chi2 = float(((obs_bins - exp_bins) ** 2 / exp_bins).sum())
    return none | {"d": d, "p": float(special.chdtrc(dof, chi2)), "chi2": chi2, "dof": dof}


def _pool(observed: np.ndarray, expected: np.ndarray):
    """Merge adjacent bins until each expects at least CHI2_MIN_EXPECTED."""
    obs, exp = [], []
    o_acc = e_acc = 0.0
    for o, e in zip(observed, expected):
        o_acc += o
        e_acc += e
        if e_acc >= CHI2_MIN_EXPECTED:
            obs.append(o_acc)
            exp.append(e_acc)
            o_acc = e_acc = 0.0
    if e_acc > 0 or o_acc > 0:
        if exp:
            obs[-1] += o_acc
            exp[-1] += e_acc
        else:
            obs.append(o_acc)
            exp.append(e_acc)
    return np.array(obs), np.array(exp)


def histogram(gaps) -> dict:
    """Counts on integer-ms bins from the minimum to the 99.9th percentile; gaps beyond it are counted in `overflow`.
    `gaps`: an ExactHistogram, or an array of whole-ms gaps."""
    gaps = _as_histogram(gaps)
    n = gaps.n
    if n == 0:
        return {"edges_ms": [], "counts": [], "overflow": 0}
    lo = int(gaps.values[0])
    hi = int(gaps.at_rank(min(n, math.ceil(0.999 * n)))) + 1
    width = max(1, math.ceil((hi - lo) / HISTOGRAM_MAX_BINS))
    edges = np.arange(lo, hi + width, width)
    counts = np.diff(gaps.below(edges))
    return {"edges_ms": edges.astype(float).tolist(), "counts": counts.astype(int).tolist(),
            "overflow": int(n - gaps.below(edges[-1]))}


def expected_counts(edges, gaps: int, cdf) -> list[float]:
    """Gaps per bin [a, b) of `edges` that a null predicts for `gaps` gaps, `cdf` being its P(G ≤ k) for whole-ms
    gaps G: a bin holds the whole milliseconds ⌈a⌉ … ⌈b⌉ − 1, so its share is F(⌈b⌉ − 1) − F(⌈a⌉ − 1)."""
    below = cdf(np.ceil(np.asarray(edges, dtype=float)) - 1.0)
    return [gaps * float(p) for p in np.diff(below)]


def expected_exponential(edges, gaps: int, ks: dict) -> list[float] | None:
    """The gaps per bin ks_exponential's null predicts: an exponential of its mean_ms measured in whole milliseconds
    (exponential_cdf_measured), so the line beside the histogram is the distribution D was measured against. None
    where the test was not made (fewer than 2 gaps, a mean ≤ 0, negative gaps) or there are no bins."""
    if ks["d"] is None or len(edges) < 2:
        return None
    return expected_counts(edges, gaps, lambda k: exponential_cdf_measured(k, ks["mean_ms"]))


def expected_poisson(edges, gaps: int, fit: dict | None) -> list[float] | None:
    """The gaps per bin poisson_fit's null predicts: offset_ms + Poisson(lambda_ms), JMeter's Poisson Random Timer.
    None without a fit (no Poisson timer), a λ ≤ 0, or no bins."""
    if fit is None or fit["lambda_ms"] is None or fit["lambda_ms"] <= 0 or len(edges) < 2:
        return None
    from scipy import stats as sps  # noqa: PLC0415 (lazy: only Poisson-timer cells need it)
    return expected_counts(edges, gaps, sps.poisson(fit["lambda_ms"], loc=fit["offset_ms"]).cdf)


def histogram_with_nulls(gaps, ks: dict, fit: dict | None) -> dict:
    """histogram(gaps) with, beside the realised counts, those the two nulls predict (expected_exponential,
    expected_poisson): what the report draws over the bars."""
    hist = histogram(gaps)
    n = _as_histogram(gaps).n
    return hist | {"expected_exponential": expected_exponential(hist["edges_ms"], n, ks),
                   "expected_poisson": expected_poisson(hist["edges_ms"], n, fit)}


@dataclass(frozen=True)
class Moments:
    """Count, sum and sum of squares of integer values, as exact integers: their mean and standard deviation.

    Sets of values merge by adding the three, so the figures are the same whatever the sets and the order they
    merge in (a cell read in one piece, in blocks, or from partitions by thread); Σ(x − mean)² is computed from
    the exact sums and rounded once (sd: once before the square root)."""

    n: int = 0
    total: int = 0
    squares: int = 0

    @classmethod
    def of(cls, values: np.ndarray) -> "Moments":
        n = len(values)
        if not n:
            return cls()
        values = np.asarray(values, dtype=np.int64)
        return cls(n, int(values.sum(dtype=np.int64)), sum_of_squares(values))

    def merge(self, other: "Moments") -> "Moments":
        return Moments(self.n + other.n, self.total + other.total, self.squares + other.squares)

    def mean(self) -> float | None:
        return self.total / self.n if self.n else None

    def sd(self) -> float | None:
        """The sample standard deviation (ddof 1): √((n·Σx² − (Σx)²) / (n·(n − 1)))."""
        if self.n < 2:
            return None
        return math.sqrt(Fraction(self.n * self.squares - self.total ** 2, self.n * (self.n - 1)))


SQUARE_SPLIT = 21  # x = high·2²¹ + low: each part's products stay below 2⁴² for |x| < 2⁴² ms (139 years)
SQUARE_ROWS = 1 << 20  # rows summed at a time: 2²⁰ products below 2⁴² add up below 2⁶² (no int64 overflow)


def sum_of_squares(values: np.ndarray) -> int:
    """Σx² of int64 values, exact (a Python integer), without a Python object per value."""
    magnitude = np.abs(values)
    if len(values) and int(magnitude.max()) >= 1 << (2 * SQUARE_SPLIT):
        return sum(int(x) * int(x) for x in values.tolist())
    total = 0
    low_mask = (1 << SQUARE_SPLIT) - 1
    for lo in range(0, len(values), SQUARE_ROWS):
        chunk = magnitude[lo:lo + SQUARE_ROWS]
        high, low = chunk >> SQUARE_SPLIT, chunk & low_mask
        total += ((int((high * high).sum()) << (2 * SQUARE_SPLIT)) + (int((high * low).sum()) << (SQUARE_SPLIT + 1))
                  + int((low * low).sum()))
    return total


@dataclass(frozen=True)
class GapSummary:
    """The gaps of some threads as think_time_stats reads them: in memory that grows with their distinct values
    and threads, not with their number. Summaries of the gaps of several sets of threads merge (`merged`)."""

    gaps: ExactHistogram
    gap_moments: Moments
    cycle_moments: Moments  # the cycles (elapsed + gap): their CV
    thread_keys: np.ndarray  # the threads with gaps, ascending
    thread_sums: np.ndarray  # Σ gap of each (int64)
    thread_counts: np.ndarray  # its gaps

    @classmethod
    def of(cls, gaps: pd.DataFrame) -> "GapSummary":
        """From a gaps table (realised_gaps, ThinkSequence.gaps): key, gap_ms, cycle_ms."""
        values = _whole(gaps["gap_ms"])
        keys, sums, counts = _per_thread_sums(gaps["key"].to_numpy(), values)
        return cls(ExactHistogram.of(values), Moments.of(values), Moments.of(_whole(gaps["cycle_ms"])), keys, sums,
                   counts)

    @classmethod
    def merged(cls, summaries: list["GapSummary"]) -> "GapSummary":
        """The summary of the gaps of all `summaries` (the same thread may appear in several)."""
        with_gaps = [s for s in summaries if s.gaps.n]
        if len(with_gaps) <= 1:
            return with_gaps[0] if with_gaps else cls.of(_no_gaps(np.zeros(0, np.int64)))
        keys, inverse = np.unique(np.concatenate([s.thread_keys for s in with_gaps]), return_inverse=True)
        sums, counts = np.zeros(len(keys), np.int64), np.zeros(len(keys), np.int64)
        np.add.at(sums, inverse, np.concatenate([s.thread_sums for s in with_gaps]))
        np.add.at(counts, inverse, np.concatenate([s.thread_counts for s in with_gaps]))
        gap_moments = functools.reduce(Moments.merge, [s.gap_moments for s in with_gaps])
        cycle_moments = functools.reduce(Moments.merge, [s.cycle_moments for s in with_gaps])
        return cls(merged([s.gaps for s in with_gaps]), gap_moments, cycle_moments, keys, sums, counts)


def _whole(column: pd.Series) -> np.ndarray:
    """A gaps column as integers (an empty one may come as floats or objects)."""
    return column.to_numpy() if len(column) else np.zeros(0, np.int64)


def _per_thread_sums(keys: np.ndarray, gaps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(threads, Σ gap, gaps) per thread, without a pandas groupby of millions of gaps. realised_gaps gives the
    gaps grouped by key: sums over each run of equal keys (exact integers, no float copy of the gaps)."""
    if len(keys) == 0:
        return keys, np.zeros(0, np.int64), np.zeros(0, np.int64)
    if keys.dtype.kind not in "iu" or (keys[1:] < keys[:-1]).any():
        order = np.argsort(keys, kind="stable")
        keys, gaps = keys[order], gaps[order]
    firsts = np.concatenate(([0], np.flatnonzero(keys[1:] != keys[:-1]) + 1))
    return (keys[firsts], np.add.reduceat(gaps, firsts, dtype=np.int64),
            np.diff(np.append(firsts, len(keys))).astype(np.int64))


def think_time_stats(gaps: pd.DataFrame, think_dist: str | None = None, offset_ms: float = 0.0) -> dict:
    """The contract's "think_time" block from a gaps table (realised_gaps, ThinkSequence.gaps): gap_stats."""
    return gap_stats(GapSummary.of(gaps), think_dist, offset_ms)


def gap_stats(summary: GapSummary, think_dist: str | None = None, offset_ms: float = 0.0) -> dict:
    """The contract's "think_time" block: gaps, mean, CV, KS vs exponential, Poisson fit (Poisson timer only), histogram
    with the counts both nulls predict."""
    gaps, cycles = summary.gaps, summary.cycle_moments
    n = gaps.n
    mean, sd = summary.gap_moments.mean(), summary.gap_moments.sd()
    per_thread = summary.thread_sums / summary.thread_counts
    ks = ks_exponential(gaps) if n else {"d": None, "p": None, "mean_ms": None}
    fit = poisson_fit(gaps, offset_ms) if (n and think_dist == "poisson") else None
    return {
        "gaps": n,
        "threads": int(per_thread.size),
        "mean_ms": mean,
        "sd_ms": sd,
        "cv": sd / mean if sd is not None and mean else None,
        "negative_gaps": int(gaps.below(0)),
        # R+Z per cycle: its CV sets how fast throughput settles (relative s.e. of X ≈ cycle_cv/√completions)
        "cycle_cv": cycles.sd() / cycles.mean() if n > 1 and cycles.mean() > 0 else None,
        "thread_mean_ms": {"min": float(per_thread.min()), "max": float(per_thread.max())} if n else None,
        "ks_exponential": ks,
        "ks_poisson": fit,
        "histogram": histogram_with_nulls(gaps, ks, fit),
    }


NOT_SEEN = np.iinfo(np.int64).max


def _starts_before(part: think_blocks.ThreadRows, carried: think_blocks.ThreadRows) -> bool:
    """Whether a row of `part` starts before its thread's carried row (threads numbered 0, 1, 2...)."""
    carried_start = np.full(max(int(part.key.max()), int(carried.key.max())) + 1, np.iinfo(np.int64).min, np.int64)
    carried_start[carried.key] = carried.start
    return bool((part.start < carried_start[part.key]).any())


class SlicedSequence:
    """The every-sample rule measured on rows given a slice at a time in file order, each thread's last row carried
    into the next slice; the figures of the whole rows at once (sequence_of_rows) while it holds: every slice
    follows the rule with every sample (no overlap within it), and no thread's rows in a later slice start before
    its last row so far (the whole is sorted by start). add() says False from the first slice that breaks either.

    Every sample follows the previous one of its thread, so the gap across a slice boundary is the carried row's;
    the carried row's own count, elapsed and rows are taken off again, and each thread's active time runs from its
    first start to its last row's end, as _active_ms measures it. Memory: a slice, a row per thread, and the gaps'
    summary (its distinct values and threads)."""

    def __init__(self, window: SteadyWindow, clock_steps: bool) -> None:
        self.window, self.clock_steps = window, clock_steps
        self.broken = False
        self._carried: think_blocks.ThreadRows | None = None  # ascending threads
        self._first_start = np.zeros(0, np.int64)  # by thread number (NOT_SEEN: none yet)
        self._rows = self._count = self._elapsed = 0
        self._gaps: GapSummary | None = None
        self._steps: list[ClockSteps] = []

    def add(self, part: think_blocks.ThreadRows, idle: bool) -> bool:
        """The next slice (`idle`: its spans include IdleTime); whether the figures still hold."""
        if self.broken or not len(part):
            return not self.broken
        keys, starts = part.key, part.start
        if self._carried is not None and _starts_before(part, self._carried):
            self.broken = True
            return False
        rows = part if self._carried is None else think_blocks.ThreadRows.concat(self._carried, part)
        seq = sequence_of_rows(rows.key, rows.start, rows.end, rows.idle if idle else None, rows.is_transaction,
                               self.window, False, self.clock_steps)
        if seq.rule != RULE_EVERY:
            self.broken = True
            return False
        if len(self._first_start) <= int(keys.max()):  # threads numbered 0, 1, 2...
            self._first_start = np.concatenate((self._first_start, np.full(
                int(keys.max()) + 1 - len(self._first_start), NOT_SEEN, np.int64)))
        np.minimum.at(self._first_start, keys, starts)  # later rows start after the carried one: the first's
        if seq.clock_steps is not None:
            self._steps.append(seq.clock_steps)
        self._rows += len(part)
        self._count, self._elapsed = self._count + seq.count, self._elapsed + seq.elapsed_sum
        if self._carried is not None:  # counted in the slice before
            carried, window = self._carried, self.window
            inside = (carried.end >= window.start_ms) & (carried.end <= window.end_ms)
            self._count -= int(np.count_nonzero(inside))
            self._elapsed -= int((carried.end[inside] - carried.start[inside]).sum())
        summary = GapSummary.of(seq.gaps)
        self._gaps = summary if self._gaps is None else GapSummary.merged([self._gaps, summary])
        self._carried = rows.last_of_each_thread()
        return True

    @property
    def rows(self) -> int:
        """Rows added so far."""
        return self._rows

    def result(self) -> tuple[ThinkSequence, GapSummary]:
        """The sequence (its counters; gaps None) and its gaps' summary, of every slice added (at least one)."""
        carried, window = self._carried, self.window
        active = np.minimum(carried.end, window.end_ms) - np.maximum(self._first_start[carried.key], window.start_ms)
        return (ThinkSequence(RULE_EVERY, None, self._rows, count=self._count, elapsed_sum=self._elapsed,
                              active_ms=int(np.clip(active, 0, None).sum()),
                              clock_steps=ClockSteps.merged(self._steps)),
                self._gaps)


class ThinkTimeAccumulator:
    """The cell's "think_time" block (gap_stats and its ThinkSequence's as_dict), from its blocks of rows: every
    row, Transaction Controller rows included. The figures are those of think_sequence and think_time_stats on
    the whole table, whatever the blocks.

    A cell of one block is measured in memory, as the whole table is. A larger cell is spilled to partitions by
    thread (think_blocks.ThreadPartitions), measured one at a time by result(): only the rule is the cell's.
    Its blocks are also measured as they come (SlicedSequence, each block a slice): when every sample follows
    the one before in its thread, as JMeter writes a closed workload without Transaction Controllers, result()
    takes that and reads no partition (the 5 M-row report of docs/report.md spent 0.45 s there after its pass).
    Any overlap, a thread's row written before its previous one, or IdleTime: the partitions are measured."""

    def __init__(self, frame: "Frame", think_dist: str | None, offset_ms: float) -> None:
        self._frame = frame
        self._think_dist = think_dist
        self._offset_ms = offset_ms
        self._held: think_blocks.ThreadRows | None = None  # a cell of one block: its rows, not spilled
        self._spill: think_blocks.ThreadPartitions | None = None
        self._running: SlicedSequence | None = None  # the spilled blocks measured as they come
        self._idle = False  # a positive IdleTime anywhere in the cell: every span includes IdleTime
        self._result: dict | None = None
        self._closed = False

    @property
    def spill_folder(self) -> "Path | None":
        """The folder of the partition files (None while nothing was spilled)."""
        return None if self._spill is None else self._spill.folder

    def add(self, block: "Block") -> None:
        rows = think_blocks.ThreadRows.of(block)
        self._idle |= rows.idle is not None and int(rows.idle.max()) > 0
        if self._frame.blocks == 1 and self._held is None and self._spill is None:
            self._held = rows
            return
        if self._spill is None:  # more than one block (even when the frame said one)
            self._spill = think_blocks.ThreadPartitions(think_blocks.partitions_for(self._frame.rows))
            self._running = SlicedSequence(self._frame.window, clock_steps=True)
            if self._held is not None:
                self._spill.write(self._held)
                self._run(self._held)
                self._held = None
        self._spill.write(rows)
        self._run(rows)

    def _run(self, rows: think_blocks.ThreadRows) -> None:
        if self._running is not None and (self._idle or not self._running.add(rows, False)):
            self._running = None  # the partitions will be measured

    def discard(self) -> None:
        """Drops the rows (and removes the spill) without measuring them."""
        if self._spill is not None:
            self._spill.close()
        self._held, self._running, self._closed = None, None, True

    def result(self) -> dict:
        if self._result is None:
            if self._closed:  # a failed result() took the rows with it: no figures from part of them
                raise RuntimeError("think time: result() failed before, its rows are gone")
            try:
                seq, gaps = self._measure()
            finally:
                if self._spill is not None:
                    self._spill.close()
                self._held, self._running, self._closed = None, None, True
            self._result = gap_stats(gaps, self._think_dist, self._offset_ms) | {
                "sequence": seq.as_dict(self._frame.window)}
        return self._result

    def _measure(self) -> tuple[ThinkSequence, GapSummary]:
        """The cell's sequence (its counters; gaps None) and its gaps: _measure_rule, again without clock steps
        when JMeter's clock does not explain the overlaps the partitions took for its steps (a few ms each,
        but too many instants for the cell's clock: the samples' own overlaps). The blocks' own measure, when it
        held to the end, is what _measure_rule would give with clock steps."""
        if self._running is not None and self._running.rows:
            seq, gaps = self._running.result()
        else:
            seq, gaps = self._measure_rule(clock_steps=True)
        if clock_explains(seq, self._frame.window):
            return seq, gaps
        return self._measure_rule(clock_steps=False)

    def _measure_rule(self, clock_steps: bool) -> tuple[ThinkSequence, GapSummary]:
        """The cell's sequence and gaps, a partition at a time.

        Every sample while no partition overlaps; the first that does makes the cell's rule the outermost
        samples, and the partitions before it are measured again by that rule (a cell with overlaps mostly has
        them in its first partition already). Any partial overlap: the rule does not apply, no gaps."""
        parts = 1 if self._spill is None else self._spill.parts
        outermost = False
        measured: list[tuple[ThinkSequence, GapSummary | None]] = []
        for p in range(parts):
            part = self._partition(p, outermost, clock_steps)
            if part is None:
                continue
            if part[0].rule != RULE_EVERY and not outermost:
                outermost = True
                measured = [m for m in (self._partition(q, True, clock_steps) for q in range(p)) if m is not None]
            measured.append(part)
        sequences = [seq for seq, _ in measured]
        rule = (RULE_NONE if any(s.rule == RULE_NONE for s in sequences) else
                RULE_OUTERMOST if outermost else RULE_EVERY)
        counters = {f.name: sum(getattr(s, f.name) for s in sequences)
                    for f in dataclasses.fields(ThinkSequence) if f.name not in ("rule", "gaps", "clock_steps")}
        gaps = [] if rule == RULE_NONE else [g for _, g in measured]
        steps = ClockSteps.merged([s.clock_steps for s in sequences])
        return ThinkSequence(rule, None, **counters, clock_steps=steps), GapSummary.merged(gaps)

    def _partition(self, p: int, outermost: bool,
                   clock_steps: bool) -> tuple[ThinkSequence, GapSummary | None] | None:
        """Partition p measured: its sequence without its gaps, and their summary (None: it has no rows)."""
        if self._spill is not None and not outermost and self._spill.rows_in(p) > think_blocks.SLICE_ROWS:
            sliced = self._sliced(p, clock_steps)  # a partition of long threads: a slice of rows at a time
            if sliced is not None:
                return sliced
        rows = self._held if self._spill is None else self._spill.read(p, self._idle)
        if rows is None or not len(rows):
            return None
        seq = sequence_of_rows(rows.key, rows.start, rows.end, rows.idle if self._idle else None,
                               rows.is_transaction, self._frame.window, outermost, clock_steps)
        del rows
        return dataclasses.replace(seq, gaps=None), None if seq.gaps is None else GapSummary.of(seq.gaps)

    def _sliced(self, p: int, clock_steps: bool) -> tuple[ThinkSequence, GapSummary] | None:
        """Partition p measured SLICE_ROWS rows at a time (SlicedSequence), so memory is a slice whatever a
        thread's length; None when that would not give the whole partition's figures."""
        spill = self._spill
        n = spill.rows_in(p)
        sliced = SlicedSequence(self._frame.window, clock_steps)
        for lo in range(0, n, think_blocks.SLICE_ROWS):
            if not sliced.add(spill.read(p, self._idle, lo, min(n, lo + think_blocks.SLICE_ROWS)), self._idle):
                return None
        return sliced.result()
