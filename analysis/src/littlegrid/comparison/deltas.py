"""The comparison stage: two summaries' cells paired by their axes, deltas B − A with intervals combined from each
cell's own within-run intervals (Cell.intervals, drawn once by the analysis from the cell's exact histogram by
block of seconds), what each interval shows against the margin (different, equivalent, both or neither:
comparison.equivalence) per metric and cell, and the arms' findings. A typed result out (`compare_runs`:
littlegrid.summary.comparison); render/compare.py lays it out and computes nothing; commands/compare.py joins the
two."""

from __future__ import annotations

from littlegrid.analysis.statistics import intervals
from littlegrid.comparison import arms, bootstrap
from littlegrid.findings import expect, two_arms
from littlegrid.findings.two_arms import LOAD_AXES, Arms
from littlegrid.summary import plain
from littlegrid.summary import comparison as equivalence
from littlegrid.summary.comparison import Comparison
from littlegrid.summary.model import Cell, Summary
from littlegrid.usererror import UserError

# (key in STATS, name, higher is better, quantile when it is a percentile)
METRICS = [("throughput_per_s", "X", True, None), ("mean_ms", "mean R", False, None),
           ("p50_ms", "p50", False, 0.5), ("p90_ms", "p90", False, 0.9), ("p99_ms", "p99", False, 0.99)]
# a paired cell's verdict (compare_pair): a metric worse (better) by more than the margin, every metric inside the
# margin, neither, no interval
UNDECIDED = "undecided"
CELL_VERDICTS = (equivalence.WORSE, equivalence.BETTER, equivalence.EQUIVALENT, UNDECIDED, equivalence.UNKNOWN)


def verdict_words(margin: float) -> dict[str, str]:
    """The words of every metric's verdict, the margin printed in each that it bounds."""
    return {v: equivalence.words(v, margin) for v in equivalence.VERDICTS}


def cell_words(margin: float) -> dict[str, str]:
    """The words of a paired cell's verdict (CELL_VERDICTS)."""
    m = equivalence.margin_text(margin)
    return {equivalence.WORSE: f"worse by more than {m}", equivalence.BETTER: f"better by more than {m}",
            equivalence.EQUIVALENT: f"equivalent within {m}",
            UNDECIDED: f"undecided (neither shown beyond {m} nor inside it)",
            equivalence.UNKNOWN: "no interval"}


def _key(cell: Cell, names) -> tuple:
    return tuple((k, str(cell.axes.get(k))) for k in names)


def pair_cells(a_cells: list[Cell], b_cells: list[Cell]) -> tuple[list[tuple[Cell, Cell]], list[Cell], list[Cell]]:
    """(pairs, only in A, only in B). Cells pair when the axes both runs have take the same values; two one-cell
    runs (e.g. two JTL files) pair with each other. A key two cells of one run share is ambiguous: not paired."""
    if len(a_cells) == 1 and len(b_cells) == 1 and not a_cells[0].axes and not b_cells[0].axes:
        return [(a_cells[0], b_cells[0])], [], []
    names_a = [k for c in a_cells for k in c.axes]
    names_b = {k for c in b_cells for k in c.axes}
    names = list(dict.fromkeys(k for k in names_a if k in names_b))

    def index(cells):
        keyed: dict[tuple, list[Cell]] = {}
        for c in cells:
            keyed.setdefault(_key(c, names), []).append(c)
        return {k: v[0] for k, v in keyed.items() if len(v) == 1}

    ia, ib = index(a_cells), index(b_cells)
    pairs = [(ia[k], ib[k]) for k in ia if k in ib] if names else []
    paired_a, paired_b = {id(a) for a, _ in pairs}, {id(b) for _, b in pairs}
    return pairs, [c for c in a_cells if id(c) not in paired_a], [c for c in b_cells if id(c) not in paired_b]


def compare_pair(a: Cell, b: Cell, *, margin: float, with_intervals: bool = True) -> dict:
    """Deltas B − A of every metric with its interval, margin and verdict (comparison.equivalence), and the cell's
    verdict: worse when any metric is worse by more than the margin (its whole interval beyond it: a regression
    anywhere decides), better when some are better by more than the margin and none worse, equivalent when every
    metric's interval lies inside ±margin, unknown when none has an interval, else undecided. The cell asks for
    the whole interval beyond the margin where a metric asks only that it exclude zero: a pair of runs holds 5
    metrics per cell, and one interval in twenty excludes zero by chance alone. The intervals are the cells' own
    (Cell.intervals); with_intervals False: deltas only."""
    def figure(cell: Cell, key: str):
        return getattr(cell.overall, key) if cell.overall is not None else None

    def held(cell: Cell, key: str):
        return getattr(cell.intervals, key) if with_intervals and cell.intervals is not None else None

    metrics = []
    for key, name, higher, _ in METRICS:
        d = bootstrap.delta(figure(a, key), figure(b, key), held(a, key), held(b, key))
        metrics.append({"key": key, "name": name, "higher_is_better": higher, **d.as_dict(), "margin": margin,
                        "verdict": bootstrap.verdict(d, higher, margin)})
    verdicts = {m["verdict"] for m in metrics}
    beyond = {m["verdict"] for m in metrics if equivalence.beyond_margin(m["rel_lo"], m["rel_hi"], margin)}
    cell_verdict = (equivalence.WORSE if equivalence.WORSE in beyond
                    else equivalence.BETTER if equivalence.BETTER in beyond
                    else equivalence.EQUIVALENT if verdicts <= set(equivalence.WITHIN_MARGIN)
                    else equivalence.UNKNOWN if verdicts == {equivalence.UNKNOWN} else UNDECIDED)
    return {"a": a, "b": b, "metrics": metrics, "verdict": cell_verdict,
            "error_rate": (figure(a, "error_rate"), figure(b, "error_rate"))}


def interval_note(cell: Cell) -> str:
    """Said on the page when a cell's intervals are missing or were drawn from requests one by one."""
    if cell.intervals is None:
        return "no steady-window histogram in this cell: no intervals"
    if intervals.ONE_BY_ONE in cell.intervals.method:
        return ("the summary's blocks of seconds disagree with its histogram: latency intervals resample requests "
                "one by one, too narrow near saturation (re-analyse the run)")
    return ""


def interval_words(cells: list[Cell]) -> str:
    """How the compared cells' intervals were drawn, as the page says it: their method, replicates and seed (every
    cell's own, drawn by the analysis), and how a delta's interval combines them; "" when no cell has intervals
    (each row's note says why)."""
    drawn = sorted({(c.intervals.reps, c.intervals.seed) for c in cells if c.intervals is not None})
    if not drawn:
        return ""
    how = "; ".join(f"{reps} replicates, seed {seed}" for reps, seed in drawn)
    return (f"each cell's own 95% intervals as its analysis drew them ({intervals.METHOD}; {how}), combined on the "
            "log scale: ln(B/A) ± 1.96·√((s_A/A)² + (s_B/B)²)")


def compare_runs(sa: Summary, sb: Summary, *, samples: bool = True, margin: float | None = None,
                 arms_named: tuple[str, str, str] | None = None) -> Comparison:
    """Every paired cell's deltas and verdicts, the cells only one run has, the arms' findings, the settings and
    the words the page uses: all a renderer needs (littlegrid.summary.comparison). arms_named: (axis, A, B) when
    the two are an experiment's arms: the arms are then also said in words first (the run's own arms finding).
    margin: the equivalence margin (None: the one the grid's arms expectations state for two arms of a run, as
    its own finding uses; else equivalence.DEFAULT_MARGIN). samples False: deltas without intervals."""
    if margin is None:
        margin = expect.arms_margin(sa.run.expect) if arms_named is not None else equivalence.DEFAULT_MARGIN
    try:
        margin = equivalence.check_margin(margin)
    except ValueError:
        raise UserError(f"--margin {margin}: give a fraction between 0 and 1, e.g. 0.05 for ±5%") from None
    rows, only_a, only_b = paired_rows(sa, sb, samples=samples, margin=margin)
    found = [f.as_dict() for f in two_arms(rows)]  # the arms' findings read the paired cells themselves
    if arms_named is not None:
        # the same Arms as the run's own finding (findings read arms_of): the page says what the run says
        arms = Arms(*arms_named, rows, _crossed(sa, sb, margin), margin=margin)
        found = [f.as_dict() for f in arms.in_words()] + found
    paired = [r | {"a": r["a"].id, "b": r["b"].id, "error_rate": list(r["error_rate"])} for r in rows]
    return Comparison.model_validate(plain({
        "rows": paired, "counts": {v: sum(1 for r in rows if r["verdict"] == v) for v in CELL_VERDICTS},
        "only_a": [c.id for c in only_a], "only_b": [c.id for c in only_b], "findings": found,
        "interval_words": interval_words([c for r in rows for c in (r["a"], r["b"])]) if samples else "",
        "margin": margin, "margin_text": equivalence.margin_text(margin),
        "verdict_words": verdict_words(margin), "cell_words": cell_words(margin), "metric_names": [m[1] for m in METRICS],
        "coverage_words": bootstrap.coverage_words([key for key, *_ in METRICS])}))


def paired_rows(sa: Summary, sb: Summary, *, samples: bool = True, margin: float = equivalence.DEFAULT_MARGIN
                ) -> tuple[list[dict], list[Cell], list[Cell]]:
    """(rows, cells only in A, cells only in B): each paired cell's compare_pair result with its "id" and "note"
    (why it has no intervals, when it has none). A cell of a summary written before cells held their intervals
    gets them here, by the analysis' own rule (analysis.statistics.intervals)."""
    pairs, only_a, only_b = pair_cells(sa.cells, sb.cells)
    rows = []
    for a, b in pairs:
        if samples:
            a, b = intervals.attach([a, b])
            notes = [f"{tag}: {note}" for tag, note in (("A", interval_note(a)), ("B", interval_note(b))) if note]
        else:
            notes = ["--no-samples: no intervals"]
        row = compare_pair(a, b, margin=margin, with_intervals=samples)
        rows.append(row | {"id": a.id, "note": "; ".join(notes)})
    return rows, only_a, only_b


def arms_of(summary: Summary, text: str) -> Arms | None:
    """A grid's two arms (AXIS=A,B) paired cell by cell with their deltas, for the run's own findings; None when an
    arm has no finished cell (an interrupted run: the report says why). The margin is the one the grid's arms
    expectations state (`arms same within 10%`), else equivalence.DEFAULT_MARGIN."""
    if arms.arm_without_cells(summary, text) is not None:
        return None
    axis, value_a, value_b = arms.parse_arms(text)
    margin = expect.arms_margin(summary.run.expect)
    sa, sb = arms.arm(summary, axis, value_a), arms.arm(summary, axis, value_b)
    rows, _, _ = paired_rows(sa, sb, margin=margin)
    return Arms(axis, value_a, value_b, rows, _crossed(sa, sb, margin), margin=margin)


CROSSED_GROUPS = 4  # at most this many groups of the other axes are crossed (k·(k−1) comparisons)


def _crossed(sa: Summary, sb: Summary, margin: float) -> list[tuple[dict, dict, list[dict]]]:
    """(group 1, group 2, rows): arm A's cells of one group of the other axes (e.g. non-blocking) against arm B's of
    another (blocking), paired on the load: whether A with one setting gives what B gives with another."""
    def group(cell: Cell) -> tuple:
        return tuple((k, v) for k, v in cell.axes.items() if k not in LOAD_AXES)

    def only(s: Summary, g: tuple) -> Summary:
        names = {k for k, _ in g}
        return s.model_copy(update={"cells": [
            c.model_copy(update={"axes": {k: v for k, v in c.axes.items() if k not in names}})
            for c in s.cells if group(c) == g]})

    groups = list(dict.fromkeys(group(c) for c in sa.cells))
    if not 2 <= len(groups) <= CROSSED_GROUPS:
        return []
    return [(dict(g1), dict(g2), paired_rows(only(sa, g1), only(sb, g2), margin=margin)[0])
            for g1 in groups for g2 in groups if g1 != g2]
