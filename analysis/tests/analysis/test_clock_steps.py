"""JMeter's clock-offset steps (analysis/workload/clock_steps.py): known answers for the stabbing count, the number of
re-measurements and the verdict."""

import numpy as np

from littlegrid.analysis.workload.clock_steps import (NANO_OFFSET_PERIOD_MS, STEP_MAX_MS, ClockSteps, instants_spanned,
                                             re_measurements)


def steps(intervals, overlap_ms=4) -> ClockSteps:
    low, high = (np.array(v, dtype=np.int64) for v in zip(*intervals)) if intervals else (np.zeros(0, np.int64),) * 2
    return ClockSteps(low, high, np.full(len(high), overlap_ms, dtype=np.int64))


def test_instants_spanned_is_the_fewest_instants_every_interval_holds():
    assert instants_spanned(np.zeros(0, np.int64), np.zeros(0, np.int64)) == 0
    s = steps([(0, 10), (5, 12), (9, 30)])  # all hold 9 and 10
    assert instants_spanned(s.low, s.high) == 1
    s = steps([(0, 10), (11, 20), (21, 30)])
    assert instants_spanned(s.low, s.high) == 3
    s = steps([(20, 30), (0, 10), (5, 25), (8, 22)])  # order does not matter
    assert instants_spanned(s.low, s.high) == 2
    s = steps([(10 * i, 10 * i + 5) for i in range(100)])
    assert instants_spanned(s.low, s.high) == 100 and instants_spanned(s.low, s.high, limit=7) == 8


def test_re_measurements_are_one_at_the_start_one_a_period_and_one_for_a_cell_started_later():
    assert re_measurements(0, 0) == 2
    assert re_measurements(0, NANO_OFFSET_PERIOD_MS - 1) == 2
    assert re_measurements(0, NANO_OFFSET_PERIOD_MS) == 3
    assert re_measurements(1000, 1000 + 60_000) == 14


def test_the_clock_explains_few_instants_of_small_overlaps_and_nothing_else():
    one_instant = steps([(1000 + t, 1200 + 37 * t) for t in range(20)])  # 20 threads across one re-measurement
    assert one_instant.explained(0, 15_000)
    assert one_instant.as_dict(0, 15_000) == {"pairs": 20, "instants": 1, "re_measurements": 5, "largest_ms": 4}
    # the same overlaps at 10 instants: more than a 15 s cell's 5 re-measurements, fewer than a 60 s cell's 14
    spread = steps([(1500 * i + t, 1500 * i + 100 + t) for i in range(10) for t in range(3)])
    assert spread.instants(0, 15_000) == 6  # counting stops one past the re-measurements
    assert not spread.explained(0, 15_000) and spread.explained(0, 60_000)
    too_long = ClockSteps(one_instant.low, one_instant.high, np.append(one_instant.overlap_ms[1:], STEP_MAX_MS + 1))
    assert not too_long.explained(0, 15_000)
    at_most = ClockSteps(one_instant.low, one_instant.high, np.append(one_instant.overlap_ms[1:], STEP_MAX_MS))
    assert at_most.explained(0, 15_000)


def test_merged_steps_are_all_the_parts_steps():
    a, b = steps([(0, 10)]), steps([(5, 12), (9, 30)], overlap_ms=6)
    merged = ClockSteps.merged([a, None, b, steps([])])
    assert merged.high.tolist() == [10, 12, 30] and merged.overlap_ms.tolist() == [4, 6, 6]
    assert ClockSteps.merged([None, steps([])]) is None
