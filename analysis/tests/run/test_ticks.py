"""ticks.every on a fake clock: readings at each multiple of the interval, a tick missed skipped (never caught up in
a burst), one last reading at stop; known answers, no real time."""

import math

from littlegrid.run.ticks import every


class FakeTime:
    """A clock that moves only when an action takes time (`costs`, in order) or the schedule waits; the stop comes
    once the clock reaches `stop_at`."""

    def __init__(self, costs, stop_at):
        self.now, self.costs, self.stop_at, self.readings = 100.0, list(costs), stop_at, []

    def clock(self):
        return self.now

    def act(self):
        self.readings.append(round(self.now - 100.0, 6))
        self.now += self.costs.pop(0) if self.costs else 0.0

    def wait(self, timeout):  # threading.Event.wait: True once set
        assert timeout >= 0
        if self.now + timeout >= 100.0 + self.stop_at - 1e-9:
            self.now = 100.0 + self.stop_at
            return True
        self.now += timeout
        return False


def _run(costs, stop_at, interval=0.4):
    fake = FakeTime(costs, stop_at)
    every(interval, fake, fake.act, clock=fake.clock)
    return fake.readings


def test_readings_fall_on_each_multiple_of_the_interval_and_once_more_at_stop():
    assert _run([0.01] * 10, stop_at=1.8) == [0.0, 0.4, 0.8, 1.2, 1.6, 1.8]


def test_a_tick_overrun_is_skipped_not_caught_up():
    # the reading at 0.4 takes 0.5 s (a slow scrape, a stalled host): the tick at 0.8 is missed and skipped; the
    # next reading is at 1.2, never a burst at 0.9
    assert _run([0.01, 0.5, 0.01, 0.01], stop_at=1.8) == [0.0, 0.4, 1.2, 1.6, 1.8]
    # a reading longer than two intervals skips both
    assert _run([0.9, 0.01], stop_at=2.0) == [0.0, 1.2, 1.6, 2.0]


def test_readings_never_share_a_slot_of_the_grid():
    costs = [0.05, 0.41, 0.0, 0.39, 0.8, 0.02, 0.4, 0.0, 0.13]
    readings = _run(costs, stop_at=5.0)
    slots = [math.floor(r / 0.4 + 1e-9) for r in readings[:-1]]
    assert slots == sorted(set(slots)) and len(readings) < 5.0 / 0.4 + 2


def test_a_wait_that_ends_a_hair_early_does_not_read_the_same_tick_twice():
    class Early(FakeTime):
        def wait(self, timeout):  # every wait ends 1 µs before its deadline
            return super().wait(max(0.0, timeout - 1e-6))

    fake = Early([0.0] * 20, stop_at=1.0)
    every(0.4, fake, fake.act, clock=fake.clock)
    assert fake.readings == [0.0, 0.399999, 0.799999, 1.0]  # each tick once, read when the wait ended


def test_a_stop_before_the_first_tick_still_closes_with_one_reading():
    assert _run([0.01], stop_at=0.1) == [0.0, 0.1]
