"""Cells from run-folder manifests (what the grid says about N, Z and the server), and summary.json's plain-data rules."""

import json
import math

import numpy as np
import pytest

from analysis_synthetic import closed_loop, make_run
from littlegrid import summary
from littlegrid.analysis.cells import Service, discover, service_of
from littlegrid.usererror import UserError


@pytest.mark.parametrize("knobs, path, expected", [
    ({"server.tomcat.threads.max": 10}, "/", Service(10, 100.0, "const")),
    ({"server.tomcat.threads.max": "2"}, "/io?ms=50&dist=exp", Service(2, 50.0, "exp")),
    ({}, "/io?ms=20", Service(200, 20.0, "const")),  # Tomcat's default pool
    ({"server.tomcat.threads.max": 100, "littlegrid.throttle.max-concurrent": 2}, "/io?ms=5", Service(2, 5.0, "const")),
    ({"server.tomcat.threads.max": 10}, "/cpu?us=500", None),  # service time not known from the request
    (None, "/", None),  # no sample server: nothing is known
])
def test_the_servers_c_and_s_come_from_its_knobs_and_the_endpoint(knobs, path, expected):
    assert service_of(knobs, {"path": path}, None) == expected


def test_a_run_folder_gives_one_cell_per_manifest_entry_with_the_grids_facts(tmp_path):
    run = make_run(tmp_path / "run", [
        {"id": "users=4,think_dist=poisson", "axes": {"users": 4, "think_dist": "poisson"}, "users": 4, "engines": 2,
         "think_ms": 50, "think_dist": "poisson", "samples": closed_loop(4, 10, 50, 5),
         "properties": {"think_offset_ms": "300", "path": "/"}, "server": {"server.tomcat.threads.max": 10}}])
    found = discover([run])
    (cell,) = found.cells
    assert (cell.plan_users, cell.engines, cell.think_ms, cell.think_offset_ms) == (4, 2, 50.0, 300.0)
    assert cell.intended_think_ms == 350.0  # JMeter's Poisson timer: offset + Poisson(λ)
    assert (cell.warmup_s, cell.cooldown_s) == (2.0, 1.0)
    assert cell.service == Service(10, 100.0, "const") and cell.server_metrics is None
    assert found.run["grid_name"] == "synthetic" and found.axes == {"users": [4], "think_dist": ["poisson"]}


def test_a_cell_listed_in_the_run_manifest_but_never_written_is_incomplete_not_an_error(tmp_path):
    run = make_run(tmp_path / "run", [{"id": "users=1", "axes": {"users": 1}, "users": 1,
                                       "samples": closed_loop(1, 10, 10, 5)}])
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["cells"].append("users=2")
    (run / "manifest.json").write_text(json.dumps(manifest))
    cells = discover([run]).cells
    assert cells[1].status == "incomplete" and "users=2/manifest.json: missing" in cells[1].reason


def test_a_folder_without_a_manifest_or_a_missing_jtl_is_refused_in_one_line(tmp_path):
    with pytest.raises(UserError, match="not a run folder"):
        discover([tmp_path])
    with pytest.raises(UserError, match="nope.jtl: no such file"):
        discover([tmp_path / "nope.jtl"])


def test_summary_json_is_plain_json_with_nan_and_infinity_as_null():
    data = summary.plain({"a": np.float64("nan"), "b": [np.int32(3), math.inf], "c": (np.bool_(True),)})
    assert data == {"a": None, "b": [3, None], "c": [True]}
    json.dumps(data, allow_nan=False)


def test_reading_a_summary_refuses_another_schema_by_name(tmp_path):
    (tmp_path / "s.json").write_text('{"schema": "littlegrid.summary/0"}')
    with pytest.raises(UserError, match="not a littlegrid.summary/4 file"):
        summary.read(tmp_path / "s.json")


def test_a_broken_or_cell_less_summary_is_refused_in_one_line_naming_the_file_and_line(tmp_path):
    bad = tmp_path / "summary.json"
    bad.write_text('{"schema": "littlegrid.summary/4",\n "cells": [}')
    with pytest.raises(UserError, match=r"summary.json:2: not valid JSON"):
        summary.read(bad)
    # the shape is the typed model's to judge (tests/test_summary_schema.py has the field-level cases)
    bad.write_text('{"schema": "littlegrid.summary/4", "cells": [{"axes": {}}]}')
    with pytest.raises(UserError, match=r"summary.json: not a valid littlegrid.summary/4 summary: littlegrid_version: "
                                        r"field required \(and \d+ more\)$"):
        summary.read(bad)
    bad.write_bytes(b'\xff\xfe\x00')
    with pytest.raises(UserError, match=r"summary.json: cannot read"):
        summary.read(bad)


def test_a_runs_summary_is_found_by_one_rule_a_json_file_as_named_or_the_run_folders(tmp_path):
    (tmp_path / "summary.json").write_text("{}")
    (tmp_path / "other.json").write_text("{}")
    assert summary.locate(tmp_path) == tmp_path / "summary.json"
    assert summary.locate(tmp_path / "other.json") == tmp_path / "other.json"
    with pytest.raises(UserError, match="no such run folder"):
        summary.locate(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match=r"empty/summary.json: not found; run `littlegrid analyze"):
        summary.locate(tmp_path / "empty")


def test_a_distributed_open_cells_offered_rate_is_the_plans_rate_times_its_engines(tmp_path):
    """Each engine offers rate_per_s (the rate is not split as users are): the curve's x and the open-rate check
    take λ = engines × rate_per_s, so two engines at 30/s that together serve 60/s are no shortfall."""
    from analysis_synthetic import T0, make_run, table
    from littlegrid.summarize import analyze

    rows = [(T0 + i * 1000 // 60, 10, f"engine-{1 + i % 2}-arrivals 1-{i % 20 + 1}") for i in range(60 * 30)]
    run = make_run(tmp_path / "run", [{"id": "rate_per_s=30", "axes": {"rate_per_s": 30}, "samples": table(rows, 20),
                                       "users": 20, "engines": 2, "properties": {"rate_per_s": 30}}])
    s = analyze([run])
    (cell,) = s.cells
    assert cell.intended.rate_per_s == 60 and s.curves[0].x == [60]
    assert {c.name: c for c in cell.checks}["open_rate"].passed


def test_a_cells_port_under_test_is_the_port_its_load_went_to_when_an_axis_sets_it(tmp_path):
    # two deployments told apart by a `port` axis (tests/services/littles-law-netns.toml): each cell's pool under
    # test is the connector of the port JMeter was sent to, not [target]'s; before, every cell took [target]'s 8080
    run = make_run(tmp_path / "run", [
        {"id": f"port={p}", "axes": {"port": p, "users": 1}, "users": 1, "samples": closed_loop(1, 10, 10, 5),
         "properties": {"host": "10.232.0.2", "port": str(p)}} for p in (8080, 8090)],
        grid_extra={"target": {"host": "10.232.0.2", "port": 8080}})
    assert [c.target_port for c in discover([run]).cells] == [8080, 8090]
