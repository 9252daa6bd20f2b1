"""A cell's scrapes over its window: the server's request figures of the sample server's families and of
Micrometer's http.server.requests timer (known answers over a few constructed scrapes; Little's L = Δsum/Δt), the
pool under test picked by the target's port, a name, or being the only one, and the Server block read from
observed.csv equal to the one an older folder's server-metrics.csv gives on the same readings."""

import csv
import math
from pathlib import Path

import pytest

from littlegrid.analysis.observed import observed_window, server_metrics_csv
from littlegrid.analysis.observed.mapping import PoolSpec, Reading, map_readings, readings_from_rows
from littlegrid.analysis.observed.prometheus_text import parse_prometheus, parse_selector
from littlegrid.analysis.steady.window import SteadyWindow
from sample_server_text import SAMPLE_SERVER

T0 = 1_700_000_000_000
ACTUATOR = "http://127.0.0.1:8081/actuator/prometheus"


def scrape(source, time_ms, text):
    return [Reading(time_ms, source, name, labels, value) for name, labels, value in parse_prometheus(text)]


def window(start_ms, end_ms):
    return SteadyWindow(start_ms, end_ms, 0.0, 0.0, start_ms, end_ms, 0, 0)


def test_the_sample_servers_families_sum_their_series_and_leave_the_scrape_itself_out():
    found = map_readings(scrape(ACTUATOR, T0, SAMPLE_SERVER))
    (requests,) = found.requests
    assert requests.timer == "littlegrid_service_seconds" and requests.host == "127.0.0.1"
    (s,) = requests.seconds
    # 1000 + 500 requests (the actuator's 7 are the scrape, no load), 20.5 + 10 s inside
    assert (s.requests, s.service_seconds, s.in_flight, s.connections, s.throttle_queue, s.in_flight_seconds) == (
        1500.0, 30.5, 2.0, 12.0, 0.0, 41.25)
    (pool,) = found.thread_pools
    assert (pool.kind, pool.name, pool.seconds[0].busy, pool.seconds[0].size) == (
        "tomcat", "http-nio-127.0.0.1-8080", 3.0, 10.0)


# The application's connector (under test, saturated) and a management connector a server might also publish.
TWO_CONNECTORS = """tomcat_threads_busy_threads{name="http-nio-127.0.0.1-8080"} 10.0
tomcat_threads_config_max_threads{name="http-nio-127.0.0.1-8080"} 10.0
tomcat_connections_current_connections{name="http-nio-127.0.0.1-8080"} 100.0
tomcat_threads_busy_threads{name="http-nio-127.0.0.1-8081"} 1.0
tomcat_threads_config_max_threads{name="http-nio-127.0.0.1-8081"} 200.0
tomcat_connections_current_connections{name="http-nio-127.0.0.1-8081"} 1.0
littlegrid_in_flight_requests 10.0
"""


@pytest.mark.parametrize("port,busy,size,connections", [(8080, 10.0, 10.0, 100.0), (8081, 1.0, 200.0, 1.0)])
def test_tomcats_pool_under_test_is_the_connector_on_the_targets_port(port, busy, size, connections):
    found = map_readings(scrape(ACTUATOR, T0, TWO_CONNECTORS), port=port)
    pool = observed_window.pool_under_test(found, port)
    assert (pool.seconds[0].busy, pool.seconds[0].size) == (busy, size)
    assert found.requests[0].seconds[0].connections == connections


def test_a_connector_named_without_an_address_or_on_an_auto_port_is_found_by_its_last_field():
    text = ('tomcat_threads_busy_threads{name="http-nio-8080"} 4.0\n'
            'tomcat_threads_busy_threads{name="http-nio-auto-1-38080"} 2.0\n')
    found = map_readings(scrape(ACTUATOR, T0, text))
    assert observed_window.pool_under_test(found, 8080).seconds[0].busy == 4.0
    assert observed_window.pool_under_test(found, 38080).seconds[0].busy == 2.0


def test_with_no_connector_on_the_port_and_several_pools_no_pool_is_said_to_be_under_test():
    found = map_readings(scrape(ACTUATOR, T0, TWO_CONNECTORS), port=9999)
    assert observed_window.pool_under_test(found, 9999) is None
    (s,) = found.requests[0].seconds
    assert s.connections is None and s.in_flight == 10.0  # series naming no connector are kept


def test_a_named_pool_comes_before_an_unnamed_choice_and_a_single_pool_is_the_one():
    text = ('executor_active_threads{name="orders"} 3.0\nexecutor_pool_max_threads{name="orders"} 8.0\n'
            'executor_active_threads{name="mail"} 1.0\nexecutor_pool_max_threads{name="mail"} 2.0\n'
            'app_workers_busy 5.0\n')
    spec = PoolSpec("workers", parse_selector("app_workers_busy"), 6.0)
    named = observed_window.pool_under_test(map_readings(scrape(ACTUATOR, T0, text), [spec]), None)
    assert (named.kind, named.name, named.seconds[0].busy, named.seconds[0].size) == ("named", "workers", 5.0, 6.0)
    assert observed_window.pool_under_test(map_readings(scrape(ACTUATOR, T0, text)), None) is None  # which one?
    single = 'executor_active_threads{name="orders"} 3.0\nexecutor_pool_max_threads{name="orders"} 8.0\n'
    assert observed_window.pool_under_test(map_readings(scrape(ACTUATOR, T0, single)), None).name == "orders"


SPRING = "http://10.0.0.7:8080/actuator/prometheus"
SCRAPE = "/actuator/prometheus"  # the uri of the scrape's own requests: not load


def spring(t, orders, errors=None, actuator=(0, 0.0)):
    """A Spring Boot service's request timer: (count, sum) of GET /orders, of its 500s once born, of the scrape."""
    lines = [f'http_server_requests_seconds_count{{method="GET",status="200",uri="/orders"}} {orders[0]}',
             f'http_server_requests_seconds_sum{{method="GET",status="200",uri="/orders"}} {orders[1]}',
             f'http_server_requests_seconds_count{{method="GET",status="200",uri="{SCRAPE}"}} {actuator[0]}',
             f'http_server_requests_seconds_sum{{method="GET",status="200",uri="{SCRAPE}"}} {actuator[1]}']
    if errors:
        lines += [f'http_server_requests_seconds_count{{method="GET",status="500",uri="/orders"}} {errors[0]}',
                  f'http_server_requests_seconds_sum{{method="GET",status="500",uri="/orders"}} {errors[1]}']
    return scrape(SPRING, t, "\n".join(lines) + "\n")


def test_micrometers_request_timer_gives_x_r_and_by_little_l_over_the_window():
    # three scrapes 1 s apart: /orders 100 → 150 → 200 requests, 2.5 → 4.0 → 6.5 s inside; at the third a 500
    # series is born with 10 requests and 0.5 s; the scrape's own /actuator series grows and is left out.
    # Over the 2 s: 110 requests (55/s), 4.5 s inside (R = 4.5/110 s = 40.9 ms), L = 4.5 s / 2 s = 2.25 = X·R.
    readings = (spring(T0, (100, 2.5), actuator=(5, 0.05)) + spring(T0 + 1000, (150, 4.0), actuator=(6, 0.06))
                + spring(T0 + 2000, (200, 6.5), errors=(10, 0.5), actuator=(7, 0.07)))
    found = map_readings(readings)
    (requests,) = found.requests
    assert requests.timer == "http_server_requests_seconds" and requests.host == "10.0.0.7"
    block = observed_window.server_block(found, window(T0, T0 + 2000))
    assert block["throughput_per_s"] == pytest.approx(55.0)
    assert block["service_mean_ms"] == pytest.approx(4500.0 / 110)
    assert block["in_flight_mean"] == pytest.approx(2.25) and block["in_flight_source"] == "little"
    assert block["in_flight_mean"] == pytest.approx(block["throughput_per_s"] * block["service_mean_ms"] / 1000)
    assert (block["readings"], block["failed_scrapes"], block["source"]) == (3, 0, SPRING)
    # a counter that went back inside the window (a restart) gives no figure across it
    restarted = spring(T0, (100, 2.5)) + spring(T0 + 1000, (150, 4.0)) + spring(T0 + 2000, (20, 0.5))
    gone = observed_window.server_block(map_readings(restarted), window(T0, T0 + 2000))
    assert gone["throughput_per_s"] is None and gone["in_flight_mean"] is None


FIXTURE = Path(__file__).parents[1] / "run" / "fixtures" / "interrupted-run" / "cells"
CONNECTOR = 'name="http-nio-127.0.0.1-8080"'


def as_observed_rows(path: Path, blank: int) -> list[dict]:
    """server-metrics.csv's rows written as the scraper writes observed.csv for the same scrapes: the actuator's
    series with their labels (the service counters split over two endpoints, the scrape's own series beside them,
    a management connector's), and the row `blank` a failed scrape (its time, no metric) in both forms."""
    rows = []
    with open(path, newline="") as f:
        for i, r in enumerate(csv.DictReader(f)):
            t = r["time_ms"]
            if i == blank:
                rows.append({"time_ms": t, "source": ACTUATOR, "metric": "", "labels": "", "value": ""})
                continue
            n, total = float(r["requests_total"]), float(r["service_seconds_total"])
            series = [("tomcat_threads_busy_threads", CONNECTOR, r["busy_threads"]),
                      ("tomcat_threads_config_max_threads", CONNECTOR, r["threads_max"]),
                      ("tomcat_connections_current_connections", CONNECTOR, r["connections"]),
                      ("tomcat_threads_busy_threads", 'name="http-nio-127.0.0.1-8081"', "1"),
                      ("tomcat_threads_config_max_threads", 'name="http-nio-127.0.0.1-8081"', "200"),
                      ("tomcat_connections_current_connections", 'name="http-nio-127.0.0.1-8081"', "1"),
                      ("littlegrid_in_flight_requests", "", r["in_flight"]),
                      ("littlegrid_throttle_queue_length", "", r["throttle_queue"]),
                      ("littlegrid_in_flight_seconds_total", "", r["in_flight_seconds_total"]),
                      ("littlegrid_service_seconds_count", 'endpoint="/"', repr(n - n // 3)),
                      ("littlegrid_service_seconds_sum", 'endpoint="/"', repr(total * 2 / 3)),
                      ("littlegrid_service_seconds_count", 'endpoint="/io"', repr(n // 3)),
                      ("littlegrid_service_seconds_sum", 'endpoint="/io"', repr(total / 3)),
                      ("littlegrid_service_seconds_count", 'endpoint="/actuator/prometheus"', str(i)),
                      ("littlegrid_service_seconds_sum", 'endpoint="/actuator/prometheus"', str(0.01 * i))]
            rows += [{"time_ms": t, "source": ACTUATOR, "metric": m, "labels": labels, "value": v}
                     for m, labels, v in series]
    return rows


@pytest.mark.parametrize("cell", sorted(p.name for p in FIXTURE.iterdir()))
def test_the_server_block_from_observed_csv_equals_the_older_server_metrics_csv_path(cell, tmp_path):
    legacy = tmp_path / "server-metrics.csv"
    source = (FIXTURE / cell / "server-metrics.csv").read_text().splitlines()
    blank = 3  # the fourth row: a failed scrape, in both forms
    header, rows = source[0], source[1:]
    rows[blank] = rows[blank].split(",")[0] + "," * (len(header.split(",")) - 1)
    legacy.write_text("\n".join([header, *rows]) + "\n")
    times = [int(r.split(",")[0]) for r in rows]
    w = window(times[1], times[-1])  # the first reading trimmed, as a warm-up would
    old = observed_window.server_block(observed_window.read(None, legacy), w)
    converted = as_observed_rows(legacy, blank)
    found = map_readings(readings_from_rows(converted), port=8080)
    new = observed_window.server_block(found, w, 8080, {ACTUATOR: True})
    assert old["readings"] == new["readings"] == len(rows) - 2 and old["failed_scrapes"] == new["failed_scrapes"] == 1
    for key, value in old.items():
        if key in ("source", "pool_name"):
            continue
        assert new[key] == (value if value is None or isinstance(value, str) else pytest.approx(value)), key
    assert (old["source"], new["source"]) == ("server-metrics.csv", ACTUATOR)
    assert new["pool_name"] == "http-nio-127.0.0.1-8080" and new["pool_kind"] == old["pool_kind"] == "tomcat"


def test_an_older_folders_server_metrics_csv_reads_as_the_sample_servers_families(tmp_path):
    path = tmp_path / "server-metrics.csv"
    path.write_text("time_ms,busy_threads,in_flight,requests_total\n1000,3,2,10\n2000,,,\nx,1,1,1\n")
    readings = server_metrics_csv.readings(path)
    assert [(r.time_ms, r.metric, r.value) for r in readings if not math.isnan(r.value)] == [
        (1000, "tomcat_threads_busy_threads", 3.0), (1000, "littlegrid_in_flight_requests", 2.0),
        (1000, "littlegrid_service_seconds_count", 10.0)]
    (failed,) = [r for r in readings if math.isnan(r.value)]
    assert (failed.time_ms, failed.metric) == (2000, "")  # a row with a time and no values: a failed scrape
    assert {r.source for r in readings} == {"server-metrics.csv"}


def test_a_single_source_that_answered_but_reports_no_server_figures_gives_no_server_block():
    # node_exporter alone on the service's host (tests/services/gunicorn-pool-node.toml): it answered every scrape
    # and reports no pool and no requests, so the cell has no server block; this raised IndexError
    node = "http://10.232.0.2:9100/metrics"
    found = map_readings(scrape(node, T0, 'node_cpu_seconds_total{cpu="0",mode="idle"} 100.0\nnode_load1 0.5\n')
                         + scrape(node, T0 + 1000, 'node_cpu_seconds_total{cpu="0",mode="idle"} 100.5\nnode_load1 0.5\n'))
    assert found.scrapes and not found.failed and not found.requests and not found.thread_pools
    assert observed_window.server_block(found, window(T0, T0 + 1000), 8000, {node: True}) is None
