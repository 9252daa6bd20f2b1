"""An open workload's arrivals: the CV of the merged inter-arrival times (sample starts) in the window, counted
block by block from the distinct start times (rows are written at their end, so starts arrive out of order)."""

from __future__ import annotations

import numpy as np

from littlegrid.analysis.reading.histogram import HistogramAccumulator
from littlegrid.analysis.statistics.rowblock import Block


class InterarrivalAccumulator:
    """Starts of the window's samples as an exact histogram: the sorted starts' gaps are the differences of the
    distinct starts plus a zero for every repeated one, so their mean and SD need nothing else."""

    def __init__(self) -> None:
        self._starts = HistogramAccumulator()

    def add(self, block: Block) -> None:
        self._starts.add(block.samples["start_ms"].to_numpy(dtype=np.int64)[block.samples_in_window])

    def result(self) -> tuple[float | None, int]:
        """(CV of the inter-arrival times, arrivals); CV None below 3 arrivals or when all start together."""
        h = self._starts.result()
        n = h.n
        if n < 3:
            return None, n
        steps = np.diff(h.values)
        gaps = n - 1
        mean = float(h.values[-1] - h.values[0]) / gaps
        if not mean > 0:
            return None, n
        # Σ (gap − mean)² over the distinct steps and the n − distinct zero gaps
        squares = float(((steps - mean) ** 2).sum()) + (n - len(h.values)) * mean * mean
        return float(np.sqrt(squares / (gaps - 1)) / mean), n
