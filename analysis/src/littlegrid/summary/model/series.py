"""A cell's series over its whole length: per second or per bucket, overall and per label."""

from __future__ import annotations

from littlegrid.summary.model.base import Record


class LabelSeries(Record):
    throughput: list[float]
    errors: list[float]
    p50_ms: list[float | None]
    p90_ms: list[float | None]
    p99_ms: list[float | None]


class LabelSeriesSet(Record):
    rule: str
    labels: dict[str, LabelSeries]


class Series(Record):
    """Per bucket of bucket_s seconds since t0_ms (the first sample's start), warm-up and cool-down included."""
    t0_ms: int
    bucket_s: int
    window_start_s: float
    window_end_s: float
    t_s: list[float]
    throughput: list[float]
    errors: list[float]
    p50_ms: list[float | None]
    p90_ms: list[float | None]
    p99_ms: list[float | None]
    codes: dict[str, list[float]]
    active_threads: list[float | None]
    in_flight: list[float | None]
    busy_threads: list[float | None]
    load1: list[float | None]
