"""haproxy's exporter and prometheus-postgres-exporter mapped without configuration: per backend the queue, the sessions
in service against the servers' maxconn, the sessions' rate and, by Little's law, the wait in the queue and the time in
service behind it; the backend that carried the cell's load read as the server's boundary; the database's backends
running a query, less the exporter's own. Known answers worked on paper from the series the test writes."""

from littlegrid.analysis.observed import observed_window
from littlegrid.analysis.observed.mapping import Reading, map_readings
from littlegrid.analysis.observed.observed_sources import CellSources
from littlegrid.analysis.observed.prometheus_text import parse_prometheus
from littlegrid.analysis.steady.window import SteadyWindow

T0 = 1_700_000_000_000
HAPROXY = "http://127.0.0.1:15404/metrics"
PG = "http://127.0.0.1:15187/metrics"


def haproxy_text(second: int) -> str:
    """Two backends as haproxy 2.6 writes them: `db_throttled` carries 100 sessions a second, 5 queued and 1 in service
    (its server's maxconn 1), haproxy's own averages 50 ms queued and 60 ms in all; `db_open` idles (maxconn NaN: none).
    """
    return f"""# HELP haproxy_backend_current_queue Number of current queued connections.
# TYPE haproxy_backend_current_queue gauge
haproxy_backend_current_queue{{proxy="db_throttled"}} {5 if second % 2 else 5.0}
haproxy_backend_current_queue{{proxy="db_open"}} 0
haproxy_backend_current_sessions{{proxy="db_throttled"}} 6
haproxy_backend_current_sessions{{proxy="db_open"}} 0
haproxy_backend_sessions_total{{proxy="db_throttled"}} {1000 + 100 * second}
haproxy_backend_sessions_total{{proxy="db_open"}} 7
haproxy_server_current_sessions{{proxy="db_throttled",server="db"}} 1
haproxy_server_current_sessions{{proxy="db_open",server="db"}} 0
haproxy_server_limit_sessions{{proxy="db_throttled",server="db"}} 1
haproxy_server_limit_sessions{{proxy="db_open",server="db"}} NaN
haproxy_backend_queue_time_average_seconds{{proxy="db_throttled"}} 0.050
haproxy_backend_connect_time_average_seconds{{proxy="db_throttled"}} 0.001
haproxy_backend_total_time_average_seconds{{proxy="db_throttled"}} 0.060
haproxy_process_nbthread 1
"""


def pg_text(second: int) -> str:
    return f"""pg_stat_activity_count{{datname="littlegrid",server="127.0.0.1:15432",state="active"}} {2 if second % 2 else 1}
pg_stat_activity_count{{datname="littlegrid",server="127.0.0.1:15432",state="idle"}} 1
pg_stat_activity_count{{datname="postgres",server="127.0.0.1:15432",state="active"}} 0
pg_up 1
process_cpu_seconds_total {0.01 * second}
"""


def readings(seconds=range(11)) -> list[Reading]:
    out = []
    for k in seconds:
        for source, text in ((HAPROXY, haproxy_text(k)), (PG, pg_text(k))):
            out += [Reading(T0 + 1000 * k, source, n, labels, v) for n, labels, v in parse_prometheus(text)]
    return out


WINDOW = SteadyWindow(start_ms=T0, end_ms=T0 + 10_000, warmup_s=0.0, cooldown_s=0.0, first_start_ms=T0,
                      last_end_ms=T0 + 10_000, samples_trimmed_before=0, samples_trimmed_after=0)


def test_each_backend_is_a_proxy_with_its_queue_its_servers_sessions_and_their_maxconn():
    found = map_readings(readings())
    by_name = {p.backend: p for p in found.proxies}
    assert set(by_name) == {"db_throttled", "db_open"}
    throttled, open_ = by_name["db_throttled"], by_name["db_open"]
    assert throttled.servers == ("db",) and throttled.kind == "haproxy"
    first = throttled.seconds[0]
    assert (first.queue, first.sessions, first.served, first.limit, first.total) == (5, 6, 1, 1, 1000)
    assert first.averages == {"queue": 0.05, "connect": 0.001, "total": 0.06}
    assert open_.seconds[0].limit is None  # maxconn NaN: no limit
    assert not found.process_cpu  # the postgres exporter's own process CPU is not the database's


def test_the_window_figures_follow_littles_law_on_the_queue_and_on_the_servers():
    own = CellSources(found=map_readings(readings()), target_host={HAPROXY: True, PG: True}, serves={})
    block = observed_window.summary_block(own, WINDOW, {})
    p = next(p for p in block.proxies if p.backend == "db_throttled")
    assert p.sessions_per_s == 100.0
    assert p.queue_mean == 5 and p.served_mean == 1 and p.limit == 1 and p.full_share == 1.0
    assert p.queue_wait_ms == 50.0 and p.in_service_ms == 10.0  # W_q = 5 / 100/s, S = 1 / 100/s
    assert p.queue_time_avg_ms == 50.0 and p.total_time_avg_ms == 60.0
    [db] = block.databases
    # active alternates 1 and 2 in littlegrid; one of them is the exporter's own scrape: 0 and 1, mean 5/11
    assert db.kind == "postgresql" and db.active_mean == 5 / 11 and db.active_max == 1
    assert db.backends_mean == 1 + 16 / 11  # every client backend: the idle one and the active ones, 1 or 2


def test_the_backend_that_carried_the_load_is_the_servers_boundary():
    found = map_readings(readings())
    block = observed_window.server_block(found, WINDOW, target_host={HAPROXY: True, PG: True})
    assert block["source"] == HAPROXY
    assert block["throughput_per_s"] == 100.0
    assert block["in_flight_mean"] == 6.0 and block["throttle_queue_mean"] == 5.0
    assert block["service_mean_ms"] == 60.0 and block["in_flight_source"] == "gauges"  # R_server = L/X
    assert block["throttle_wait_ms"] == 50.0 and block["in_service_ms"] == 10.0
