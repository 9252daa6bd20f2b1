"""A cell's warm-up, precision and stop in the report's words (render/words.py), as the cell page prints them."""

from littlegrid.render import cellpage, words
from littlegrid.summary.model import Cell, Precision, Stop, Window
from summary_contract import complete


def _window(**rule):
    return Window.model_validate(complete({"length_s": 60.0, "warmup_s": 12.0, "warmup_floor_s": 5.0, **rule},
                                          Window))


def test_the_warm_up_says_where_it_came_from():
    assert words.warmup(_window(warmup_by="completions", warmup_settled=True)) == \
        "warm-up 12 s found by MSER-5 on completions"
    assert words.warmup(_window(warmup_by="response time", warmup_settled=True)).endswith("on response times")
    floor = _window(warmup_s=5.0, warmup_by="floor", warmup_settled=True)
    assert words.warmup(floor) == "the 5 s floor: no longer warm-up found"
    assert words.warmup(_window(warmup_s=5.0, warmup_by="floor", warmup_settled=False)).startswith("never settled")
    assert words.warmup(_window(warmup_s=5.0, warmup_by="too short", warmup_settled=False)).startswith(
        "the 5 s floor: too few seconds")
    assert words.warmup(_window(warmup_s=8.0, warmup_by="stop", warmup_settled=True)) == \
        "warm-up 8 s, as the runner's rule found it when it stopped the cell (MSER-5): the window the cell was " \
        "answered on"
    assert words.warmup(_window(warmup_s=5.0)) == "warm-up 5 s, fixed"  # looked for nothing (--warmup-fixed)
    assert words.warmup(None) is None


def test_the_precision_names_the_level_and_the_batches():
    p = Precision(level=0.95, window_s=60, batches=10, batch_s=6, throughput_per_s=100.0, throughput_rel=0.012,
                  mean_ms=80.0, mean_rel=0.018)
    assert words.precision(p) == "X ±1.2 %, mean R ±1.8 % (95 %, batch means over 10 batches of 6 s)"
    drifting = p.model_copy(update={"drift_rel": 0.005})
    assert words.precision(drifting) == ("X ±1.2 %, mean R ±1.8 % (95 %, batch means over 10 batches of 6 s; with "
                                         "the ±0.5 % drift the warm-up left, which no batch sees)")
    short = p.model_copy(update={"mean_coverage": 0.75})  # an open queue holding requests (steady_state)
    assert words.precision(short) == ("X ±1.2 %, mean R ±1.8 % (95 %, batch means over 10 batches of 6 s; mean "
                                      "R's 95 % is nominal: for an open queue holding requests it covered as little "
                                      "as 75 % in simulation)")
    few = p.model_copy(update={"batches": 2, "batch_s": 2, "throughput_rel": None, "mean_rel": None})
    assert words.precision(few) == "no interval: batch means over 2 batches of 2 s, fewer than 3"


def test_why_the_cell_stopped():
    precise = Stop(rule="precise", reason="precise", at_s=42.0, precision_asked=0.02, x_rel=0.019, r_rel=0.012)
    assert words.stopped(precise) == "precise at 42 s (X ±1.9 %, mean R ±1.2 %)"
    late = precise.model_copy(update={"reason": "max_s", "at_s": 120.0, "x_rel": 0.031, "r_rel": 0.026})
    assert words.stopped(late) == "max_s reached at 2 min 0 s with X ±3.1 %, mean R ±2.6 % (±2 % asked)"
    assert words.stopped(Stop(rule="duration", reason="duration")) == "fixed duration"
    assert words.stopped(Stop(rule="precise", reason="slo", at_s=12.0, x_rel=0.04, slo="met")) == (
        "SLO met early at 12 s, by the sequential rule (99% intervals at every look, confirmed over the window's "
        "first half; or a maximum already reached); X ±4 %")
    assert words.stopped(None) is None


def test_the_cell_page_lists_them_beside_the_window():
    c = Cell.model_validate(complete({"id": "users=10", "axes": {"users": 10}, "status": "complete",
                                      "window": _window(warmup_by="completions", warmup_settled=True).model_dump(),
                                      "stop": {"rule": "duration", "reason": "duration"}}, Cell))
    facts = dict(cellpage.facts(c))
    assert facts["warm-up"] == "warm-up 12 s found by MSER-5 on completions"
    assert facts["stopped"] == "fixed duration" and "precision" not in facts  # no precision: no row
