"""Readings of real expositions (node_exporter, Micrometer through Spring Boot's actuator, client_python) mapped onto
the analysis' resources; known answers worked on paper from the deltas each test adds between two scrapes."""

from pathlib import Path

import pytest

from littlegrid.analysis.observed.mapping import (KNOWN_FAMILIES, PoolSpec, Reading, host_of, map_readings,
                                                  readings_from_rows)
from littlegrid.analysis.observed.prometheus_text import label_text, parse_prometheus, parse_selector

FIXTURES = Path(__file__).parent / "fixtures" / "observed"
T0 = 1_700_000_000_000


def scrape(source: str, time_ms: int, text: str, changes: dict | None = None) -> list[Reading]:
    """One scrape's readings from exposition text; `changes`: (metric, labels text) -> amount added to that series."""
    changes = changes or {}
    readings = []
    for name, labels, value in parse_prometheus(text):
        value += changes.get((name, label_text(labels)), 0.0)
        readings.append(Reading(time_ms, source, name, labels, value))
    return readings


NODE = "http://10.0.0.7:9100/metrics"


def test_node_exporter_gives_the_hosts_busy_share_cores_load_memory_and_network():
    text = (FIXTURES / "node_exporter-1.5.0.txt").read_text()
    lo = 'node_network_receive_bytes_total{device="lo"} 5e9\n'
    # 1 s later: cpu0 user +0.6 idle +0.4; cpu1 user +0.2 system +0.1 idle +0.6 iowait +0.1 -> 2 core-seconds, of
    # which 1.1 idle or waiting on I/O: busy share 0.45. eth0 +1000 in, +500 out: 1500 B/s; lo's traffic left out.
    changes = {("node_cpu_seconds_total", 'cpu="0",mode="user"'): 0.6,
               ("node_cpu_seconds_total", 'cpu="0",mode="idle"'): 0.4,
               ("node_cpu_seconds_total", 'cpu="1",mode="user"'): 0.2,
               ("node_cpu_seconds_total", 'cpu="1",mode="system"'): 0.1,
               ("node_cpu_seconds_total", 'cpu="1",mode="idle"'): 0.6,
               ("node_cpu_seconds_total", 'cpu="1",mode="iowait"'): 0.1,
               ("node_network_receive_bytes_total", 'device="eth0"'): 1000.0,
               ("node_network_transmit_bytes_total", 'device="eth0"'): 500.0,
               ("node_network_receive_bytes_total", 'device="lo"'): 1e6}
    readings = scrape(NODE, T0, text + lo) + scrape(NODE, T0 + 1000, text + lo, changes)
    observed = map_readings(readings)
    (host,) = observed.hosts
    assert host.source == NODE and host.host == "10.0.0.7"
    first, second = host.seconds
    assert first.cpu_util is None and first.cores == 2  # a share needs two scrapes; the count needs one
    assert second.cpu_util == pytest.approx(0.45) and second.cores == 2
    assert second.load1 == 8.79 and second.mem_available_bytes == 2.4230395904e10
    assert second.network_bytes_per_s == pytest.approx(1500.0)
    assert not observed.process_cpu  # node_exporter's process_cpu_seconds_total is node_exporter's, not a service's


def test_node_exporters_boot_time_is_kept_with_its_host_figures():
    # node_exporter's stat collector: node_boot_time_seconds, /proc/stat's btime (this fixture's exporter has none)
    text = (FIXTURES / "node_exporter-1.5.0.txt").read_text()
    boot = "# TYPE node_boot_time_seconds gauge\nnode_boot_time_seconds 1.764e+09\n"
    (host,) = map_readings(scrape(NODE, T0, text + boot) + scrape(NODE, T0 + 1000, text + boot)).hosts
    assert [s.boot_time_s for s in host.seconds] == [1.764e9, 1.764e9]
    (without,) = map_readings(scrape(NODE, T0, text)).hosts
    assert without.seconds[0].boot_time_s is None
    assert "node_boot_time_seconds" in KNOWN_FAMILIES  # kept by the scraper


ACTUATOR = "http://127.0.0.1:8081/actuator/prometheus"


def test_micrometer_through_the_actuator_gives_tomcats_pool_executors_process_cpu_and_gc_pauses():
    text = (FIXTURES / "micrometer-spring-boot.txt").read_text()
    gc = 'action="end of minor GC",cause="G1 Evacuation Pause",gc="G1 Young Generation"'
    busy = ("tomcat_threads_busy_threads", 'name="http-nio-127.0.0.1-59271"')
    # 0.5 s later: 7 threads busy; the JVM used 0.25 CPU-seconds (0.5 cores); two pauses of 10 ms in all, one of them
    # of a cause never seen before (its series is born at that pause).
    born = ('jvm_gc_pause_seconds_sum{action="end of major GC",cause="Allocation Failure",gc="G1 Old Generation"} 0.006\n'
            'jvm_gc_pause_seconds_count{action="end of major GC",cause="Allocation Failure",gc="G1 Old Generation"} 1\n')
    changes = {busy: 7.0, ("process_cpu_time_ns_total", ""): 2.5e8,
               ("jvm_gc_pause_seconds_sum", gc): 0.004, ("jvm_gc_pause_seconds_count", gc): 1.0}
    observed = map_readings(scrape(ACTUATOR, T0, text) + scrape(ACTUATOR, T0 + 500, text + born, changes))
    pools = {(p.kind, p.name): p for p in observed.thread_pools}
    tomcat = pools[("tomcat", "http-nio-127.0.0.1-59271")]
    assert [(s.busy, s.size) for s in tomcat.seconds] == [(0.0, 200.0), (7.0, 200.0)]
    executor = pools[("executor", "applicationTaskExecutor")]
    assert executor.seconds[0].size is None  # Integer.MAX_VALUE: an unbounded pool has no size to fill
    (cpu,) = observed.process_cpu
    assert cpu.metric == "process_cpu_time_ns_total" and len(cpu.seconds) == 1
    assert cpu.seconds[0].cores_busy == pytest.approx(0.5) and cpu.seconds[0].cores == 2.0
    (pauses,) = observed.gc
    assert pauses.seconds[0].pause_s_per_s == pytest.approx(0.02) and pauses.seconds[0].pauses_per_s == pytest.approx(4)
    assert not observed.hosts and not observed.connection_pools


# Micrometer's Jetty and HikariCP meters (JettyServerThreadPoolMetrics: jetty.threads.busy, jetty.threads.config.max;
# HikariCP's MicrometerMetricsTracker: hikaricp.connections.active|max|pending tagged pool=...), as its Prometheus
# registry names them, with an older JVM's process_cpu_usage gauge in place of the CPU-time counter.
JETTY_HIKARI = """# HELP jetty_threads_busy The number of busy threads in the pool
# TYPE jetty_threads_busy gauge
jetty_threads_busy{application="orders"} 12.0
# HELP jetty_threads_config_max The maximum number of threads in the pool
# TYPE jetty_threads_config_max gauge
jetty_threads_config_max{application="orders"} 200.0
# TYPE hikaricp_connections_active gauge
hikaricp_connections_active{application="orders",pool="HikariPool-1"} 10.0
# TYPE hikaricp_connections_max gauge
hikaricp_connections_max{application="orders",pool="HikariPool-1"} 10.0
# TYPE hikaricp_connections_pending gauge
hikaricp_connections_pending{application="orders",pool="HikariPool-1"} 6.0
# TYPE process_cpu_usage gauge
process_cpu_usage{application="orders"} 0.25
# TYPE system_cpu_count gauge
system_cpu_count{application="orders"} 8.0
"""


def test_jetty_and_hikaricp_and_a_cpu_usage_share_of_the_jvms_cpus():
    observed = map_readings(scrape("http://orders:8080/actuator/prometheus", T0, JETTY_HIKARI))
    (jetty,) = observed.thread_pools
    assert jetty.kind == "jetty" and (jetty.seconds[0].busy, jetty.seconds[0].size) == (12.0, 200.0)
    (hikari,) = observed.connection_pools
    s = hikari.seconds[0]
    assert hikari.name == "HikariPool-1" and (s.active, s.max, s.pending) == (10.0, 10.0, 6.0)
    (cpu,) = observed.process_cpu
    assert cpu.metric == "process_cpu_usage" and cpu.seconds[0].cores_busy == 2.0 and cpu.seconds[0].cores == 8.0
    assert cpu.host == "orders"


PYTHON = "http://127.0.0.1:8000/metrics"


def test_client_pythons_cpu_counter_is_cores_busy_and_a_restart_voids_its_interval():
    text = (FIXTURES / "client_python-openmetrics.txt").read_text()
    key = ("process_cpu_seconds_total", "")
    readings = (scrape(PYTHON, T0, text) + scrape(PYTHON, T0 + 1000, text, {key: 1.5})
                + scrape(PYTHON, T0 + 2000, text, {key: -0.1})  # restarted: the counter went back
                + scrape(PYTHON, T0 + 3000, text, {key: 0.3}))
    (cpu,) = map_readings(readings).process_cpu
    assert [(s.time_ms - T0, round(s.cores_busy, 6)) for s in cpu.seconds] == [(1000, 1.5), (3000, 0.4)]
    assert cpu.seconds[0].cores is None  # client_python does not say how many CPUs there are


GUNICORN_LIKE = """app_workers_busy{worker="1"} 3
app_workers_busy{worker="2"} 1
app_workers_busy{worker="3",role="admin"} 5
app_workers_size 8
"""


def test_a_pool_the_user_names_sums_its_selectors_series_with_a_selected_or_a_fixed_size():
    readings = scrape(PYTHON, T0, GUNICORN_LIKE)
    by_selector = PoolSpec("workers", parse_selector('app_workers_busy{role!="admin"}'), parse_selector("app_workers_size"))
    fixed = PoolSpec("all", parse_selector("app_workers_busy"), 16.0)
    pools = {p.name: p for p in map_readings(readings, [by_selector, fixed]).thread_pools}
    assert pools["workers"].kind == "named" and (pools["workers"].seconds[0].busy, pools["workers"].seconds[0].size) == (4, 8)
    assert (pools["all"].seconds[0].busy, pools["all"].seconds[0].size) == (9, 16.0)


def test_each_source_is_its_own_series_tied_to_its_host():
    text = (FIXTURES / "client_python-openmetrics.txt").read_text()
    a, b = "http://10.0.0.1:8000/metrics", "http://[fd00::2]:8000/metrics"
    key = ("process_cpu_seconds_total", "")
    readings = (scrape(a, T0, text) + scrape(a, T0 + 1000, text, {key: 1.0})
                + scrape(b, T0, text) + scrape(b, T0 + 1000, text, {key: 0.2}))
    by_host = {c.host: c.seconds[0].cores_busy for c in map_readings(readings).process_cpu}
    assert by_host == pytest.approx({"10.0.0.1": 1.0, "fd00::2": 0.2})
    assert host_of("http://db.internal:9100/metrics") == "db.internal"


def test_nan_is_no_reading_and_rows_read_back_from_the_csv_form():
    rows = [{"time_ms": str(T0), "source": PYTHON, "metric": "app_workers_busy", "labels": 'worker="1"', "value": "NaN"},
            {"time_ms": str(T0), "source": PYTHON, "metric": "app_workers_busy", "labels": 'worker="2"', "value": "2"},
            {"time_ms": "x", "source": PYTHON, "metric": "app_workers_busy", "labels": "", "value": "1"}]
    readings = readings_from_rows(rows)
    assert len(readings) == 2 and readings[1].labels == {"worker": "2"}
    (pool,) = map_readings(readings, [PoolSpec("w", parse_selector("app_workers_busy"), 4)]).thread_pools
    assert pool.seconds[0].busy == 2.0


def test_the_families_kept_are_the_ones_the_mapping_reads():
    assert {"tomcat_threads_busy_threads", "hikaricp_connections_pending", "process_cpu_seconds_total",
            "node_cpu_seconds_total", "jvm_gc_pause_seconds_sum", "jvm_gc_pause_seconds_count"} <= KNOWN_FAMILIES
    assert "go_goroutines" not in KNOWN_FAMILIES and "jvm_gc_pause_seconds_max" not in KNOWN_FAMILIES
    # the server's request families: the sample server's own, Tomcat's connections, Spring Boot's request timer
    assert {"littlegrid_in_flight_requests", "littlegrid_in_flight_seconds_total", "littlegrid_throttle_queue_length",
            "littlegrid_service_seconds_count", "littlegrid_service_seconds_sum",
            "tomcat_connections_current_connections", "http_server_requests_seconds_count",
            "http_server_requests_seconds_sum"} <= KNOWN_FAMILIES
