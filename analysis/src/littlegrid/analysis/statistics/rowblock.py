"""What the analysis' second pass hands every accumulator: the frame the first pass settled (window, time axis,
transaction labels, the labels with series) and one block of rows at a time.

A cell's JTLs are read block by block (docs/analysis.md, "One pass, bounded memory"). The first pass finds what
every figure depends on before it can be counted: the steady window (first start, last end), the labels that are
Transaction Controller rows, the labels with the most rows. The second pass feeds each block to accumulators
that keep counts (exact histograms, per-second and per-bucket counts, per-thread state), never the rows, and
each accumulator's `result()` gives the figure the summary holds. A file that fits one block is one block: the
same code, with no second read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from littlegrid.analysis.reading.int_sort import unique_inverse
from littlegrid.analysis.steady.outage import Silences, Stretch
from littlegrid.analysis.steady.steady_state import Warmup
from littlegrid.analysis.steady.window import SteadyWindow, bucketing


@dataclass(frozen=True)
class Frame:
    """What the first pass settled, for the whole cell."""

    window: SteadyWindow
    transactions: frozenset[str]  # labels of Transaction Controller rows (they sit beside the samples they wrap)
    series_labels: tuple[str, ...]  # label_series' labels, in rank order (most rows of the cell, ties by label)
    rows: int  # rows of the cell (everything), for accumulators that size their own partitions
    blocks: int  # how many blocks the second pass will hand over (1: the cell fits one block, nothing to spill)
    # the stretches in which no request was answered (outage.py): stalls and a recovered outage are marked inside
    # the window; an outage the server never came back from ends it, or, when nothing precedes it, the window is
    # the whole cell, counted for the outage's own requests only
    silences: Silences = Silences()
    # the warm-up rule's record (steady_state.Warmup): what it found and whether the series settled; None when
    # nothing was looked for (a guessed frame, a fixed trim)
    warmup: Warmup | None = None
    # "stop": the cool-down trimmed is the file's tail after the seconds a precise cell's rule judged (the window
    # ends where they did); None: the cool-down asked (the grid's cooldown_s, analyze --cooldown)
    cooldown_by: str | None = None

    @property
    def outage(self) -> Stretch | None:
        """The cell's outage (outage.Silences), None without one."""
        return self.silences.outage

    @property
    def axis(self) -> tuple[int, int, int]:
        """(t0_ms, bucket_s, buckets): the time axis every series of the cell shares (series.bucketing)."""
        return bucketing(self.window)


@dataclass(frozen=True)
class Block:
    """One block of a cell's rows, in file order, as the second pass hands it to each accumulator.

    everything: rows in the samples schema (docs/contracts.md §2), Transaction Controller rows included.
    is_transaction: per row of `everything`, whether its label is one of the frame's transaction labels.
    samples: `everything` without those rows (`everything` itself when there are none): the requests.
    classes: error class per row of `everything` (error_classes.classify: categorical, null = success).
    types: error type per row of `everything` (error_classes.error_types), when labels are analysed, else None.
    keys: per row of `everything`, its thread (host + thread name) as an integer that means the same thread in
        every block of the cell (0, 1, 2... in order of first appearance).
    in_window: per row of `everything`, whether it completed inside the frame's steady window (window_mask).
    engines: per row of `everything`, the index of the remote engine that wrote it in the cell's remote_hosts
        (−1: none of them), when the cell ran on remote engines; else None.
    """

    everything: pd.DataFrame
    is_transaction: np.ndarray
    samples: pd.DataFrame
    classes: pd.Series
    types: pd.Series | None
    keys: np.ndarray
    in_window: np.ndarray
    engines: np.ndarray | None = None

    @property
    def samples_in_window(self) -> np.ndarray:
        """in_window for the rows of `samples`."""
        return self.in_window if self.samples is self.everything else self.in_window[~self.is_transaction]

    @property
    def sample_keys(self) -> np.ndarray:
        """keys for the rows of `samples`."""
        return self.keys if self.samples is self.everything else self.keys[~self.is_transaction]

    @property
    def sample_engines(self) -> np.ndarray | None:
        """engines for the rows of `samples`."""
        if self.engines is None or self.samples is self.everything:
            return self.engines
        return self.engines[~self.is_transaction]

    @property
    def sample_classes(self) -> pd.Series:
        """classes for the rows of `samples` (index aligned with `samples`)."""
        return self.classes if self.samples is self.everything else self.classes[~self.is_transaction]


class EngineNames:
    """Which remote engine wrote a row: JMeter's remote mode prefixes each thread name with its engine's as the
    controller named it ("10.0.0.3:1099-Thread Group 1-2"). The longest engine name that begins a thread name
    wins, so a thread of "e-1" is not taken for one of "e". Indices follow the engines' order; −1: none."""

    def __init__(self, engines=()) -> None:
        self._prefixes = sorted(((e + "-", i) for i, e in enumerate(engines)), key=lambda p: -len(p[0]))

    def __bool__(self) -> bool:
        return bool(self._prefixes)

    def of(self, thread: str | None) -> int:
        return next((i for prefix, i in self._prefixes if thread and thread.startswith(prefix)), -1)

    def codes(self, thread: pd.Series) -> np.ndarray:
        """The engine of each row, told once per distinct thread name."""
        lookup = np.array([self.of(name) for name in _names(thread)], dtype=np.int16)
        return lookup[_codes(thread) + 1]


class ThreadIds:
    """Threads (engine host + thread name) as integers that mean the same thread in every block of a cell:
    0, 1, 2... in order of first appearance. Distributed engines reuse thread names; the host (or remote
    mode's name prefix) tells them apart, as think_gaps.thread_keys does within one table.

    engines: the cell's remote engines as the controller named them: each thread's engine (EngineNames) is told
    once, when the thread is first seen."""

    def __init__(self, engines=()) -> None:
        self._ids: dict[tuple[str | None, str | None], int] = {}
        self._engines = EngineNames(engines)
        self._engine_of: list[int] = []  # per thread id: its engine's index, −1 for none

    def _id(self, host: str | None, thread: str | None) -> int:
        key = (host, thread)
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self._ids)
            self._engine_of.append(self._engines.of(thread))
        return found

    def names(self) -> list[str | None]:
        """Each thread's name, by id."""
        out: list[str | None] = [None] * len(self._ids)
        for (_, thread), i in self._ids.items():
            out[i] = thread
        return out

    def engines(self, keys: np.ndarray) -> np.ndarray | None:
        """The engine index of each row's thread (from keys()), or None when the cell names no engines."""
        if not self._engines:
            return None
        return np.asarray(self._engine_of, dtype=np.int16)[keys]

    def __len__(self) -> int:
        return len(self._ids)

    def keys(self, table: pd.DataFrame) -> np.ndarray:
        """The id of each row's thread (int32: one id a row lives through the block's analysis)."""
        thread, host = _codes(table["thread"]), _codes(table["host"])
        width = int(thread.max(initial=-1)) + 2
        pair = (host + 1) * width + (thread + 1)  # null codes (-1) become 0
        pairs, inverse = unique_inverse(pair)
        thread_names, host_names = _names(table["thread"]), _names(table["host"])
        lookup = np.array([self._id(host_names[p // width], thread_names[p % width]) for p in pairs.tolist()],
                          dtype=np.int64)
        ids = lookup[inverse]
        return ids.astype(np.int32) if len(self._ids) < 2**31 else ids


def _codes(column: pd.Series) -> np.ndarray:
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy(dtype=np.int64)
    return pd.factorize(column, use_na_sentinel=True)[0].astype(np.int64)


def _names(column: pd.Series) -> list:
    """Name per code + 1 (None for null), so that code + 1 indexes it."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return [None, *(str(c) for c in column.cat.categories)]
    return [None, *(str(c) for c in pd.factorize(column, use_na_sentinel=True)[1])]


def make_block(everything: pd.DataFrame, frame: Frame, threads: ThreadIds, by_label: bool) -> Block:
    """The Block the accumulators read, from one block of a cell's rows."""
    from littlegrid.analysis.reading.error_classes import classes_and_types
    from littlegrid.analysis.steady.window import window_mask

    if frame.transactions:
        is_transaction = everything["label"].isin(frame.transactions).to_numpy()
        samples = everything[~is_transaction] if is_transaction.any() else everything
    else:
        is_transaction, samples = np.zeros(len(everything), dtype=bool), everything
    classes, types = classes_and_types(everything, types=by_label)
    keys = threads.keys(everything)
    return Block(everything=everything, is_transaction=is_transaction, samples=samples, classes=classes, types=types,
                 keys=keys, in_window=window_mask(everything, frame.window), engines=threads.engines(keys))
