"""What a service's own Prometheus endpoints said during a cell (the readings of observed.csv), mapped without
configuration onto the resources the analysis reasons about: thread pools (busy of size), connection pools (active,
max, pending), the process's CPU (cores busy), its host's CPU (busy share and cores), and GC pauses; each series tied
to the URL it was scraped from and so to the host it measured. Pure: readings in, typed per-second figures out.

Families read (the names as the libraries write them, not guessed):
- Micrometer (Spring Boot's actuator): Tomcat `tomcat_threads_busy_threads` of `tomcat_threads_config_max_threads`,
  Jetty `jetty_threads_busy` of `jetty_threads_config_max`, executors `executor_active_threads` of
  `executor_pool_max_threads` (Integer.MAX_VALUE there means unbounded: no size), HikariCP
  `hikaricp_connections_active|max|pending`, `process_cpu_usage` (a share of all the host's CPUs) times
  `system_cpu_count`, `process_cpu_time_ns_total`, `jvm_gc_pause_seconds_sum|_count`. Micrometer ships no binder
  for Undertow's worker pool: name it in `[observe.pools]`.
- The Prometheus client libraries (Go, Python, Node, Java): `process_cpu_seconds_total`, the CPU of the process
  serving the endpoint (an exporter's endpoint gives the exporter's own, so node_exporter's is left out).
- node_exporter: `node_cpu_seconds_total` by cpu and mode, `node_load1`, `node_memory_MemAvailable_bytes`,
  `node_network_receive_bytes_total` and `node_network_transmit_bytes_total` (loopback left out), and
  `node_boot_time_seconds` (its kernel's boot time: one in a network namespace of this machine reports this host's).
- Requests at the server's boundary: the sample server's own `littlegrid_in_flight_requests`,
  `littlegrid_in_flight_seconds_total`, `littlegrid_throttle_queue_length`, `littlegrid_service_seconds_count|_sum`;
  Micrometer's `http_server_requests_seconds_count|_sum` (Spring Boot's server-side request timer), so any Spring
  Boot service gives X_server, R_server and, by Little, L_server = Δsum/Δt; Tomcat's
  `tomcat_connections_current_connections`. Series labelled with an /actuator uri (the scrape itself) are no load.
- haproxy's built-in exporter (`http-request use-service prometheus-exporter`), per backend (label `proxy`) and its
  servers: `haproxy_backend_current_queue` (requests waiting for a server slot: the throttle's queue),
  `haproxy_backend_current_sessions`, `haproxy_backend_sessions_total`, `haproxy_server_current_sessions` against
  `haproxy_server_limit_sessions` (the server's `maxconn`, 0 for none: a pool of that size), and haproxy's own
  averages over its last 1024 sessions, `haproxy_backend_{queue,connect,response,total}_time_average_seconds`.
  A backend is also read as the server's requests (in flight = queued + in service, the queue as the throttle's), so
  the split of R (where_time) and the proxy's findings hold for it.
- PostgreSQL through prometheus-postgres-exporter: `pg_stat_activity_count` by `state` (the backends running a query,
  `active`, are the requests in service at the database, less the exporter's own query while it scrapes) and `pg_up`.
A pool of any other name is given by the user as two selectors (`[observe.pools.<name>]`), or a selector and a size.
"""
# Over 450 lines as one job: every known family mapped onto its resource; the tables and records are half of it.

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable
from urllib.parse import urlsplit

from littlegrid.analysis.observed.prometheus_text import Selector, label_text, parse_label_text


@dataclass(frozen=True)
class Reading:
    """One sample of one scrape: observed.csv's row."""

    time_ms: int
    source: str     # the URL scraped
    metric: str
    labels: dict
    value: float


@dataclass(frozen=True)
class PoolFamily:
    """A thread pool as a library exposes it: busy threads, the configured maximum, the label naming the pool."""

    kind: str
    busy: str
    size: str
    identity: str | None  # the label telling one pool from another (None: the whole label set does)


THREAD_POOLS = (
    PoolFamily("tomcat", "tomcat_threads_busy_threads", "tomcat_threads_config_max_threads", "name"),
    PoolFamily("jetty", "jetty_threads_busy", "jetty_threads_config_max", None),
    PoolFamily("executor", "executor_active_threads", "executor_pool_max_threads", "name"),
)
HIKARI = {"active": "hikaricp_connections_active", "max": "hikaricp_connections_max",
          "pending": "hikaricp_connections_pending"}
PROCESS_CPU_SECONDS = "process_cpu_seconds_total"    # Prometheus client libraries: CPU seconds of the process
PROCESS_CPU_NS = "process_cpu_time_ns_total"         # Micrometer (recent versions): the same in nanoseconds
PROCESS_CPU_USAGE = "process_cpu_usage"              # Micrometer: share of all the host's CPUs, 0..1
SYSTEM_CPU_COUNT = "system_cpu_count"                # Micrometer: the CPUs the JVM sees
GC_PAUSE_SUM, GC_PAUSE_COUNT = "jvm_gc_pause_seconds_sum", "jvm_gc_pause_seconds_count"
NODE_CPU = "node_cpu_seconds_total"
NODE_LOAD1 = "node_load1"
NODE_BOOT_TIME = "node_boot_time_seconds"  # its kernel's boot time: tells this machine's namespaces from other hosts
NODE_MEM_AVAILABLE = "node_memory_MemAvailable_bytes"
NODE_NETWORK = ("node_network_receive_bytes_total", "node_network_transmit_bytes_total")
NODE_IDLE_MODES = ("idle", "iowait")  # a CPU in iowait runs nothing: it is idle with I/O pending
# Requests at the server's boundary. The sample server's own timer spans its throttle's queue; Micrometer's
# http.server.requests timer (Spring Boot's filter) spans the whole request. A source with both is read by its own.
IN_FLIGHT = "littlegrid_in_flight_requests"                 # gauge: requests inside the service now
IN_FLIGHT_SECONDS = "littlegrid_in_flight_seconds_total"    # counter: ∫ in-flight dt, its rate is the exact mean L
THROTTLE_QUEUE = "littlegrid_throttle_queue_length"         # gauge: requests waiting at the sample server's throttle
CONNECTIONS = "tomcat_connections_current_connections"      # gauge: Tomcat's open connections, per connector
TIMERS = (("littlegrid_service_seconds", "littlegrid_service_seconds_count", "littlegrid_service_seconds_sum"),
          ("http_server_requests_seconds", "http_server_requests_seconds_count", "http_server_requests_seconds_sum"))
# Tomcat names a connector <protocol>-<io>-[<address>-]<port> (http-nio-8080, http-nio-127.0.0.1-8080,
# http-nio-auto-1-34567): its port is the last field.
_CONNECTOR_PORT = re.compile(r"-(\d+)$")
# haproxy's exporter: per backend (label proxy) and per server (proxy, server)
HAPROXY_QUEUE = "haproxy_backend_current_queue"
HAPROXY_SESSIONS = "haproxy_backend_current_sessions"        # streams at the backend: queued and in service
HAPROXY_SESSIONS_TOTAL = "haproxy_backend_sessions_total"    # counter: streams (tcp: connections; http: requests)
HAPROXY_SERVER_SESSIONS = "haproxy_server_current_sessions"  # in service at each server
HAPROXY_SERVER_LIMIT = "haproxy_server_limit_sessions"       # each server's maxconn; 0: none
HAPROXY_AVERAGES = {"queue": "haproxy_backend_queue_time_average_seconds",
                    "connect": "haproxy_backend_connect_time_average_seconds",
                    "response": "haproxy_backend_response_time_average_seconds",
                    "total": "haproxy_backend_total_time_average_seconds"}
# prometheus-postgres-exporter: backends by database and state; its own scrape is one active backend while it reads
PG_ACTIVITY = "pg_stat_activity_count"
PG_UP = "pg_up"
# Executors report Integer.MAX_VALUE for a pool without a maximum: not a size any finding could use.
UNBOUNDED = 2**31 - 1

# The sample names the mapping reads: what the scraper keeps of each scrape (with the user's selectors).
KNOWN_FAMILIES = frozenset(
    [n for f in THREAD_POOLS for n in (f.busy, f.size)] + list(HIKARI.values())
    + [PROCESS_CPU_SECONDS, PROCESS_CPU_NS, PROCESS_CPU_USAGE, SYSTEM_CPU_COUNT, GC_PAUSE_SUM, GC_PAUSE_COUNT,
       NODE_CPU, NODE_LOAD1, NODE_MEM_AVAILABLE, *NODE_NETWORK, NODE_BOOT_TIME, IN_FLIGHT, IN_FLIGHT_SECONDS,
       THROTTLE_QUEUE, CONNECTIONS, HAPROXY_QUEUE, HAPROXY_SESSIONS, HAPROXY_SESSIONS_TOTAL, HAPROXY_SERVER_SESSIONS,
       HAPROXY_SERVER_LIMIT, *HAPROXY_AVERAGES.values(), PG_ACTIVITY, PG_UP]
    + [n for _, count, total in TIMERS for n in (count, total)])


@dataclass(frozen=True)
class PoolSpec:
    """A pool the user names: busy = a selector (matching series summed), size = a selector or a fixed number."""

    name: str
    busy: Selector
    size: Selector | float | None  # None: the pool's size is not known


# -- the figures ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PoolSecond:
    time_ms: int
    busy: float
    size: float | None  # None: unbounded, or not exposed


@dataclass(frozen=True)
class ThreadPool:
    source: str
    host: str
    kind: str   # tomcat | jetty | executor | named (the user's [observe.pools])
    name: str   # the pool's label (Tomcat's connector, the executor's bean), or the user's name
    seconds: tuple[PoolSecond, ...]


@dataclass(frozen=True)
class ConnectionPoolSecond:
    time_ms: int
    active: float | None
    max: float | None
    pending: float | None


@dataclass(frozen=True)
class ConnectionPool:
    source: str
    host: str
    name: str   # HikariCP's pool label
    seconds: tuple[ConnectionPoolSecond, ...]


@dataclass(frozen=True)
class CpuSecond:
    time_ms: int
    cores_busy: float        # CPU seconds per second: 1.0 is one core kept busy
    cores: float | None      # the CPUs the process sees (system_cpu_count), when exposed


@dataclass(frozen=True)
class ProcessCpu:
    source: str
    host: str
    metric: str              # which family gave it
    seconds: tuple[CpuSecond, ...]


@dataclass(frozen=True)
class HostSecond:
    time_ms: int
    cpu_util: float | None           # busy share of all the host's CPUs since the previous scrape (None: the first)
    cores: int | None
    load1: float | None
    mem_available_bytes: float | None
    network_bytes_per_s: float | None  # received + sent, loopback left out
    boot_time_s: float | None = None  # node_boot_time_seconds: the kernel's boot time (epoch s)


@dataclass(frozen=True)
class HostFigures:
    source: str
    host: str
    seconds: tuple[HostSecond, ...]


@dataclass(frozen=True)
class GcSecond:
    time_ms: int
    pause_s_per_s: float     # seconds the JVM stood paused per second
    pauses_per_s: float


@dataclass(frozen=True)
class GcPauses:
    source: str
    host: str
    seconds: tuple[GcSecond, ...]


@dataclass(frozen=True)
class RequestSecond:
    """One scrape of the server's request figures: gauges as read, counters as their running totals (summed over
    their series), so that a window's figure is the difference between its first and last scrape."""

    time_ms: int
    in_flight: float | None          # requests inside the service now
    connections: float | None        # open connections (Tomcat's connector under test)
    throttle_queue: float | None     # requests waiting at the throttle (the sample server's)
    requests: float | None           # requests completed so far (the timer's count)
    service_seconds: float | None    # seconds they spent inside (the timer's sum)
    in_flight_seconds: float | None  # ∫ in-flight dt so far (the sample server's), else None


@dataclass(frozen=True)
class ServerRequests:
    source: str
    host: str
    timer: str   # the timer the counts are of: littlegrid_service_seconds | http_server_requests_seconds | "" (none)
    seconds: tuple[RequestSecond, ...]


@dataclass(frozen=True)
class ProxySecond:
    """One scrape of a proxy's backend: gauges as read, its sessions counter as a running total, and the proxy's own
    averages (seconds, over its last 1024 sessions)."""

    time_ms: int
    queue: float | None        # waiting for a server slot
    sessions: float | None     # at the backend, queued and in service
    served: float | None       # in service at its servers
    limit: float | None        # the servers' maxconn summed (None: a server without one)
    total: float | None        # sessions so far
    averages: dict             # queue, connect, response, total -> seconds (the ones given)


@dataclass(frozen=True)
class ProxyBackend:
    source: str
    host: str
    kind: str                  # haproxy
    backend: str
    servers: tuple[str, ...]
    seconds: tuple[ProxySecond, ...]


@dataclass(frozen=True)
class DatabaseSecond:
    time_ms: int
    active: float | None       # backends running a query (the exporter's own scrape left out)
    backends: float | None     # every client backend, idle ones included
    up: float | None


@dataclass(frozen=True)
class Database:
    source: str
    host: str
    kind: str                  # postgresql
    seconds: tuple[DatabaseSecond, ...]


@dataclass(frozen=True)
class Observed:
    thread_pools: tuple[ThreadPool, ...] = ()
    connection_pools: tuple[ConnectionPool, ...] = ()
    process_cpu: tuple[ProcessCpu, ...] = ()
    hosts: tuple[HostFigures, ...] = ()
    gc: tuple[GcPauses, ...] = ()
    requests: tuple[ServerRequests, ...] = ()
    proxies: tuple[ProxyBackend, ...] = ()
    databases: tuple[Database, ...] = ()
    # per source, when its scrapes failed (observed.csv's rows without a metric; the adaptor's empty rows)
    failed: dict = field(default_factory=dict)
    scrapes: dict = field(default_factory=dict)  # per source, the times it answered


# -- the mapping ------------------------------------------------------------------------------------
class _Scrape:
    """One scrape of one source: its time and its samples by name."""

    def __init__(self, time_ms: int):
        self.time_ms = time_ms
        self.by_name: dict[str, list[tuple[dict, float]]] = defaultdict(list)

    def series(self, name: str) -> list[tuple[dict, float]]:
        return self.by_name.get(name, [])

    def total(self, name: str, keep=lambda labels: True) -> float | None:
        values = [v for labels, v in self.series(name) if keep(labels)]
        return sum(values) if values else None

    def matching(self, selector: Selector) -> float | None:
        values = [v for labels, v in self.series(selector.metric) if selector.matches(selector.metric, labels)]
        return sum(values) if values else None


THIS_HOST = "this host"  # the host of a source that names none: the run folder's own files, written on this host
FAILED = ""  # the metric of a failed scrape's row: its time and source, no sample


def host_of(source: str) -> str:
    """The host a URL's figures measured: its host name or address, as the URL gives it."""
    return urlsplit(source).hostname or THIS_HOST


def connector_port(name: str) -> int | None:
    """The port of a Tomcat connector by its name (http-nio-8080 → 8080), None when the name gives none."""
    m = _CONNECTOR_PORT.search(name or "")
    return int(m.group(1)) if m else None


def _load(labels: dict) -> bool:
    """A series of the service's load: the scrape of /actuator itself is not."""
    return not labels.get("uri", labels.get("endpoint", "")).startswith("/actuator")


def map_readings(readings: Iterable[Reading], pools: Iterable[PoolSpec] = (), port: int | None = None) -> Observed:
    """The typed figures of every source: one series per resource found, each point one scrape (gauges) or one
    interval between two scrapes (counters, as rates; an interval where a counter went back, a restart, is left
    out). NaN samples are not readings; a reading of metric FAILED marks a failed scrape. `port`: the target's,
    so that Tomcat's connections are those of the connector under test (a connector naming another port is not)."""
    pools = tuple(pools)
    scrapes: dict[str, dict[int, _Scrape]] = defaultdict(dict)
    failed: dict[str, list[int]] = defaultdict(list)
    for r in readings:
        if r.metric == FAILED:
            failed[r.source].append(r.time_ms)
            continue
        if math.isnan(r.value):
            continue
        by_time = scrapes[r.source]
        scrape = by_time.get(r.time_ms) or by_time.setdefault(r.time_ms, _Scrape(r.time_ms))
        scrape.by_name[r.metric].append((r.labels, r.value))
    thread_pools, connection_pools, process_cpu, hosts, gc, requests = [], [], [], [], [], []
    proxies, databases = [], []
    for source in sorted(scrapes):
        ordered = [scrapes[source][t] for t in sorted(scrapes[source])]
        host = host_of(source)
        thread_pools += [ThreadPool(source, host, family.kind, name, seconds)
                         for family in THREAD_POOLS for name, seconds in _family_pools(ordered, family)]
        thread_pools += [ThreadPool(source, host, "named", spec.name, seconds)
                         for spec in pools if (seconds := _named_pool(ordered, spec))]
        connection_pools += [ConnectionPool(source, host, name, seconds) for name, seconds in _hikari(ordered)]
        # node_exporter's process_* series describe node_exporter itself, never the service: its host figures do
        # (and prometheus-postgres-exporter's describe the exporter, not the database)
        exporter = any(s.series(NODE_CPU) or s.series(PG_UP) for s in ordered)
        if not exporter and (cpu := _process_cpu(ordered)):
            process_cpu.append(ProcessCpu(source, host, *cpu))
        if seconds := _host(ordered):
            hosts.append(HostFigures(source, host, seconds))
        if seconds := _gc(ordered):
            gc.append(GcPauses(source, host, seconds))
        if served := _requests(ordered, port):
            requests.append(ServerRequests(source, host, *served))
        for backend in _haproxy(ordered, source, host):
            proxies.append(backend)
            # each backend is also a server's boundary: in flight = queued + in service, the queue as the throttle's
            requests.append(ServerRequests(source, host, f"haproxy:{backend.backend}", tuple(
                RequestSecond(p.time_ms, _sum(p.queue, p.served), None, p.queue, p.total, None, None)
                for p in backend.seconds)))
        if seconds := _postgres(ordered):
            databases.append(Database(source, host, "postgresql", seconds))
    return Observed(tuple(thread_pools), tuple(connection_pools), tuple(process_cpu), tuple(hosts), tuple(gc),
                    tuple(requests), tuple(proxies), tuple(databases), {s: tuple(sorted(t)) for s, t in failed.items()},
                    {s: tuple(sorted(by_time)) for s, by_time in scrapes.items()})


def _sum(*values) -> float | None:
    return None if any(v is None for v in values) else sum(values)


def _haproxy(scrapes: list[_Scrape], source: str, host: str) -> list[ProxyBackend]:
    """Every haproxy backend (label proxy) with a queue gauge, per scrape, its servers' sessions and maxconn summed."""
    names = sorted({labels.get("proxy", "") for s in scrapes for labels, _ in s.series(HAPROXY_QUEUE)})
    out = []
    for name in names:
        mine = lambda labels, name=name: labels.get("proxy", "") == name  # noqa: E731
        servers, seconds = set(), []
        for s in scrapes:
            served = s.series(HAPROXY_SERVER_SESSIONS)
            servers |= {labels.get("server", "") for labels, _ in served if mine(labels)}
            limits = [v for labels, v in s.series(HAPROXY_SERVER_LIMIT) if mine(labels)]
            queue = s.total(HAPROXY_QUEUE, mine)
            if queue is None:
                continue
            seconds.append(ProxySecond(
                s.time_ms, queue, s.total(HAPROXY_SESSIONS, mine), s.total(HAPROXY_SERVER_SESSIONS, mine),
                sum(limits) if limits and all(v > 0 for v in limits) else None, s.total(HAPROXY_SESSIONS_TOTAL, mine),
                {k: v for k, metric in HAPROXY_AVERAGES.items() if (v := s.total(metric, mine)) is not None}))
        if seconds:
            out.append(ProxyBackend(source, host, "haproxy", name, tuple(sorted(servers)), tuple(seconds)))
    return out


def _postgres(scrapes: list[_Scrape]) -> tuple[DatabaseSecond, ...]:
    seconds = []
    for s in scrapes:
        if not s.series(PG_ACTIVITY):
            continue
        active = s.total(PG_ACTIVITY, lambda labels: labels.get("state") == "active")
        seconds.append(DatabaseSecond(s.time_ms, None if active is None else max(0.0, active - 1.0),
                                      s.total(PG_ACTIVITY), s.total(PG_UP)))
    return tuple(seconds)


def _key(labels: dict, identity: str | None) -> str:
    return labels.get(identity, "") if identity else label_text(labels)


def _family_pools(scrapes: list[_Scrape], family: PoolFamily) -> list[tuple[str, tuple[PoolSecond, ...]]]:
    pools: dict[str, list[PoolSecond]] = defaultdict(list)
    for s in scrapes:
        sizes: dict[str, float] = defaultdict(float)
        for labels, v in s.series(family.size):
            sizes[_key(labels, family.identity)] += v
        busy: dict[str, float] = defaultdict(float)
        for labels, v in s.series(family.busy):
            busy[_key(labels, family.identity)] += v
        for name, b in busy.items():
            size = sizes.get(name)
            pools[name].append(PoolSecond(s.time_ms, b, None if size is None or size >= UNBOUNDED else size))
    return [(name, tuple(seconds)) for name, seconds in sorted(pools.items())]


def _named_pool(scrapes: list[_Scrape], spec: PoolSpec) -> tuple[PoolSecond, ...]:
    seconds = []
    for s in scrapes:
        busy = s.matching(spec.busy)
        if busy is None:
            continue
        size = (s.matching(spec.size) if isinstance(spec.size, Selector)
                else None if spec.size is None else float(spec.size))
        seconds.append(PoolSecond(s.time_ms, busy, size))
    return tuple(seconds)


def _hikari(scrapes: list[_Scrape]) -> list[tuple[str, tuple[ConnectionPoolSecond, ...]]]:
    pools: dict[str, list[ConnectionPoolSecond]] = defaultdict(list)
    for s in scrapes:
        values: dict[str, dict[str, float]] = defaultdict(dict)
        for figure, metric in HIKARI.items():
            for labels, v in s.series(metric):
                values[labels.get("pool", "")][figure] = values[labels.get("pool", "")].get(figure, 0.0) + v
        for name, fields in values.items():
            pools[name].append(ConnectionPoolSecond(s.time_ms, fields.get("active"), fields.get("max"),
                                                    fields.get("pending")))
    return [(name, tuple(seconds)) for name, seconds in sorted(pools.items())]


def _counter_rates(scrapes: list[_Scrape], name: str, keep=lambda labels: True, born_at_zero: bool = False,
                   scale: float = 1.0) -> dict[int, float]:
    """time_ms of the later scrape -> the counter's increase per second since the earlier one, summed over its
    series. A series in both scrapes adds its increase; one that went back (a restart) voids the interval; one
    born between them adds its value when `born_at_zero` (counters a library registers at their first event)."""
    rates = {}
    for before, after in zip(scrapes, scrapes[1:]):
        seconds = (after.time_ms - before.time_ms) / 1000.0
        old = {label_text(labels): v for labels, v in before.series(name) if keep(labels)}
        new = {label_text(labels): v for labels, v in after.series(name) if keep(labels)}
        if seconds <= 0 or not new or (not old and not born_at_zero):
            continue
        increase, reset = 0.0, False
        for key, v in new.items():
            if key in old:
                reset |= v < old[key]
                increase += v - old[key]
            elif born_at_zero:
                increase += v
        if not reset:
            rates[after.time_ms] = increase * scale / seconds
    return rates


def _process_cpu(scrapes: list[_Scrape]) -> tuple[str, tuple[CpuSecond, ...]] | None:
    """Cores busy of the process: an exact counter when the source has one, else Micrometer's usage gauge."""
    cores = {s.time_ms: s.total(SYSTEM_CPU_COUNT) for s in scrapes}
    for metric, scale in ((PROCESS_CPU_SECONDS, 1.0), (PROCESS_CPU_NS, 1e-9)):
        rates = _counter_rates(scrapes, metric, scale=scale)
        if rates:
            return metric, tuple(CpuSecond(t, r, cores[t]) for t, r in sorted(rates.items()))
    seconds = tuple(CpuSecond(s.time_ms, usage * cores[s.time_ms], cores[s.time_ms]) for s in scrapes
                    if (usage := s.total(PROCESS_CPU_USAGE)) is not None and cores[s.time_ms])
    return (PROCESS_CPU_USAGE, seconds) if seconds else None


def _host(scrapes: list[_Scrape]) -> tuple[HostSecond, ...]:
    idle = _counter_rates(scrapes, NODE_CPU, keep=lambda labels: labels.get("mode") in NODE_IDLE_MODES)
    every = _counter_rates(scrapes, NODE_CPU)
    network = {}
    for metric in NODE_NETWORK:
        for t, r in _counter_rates(scrapes, metric, keep=lambda labels: labels.get("device") != "lo").items():
            network[t] = network.get(t, 0.0) + r
    seconds = []
    for s in scrapes:
        cpus = {labels.get("cpu") for labels, _ in s.series(NODE_CPU)}
        t = s.time_ms
        util = 1.0 - idle.get(t, 0.0) / every[t] if every.get(t) else None
        second = HostSecond(t, None if util is None else min(1.0, max(0.0, util)), len(cpus) or None,
                            s.total(NODE_LOAD1), s.total(NODE_MEM_AVAILABLE), network.get(t), s.total(NODE_BOOT_TIME))
        if any(v is not None for v in (second.cpu_util, second.cores, second.load1, second.mem_available_bytes)):
            seconds.append(second)
    return tuple(seconds)


def _gc(scrapes: list[_Scrape]) -> tuple[GcSecond, ...]:
    pause = _counter_rates(scrapes, GC_PAUSE_SUM, born_at_zero=True)
    count = _counter_rates(scrapes, GC_PAUSE_COUNT, born_at_zero=True)
    return tuple(GcSecond(t, pause[t], count.get(t, 0.0)) for t in sorted(pause))


def _requests(scrapes: list[_Scrape], port: int | None) -> tuple[str, tuple[RequestSecond, ...]] | None:
    """The server's request figures per scrape, when the source has any: the sample server's own timer when it has
    one, else Micrometer's http.server.requests (a source exposing both is read by the one that spans its throttle)."""
    timer = next((t for t in TIMERS if any(s.series(t[1]) for s in scrapes)), None)

    def on_port(labels: dict) -> bool:
        named = connector_port(labels.get("name", ""))
        return port is None or named is None or named == port
    seconds = []
    for s in scrapes:
        second = RequestSecond(s.time_ms, s.total(IN_FLIGHT), s.total(CONNECTIONS, on_port), s.total(THROTTLE_QUEUE),
                               s.total(timer[1], _load) if timer else None,
                               s.total(timer[2], _load) if timer else None, s.total(IN_FLIGHT_SECONDS))
        if any(v is not None for v in (second.in_flight, second.connections, second.throttle_queue, second.requests,
                                       second.in_flight_seconds)):
            seconds.append(second)
    return ((timer[0] if timer else ""), tuple(seconds)) if seconds else None


def readings_from_rows(rows: Iterable[dict]) -> list[Reading]:
    """observed.csv's rows (as csv.DictReader gives them) as readings; a row that does not read is skipped. A row
    with a time and a source and no metric is a failed scrape (Reading of metric FAILED, value NaN)."""
    readings = []
    for row in rows:
        try:
            if not row.get("metric"):
                readings.append(Reading(int(row["time_ms"]), row["source"], FAILED, {}, math.nan))
                continue
            readings.append(Reading(int(row["time_ms"]), row["source"], row["metric"],
                                    parse_label_text(row.get("labels") or ""), float(row["value"])))
        except (KeyError, TypeError, ValueError):
            continue
    return readings
