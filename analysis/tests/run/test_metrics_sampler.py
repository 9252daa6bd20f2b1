"""The Prometheus text format parsed by hand, and the 1 Hz sampler writing the generator's host-metrics.csv (the
server's figures are scraped into observed.csv: tests/analysis/test_observed.py maps the same scrapes)."""

import csv
import time

from littlegrid.analysis.prometheus_text import parse_prometheus
from littlegrid.run.host_metrics import COLUMNS as HOST_COLUMNS
from littlegrid.run.metrics_sampler import MetricsSampler

SCRAPE = """# HELP tomcat_threads_busy_threads
# TYPE tomcat_threads_busy_threads gauge
tomcat_threads_busy_threads{name="http-nio-127.0.0.1-8080"} 3.0
tomcat_connections_current_connections{name="http-nio-127.0.0.1-8080"} 12.0
tomcat_threads_config_max_threads{name="http-nio-127.0.0.1-8080"} 10.0
littlegrid_in_flight_requests 2.0
littlegrid_in_flight_seconds_total 41.25
littlegrid_throttle_queue_length 0.0
littlegrid_service_seconds_count{endpoint="/",method="GET"} 1000.0
littlegrid_service_seconds_sum{endpoint="/",method="GET"} 20.5
littlegrid_service_seconds_count{endpoint="/work",method="GET"} 500.0
littlegrid_service_seconds_sum{endpoint="/work",method="GET"} 10.0
littlegrid_service_seconds_count{endpoint="/actuator/prometheus",method="GET"} 7.0
littlegrid_service_seconds_sum{endpoint="/actuator/prometheus",method="GET"} 0.5
jvm_weird{label="a \\"quoted\\" } brace"} 1.5e3 1700000000000
broken line without value
process_start_time_seconds NaN
"""


def test_the_text_format_gives_names_labels_and_values_and_skips_what_it_cannot_read():
    samples = parse_prometheus(SCRAPE)
    assert ("littlegrid_in_flight_requests", {}, 2.0) in samples
    assert ("jvm_weird", {"label": 'a "quoted" } brace'}, 1500.0) in samples  # escaped quote, brace, timestamp
    assert not any(name == "broken" for name, _, _ in samples)


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
