"""What both CSV paths (pyarrow in blocks, csv-module row by row) produce: the raw columns with their types,
and the warning for a record cut short."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd

from littlegrid.jtl.reading import SkipLog
from littlegrid.jtl.schema import CSV_TO_COLUMN, NS_TWINS

RAW_NAMES = {**CSV_TO_COLUMN, "ErrorCount": "error_count", **NS_TWINS}


@dataclass
class RawCsv:
    """Columns named as in the samples table (start_ms may still be text, success is raw text);
    `line_of(rows)` gives file lines of row indices, record numbers when `exact_lines()` is False."""

    frame: dict[str, pd.Series]
    skips: SkipLog
    warnings: list[str] = field(default_factory=list)
    exact_lines: Callable[[], bool] = lambda: True
    line_of: Callable[[np.ndarray], np.ndarray] = lambda rows: rows  # row indices -> file lines


def truncation_warning(lines: int) -> str:
    return (f"the last record is incomplete (the run was probably killed mid-write): {lines} line(s) "
            "dropped")
