"""The server's CPU per cell, answered in one place (analysis/observed/server_cpu.py) in its order: pinned CPUs measured
apart, the process CPU scraped on the target's host with its cores, that host's node_exporter, this host when the
target ran here (JMeter sharing it), else not measured: never the generator's host for a server elsewhere."""

import json

import numpy as np
import pandas as pd
import pytest

from analysis_synthetic import T0, closed_loop, make_run
from littlegrid.analysis.observed import server_cpu
from littlegrid.summarize import analyze
from littlegrid.summary.model import Cell, Run, TargetPlacement
from summary_contract import typed

SERVICE = "http://10.0.0.7:8080/metrics"
NODE = "http://10.0.0.7:9100/metrics"
OTHER_NODE = "http://10.0.0.9:9100/metrics"  # another machine's node_exporter: not the target's host


def source(url, on_target=True):
    return {"url": url, "host": url.split("/")[2].split(":")[0], "target_host": on_target, "scrapes": 30,
            "failed": 0, "slow": 0, "readings": 27}


def cell(*, host_cpu=0.5, pinned_cpu=None, process=None, node=None, other_node=None, boot_time_s=None) -> Cell:
    """A cell whose generator host was `host_cpu` busy; `process`: (cores busy, cores) of the service's process
    CPU; `node`: (busy share, cores) of the target host's node_exporter, which reports `boot_time_s` (its
    node_boot_time_seconds); `other_node`: another host's."""
    observed = {"sources": [], "process_cpu": [], "hosts": []}
    if process is not None:
        observed["sources"].append(source(SERVICE))
        observed["process_cpu"].append({"source": SERVICE, "host": "10.0.0.7", "metric": "process_cpu_seconds_total",
                                        "cores_busy_mean": process[0], "cores": process[1], "readings": 27})
    for url, figures, on_target in ((NODE, node, True), (OTHER_NODE, other_node, False)):
        if figures is not None:
            observed["sources"].append(source(url, on_target))
            observed["hosts"].append({"source": url, "host": url.split("/")[2].split(":")[0],
                                      "cpu_util_mean": figures[0], "cores": figures[1], "readings": 27,
                                      "boot_time_s": boot_time_s if url == NODE else None})
    return typed({"id": "c", "axes": {}, "status": "complete", "intended": {"workload": "closed"},
                  "overall": {"count": 3000, "throughput_per_s": 100.0},
                  "host": {"cpu_util_mean": host_cpu, "server_cpu_util_mean": pinned_cpu}, "checks": [],
                  "observed": observed if observed["sources"] else None}, Cell)


def run(placement, **fields) -> Run:
    target = {"host": "10.0.0.7" if placement == "elsewhere" else "127.0.0.1", "port": 8080, "placement": placement}
    return typed({"host": {"cpus": 2}, "target": target, **fields}, Run)


HERE, ELSEWHERE = run("this_host"), run("elsewhere")


def test_pinned_cpus_measured_apart_come_first():
    r = run("this_host", server_cpus=[1], generator_cpus=[0])
    cpu = server_cpu.of_cell(cell(pinned_cpu=0.9, process=(1.5, 4.0)), r)
    assert (cpu.basis, cpu.cores, cpu.util, cpu.shared_with_generator) == (server_cpu.SERVER_PINNED, 1.0, 0.9, False)
    assert cpu.words == "its own CPU 1 (JMeter on CPU 0)"


def test_the_target_hosts_node_exporter_comes_next_before_the_process():
    # saturation is the cores': the host's busy share answers even when the process reports its own CPU
    cpu = server_cpu.of_cell(cell(process=(1.5, 4.0), node=(0.6, 4)), ELSEWHERE)
    assert (cpu.basis, cpu.host, cpu.cores, cpu.util) == (server_cpu.SERVER_HOST, "10.0.0.7", 4.0, 0.6)
    assert cpu.shared_with_generator is False and cpu.words == "10.0.0.7's 4 cores (its node_exporter)"


def test_this_hosts_cores_come_before_the_process_when_the_target_ran_here():
    # the sample server unpinned: JMeter takes part of the cores, so the process alone would read below saturation
    cpu = server_cpu.of_cell(cell(host_cpu=0.98, process=(1.2, 2.0)), HERE)
    assert (cpu.basis, cpu.util, cpu.shared_with_generator) == (server_cpu.HOST_SHARED, 0.98, True)


def test_the_process_cpu_with_its_cores_when_nothing_measured_its_host():
    cpu = server_cpu.of_cell(cell(process=(1.5, 4.0)), ELSEWHERE)
    # 1.5 cores busy of the 4 the process sees: 37.5 %, the process's own work (JMeter is not in it)
    assert (cpu.basis, cpu.host, cpu.cores, cpu.util) == (server_cpu.SERVER_PROCESS, "10.0.0.7", 4.0, 0.375)
    assert cpu.shared_with_generator is False and "10.0.0.7" in cpu.words
    # a process CPU with no core count says nothing of its share: not measured, not guessed
    assert server_cpu.of_cell(cell(process=(1.5, None)), ELSEWHERE).basis == server_cpu.NOT_MEASURED


def test_this_host_when_the_target_ran_here_shared_with_jmeter():
    cpu = server_cpu.of_cell(cell(host_cpu=0.5), HERE)
    assert (cpu.basis, cpu.cores, cpu.util, cpu.shared_with_generator) == (server_cpu.HOST_SHARED, 2.0, 0.5, True)
    assert cpu.words == "the host's 2 cores, which JMeter shares"


def test_a_server_elsewhere_with_nothing_scraped_on_its_host_is_not_measured_never_the_generators():
    for c in (cell(host_cpu=0.97), cell(host_cpu=0.97, other_node=(0.9, 16))):
        cpu = server_cpu.of_cell(c, ELSEWHERE)
        assert (cpu.basis, cpu.cores, cpu.util, cpu.host) == (server_cpu.NOT_MEASURED, None, None, None)
        assert "elsewhere" in cpu.words


def test_no_cpu_figure_of_a_run_elsewhere_without_a_scrape_is_the_generators(tmp_path):
    """A run folder recorded with its target elsewhere, the generator's host 97 % busy, nothing scraped: no CPU
    figure of the summary (server CPU, CPU per request, curves' host limit, findings) is the generator's."""
    host = pd.DataFrame({"time_ms": T0 + 1000 * np.arange(31), "cpu_util": 0.97, "load1": 3.0})
    folder = make_run(tmp_path / "run", [
        {"id": f"users={n}", "axes": {"users": n}, "samples": closed_loop(n, 20 * max(1, n // 2), 0, 30), "users": n,
         "think_ms": 0, "host_metrics": host} for n in (1, 4, 8)], {"target": {"host": "10.0.0.7", "port": 8080}})
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["target"] = {"host": "10.0.0.7", "port": 8080, "addresses": ["10.0.0.7"], "placement": "elsewhere"}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    s = analyze([folder])
    assert s.run.target.placement == "elsewhere"
    for c in s.cells:
        assert c.host.cpu_util_mean == pytest.approx(0.97)  # the generator's, kept for the generator's findings
        assert c.server_cpu.basis == server_cpu.NOT_MEASURED and c.server_cpu.util is None
        assert c.cpu_per_request.core_ms is None and c.cpu_per_request.cpu_util is None
    assert all(curve.models.host_limit is None for curve in s.curves)
    assert not [f for f in s.findings if f.resource == "cpu" or "97%" in f.statement or "CPU caps" in f.statement]


def test_a_cell_whose_own_target_is_elsewhere_never_takes_this_hosts_cpu_as_the_servers():
    # a host axis: the run's [target] is this host, this cell's load went to another; before, the run's placement
    # decided every cell, and this cell's server CPU was the generator's host's ("host_shared")
    moved = cell().model_copy(update={"target": TargetPlacement(
        host="10.0.0.7", port=8080, addresses=["10.0.0.7"], placement="elsewhere")})
    assert server_cpu.of_cell(cell(), HERE).basis == server_cpu.HOST_SHARED
    cpu = server_cpu.of_cell(moved, HERE)
    assert (cpu.basis, cpu.util, cpu.shared_with_generator) == (server_cpu.NOT_MEASURED, None, False)
    assert cpu.words == "not measured (the server ran elsewhere and nothing scraped its host's CPU)"


BOOT = 1_764_000_000.0  # this host's kernel booted then (the run folder's host facts, /proc/stat btime)


def test_a_node_exporter_in_a_network_namespace_of_this_machine_is_this_machines_cpu_shared_with_jmeter():
    """10.0.0.7 is another network namespace of this machine (placement says elsewhere: this host cannot bind its
    address), and its node_exporter reads the whole machine: the same kernel, so the same boot time. Its CPU is
    this machine's, JMeter's work in it, never "the server host's"; another boot time is another host."""
    here_boot = run("elsewhere", host={"cpus": 2, "boot_time_s": BOOT})
    cpu = server_cpu.of_cell(cell(node=(0.97, 2), boot_time_s=BOOT + 0.4), here_boot)
    assert (cpu.basis, cpu.host, cpu.cores, cpu.util, cpu.shared_with_generator) == \
        (server_cpu.HOST_SHARED, "10.0.0.7", 2.0, 0.97, True)
    assert cpu.words == ("this machine's 2 cores (node_exporter at 10.0.0.7, a network namespace of it: the same boot "
                         "time), which JMeter shares")
    assert server_cpu.owner(cpu) == "the host's" and server_cpu.ran_here(typed_cell_with(cpu))
    # another machine's kernel booted at another time: the server host's, as before
    other = server_cpu.of_cell(cell(node=(0.97, 2), boot_time_s=BOOT - 86_400), here_boot)
    assert (other.basis, server_cpu.owner(other)) == (server_cpu.SERVER_HOST, "the server host's")
    # an older run folder (no boot time recorded) or an exporter that reports none cannot tell: as before
    assert server_cpu.of_cell(cell(node=(0.97, 2), boot_time_s=BOOT), ELSEWHERE).basis == server_cpu.SERVER_HOST
    assert server_cpu.of_cell(cell(node=(0.97, 2)), here_boot).basis == server_cpu.SERVER_HOST


def test_a_process_on_a_host_whose_node_exporter_is_this_machine_is_said_to_share_it():
    """The process's own CPU answers when the exporter gave no busy share; its cores are this machine's, which
    JMeter shares, as the exporter on its host says by its boot time."""
    here_boot = run("elsewhere", host={"cpus": 2, "boot_time_s": BOOT})
    cpu = server_cpu.of_cell(cell(process=(1.2, 2.0), node=(None, 2), boot_time_s=BOOT), here_boot)
    assert cpu.basis == server_cpu.SERVER_PROCESS and cpu.util == pytest.approx(0.6)
    assert cpu.words == ("the server process's CPU on this machine (2 cores, which JMeter shares; at 10.0.0.7, a "
                         "network namespace of it)")


def typed_cell_with(cpu):
    return typed({"id": "c", "axes": {}, "status": "complete", "server_cpu": cpu.model_dump(), "checks": []}, Cell)
