"""The run table says which host each figure measured: the generator's (this host, where JMeter ran), where the
target ran, and per [observe] source its host and whether it is the target's."""

from littlegrid.render import overview
from summary_contract import typed

NODE = "http://10.0.0.7:9100/metrics"
UPSTREAM = "http://10.0.0.9:8080/metrics"


def summary(target):
    sources = [{"url": NODE, "host": "10.0.0.7", "target_host": True, "scrapes": 30, "failed": 0, "slow": 0,
                "readings": 27},
               {"url": UPSTREAM, "host": "10.0.0.9", "target_host": False, "scrapes": 30, "failed": 2, "slow": 0,
                "readings": 25}]
    cell = {"id": "users=4", "axes": {"users": 4}, "status": "complete", "intended": {"workload": "closed"},
            "checks": [], "observed": {"sources": sources}}
    return typed({"run": {"id": "r", "host": {"hostname": "loadgen", "cpus": 2}, "target": target,
                          "source": "run", "inputs": []}, "cells": [cell]})


def test_the_run_table_names_the_generators_host_the_targets_placement_and_each_sources_host():
    facts = dict(overview.run_facts(summary({"host": "10.0.0.7", "port": 8080, "addresses": ["10.0.0.7"],
                                             "placement": "elsewhere"})))
    assert facts["generator's host"] == "this host, where JMeter ran (host-metrics.csv): hostname loadgen, cpus 2"
    assert facts["target"] == "10.0.0.7:8080 elsewhere: the generator's host figures are JMeter's alone"
    assert facts["observed"] == (f"{NODE}: host 10.0.0.7, the target's; {UPSTREAM}: host 10.0.0.9, "
                                 "not the target's")
    here = dict(overview.run_facts(summary({"host": "localhost", "port": 8080, "addresses": ["127.0.0.1"],
                                            "placement": "this_host"})))
    assert here["target"] == ("localhost:8080 (127.0.0.1) on this host, beside JMeter: the generator's host "
                              "figures measured it too")
    assert "target" not in dict(overview.run_facts(summary(None)))  # JTL files, older folders: not recorded


def test_with_a_port_axis_each_actuator_is_the_targets_in_the_cells_loading_its_port():
    # two deployments on one host compared by port: each actuator is the target's in its own port's cells only;
    # before, the table took the first cell's word for every cell (8091's "not the target's")
    a, b = "http://10.0.0.7:8081/actuator/prometheus", "http://10.0.0.7:8091/actuator/prometheus"

    def cell(port):
        sources = [{"url": url, "host": "10.0.0.7", "target_host": serves == f"10.0.0.7:{port}", "serves": serves,
                    "scrapes": 30, "failed": 0, "slow": 0, "readings": 27}
                   for url, serves in ((a, "10.0.0.7:8080"), (b, "10.0.0.7:8090"))]
        return {"id": f"port={port}", "axes": {"port": port}, "status": "complete", "intended": {"workload": "closed"},
                "checks": [], "observed": {"sources": sources}}
    s = typed({"run": {"id": "r", "host": {"hostname": "loadgen", "cpus": 2}, "source": "run", "inputs": []},
               "cells": [cell(8080), cell(8090)]})
    assert dict(overview.run_facts(s))["observed"] == (
        f"{a}: host 10.0.0.7, the target's in the cells loading 10.0.0.7:8080; "
        f"{b}: host 10.0.0.7, the target's in the cells loading 10.0.0.7:8090")
