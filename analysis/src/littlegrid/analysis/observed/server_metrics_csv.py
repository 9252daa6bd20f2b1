"""An older run folder's server-metrics.csv (the sample server's actuator sampled into columns, before [observe])
read as the readings [observe] would have kept of the same scrapes, so that the analysis reads every server figure
through one path (analysis/observed/mapping.py's mapping). Its figures are the sample server's, which the runner started
on this host: the source names no host (mapping.THIS_HOST)."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from littlegrid.analysis.observed import mapping
from littlegrid.analysis.observed.mapping import Reading
from littlegrid.usererror import UserError

SOURCE = "server-metrics.csv"  # the source its readings carry: the file, there being no URL

# column -> the family the sampler summed into it (its connector filter already kept the port under test only)
FAMILIES = {
    "busy_threads": mapping.THREAD_POOLS[0].busy,
    "threads_max": mapping.THREAD_POOLS[0].size,
    "connections": mapping.CONNECTIONS,
    "in_flight": mapping.IN_FLIGHT,
    "throttle_queue": mapping.THROTTLE_QUEUE,
    "requests_total": mapping.TIMERS[0][1],
    "service_seconds_total": mapping.TIMERS[0][2],
    "in_flight_seconds_total": mapping.IN_FLIGHT_SECONDS,
}


def readings(path: Path) -> list[Reading]:
    """Each row's values as readings of their families at the row's time; a row with a time and no value is a
    failed scrape (mapping.FAILED); a row without a readable time is skipped, as the sampler never wrote one."""
    out = []
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = csv.DictReader(f)
            if rows.fieldnames is None:
                return []
            if "time_ms" not in rows.fieldnames:
                raise UserError(f"{path}:1: no time_ms column (columns: {', '.join(rows.fieldnames)})")
            for row in rows:
                time_ms = _number(row.get("time_ms"))
                if time_ms is None:
                    continue
                values = [(FAMILIES[c], v) for c in FAMILIES if (v := _number(row.get(c))) is not None]
                out += [Reading(int(time_ms), SOURCE, metric, {}, v) for metric, v in values] or [
                    Reading(int(time_ms), SOURCE, mapping.FAILED, {}, math.nan)]
    except UnicodeDecodeError as e:
        raise UserError(f"{path}: not a metrics CSV: {e}") from None
    return out


def _number(text) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None
