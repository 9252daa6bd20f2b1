"""1 Hz sampling of the generator's host (the machine littlegrid and JMeter run on) into a cell's host-metrics.csv,
on one thread. The server's own figures are scraped by run/observe.py into observed.csv (the sample server's
actuator among the sources): one path for every service."""

from __future__ import annotations

import csv
import threading
from pathlib import Path

from littlegrid.run.host_metrics import COLUMNS as HOST_COLUMNS
from littlegrid.run.host_metrics import HostSampler
from littlegrid.run.ticks import every


class MetricsSampler:
    """Samples once per second until stopped; each row is flushed at once so that a killed run keeps what it saw.

    `server_cpus`: the CPUs the sample server was pinned to, whose busy share the host rows add (server_cpu_util).
    """

    def __init__(self, host_csv: Path, interval_s: float = 1.0, server_cpus: tuple[int, ...] | None = None):
        self.host_csv = host_csv
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="littlegrid-metrics", daemon=True)
        self._host = HostSampler(server_cpus=server_cpus)

    def __enter__(self) -> "MetricsSampler":
        self._host_file = self.host_csv.open("w", newline="", encoding="utf-8")
        self._host_writer = csv.DictWriter(self._host_file, HOST_COLUMNS)
        self._host_writer.writeheader()
        self._host_file.flush()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._host_file.close()

    def _run(self) -> None:
        every(self.interval_s, self._stop, self._sample_once)

    def _sample_once(self) -> None:
        self._host_writer.writerow(self._host.sample())
        self._host_file.flush()
