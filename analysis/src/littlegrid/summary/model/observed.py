"""What [observe] scraped: each source, pools, connection pools, process and host CPU, GC, a proxy, a database
(analysis/observed/mapping.py maps observed.csv; window means over the cell's steady window)."""

from __future__ import annotations

from littlegrid.summary.model.base import Record


class ObservedSource(Record):
    """One scraped URL over the cell, and the host its figures measured (the URL's host); `target_host`: its
    figures are the cell's target's (it serves the cell's target, or it ran on the target's host and serves no
    other cell's target: analysis/observed/observed_sources.py)."""
    url: str
    host: str
    target_host: bool
    scrapes: int
    failed: int
    slow: int
    readings: int  # scrapes answered inside the window
    # "host:port" of the run's target this source is the process of (its URL's, or a Tomcat connector's port);
    # when that is another cell's target, the source's figures are left out of this cell. null: no target's
    serves: str | None = None


class ObservedPool(Record):
    """A pool of workers the service reports: Tomcat's, Jetty's, an executor's threads, or one the user named in
    [observe.pools] (kind "named"). busy: workers busy; size: the pool's maximum (null: unbounded or not exposed)."""
    source: str
    host: str
    kind: str
    name: str
    busy_mean: float
    busy_max: float
    size: float | None
    full_share: float | None  # share of the window's readings with busy ≥ size (null: no size)
    readings: int


class ObservedConnectionPool(Record):
    """A connection pool (HikariCP): connections in use, its maximum, requests waiting for one."""
    source: str
    host: str
    name: str
    active_mean: float | None
    max: float | None
    pending_mean: float | None
    readings: int


class ObservedProcessCpu(Record):
    """The service process's CPU: cores it kept busy (CPU-seconds per second), and the CPUs it sees when exposed."""
    source: str
    host: str
    metric: str
    cores_busy_mean: float
    cores: float | None
    readings: int


class ObservedHost(Record):
    """A host's own figures (node_exporter): busy share of all its CPUs, its CPU count, load, memory, network."""
    source: str
    host: str
    cpu_util_mean: float | None
    cores: int | None
    load1_mean: float | None
    mem_available_min_bytes: float | None
    network_bytes_per_s_mean: float | None
    readings: int
    # the node_exporter's node_boot_time_seconds: its kernel's boot time, null when not scraped (older summaries)
    boot_time_s: float | None = None


class ObservedGc(Record):
    """A JVM's garbage-collection pauses: the share of time it stood paused, and pauses per second."""
    source: str
    host: str
    pause_share: float
    pauses_per_s: float


class ObservedProxy(Record):
    """A proxy's backend (haproxy's exporter) over the window: the requests waiting in its queue and in service at its
    servers (means of the 1 Hz gauges), the servers' maxconn summed (null: a server without one) and the share of
    readings with every slot taken; its sessions per second (Δ of its counter: connections in tcp mode, requests in
    http mode) and, by Little's law, the wait in its queue W_q = L_q/X and the time in service at the servers
    S = L_served/X; and haproxy's own averages over its last 1024 sessions, as last read in the window."""
    source: str
    host: str
    kind: str
    backend: str
    servers: list[str]
    queue_mean: float | None
    queue_max: float | None
    served_mean: float | None
    limit: float | None
    full_share: float | None
    sessions_per_s: float | None
    queue_wait_ms: float | None
    in_service_ms: float | None
    queue_time_avg_ms: float | None
    connect_time_avg_ms: float | None
    response_time_avg_ms: float | None
    total_time_avg_ms: float | None
    readings: int


class ObservedDatabase(Record):
    """A database's own view (prometheus-postgres-exporter) over the window: backends running a query (the requests
    in service at the database, the exporter's own scrape left out) and all client backends, means of 1 Hz gauges."""
    source: str
    host: str
    kind: str
    active_mean: float | None
    active_max: float | None
    backends_mean: float | None
    readings: int


class Observed(Record):
    """Everything [observe] scraped during the cell, over its steady window, each figure with its source and host."""
    sources: list[ObservedSource]
    thread_pools: list[ObservedPool] = []
    connection_pools: list[ObservedConnectionPool] = []
    process_cpu: list[ObservedProcessCpu] = []
    hosts: list[ObservedHost] = []
    gc: list[ObservedGc] = []
    proxies: list[ObservedProxy] = []
    databases: list[ObservedDatabase] = []
