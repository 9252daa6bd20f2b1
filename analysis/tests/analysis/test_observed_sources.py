"""Whose figures each [observe] source gives, per cell (analysis/observed/observed_sources.py): a source serving the cell's
target (its URL's host and port, or a Tomcat connector on the target's port) is the cell's; one serving another
cell's target is left out of the cell; any other is the target's when it ran on the target's host. Known answers
over constructed scrapes and a constructed run folder with a port axis (two deployments on one host)."""

import csv
import json

import pytest

from analysis_synthetic import T0, closed_loop, make_run
from littlegrid.analysis.observed import observed_sources
from littlegrid.analysis.observed.mapping import Reading, map_readings
from littlegrid.analysis.observed.observed_sources import Places
from littlegrid.summarize import analyze

HOST = "10.232.0.2"
A, B = f"http://{HOST}:8081/actuator/prometheus", f"http://{HOST}:8091/actuator/prometheus"  # 8080's, 8090's
NODE = f"http://{HOST}:9100/metrics"
FAR_NODE = "http://10.232.0.9:9100/metrics"
APP = f"http://{HOST}:8000/metrics"  # a service exposing its metrics on the port it serves


def record(host, port, placement="elsewhere"):
    return {"host": host, "port": port, "addresses": [host], "placement": placement}


def target(port, host=HOST):
    return record(host, port)


def places(cell_port, ports=(8080, 8090), sources=(A, B, NODE, FAR_NODE)) -> Places:
    recs = {url: record(url.split("/")[2].split(":")[0], int(url.split("/")[2].split(":")[1])) for url in sources}
    return Places(target=target(cell_port), targets=tuple(target(p) for p in ports), sources=recs)


def connectors(url, *ports):
    return [Reading(T0, url, "tomcat_threads_busy_threads", {"name": f"http-nio-{p}"}, 1.0) for p in ports]


def test_a_source_with_a_connector_on_the_cells_port_is_the_cells_and_the_other_deployments_is_left_out():
    found = map_readings(connectors(A, 8080, 8081) + connectors(B, 8090, 8091))
    for port, other, mine, theirs in ((8080, 8090, A, B), (8090, 8080, B, A)):
        own = observed_sources.of_cell(found, places(port))
        assert own.target_host[mine] and not own.target_host[theirs]
        assert own.serves == {mine: f"{HOST}:{port}", theirs: f"{HOST}:{other}"}
        assert {p.source for p in own.found.thread_pools} == {mine}  # the other deployment's pool is not read
        assert set(own.found.scrapes) == {A, B}  # its scrapes are still the cell's to count


def test_a_source_tied_to_no_target_is_the_targets_when_on_its_host_and_never_when_elsewhere():
    node_readings = [Reading(T0, url, "node_load1", {}, 0.5) for url in (NODE, FAR_NODE)]
    found = map_readings(connectors(A, 8080) + connectors(B, 8090) + node_readings)
    for port in (8080, 8090):
        own = observed_sources.of_cell(found, places(port))
        assert own.target_host[NODE] and not own.target_host[FAR_NODE]
        assert NODE not in own.serves and {h.source for h in own.found.hosts} == {NODE, FAR_NODE}


def test_a_source_at_the_targets_own_host_and_port_is_the_cells_without_a_connector():
    # gunicorn or a Go service exposing /metrics on the port it serves: no connector names it, its URL does
    found = map_readings([Reading(T0, APP, "process_cpu_seconds_total", {}, 1.0)])
    own = observed_sources.of_cell(found, places(8000, ports=(8000, 8001), sources=(APP,)))
    assert own.target_host[APP] and own.serves == {APP: f"{HOST}:8000"}
    other = observed_sources.of_cell(found, places(8001, ports=(8000, 8001), sources=(APP,)))
    assert not other.target_host[APP] and other.found.process_cpu == ()


def test_with_a_host_axis_each_hosts_exporter_is_its_own_cells():
    near, far = record(HOST, 8000), record("10.232.0.9", 8000)
    found = map_readings([Reading(T0, url, "node_load1", {}, 0.5) for url in (NODE, FAR_NODE)])
    sources = {NODE: record(HOST, 9100), FAR_NODE: record("10.232.0.9", 9100)}
    for cell_target, mine, theirs in ((near, NODE, FAR_NODE), (far, FAR_NODE, NODE)):
        own = observed_sources.of_cell(found, Places(target=cell_target, targets=(near, far), sources=sources))
        assert own.target_host == {mine: True, theirs: False}


# -- a run folder: the sample server twice on one host, compared by a port axis -------------------------------
def scrapes(url, port, *, busy, size, rate, service_s, cpu_cores, seconds=12):
    """Second by second, what a sample server's actuator reports: its connector's busy threads of its size, its
    requests (its own timer: `rate` a second, each `service_s` inside), its process CPU (`cpu_cores` busy of 2)."""
    rows = []
    for k in range(seconds + 1):
        t = T0 + 1000 * k
        rows += [(t, url, "tomcat_threads_busy_threads", f'name="http-nio-{port}"', busy),
                 (t, url, "tomcat_threads_config_max_threads", f'name="http-nio-{port}"', size),
                 (t, url, "littlegrid_service_seconds_count", 'endpoint="/"', rate * k),
                 (t, url, "littlegrid_service_seconds_sum", 'endpoint="/"', rate * k * service_s),
                 (t, url, "process_cpu_seconds_total", "", cpu_cores * k),
                 (t, url, "system_cpu_count", "", 2)]
    return rows


def port_axis_run(tmp_path, targets_recorded: bool):
    run = make_run(tmp_path / "run", [
        {"id": f"port={p}", "axes": {"port": p, "users": 2}, "users": 2, "samples": closed_loop(2, 10, 10, 12),
         "properties": {"host": HOST, "port": str(p)}} for p in (8080, 8090)],
        grid_extra={"target": {"host": HOST, "port": 8080}, "observe": {"prometheus": [A, B]}})
    manifest = json.loads((run / "manifest.json").read_text())
    manifest |= {"target": target(8080), "observe_hosts": {A: record(HOST, 8081), B: record(HOST, 8091)}}
    if targets_recorded:  # the runner records every cell's target now; a folder of the last session did not
        manifest["targets"] = [target(8080), target(8090)]
    (run / "manifest.json").write_text(json.dumps(manifest))
    loaded, idle = dict(busy=9, rate=100, service_s=0.09, cpu_cores=1.5), dict(busy=0, rate=0, service_s=0, cpu_cores=0.1)
    for port in (8080, 8090):
        with open(run / "cells" / f"port={port}" / "observed.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["time_ms", "source", "metric", "labels", "value"])
            w.writerows(scrapes(A, 8080, size=10, **(loaded if port == 8080 else idle)))
            w.writerows(scrapes(B, 8090, size=100, **(loaded if port == 8090 else idle)))
    return run


@pytest.mark.parametrize("targets_recorded", [True, False])
def test_each_cell_of_a_port_axis_reads_its_own_deployments_requests_pool_and_cpu(tmp_path, targets_recorded):
    # before: every cell took the first actuator (8081) for the server's requests and process CPU, so the 8090
    # cells read an idle JVM (0 requests a second, 0.05 of its cores) beside a loaded pool of the other
    s = analyze([port_axis_run(tmp_path, targets_recorded)])
    cells = {c.axes["port"]: c for c in s.cells}
    for port, other, mine, theirs in ((8080, 8090, A, B), (8090, 8080, B, A)):
        c = cells[port]
        assert c.server.source == mine and c.server.pool_name == f"http-nio-{port}"
        assert c.server.throughput_per_s == pytest.approx(100.0)
        assert c.server.service_mean_ms == pytest.approx(90.0)
        assert (c.server_cpu.basis, c.server_cpu.host, c.server_cpu.util) == (
            "server_process", HOST, pytest.approx(0.75))
        by_url = {src.url: src for src in c.observed.sources}
        assert by_url[mine].target_host and by_url[mine].serves == f"{HOST}:{port}"
        assert not by_url[theirs].target_host and by_url[theirs].serves == f"{HOST}:{other}"
        assert {p.source for p in c.observed.thread_pools} == {mine}
        assert {p.source for p in c.observed.process_cpu} == {mine}
    # the 8090 cells' own target is kept (the run's is 8080's)
    assert cells[8080].target is None and (cells[8090].target.host, cells[8090].target.port) == (HOST, 8090)
