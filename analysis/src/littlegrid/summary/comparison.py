"""The typed result of comparing two runs (littlegrid.comparison.deltas.compare_runs): paired cells, each metric's
delta B − A with its bootstrap interval and verdict, the arms' findings, the settings and the words the page uses.
The comparison stage builds it; render/compare.py draws it and computes nothing.

The verdicts' meaning is part of this contract, so the rule that gives them is here too, one rule for every stage
that words or judges an interval (the comparison, the arms' findings, the headline, the expectations): what a
bootstrap interval of a relative change B/A − 1 shows, and the words for it. Different: the interval excludes zero.
Equivalent within a stated margin ±M: two one-sided tests, the interval lies wholly inside ±M. Both: a difference
shown smaller than the margin. Neither: not shown different (absence of evidence is not evidence of equality).

The interval is the comparison's 95% percentile interval (analysis.statistics.resample.LEVEL), for both questions. Two one-sided
tests at level α (H0: change ≤ −M, and H0: change ≥ +M, each rejected at α) reject both exactly when the (1 − 2α)
interval lies inside ±M, so the 95% interval is TOST at α = 2.5% per side: stricter than the textbook 5% (the 90%
interval), in exchange for one interval on every page and sentence, from which each word can be read: different
when it excludes 0, equivalent when it lies inside ±M."""

from __future__ import annotations

from littlegrid.summary.model import Finding, Record

# Used when no margin is stated (`littlegrid compare --margin`, a grid's `arms same within 10%`): about the
# smallest change the suite's 30 s cells resolve (their throughput intervals span ±3-10%), and below the
# run-to-run drift between server starts that grids/throttling.toml records (−1.3% to −10%).
DEFAULT_MARGIN = 0.05

BETTER, WORSE = "better", "worse"  # shown different, not shown inside the margin
BETTER_WITHIN, WORSE_WITHIN = "better_within_margin", "worse_within_margin"  # shown different, and inside ±M
EQUIVALENT = "equivalent"  # inside ±M, not shown different
NOT_SHOWN = "not_shown_different"  # includes 0, reaches beyond ±M: neither shown
UNKNOWN = "unknown"  # no interval
VERDICTS = (BETTER, WORSE, BETTER_WITHIN, WORSE_WITHIN, EQUIVALENT, NOT_SHOWN, UNKNOWN)
WITHIN_MARGIN = (EQUIVALENT, BETTER_WITHIN, WORSE_WITHIN)  # the two one-sided tests pass
DIFFERENT = (BETTER, WORSE, BETTER_WITHIN, WORSE_WITHIN)  # the interval excludes zero


def check_margin(margin: float) -> float:
    """A margin is a fraction strictly between 0 and 1 (ValueError otherwise, for the caller to word)."""
    if not isinstance(margin, (int, float)) or isinstance(margin, bool) or not 0 < margin < 1:
        raise ValueError(f"margin {margin!r}: give a fraction between 0 and 1, e.g. 0.05 for ±5%")
    return float(margin)


def verdict(lo: float | None, hi: float | None, higher_is_better: bool, margin: float) -> str:
    """The verdict (VERDICTS) of a relative change whose interval is [lo, hi] against the margin ±margin."""
    if lo is None or hi is None:
        return UNKNOWN
    inside = -margin < lo and hi < margin
    if lo > 0 or hi < 0:
        up = (lo > 0) == higher_is_better
        return (BETTER_WITHIN if up else WORSE_WITHIN) if inside else (BETTER if up else WORSE)
    return EQUIVALENT if inside else NOT_SHOWN


def beyond_margin(lo: float | None, hi: float | None, margin: float) -> bool:
    """Whether the whole interval lies beyond ±margin on one side: a difference shown larger than the margin."""
    return lo is not None and hi is not None and (lo > margin or hi < -margin)


def margin_text(margin: float) -> str:
    """"±5%", "±2.5%": the margin as every sentence that says equivalent prints it."""
    return f"±{100 * margin:.3g}%"


def words(v: str, margin: float, better: str = "better", worse: str = "worse") -> str:
    """The verdict in words, the margin printed wherever equivalence is claimed or bounds a difference."""
    m = margin_text(margin)
    return {BETTER: better, WORSE: worse,
            BETTER_WITHIN: f"{better}, but by less than the {m} margin",
            WORSE_WITHIN: f"{worse}, but by less than the {m} margin",
            EQUIVALENT: f"equivalent within {m}", NOT_SHOWN: "not shown different",
            UNKNOWN: "no interval"}[v]


def interval_text(rel: float | None, lo: float | None, hi: float | None) -> str:
    """"−12.0%, 95% interval −22.2% to −1.2%", or the change alone when it has no interval ("" without either)."""
    if rel is None:
        return ""
    if lo is None or hi is None:
        return f"{rel:+.1%}, no interval"
    return f"{rel:+.1%}, 95% interval {lo:+.1%} to {hi:+.1%}"


class MetricDelta(Record):
    """One metric of a paired cell: A, B, B − A, the relative change with its 95 % interval, the equivalence margin
    and the verdict (VERDICTS above: better or worse when the interval excludes zero,
    better_within_margin or worse_within_margin when it also lies inside ±margin, equivalent when it lies inside
    ±margin and includes zero, not_shown_different when it includes zero and reaches beyond ±margin, unknown
    without an interval)."""
    key: str
    name: str
    higher_is_better: bool
    a: float | None
    b: float | None
    delta: float | None
    rel: float | None
    rel_lo: float | None
    rel_hi: float | None
    margin: float | None = None
    verdict: str


class PairedCell(Record):
    """Cell `a` of run A against cell `b` of run B (their ids): every metric, the cell's verdict (deltas.CELL_VERDICTS:
    worse when any metric is worse by more than the margin, better when some are better by more and none worse,
    equivalent when every metric lies inside the margin, undecided, unknown), both error rates, and a note when an
    interval could not be drawn."""
    id: str
    a: str
    b: str
    metrics: list[MetricDelta]
    verdict: str
    error_rate: list[float | None]
    note: str


class Comparison(Record):
    rows: list[PairedCell]
    counts: dict[str, int]
    only_a: list[str]
    only_b: list[str]
    findings: list[Finding]
    interval_words: str  # how the cells' own intervals were drawn and a delta's combined (deltas.interval_words)
    margin: float  # the equivalence margin ±margin every verdict was judged against
    margin_text: str  # "±5%": as the page prints it
    verdict_words: dict[str, str]  # a metric's verdict (VERDICTS) in words
    cell_words: dict[str, str]  # a paired cell's verdict (comparison.deltas.CELL_VERDICTS) in words
    metric_names: list[str]
    coverage_words: str = ""  # what its intervals were measured to cover (comparison.bootstrap.coverage_words)
