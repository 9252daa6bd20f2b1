"""CPU per request, the demand law's D = U·cores/X, computed once on the server's cores as server_cpu.py answers
them: known answers on paper, whose cores it is of (pinned, shared with JMeter, not measured: never the generator's
host for a server elsewhere), and the curve's fit of busy cores against X."""

from pathlib import Path

import pytest

from littlegrid.analysis.observed import cpu_demand, server_cpu
from littlegrid.summarize import analyze
from littlegrid.summary.model import Cell, Run
from summary_contract import typed


def cell(x, *, cpu=None, server_cpu_util=None, cid="c") -> Cell:
    host = None if cpu is None else {"cpu_util_mean": cpu, "server_cpu_util_mean": server_cpu_util}
    return typed({"id": cid, "axes": {}, "status": "complete", "intended": {"workload": "closed"},
                  "overall": {"count": int(30 * x), "throughput_per_s": x}, "host": host, "checks": []}, Cell)


def per_request(c: Cell, r: Run):
    """The cell's CPU per request as the analysis stage attaches it (its server CPU first)."""
    return cpu_demand.attach([c], r)[0].cpu_per_request


def run(cpus=2, **fields) -> Run:
    return typed({"host": {"cpus": cpus}, **fields}, Run)


SHARED = run()
PINNED = run(server_cpus=[1], generator_cpus=[0], server_started=True)
ELSEWHERE = run(server_started=False)


def test_half_of_two_cores_at_a_hundred_per_second_is_ten_core_ms_per_request():
    # U = 0.5 of 2 cores = 1 core-second per second, over 100 requests per second: 10 core-ms each
    d = per_request(cell(100.0, cpu=0.5), SHARED)
    assert d.core_ms == pytest.approx(10.0) and d.busy_cores == pytest.approx(1.0)
    assert (d.cores, d.cpu_util, d.throughput_per_s) == (2.0, 0.5, 100.0)
    # the same busy share of a 4-core host at 400/s: 2 core-seconds per second over 400 requests, 5 core-ms
    assert per_request(cell(400.0, cpu=0.5), run(cpus=4)).core_ms == pytest.approx(5.0)


def test_the_basis_says_whose_cores_they_were():
    shared = per_request(cell(100.0, cpu=0.5), SHARED)
    assert shared.basis == server_cpu.HOST_SHARED
    assert shared.words == "the host's 2 cores, shared with the generator (JMeter's own work included)"
    # pinned: the server's own CPU, its busy share measured apart (the host at 0.5, CPU 1 at 0.9); one core
    pinned = per_request(cell(100.0, cpu=0.5, server_cpu_util=0.9), PINNED)
    assert pinned.basis == server_cpu.SERVER_PINNED and pinned.words == "the server's pinned CPU 1 (JMeter on CPU 0)"
    assert pinned.core_ms == pytest.approx(9.0) and pinned.cores == 1.0
    # a server the runner did not start, nothing scraped on its host: the host measured is JMeter's, never the
    # server's, so the server's CPU per request is not measured (issue 50 changed this from the generator's figure)
    elsewhere = per_request(cell(100.0, cpu=0.5), ELSEWHERE)
    assert elsewhere.basis == server_cpu.NOT_MEASURED and elsewhere.core_ms is None and elsewhere.busy_cores is None


def test_without_a_cpu_figure_or_a_core_count_it_is_not_measured_never_guessed():
    for c, r in ((cell(100.0), SHARED), (cell(100.0, cpu=0.5), run(cpus=None))):
        d = per_request(c, r)
        assert d.basis == server_cpu.NOT_MEASURED and d.words == "not measured" and d.core_ms is None
    assert cpu_demand.measured(cell(100.0)) is None  # nothing attached yet: nothing to read
    # a cell without a window's figures has no record at all
    empty = typed({"id": "c", "axes": {}, "status": "failed", "intended": {"workload": "closed"}, "checks": []},
                  Cell)
    assert per_request(empty, SHARED) is None


def test_the_curve_fit_separates_the_marginal_cost_from_what_runs_whatever_the_load():
    # busy cores = 0.2 + X·4 ms on 2 cores: at 100/s 0.6 cores, at 300/s 1.4, at 400/s 1.8
    cells = cpu_demand.attach([cell(x, cpu=(0.2 + 0.004 * x) / 2, cid=f"x{x:g}") for x in (100.0, 300.0, 400.0)],
                              SHARED)
    marginal, idle = cpu_demand.marginal([c.cpu_per_request for c in cells])
    assert marginal == pytest.approx(4.0) and idle == pytest.approx(0.2)
    # each cell's own figure counts U_0 in: 1.8 cores / 400/s = 4.5 core-ms at the heaviest, 6 at the lightest
    assert [c.cpu_per_request.core_ms for c in cells] == pytest.approx([6.0, 1400 / 300, 4.5])
    assert cpu_demand.quoted(cells).id == "x400"  # the cell a curve's findings quote: its highest X
    # X not 1.5-fold apart: no slope claimed (noise), nor over one cell
    near = cpu_demand.attach([cell(x, cpu=(0.2 + 0.004 * x) / 2) for x in (300.0, 400.0)], SHARED)
    assert cpu_demand.marginal([c.cpu_per_request for c in near]) is None
    assert cpu_demand.marginal([cells[0].cpu_per_request]) is None


FIXTURES = Path(__file__).parent / "fixtures"


def test_a_run_against_a_target_the_runner_did_not_start_does_not_measure_the_servers_cpu():
    """A real run whose [target] was a server on another machine (10.231.0.2): the host sampled is JMeter's, so
    the server's CPU is not measured (issue 50: before, its CPU per request was the generator's) and no finding
    calls those cores the server's."""
    s = analyze([FIXTURES / "staggered-engines"])
    assert s.run.server_started is False
    (c,) = s.cells
    cost = c.cpu_per_request
    assert cost.basis == server_cpu.NOT_MEASURED and cost.core_ms is None and cost.cpu_util is None
    assert c.server_cpu.basis == server_cpu.NOT_MEASURED and c.server_cpu.util is None and c.server_cpu.cores is None
    assert c.host.cpu_util_mean is not None  # the generator's host was measured: it stays the generator's
    assert not [f for f in s.findings if "the server's 2 cores" in f.statement or "server's CPU" in f.statement]


def test_the_runs_manifest_says_whether_the_sample_server_ran_on_the_host_measured(tmp_path):
    import numpy as np
    import pandas as pd
    from analysis_synthetic import T0, closed_loop, make_run
    samples = closed_loop(2, 10, 0, 5)
    # the generator's host half busy through the cell: the server's only when the server ran here
    host = pd.DataFrame({"time_ms": T0 + 1000 * np.arange(6), "cpu_util": 0.5})
    cell = {"id": "users=2", "axes": {"users": 2}, "samples": samples, "users": 2, "host_metrics": host}
    for name, grid, started, basis in (
            ("started", {"server": {"start": True}}, True, server_cpu.HOST_SHARED),
            ("elsewhere", {"target": {"host": "10.0.0.2", "port": 8080}}, False, server_cpu.NOT_MEASURED),
            ("unsaid", {}, None, server_cpu.HOST_SHARED)):
        s = analyze([make_run(tmp_path / name, [dict(cell)], grid)])
        c = s.cells[0]
        assert s.run.server_started is started and c.server_cpu.basis == basis
        assert c.server_cpu.util == (None if basis == server_cpu.NOT_MEASURED else pytest.approx(0.5))
