"""The typed model of summary.json (schema littlegrid.summary/4): every field `littlegrid analyze` writes, its type,
and whether it may be null. The reader validates every summary against it; docs/summary.schema.json is generated
from it (`python -m littlegrid.summary.schema`). What each figure means: docs/analysis.md and contract §5.

Conventions: a field without a default is always written (null where the type allows it: "could not be
computed"); a field with a default may be absent in summaries of other inputs (a bare JTL has no server). Times are
milliseconds (`_ms`) or seconds (`_s`), rates per second (`_per_s`). Unknown fields are refused: a field added to the
analysis is added here first, or the tests that validate every summary they produce fail.

The records live in one module per family (base, statistics, reading, series, think, server, observed,
histograms, cell, curves, findings, run); this package re-exports every one of them, so every stage imports the
model from here: `from littlegrid.summary.model import Cell`.
"""

from __future__ import annotations

from littlegrid.summary.model.base import AxisValue, Record
from littlegrid.summary.model.statistics import (Ccdf, Counts, ErrorCount, ErrorType, Errors, LabelStats, Pdf, Stats,
                                                 Tail)
from littlegrid.summary.model.reading import (STOP_REASONS, STOP_RULES, STOP_SLO, USERS_SPLIT_BASIS, CellIntervals,
                                              Intended, Interval, Precision, Reading, Stop, Users, Window)
from littlegrid.summary.model.series import LabelSeries, LabelSeriesSet, Series
from littlegrid.summary.model.think import (ClockSteps, GapHistogram, KsExponential, PoissonFit, ThinkSequence,
                                            ThinkTime, ThreadMeans)
from littlegrid.summary.model.server import CpuPerRequest, Host, Server, ServerCpu
from littlegrid.summary.model.observed import (Observed, ObservedConnectionPool, ObservedDatabase, ObservedGc,
                                               ObservedHost, ObservedPool, ObservedProcessCpu, ObservedProxy,
                                               ObservedSource)
from littlegrid.summary.model.histograms import Blocks, Completions, Histogram, ValueCounts
from littlegrid.summary.model.cell import Cell, Check, EngineShare, Outage, OutagePart, Stall, TargetPlacement, Trend
from littlegrid.summary.model.curves import (BoundPoint, Bounds, Concurrency, Curve, CurveModels, HostLimit, Knee,
                                             LeftOut, MmcnPrediction, Overhead, Overload, SharedCores, SloCapacity,
                                             UslFit, UslPoint)
from littlegrid.summary.model.findings import CriterionResult, Evidence, Expectation, Finding, Headline
from littlegrid.summary.model.run import HostFacts, Run, Summary, Trim, Unfinished

__all__ = [
    "AxisValue", "Record", "Ccdf", "Counts", "ErrorCount", "ErrorType", "Errors", "LabelStats", "Pdf", "Stats", "Tail",
    "STOP_REASONS", "STOP_RULES", "STOP_SLO", "USERS_SPLIT_BASIS", "CellIntervals", "Intended", "Interval", "Precision",
    "Reading", "Stop", "Users", "Window", "LabelSeries", "LabelSeriesSet", "Series", "ClockSteps", "GapHistogram",
    "KsExponential", "PoissonFit", "ThinkSequence", "ThinkTime", "ThreadMeans", "CpuPerRequest", "Host", "Server",
    "ServerCpu", "Observed", "ObservedConnectionPool", "ObservedDatabase", "ObservedGc", "ObservedHost", "ObservedPool",
    "ObservedProcessCpu", "ObservedProxy", "ObservedSource", "Blocks", "Completions", "Histogram", "ValueCounts",
    "Cell", "Check", "EngineShare", "Outage", "OutagePart", "Stall", "TargetPlacement", "Trend", "BoundPoint", "Bounds",
    "Concurrency", "Curve", "CurveModels", "HostLimit", "Knee", "LeftOut", "MmcnPrediction", "Overhead", "Overload",
    "SharedCores", "SloCapacity", "UslFit", "UslPoint", "CriterionResult", "Evidence", "Expectation", "Finding",
    "Headline", "HostFacts", "Run", "Summary", "Trim", "Unfinished"]
