"""[observe] against real services no one here wrote: Debian's prometheus-node-exporter and a gunicorn service
exposing prometheus_client's metrics, both started here on 127.0.0.1 (ports chosen free), scraped the way a cell
scrapes them for a few seconds, the readings mapped: node_exporter's core count is this host's, and the service's
process CPU grows by the CPU time its worker is made to burn. Both are stopped by PID, also on failure.
"""

import csv
import importlib.util
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from littlegrid.analysis.observed.mapping import map_readings, readings_from_rows
from littlegrid.run.observe import Observer, check_source
from littlegrid.run.ports import free_ports
from needs import missing

pytestmark = pytest.mark.integration

NODE_EXPORTER = "/usr/bin/prometheus-node-exporter"  # Debian's package
BURNS, BURN_CPU_S = 4, 0.25  # the worker burns 4 × 0.25 s of CPU time: 1 CPU-second in all

SERVICE = '''
import time
from prometheus_client import make_wsgi_app

metrics = make_wsgi_app()


def app(environ, start_response):
    if environ["PATH_INFO"] == "/metrics":
        return metrics(environ, start_response)
    if environ["PATH_INFO"] == "/burn":  # holds the worker on the CPU for a known CPU time
        end = time.thread_time() + %f
        while time.thread_time() < end:
            pass
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok\\n"]
''' % BURN_CPU_S


@contextmanager
def started(cmd: list[str], url: str, cwd: Path, log: Path, ready_s: float = 30.0):
    """A process started here, until its `url` answers (bounded); stopped by its PID on leaving, whatever happened."""
    with log.open("wb") as out:
        process = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + ready_s
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as r:
                    r.read()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"{cmd[0]} did not answer {url} (exit {process.poll()}): {log.read_text()[-800:]}")
                time.sleep(0.2)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def test_node_exporter_and_a_gunicorn_service_scraped_as_a_cell_scrapes_them(tmp_path):
    if not shutil.which(NODE_EXPORTER):
        missing("prometheus-node-exporter", f"{NODE_EXPORTER} not found (apt-get install prometheus-node-exporter)")
    for module in ("gunicorn", "prometheus_client"):
        if importlib.util.find_spec(module) is None:
            missing(module, "pip install -e 'analysis[test]'")
    (tmp_path / "service.py").write_text(SERVICE)
    node_port, app_port = free_ports(2)
    node_url = f"http://127.0.0.1:{node_port}/metrics"
    app_url = f"http://127.0.0.1:{app_port}/metrics"
    node = [NODE_EXPORTER, f"--web.listen-address=127.0.0.1:{node_port}"]
    # one worker with two threads: the scrape is answered while the other thread burns
    app = [sys.executable, "-m", "gunicorn", "--workers", "1", "--worker-class", "gthread", "--threads", "2",
           "--bind", f"127.0.0.1:{app_port}", "service:app"]
    with started(node, node_url, tmp_path, tmp_path / "node.log"), \
            started(app, app_url, tmp_path, tmp_path / "gunicorn.log"):
        for url in (node_url, app_url):
            check_source(url, "grid.toml:1: [observe] prometheus")  # real text passes the check before load
        out = tmp_path / "observed.csv"
        with Observer(out, [node_url, app_url]) as observer:
            time.sleep(1.5)
            burner = threading.Thread(target=lambda: [urllib.request.urlopen(
                f"http://127.0.0.1:{app_port}/burn", timeout=30).read() for _ in range(BURNS)])
            burner.start()
            burner.join(timeout=60)
            time.sleep(1.5)
    assert not burner.is_alive()
    counts = observer.summary()
    assert counts[node_url]["failed"] == 0 and counts[app_url]["failed"] == 0
    with out.open(newline="") as f:
        readings = readings_from_rows(csv.DictReader(f))
    observed = map_readings(readings)

    (host,) = observed.hosts
    assert host.source == node_url and host.host == "127.0.0.1"
    assert {s.cores for s in host.seconds} == {os.cpu_count()}
    # its kernel's boot time is this host's, as the runner records it: how a namespace of this machine is told apart
    import psutil
    assert all(abs(s.boot_time_s - psutil.boot_time()) <= 1.0 for s in host.seconds)
    utils = [s.cpu_util for s in host.seconds if s.cpu_util is not None]
    assert len(utils) >= 3 and all(0.0 <= u <= 1.0 for u in utils)
    assert all(s.mem_available_bytes > 0 and s.load1 is not None for s in host.seconds)

    (cpu,) = observed.process_cpu  # gunicorn's worker; node_exporter's own CPU is not a service's
    assert cpu.source == app_url and cpu.metric == "process_cpu_seconds_total"
    # each point is the rate over the interval since the scrape before it: rate × interval = CPU seconds spent
    scrapes = sorted({r.time_ms for r in readings if r.source == app_url})
    burned = sum(s.cores_busy * (s.time_ms - max(t for t in scrapes if t < s.time_ms)) / 1000.0 for s in cpu.seconds)
    assert BURNS * BURN_CPU_S * 0.95 <= burned <= BURNS * BURN_CPU_S + 1.0  # the burn, plus answering the scrapes
    assert len(cpu.seconds) == len(scrapes) - 1  # one rate per interval between two scrapes
