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

from littlegrid.analysis.series import bucketing
from littlegrid.analysis.window import SteadyWindow


@dataclass(frozen=True)
class Frame:
    """What the first pass settled, for the whole cell."""

    window: SteadyWindow
    transactions: frozenset[str]  # labels of Transaction Controller rows (they sit beside the samples they wrap)
    series_labels: tuple[str, ...]  # label_series' labels, in rank order (most rows of the cell, ties by label)
    rows: int  # rows of the cell (everything), for accumulators that size their own partitions
    blocks: int  # how many blocks the second pass will hand over (1: the cell fits one block, nothing to spill)

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
    """

    everything: pd.DataFrame
    is_transaction: np.ndarray
    samples: pd.DataFrame
    classes: pd.Series
    types: pd.Series | None
    keys: np.ndarray
    in_window: np.ndarray

    @property
    def samples_in_window(self) -> np.ndarray:
        """in_window for the rows of `samples`."""
        return self.in_window if self.samples is self.everything else self.in_window[~self.is_transaction]

    @property
    def sample_keys(self) -> np.ndarray:
        """keys for the rows of `samples`."""
        return self.keys if self.samples is self.everything else self.keys[~self.is_transaction]

    @property
    def sample_classes(self) -> pd.Series:
        """classes for the rows of `samples` (index aligned with `samples`)."""
        return self.classes if self.samples is self.everything else self.classes[~self.is_transaction]
