"""Think time as realised: its gaps, the tests against the intended distribution, the histogram with the counts each
null expects, the sequence rule."""

from __future__ import annotations

from littlegrid.summary.model.base import Record


class KsExponential(Record):
    d: float | None
    p: float | None
    mean_ms: float | None


class PoissonFit(Record):
    """Chi-square fit of the realised gaps to offset + Poisson(λ) (JMeter's Poisson Random Timer)."""
    d: float | None
    p: float | None
    lambda_ms: float | None
    offset_ms: float | None
    test: str
    chi2: float | None
    dof: int | None


class GapHistogram(Record):
    """The realised gaps per bin [edges_ms[i], edges_ms[i+1]) (gaps beyond the last edge counted in overflow), and
    beside them the gaps each bin should hold under the nulls the think-time tests measure against
    (analysis.workload.think_fits.expected_counts): the exponential of ks_exponential.mean_ms, and offset + Poisson(λ) of
    ks_poisson (a Poisson timer only). None: no such null (or a summary of an older littlegrid)."""
    edges_ms: list[float]
    counts: list[int]
    overflow: int
    expected_exponential: list[float] | None = None
    expected_poisson: list[float] | None = None


class ThreadMeans(Record):
    min: float
    max: float


class ClockSteps(Record):
    """A thread's samples starting a few ms before its previous one ended, all at the instants JMeter
    re-measured its clock offset (analysis.workload.clock_steps): its clock's steps, not overlaps."""
    pairs: int
    instants: int
    re_measurements: int
    largest_ms: int


class ThinkSequence(Record):
    """Which samples think time was measured between (every sample, the outermost ones, or none) and why."""
    rule: str
    text: str
    rows: int
    contained: int
    transaction_rows: int
    partial_overlaps: int
    successive_pairs: int
    count: int | None
    throughput_per_s: float | None
    mean_ms: float | None
    active_threads: float | None
    clock_steps: ClockSteps | None = None  # None: no overlap taken for JMeter's clock


class ThinkTime(Record):
    gaps: int
    threads: int
    mean_ms: float | None
    sd_ms: float | None
    cv: float | None
    negative_gaps: int
    cycle_cv: float | None
    thread_mean_ms: ThreadMeans | None
    ks_exponential: KsExponential
    ks_poisson: PoissonFit | None
    histogram: GapHistogram
    sequence: ThinkSequence
