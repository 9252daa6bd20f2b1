"""Realised think time of a cell, measured block by block: the sequence rule's gaps (think_gaps.py) carried across
blocks or spilled by thread (think_blocks.py) into the summary's "think_time" block, with its fits against the intended
distribution (think_fits.py) and its moments (think_moments.py)."""

import dataclasses
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from littlegrid.analysis.steady.window import SteadyWindow
from littlegrid.analysis.workload import think_blocks
from littlegrid.analysis.workload.clock_steps import ClockSteps
from littlegrid.analysis.workload.think_fits import histogram_with_nulls, ks_exponential, poisson_fit
from littlegrid.analysis.workload.think_gaps import (RULE_EVERY, RULE_NONE, RULE_OUTERMOST, ThinkSequence,
                                                     clock_explains, sequence_of_rows)
from littlegrid.analysis.workload.think_moments import GapSummary

if TYPE_CHECKING:
    from pathlib import Path

    from littlegrid.analysis.statistics.rowblock import Block, Frame


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
