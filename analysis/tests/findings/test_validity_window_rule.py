"""The validity findings of the warm-up and stopping rule (findings/validity.py): a cell whose data never settled,
one that reached max_s before its precision, and the window-too-short finding of a cell whose precision is known."""

from littlegrid.findings import findings
from typed_cells import cell, summary

CLOSED = {"think_ms": 0.0, "workload": "closed"}


def _cell(cell_id="users=10", **extra):
    return cell({"id": cell_id, "axes": {"users": 10}, "users": {"n": 10}, "intended": CLOSED,
                 "overall": {"count": 3000, "throughput_per_s": 100.0, "mean_ms": 100.0, "error_rate": 0.0},
                 "window": {"length_s": 30.0, "warmup_s": 5.0, "warmup_floor_s": 5.0,
                            **extra.pop("window", {})}, **extra})


def _validity(*cells):
    return [f for f in findings(summary(cells, tolerances={"closed_law": 0.02})) if f.kind == "validity"]


def test_a_cell_that_never_settled_is_read_with_care_and_says_only_the_floor_was_trimmed():
    (found,) = _validity(_cell(window={"warmup_settled": False, "warmup_by": "floor"}))
    assert found.statement.startswith("Read with care") and "the data never settled" in found.statement
    assert "the 5 s warm-up floor was trimmed" in found.statement and found.cells == ("users=10",)


def test_too_few_seconds_to_look_are_not_a_series_that_never_settled():
    assert not _validity(_cell(window={"warmup_settled": False, "warmup_by": "too short"}))
    assert not _validity(_cell(window={"warmup_settled": True, "warmup_by": "floor"}))


def test_a_cell_stopped_at_max_s_before_its_precision_says_so_with_the_precision_it_had():
    stop = {"rule": "precise", "reason": "max_s", "at_s": 120.0, "precision_asked": 0.02, "x_rel": 0.031,
            "r_rel": 0.026}
    (found,) = _validity(_cell(stop=stop))
    assert found.statement.startswith("Read with care") and "reached max_s before the precision asked" in found.statement
    assert "X ±3.1" in found.statement and "mean R ±2.6" in found.statement and "±2" in found.statement
    assert not _validity(_cell(stop=stop | {"reason": "precise"}))


def _short_window(stop=None, x_rel=None):
    """N = 10, R = 100 ms, Z = 0 over 5 s: the closed law's window error 2·0.1/(5·√10) = 1.3%, three of them
    3.8% > the 2% tolerance, so the check widened it."""
    law = {"name": "closed_law", "passed": True, "value": 10.0, "expected": 10.0, "rel_error": 0.0,
           "tolerance": 0.038}
    return _cell(window={"length_s": 5.0}, checks=[law], think_time={"mean_ms": 0.0, "gaps": 100},
                 stop=stop, precision=None if x_rel is None else {
                     "level": 0.95, "window_s": 5, "batches": 5, "batch_s": 1, "throughput_per_s": 100.0,
                     "throughput_rel": x_rel, "mean_ms": 100.0, "mean_rel": 0.01})


def test_a_window_too_short_for_the_closed_law_quotes_the_precision_known_and_asks_min_s_of_a_precise_cell():
    (plain,) = _validity(_short_window())
    assert "too short" in plain.statement and plain.recommendation.startswith("Run ")
    (precise,) = _validity(_short_window({"rule": "precise", "reason": "precise", "at_s": 10.0}, x_rel=0.012))
    assert "X itself is known to ±1.2" in precise.statement and "edges" in precise.statement
    assert precise.recommendation.startswith("Ask min_s = 10 in [cell]")  # 6·0.1/(0.02·√10) = 9.49 s
