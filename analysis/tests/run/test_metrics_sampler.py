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
    assert times == sorted(times)  # the schedule itself (no drift, no catch-up burst) is test_ticks', on a fake clock


def test_the_sampler_writes_no_server_file_the_servers_figures_are_observed(tmp_path):
    with MetricsSampler(tmp_path / "h.csv", interval_s=0.2):
        time.sleep(0.3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.csv"]
