"""1 Hz sampling of server metrics (Prometheus text) and host metrics into a cell's two CSV files, on one thread."""

from __future__ import annotations

import csv
import math
import re
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from littlegrid.analysis.prometheus_text import parse_prometheus  # the one reader of the text format
from littlegrid.run.host_metrics import COLUMNS as HOST_COLUMNS
from littlegrid.run.host_metrics import HostSampler

SERVER_COLUMNS = ["time_ms", "busy_threads", "connections", "in_flight", "throttle_queue",
                  "requests_total", "service_seconds_total", "in_flight_seconds_total", "threads_max"]

# CSV column -> Prometheus metric (docs/contracts.md §6); series of one metric are summed over their labels.
SERVER_METRICS = {
    "busy_threads": "tomcat_threads_busy_threads",
    "connections": "tomcat_connections_current_connections",
    "in_flight": "littlegrid_in_flight_requests",
    "throttle_queue": "littlegrid_throttle_queue_length",
    "requests_total": "littlegrid_service_seconds_count",
    "service_seconds_total": "littlegrid_service_seconds_sum",
    "in_flight_seconds_total": "littlegrid_in_flight_seconds_total",
    "threads_max": "tomcat_threads_config_max_threads",
}
# Tomcat names a connector <protocol>-<io>-[<address>-]<port> (http-nio-8080, http-nio-127.0.0.1-8080,
# http-nio-auto-1-34567): its port is the last field.
_CONNECTOR_PORT = re.compile(r"-(\d+)$")

def server_row(text: str, connector_port: int | None = None) -> dict:
    """The server-metrics CSV columns from one scrape; a metric the server does not expose stays empty.

    The scrape itself is not application load: series labelled with an /actuator endpoint are left out.
    With `connector_port`, Tomcat series are those of the connector on that port only (the one under test):
    a management connector on another port, should the server publish it, would add its own threads.
    """
    totals: dict[str, float] = {}
    for name, labels, value in parse_prometheus(text):
        if labels.get("endpoint", labels.get("uri", "")).startswith("/actuator") or math.isnan(value):
            continue
        if connector_port is not None and name.startswith("tomcat_") and not _on_port(labels, connector_port):
            continue
        totals[name] = totals.get(name, 0.0) + value
    return {column: _number(totals.get(metric)) for column, metric in SERVER_METRICS.items()}


def _on_port(labels: dict, port: int) -> bool:
    """True for a series of the connector on `port`, and for a series that names no connector."""
    m = _CONNECTOR_PORT.search(labels.get("name", ""))
    return m is None or int(m.group(1)) == port


def _number(value: float | None):
    if value is None:
        return None
    return int(value) if value.is_integer() else round(value, 6)


class MetricsSampler:
    """Samples once per second until stopped; each row is flushed at once so that a killed run keeps what it saw.

    `metrics_url` None (no server of ours) writes a server-metrics.csv with its header only.
    A failed scrape writes a row with the time and empty values, so gaps stay visible.
    `connector_port`: the port under test, whose Tomcat connector the busy-thread and connection columns describe.
    `server_cpus`: the CPUs the sample server was pinned to, whose busy share the host rows add (server_cpu_util).
    """

    def __init__(self, server_csv: Path, host_csv: Path, metrics_url: str | None, interval_s: float = 1.0,
                 connector_port: int | None = None, server_cpus: tuple[int, ...] | None = None):
        self.server_csv, self.host_csv = server_csv, host_csv
        self.metrics_url = metrics_url
        self.connector_port = connector_port
        self.interval_s = interval_s
        self.failed_scrapes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="littlegrid-metrics", daemon=True)
        self._host = HostSampler(server_cpus=server_cpus)

    def __enter__(self) -> "MetricsSampler":
        self._server_file = self.server_csv.open("w", newline="", encoding="utf-8")
        self._host_file = self.host_csv.open("w", newline="", encoding="utf-8")
        self._server_writer = csv.DictWriter(self._server_file, SERVER_COLUMNS)
        self._host_writer = csv.DictWriter(self._host_file, HOST_COLUMNS)
        self._server_writer.writeheader()
        self._host_writer.writeheader()
        self._flush()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._server_file.close()
        self._host_file.close()

    def _run(self) -> None:
        # Ticks on a fixed schedule (no drift); a tick missed on a busy machine is skipped, not caught up in a
        # burst. One last reading at stop closes the counters' interval.
        start = time.monotonic()
        while True:
            self._sample_once()
            elapsed = time.monotonic() - start
            next_tick = (math.floor(elapsed / self.interval_s) + 1) * self.interval_s
            if self._stop.wait(next_tick - elapsed):
                self._sample_once()
                return

    def _sample_once(self) -> None:
        self._host_writer.writerow(self._host.sample())
        if self.metrics_url is not None:
            row = {"time_ms": int(time.time() * 1000)}
            try:
                with urllib.request.urlopen(self.metrics_url, timeout=0.8) as r:
                    row.update(server_row(r.read().decode("utf-8", errors="replace"), self.connector_port))
            except (urllib.error.URLError, OSError, ValueError):
                self.failed_scrapes += 1
            self._server_writer.writerow(row)
        self._flush()

    def _flush(self) -> None:
        self._server_file.flush()
        self._host_file.flush()
