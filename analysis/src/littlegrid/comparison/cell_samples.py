"""The steady-window samples a comparison resamples: each cell's exact histogram as the summary keeps it (the
JTL is never read again)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from littlegrid.analysis.steady.blocks import BlockHistograms
from littlegrid.analysis.reading.histogram import Latencies, read_cell_histogram


@dataclass(frozen=True)
class CellSamples:
    latencies: Latencies
    per_second: np.ndarray  # completions in each whole second of the steady window
    blocks: BlockHistograms | None  # the same samples by block of seconds; None: they disagree with the histogram


def from_summary(cell) -> CellSamples | None:
    """The cell's (summary.model.Cell) exact histogram (histogram.py) with its blocks of seconds; None for a cell
    without a steady window (the summary then has no histogram for it)."""
    got = read_cell_histogram(cell)
    if got is None:
        return None
    latencies, per_second = got
    kept = BlockHistograms.from_summary(cell.histogram.blocks, latencies.values_ms, latencies.counts)
    return CellSamples(latencies, per_second, kept)
