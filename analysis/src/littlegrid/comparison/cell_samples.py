"""The steady-window samples a comparison resamples: the summary's exact histogram of each cell, or for a summary
written before histograms, the cell's JTL re-read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from littlegrid.analysis.blocks import BlockHistograms
from littlegrid.analysis.histogram import Latencies, completions_per_second, read_cell_histogram
from littlegrid.usererror import UserError


@dataclass(frozen=True)
class CellSamples:
    latencies: Latencies
    per_second: np.ndarray  # completions in each whole second of the steady window
    source: str  # where they came from, said on the comparison page
    blocks: BlockHistograms | None = None  # the same samples by block of seconds; None: resampled one by one


def jtl_paths_by_cell(run_dir: Path | None, summary: dict) -> dict[str, tuple]:
    """Cell id -> its JTL files, found the way `analyze` found them (a run folder's manifests, or the JTL inputs)."""
    from littlegrid.analysis import cells

    run = summary.get("run") or {}
    inputs = [str(run_dir)] if run_dir is not None and (run_dir / "cells").is_dir() else list(run.get("inputs") or [])
    if not inputs:
        return {}
    try:
        found = cells.discover(inputs)
    except UserError:  # moved or deleted since the analysis: the comparison goes on without intervals
        return {}
    return {c.id: tuple(c.jtl_paths) for c in found.cells}


def from_summary(cell: dict) -> CellSamples | None:
    """The cell's exact histogram as the summary keeps it (histogram.py); None for a summary without one."""
    got = read_cell_histogram(cell)
    if got is None:
        return None
    latencies, per_second = got
    kept = BlockHistograms.from_summary((cell.get("histogram") or {}).get("blocks"), latencies.values_ms,
                                        latencies.counts)
    return CellSamples(latencies, per_second, "the summary's exact histogram", kept)


def window_samples(elapsed_ms: np.ndarray, end_ms: np.ndarray, window: dict) -> CellSamples | None:
    """Keep the samples that complete inside the window (the analysis's rule: start_ms <= end_ms <= window end)."""
    start, end = window.get("start_ms"), window.get("end_ms")
    if start is None or end is None or end <= start:
        return None
    inside = (end_ms >= start) & (end_ms <= end)
    if not inside.any():
        return None
    return CellSamples(Latencies.from_samples(elapsed_ms[inside]), completions_per_second(end_ms, start, end), "",
                       BlockHistograms.from_samples(elapsed_ms, end_ms, start, end))


def load_cell_samples(paths: tuple, cell: dict, read_options=None) -> tuple[CellSamples | None, str]:
    """(samples, note): the summary's exact histogram when it has one; else (a summary written before
    histograms) the cell's JTL re-read, None with a reason when it is gone or disagrees with the summary.
    read_options: read_jtl keywords, as the analysis read the files (--columns, --jmeter-properties...)."""
    kept = from_summary(cell)
    if kept is not None:
        return kept, ""
    if not paths or not all(Path(p).is_file() for p in paths):
        return None, "no JTL found for this cell: intervals need the samples"
    from littlegrid.jtl import read_jtl  # only a comparison with samples pays for the reader

    reading = read_jtl([str(p) for p in paths], **(read_options or {}))
    s = reading.samples
    if reading.transaction_labels:  # as analyze does: transaction parents would count requests twice
        s = s[~s["label"].isin(reading.transaction_labels)]
    got = window_samples(s["elapsed_ms"].to_numpy(np.int64), s["end_ms"].to_numpy(np.int64), cell.get("window") or {})
    if got is None:
        return None, f"{paths[0]}: no samples in the cell's steady window"
    expected = (cell.get("overall") or {}).get("count")
    if expected is not None and got.latencies.n != expected:
        return None, (f"{paths[0]}: {got.latencies.n} samples in the window, the summary counted {expected} "
                      "(re-analyse the run before comparing)")
    return CellSamples(got.latencies, got.per_second, ", ".join(map(str, paths)), got.blocks), ""
