"""Server metrics: the Prometheus text format parsed by hand, and the 1 Hz sampler writing both CSV files."""

import csv
import time

import pytest

from http_stub import serving
from littlegrid.run.metrics_sampler import SERVER_COLUMNS, MetricsSampler, parse_prometheus, server_row

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


def test_a_server_row_sums_series_over_labels_and_leaves_the_scrape_itself_out():
    row = server_row(SCRAPE)
    assert row == {"busy_threads": 3, "connections": 12, "in_flight": 2, "throttle_queue": 0,
                   "requests_total": 1500, "service_seconds_total": 30.5, "in_flight_seconds_total": 41.25,
                   "threads_max": 10}


# The application's connector (under test, saturated) and a management connector that a server might also
# publish: only the first describes the pool under test.
TWO_CONNECTORS = """tomcat_threads_busy_threads{name="http-nio-127.0.0.1-8080"} 10.0
tomcat_threads_config_max_threads{name="http-nio-127.0.0.1-8080"} 10.0
tomcat_connections_current_connections{name="http-nio-127.0.0.1-8080"} 100.0
tomcat_threads_busy_threads{name="http-nio-127.0.0.1-8081"} 1.0
tomcat_threads_config_max_threads{name="http-nio-127.0.0.1-8081"} 200.0
tomcat_connections_current_connections{name="http-nio-127.0.0.1-8081"} 1.0
tomcat_servlet_request_seconds_count{name="dispatcherServlet"} 5.0
littlegrid_in_flight_requests 10.0
"""


def test_with_the_port_under_test_the_tomcat_columns_are_that_connectors_only():
    row = server_row(TWO_CONNECTORS, connector_port=8080)
    assert (row["busy_threads"], row["threads_max"], row["connections"]) == (10, 10, 100)
    assert row["in_flight"] == 10  # series that name no connector are kept
    other = server_row(TWO_CONNECTORS, connector_port=8081)
    assert (other["busy_threads"], other["threads_max"], other["connections"]) == (1, 200, 1)


def test_a_connector_named_without_an_address_or_on_an_auto_port_is_found_by_its_last_field():
    text = ('tomcat_threads_busy_threads{name="http-nio-8080"} 4.0\n'
            'tomcat_threads_busy_threads{name="http-nio-auto-1-38080"} 2.0\n')
    assert server_row(text, connector_port=8080)["busy_threads"] == 4
    assert server_row(text, connector_port=38080)["busy_threads"] == 2


def test_when_no_connector_is_on_the_port_under_test_the_tomcat_columns_stay_empty():
    row = server_row(TWO_CONNECTORS, connector_port=9999)
    assert row["busy_threads"] is None and row["connections"] is None and row["in_flight"] == 10


def test_a_metric_the_server_does_not_expose_stays_empty():
    assert server_row("tomcat_threads_busy_threads 1\n")["in_flight"] is None


@pytest.fixture
def fake_server():
    """An HTTP server whose request counter grows by 10 per scrape."""
    scrapes = []

    def scrape(path):
        scrapes.append(time.monotonic())
        return f"littlegrid_service_seconds_count{{endpoint=\"/\"}} {10 * len(scrapes)}\n".encode()

    with serving(scrape) as port:
        yield f"http://127.0.0.1:{port}/actuator/prometheus", scrapes


def read(path):
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_the_sampler_writes_one_row_a_second_plus_a_closing_reading(tmp_path, fake_server):
    url, scrapes = fake_server
    with MetricsSampler(tmp_path / "s.csv", tmp_path / "h.csv", url, interval_s=0.4):
        time.sleep(1.8)
    server, host = read(tmp_path / "s.csv"), read(tmp_path / "h.csv")
    assert list(server[0]) == SERVER_COLUMNS
    # ticks at 0, 0.4, ..., 1.6 s (5) and one at stop: 6, give or take one tick on a busy machine
    assert 4 <= len(server) <= 7 and len(host) == len(server)
    assert [int(r["requests_total"]) for r in server] == [10 * (i + 1) for i in range(len(server))]
    times = [int(r["time_ms"]) for r in server]
    assert times == sorted(times)
    gaps = [b - a for a, b in zip(scrapes, scrapes[1:-1])]  # the closing reading comes off-schedule
    # on schedule: one interval apart (two where a late tick was skipped), never a catch-up burst
    assert all(0.2 < g < 0.9 for g in gaps), gaps


def test_a_failed_scrape_keeps_its_row_with_empty_values(tmp_path):
    with MetricsSampler(tmp_path / "s.csv", tmp_path / "h.csv", "http://127.0.0.1:9/none", interval_s=0.2) as s:
        time.sleep(0.3)
    rows = read(tmp_path / "s.csv")
    assert rows and all(r["time_ms"] and r["busy_threads"] == "" for r in rows)
    assert s.failed_scrapes == len(rows)


def test_without_a_server_the_server_file_has_its_header_only(tmp_path):
    with MetricsSampler(tmp_path / "s.csv", tmp_path / "h.csv", None, interval_s=0.2):
        time.sleep(0.3)
    assert (tmp_path / "s.csv").read_text().strip() == ",".join(SERVER_COLUMNS)
    assert len(read(tmp_path / "h.csv")) >= 2
