"""The Prometheus text format parsed by hand, and the 1 Hz sampler writing the generator's host-metrics.csv (the
server's figures are scraped into observed.csv: tests/analysis/test_observed.py maps the same scrapes)."""

import csv
import time

from littlegrid.run.host_metrics import COLUMNS as HOST_COLUMNS
from littlegrid.run.metrics_sampler import MetricsSampler

def read(path):
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_the_sampler_writes_one_host_row_a_second_plus_a_closing_reading(tmp_path):
    with MetricsSampler(tmp_path / "h.csv", interval_s=0.4):
        time.sleep(1.8)
    host = read(tmp_path / "h.csv")
    assert list(host[0]) == HOST_COLUMNS
    # ticks at 0, 0.4, ..., 1.6 s (5) and one at stop: 6, give or take one tick on a busy machine
    assert 4 <= len(host) <= 7
    times = [int(r["time_ms"]) for r in host]
    assert times == sorted(times)
    gaps = [b - a for a, b in zip(times, times[1:-1])]  # the closing reading comes off-schedule
    # on schedule: one interval apart (two where a late tick was skipped), never a catch-up burst
    assert all(200 < g < 900 for g in gaps), gaps


def test_the_sampler_writes_no_server_file_the_servers_figures_are_observed(tmp_path):
    with MetricsSampler(tmp_path / "h.csv", interval_s=0.2):
        time.sleep(0.3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.csv"]
