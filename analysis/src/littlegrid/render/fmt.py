"""Number formatting for report text: milliseconds, rates, percentages, seconds; None reads as a dash."""

from __future__ import annotations

import math
import re

DASH = "—"


def _ok(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def num(v, digits: int = 3) -> str:
    """Plain number with `digits` significant digits (thousands kept whole)."""
    if not _ok(v):
        return DASH
    if v == 0:
        return "0"
    if abs(v) >= 10 ** digits:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def ms(v) -> str:
    return DASH if not _ok(v) else f"{num(v)} ms"


def rate(v) -> str:
    return DASH if not _ok(v) else f"{num(v)}/s"


def pct(v, digits: int = 2) -> str:
    """A fraction as a percentage: 0.0123 -> 1.23 %."""
    if not _ok(v):
        return DASH
    return "0 %" if v == 0 else f"{num(v * 100, digits + 1 if abs(v) < 0.1 else digits + 2)} %"


def seconds(v) -> str:
    if not _ok(v):
        return DASH
    if v >= 3600:
        return f"{int(v // 3600)} h {int(v % 3600 // 60)} min"
    if v >= 120:
        return f"{int(v // 60)} min {int(v % 60)} s"
    return f"{num(v)} s"


def passed(v) -> str:
    """Check / criterion outcome word."""
    return {True: "pass", False: "FAIL"}.get(v, "not made")


def outcome_class(v) -> str:
    return {True: "pass", False: "fail"}.get(v, "unknown")


def value(v) -> str:
    """Any JSON value as short text (checks carry numbers, strings or null)."""
    if v is None:
        return DASH
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        return num(v, 4)
    return str(v)


TIME_METRICS = re.compile(r"^(p[0-9.]+|mean|min|max|latency_mean|connect_mean|.*_ms)$")
UNIT_FORMATS = {"ms": ms, "fraction": pct, "per_s": rate, "count": num}


def metric(v, name, unit=None) -> str:
    """A criterion's value in its unit: the entry's `unit` (ms, fraction, per_s, count) when the summary
    has it, else read from the metric's name (p90, mean … in ms; *_rate, *_error in %; throughput per second)."""
    if unit in UNIT_FORMATS:
        return UNIT_FORMATS[unit](v)
    name = str(name or "")
    if TIME_METRICS.match(name):
        return ms(v)
    if name.endswith("rate") or name.endswith("_error"):
        return pct(v)
    if name in ("throughput", "goodput") or name.endswith("_per_s"):
        return rate(v)
    return value(v)


FILTERS = {"metric": metric, "num": num, "ms": ms, "rate": rate, "pct": pct, "seconds": seconds, "passed": passed,
           "outcome": outcome_class, "value": value}
