"""Growable NumPy buffers that collect a CSV's integer columns block by block, as the table will hold them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

TIMES_ROWS = {"timeStamp": 0, "elapsed": 2}  # rows of the start/end/elapsed block (end is row 1)
SLACK = 1.05  # over-allocation of the first estimate; growth beyond it is by half again


def _empty(shape, dtype) -> np.ndarray:
    """np.empty without NumPy's transparent-huge-page advice: where the kernel compacts memory for
    madvised regions (THP defrag=madvise, as on this project's VMs) that advice made the first touch of
    360 MB take 2.0 s instead of 0.6 s."""
    multiarray = getattr(getattr(np, "_core", None), "multiarray", None) or np.core.multiarray
    setter = getattr(multiarray, "_set_madvise_hugepage", None)
    if setter is None:
        return np.empty(shape, dtype=dtype)
    previous = setter(False)
    try:
        return np.empty(shape, dtype=dtype)
    finally:
        setter(previous)


class IntBuffers:
    """Integer columns copied out of each Arrow block as it arrives, so the block's memory is freed at
    once; timeStamp and elapsed (epoch integers) go straight into the table's (3, n) times block."""

    def __init__(self, dtypes: dict[str, str], times: bool):
        self.dtypes = dtypes              # JMeter name -> "int64" / "int32"
        self.times = times                # timeStamp and elapsed are epoch integers
        self.capacity = 0
        self.rows = 0
        self.values: dict[str, np.ndarray] = {}
        self.masks: dict[str, np.ndarray] = {}
        self.block = np.empty((3, 0), dtype="int64")

    def reserve(self, rows: int) -> None:
        if rows <= self.capacity:
            return
        capacity = max(rows, int(self.capacity * 1.5))
        block = _empty((3, capacity), "int64")
        block[:, :self.rows] = self.block[:, :self.rows]
        self.block = block
        for name, dtype in self.dtypes.items():
            if not self._in_block(name):
                grown = _empty(capacity, dtype)
                grown[:self.rows] = self.values[name][:self.rows] if name in self.values else 0
                self.values[name] = grown
        for name, mask in self.masks.items():
            grown = np.zeros(capacity, dtype=bool)
            grown[:self.rows] = mask[:self.rows]
            self.masks[name] = grown
        self.capacity = capacity

    def append(self, columns: dict[str, pa.Array], rows: int) -> None:
        """Copy one block's integer columns (all of `rows` length) in."""
        self.reserve(self.rows + rows)
        end = self.rows + rows
        for name, column in columns.items():
            target = self.block[TIMES_ROWS[name]] if self._in_block(name) else self.values[name]
            if column.null_count:
                if name not in self.masks:
                    self.masks[name] = np.zeros(self.capacity, dtype=bool)
                self.masks[name][self.rows:end] = column.is_null().to_numpy(zero_copy_only=False)
                column = column.fill_null(0)
            target[self.rows:end] = column.to_numpy()
        self.rows = end

    def extend(self, later: "IntBuffers") -> None:
        """Append the rows of `later` (the next part of the same file), freeing its arrays as they are
        copied so that at most one of its columns exists twice."""
        self.reserve(self.rows + later.rows)
        start, end = self.rows, self.rows + later.rows
        self.block[:, start:end] = later.block[:, :later.rows]
        later.block = np.empty((3, 0), dtype="int64")
        for name in list(later.values):
            self.values[name][start:end] = later.values.pop(name)[:later.rows]
        for name in list(later.masks):
            if name not in self.masks:
                self.masks[name] = np.zeros(self.capacity, dtype=bool)
            self.masks[name][start:end] = later.masks.pop(name)[:later.rows]
        self.rows = end

    def finish(self) -> dict[str, pd.Series]:
        """Series by JMeter name (views, no copy); `_times` is the (3, rows) block when used."""
        n = self.rows
        out: dict[str, pd.Series] = {}
        for name in self.dtypes:
            values = self.block[TIMES_ROWS[name]][:n] if self._in_block(name) else self.values.get(
                name, np.empty(0, dtype=self.dtypes[name]))[:n]
            if name in self.masks:
                out[name] = pd.Series(pd.arrays.IntegerArray(values.copy() if self._in_block(name) else values,
                                                             self.masks[name][:n]))
            elif name in TIMES_ROWS:
                out[name] = pd.Series(values, copy=False)  # never null: plain int64, as the table wants
            else:
                out[name] = pd.Series(pd.arrays.IntegerArray(values, np.zeros(n, dtype=bool)))
        if self.times:
            out["_times"] = self.block[:, :n]
        return out

    def _in_block(self, name: str) -> bool:
        return self.times and name in TIMES_ROWS
