"""A cell's successful requests per second of completion, with their elapsed sum, gathered table by table in the
analysis' first pass (survey.LabelSpans): the series steady_state.warmup reads to find where the steady window
begins, before anything is counted (docs/analysis.md, "Warm-up from the data, precision from batch means").

Seconds are counted from an anchor, the earliest start of the first table seen (JMeter writes a sample when it
ends, so the cell's first start is among its first rows), and re-based on the cell's first start when the frame is
made; a first start found later than the anchor's table (rows far out of order) shifts the seconds by whole
seconds, so their bounds may then lie up to a second off the first start's. Memory: two integers per second with
completions (sparse until the frame asks for the dense series), whatever the rows; Transaction Controller parents
(their responseMessage) are not requests and are left out, as the window's counts leave them out."""

from __future__ import annotations

import numpy as np
import pandas as pd

from littlegrid.analysis.reading.error_classes import failed_mask
from littlegrid.jtl.schema import TRANSACTION_MESSAGE_PREFIX


UNITS_MAX = 86_400  # a day of seconds: a longer cell is looked at in units of several seconds (0.7 MB at most)


def requests(table: pd.DataFrame) -> np.ndarray:
    """True for the rows that are requests: not Transaction Controller parents (their responseMessage), which
    wrap requests already counted. What every per-second series of answers counts, this one and the runner's
    (run/answered.py), so its stopping rule judges what the analysis reports."""
    messages = table["response_message"] if "response_message" in table.columns else None
    if messages is None or messages.isna().all():
        return np.ones(len(table), bool)
    return ~messages.str.startswith(TRANSACTION_MESSAGE_PREFIX).fillna(False).to_numpy(dtype=bool)


class WarmupSeconds:
    MERGE_AT = 64  # tables' per-second parts kept before they are merged into one

    def __init__(self) -> None:
        self.anchor_ms: int | None = None
        self._parts: list[pd.DataFrame] = []

    def add(self, table: pd.DataFrame) -> None:
        if len(table) == 0:
            return
        if self.anchor_ms is None:
            self.anchor_ms = int(table["start_ms"].min())
        keep = ~failed_mask(table) & requests(table)
        ends = table["end_ms"].to_numpy(dtype=np.int64)[keep]
        if len(ends) == 0:
            return
        elapsed = table["elapsed_ms"].to_numpy(dtype=np.int64)[keep]
        second = (ends - self.anchor_ms) // 1000
        low, width = int(second.min()), int(second.max() - second.min()) + 1
        if width > max(4 * len(ends), 1 << 16):  # sessions apart, a damaged timestamp: grouped, not counted densely
            part = pd.DataFrame({"second": second, "count": np.ones(len(ends), np.int64), "elapsed": elapsed}) \
                .groupby("second").sum()
        else:
            local = second - low
            count = np.bincount(local, minlength=width)
            total = np.bincount(local, weights=elapsed, minlength=width)
            present = np.flatnonzero(count)
            part = pd.DataFrame({"count": count[present], "elapsed": total[present].astype(np.int64)},
                                index=pd.Index(present + low, name="second"))
        self._parts.append(part)
        if len(self._parts) >= self.MERGE_AT:
            self._parts = [pd.concat(self._parts).groupby(level=0).sum()]

    def series(self, first_start_ms: int, until_ms: int) -> tuple[np.ndarray, np.ndarray, int]:
        """(counts, sums_ms, unit_s): the whole units from `first_start_ms` to `until_ms` (epoch ms; the last end
        less the cool-down), each unit's successful completions and their elapsed sum, dense. A unit is one
        second, or, for a cell longer than UNITS_MAX seconds (sessions days apart), unit_s whole seconds, so the
        series never holds more than UNITS_MAX numbers. Empty when no whole unit fits."""
        seconds = max(0, (until_ms - first_start_ms) // 1000)
        unit = max(1, -(-seconds // UNITS_MAX))
        units = seconds // unit
        counts, sums = np.zeros(units), np.zeros(units)
        if not self._parts or units == 0:
            return counts, sums, unit
        merged = pd.concat(self._parts).groupby(level=0).sum() if len(self._parts) > 1 else self._parts[0]
        self._parts = [merged]
        shift = round((self.anchor_ms - first_start_ms) / 1000)
        index = (merged.index.to_numpy(dtype=np.int64) + shift) // unit
        inside = (index >= 0) & (index < units)
        np.add.at(counts, index[inside], merged["count"].to_numpy()[inside])
        np.add.at(sums, index[inside], merged["elapsed"].to_numpy()[inside])
        return counts, sums, unit
