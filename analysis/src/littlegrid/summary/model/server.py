"""The server's and the host's metrics over the window, the server's CPU and the CPU per request."""

from __future__ import annotations

from littlegrid.summary.model.base import Record


class Server(Record):
    readings: int
    failed_scrapes: int
    longest_gap_s: float | None
    threads_max: int | None
    in_flight_mean: float | None
    in_flight_source: str | None
    in_flight_se: float | None
    in_flight_sampled_mean: float | None
    busy_threads_mean: float | None
    connections_mean: float | None
    throttle_queue_mean: float | None
    service_mean_ms: float | None
    throughput_per_s: float | None
    throttle_wait_ms: float | None
    in_service_ms: float | None
    client_in_flight: float | None
    waiting_in_front: float | None
    wait_in_front_ms: float | None
    in_front_reason: str | None
    client_minus_server_ms: float | None
    # by Little's law (analysis/queueing/little.boundaries): the requests in service (L_server, or X·R_server, less a
    # throttle's queue; or the pool's busy workers) and how that is known; with only a pool's busy workers scraped,
    # the rest of X·R wait outside that pool, each wait_outside_pool_ms. Null in older summaries.
    in_service_requests: float | None = None
    in_service_basis: str | None = None
    waiting_outside_pool: float | None = None
    wait_outside_pool_ms: float | None = None
    # what busy_threads_mean and threads_max measured (analysis/observed/mapping.py's mapping): the pool's kind ("tomcat",
    # "jetty", "executor", "named": the user's [observe.pools]), its name, and the URL it was scraped from; null: no pool
    pool_kind: str | None = None
    pool_name: str | None = None
    source: str | None = None


class Host(Record):
    """The generator's host: the machine littlegrid and JMeter ran on (host-metrics.csv). The server's host is this
    one only when Run.target.placement says so; the server's own figures are in Cell.observed."""
    readings: int
    load1_mean: float | None
    run_queue_mean: float | None
    cpu_util_mean: float | None
    cpu_user_mean: float | None
    cpu_system_mean: float | None
    cpu_iowait_mean: float | None
    # busy share of the CPUs the sample server was pinned to ([server] cpus); null: not pinned (it shared them all)
    server_cpu_util_mean: float | None = None


class ServerCpu(Record):
    """The server's CPU over the cell's window, as analysis/observed/server_cpu.py answers it (the one place that does):
    whose cores (`basis`: "server_pinned", "host_shared", "server_process", "server_host", "not_measured", as
    CpuPerRequest's), the host they are on, how many and how busy. Findings and models read this, never Cell.host
    (the generator's host) for the server."""
    basis: str
    host: str | None            # the host the figure measured ("this host" for the generator's own), null: none
    cores: float | None
    util: float | None          # busy share of `cores` over the window
    shared_with_generator: bool  # JMeter ran on these cores too, so the figure holds the generator's work
    words: str                  # whose cores, for a sentence


class CpuPerRequest(Record):
    """CPU per request at one cell, the demand law's D = U·cores/X over the steady window, in core-ms: the one
    definition every stage reads (analysis/observed/cpu_demand.py computes it, nothing else does). Everything that ran on
    those cores is in it, what runs whatever the load too. `basis` says whose cores they were:
    "server_pinned": the CPUs the grid pinned the server to, measured apart, JMeter on others;
    "host_shared": the host's cores, which the server shared with the generator, so it includes JMeter's own work;
    "server_process": the service process's own CPU as it reported it ([observe]: process_cpu_*), on its host;
    "server_host": the server host's CPUs as its node_exporter reported them ([observe]), the generator elsewhere;
    "generator_host": (older summaries only) the host JMeter ran on, the server elsewhere: never the server's;
    "not_measured": no CPU figure or no core count (core_ms null). `words` says the same for a sentence."""
    basis: str
    words: str
    cores: float | None
    cpu_util: float | None
    busy_cores: float | None  # U·cores: core-seconds busy per second
    throughput_per_s: float | None
    core_ms: float | None
