"""`littlegrid analyze` end to end: run folders and bare JTLs in, a contract-shaped summary.json out, nothing lost."""

import json
import numpy as np
import pandas as pd
import pytest

from analysis_synthetic import T0, closed_loop, make_run, table, write_jtl
from littlegrid import summary as summary_mod
from littlegrid.summarize import analyze
from littlegrid.cli import main as cli_main

TOP = {"schema", "littlegrid_version", "run", "trim", "axes", "cells", "curves", "checks", "criteria"}
CELL = {"id", "axes", "status", "reason", "window", "users", "intended", "overall", "labels", "think_time",
        "server", "host", "series", "checks"}
STATS = {"count", "successes", "errors", "error_rate", "errors_by_class", "throughput_per_s", "mean_ms", "min_ms",
         "p50_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "latency_mean_ms", "connect_mean_ms", "pdf",
         "ccdf", "tail"}
CHECK = {"name", "cell", "value", "expected", "rel_error", "tolerance", "passed", "explanation"}
SERIES = {"t_s", "throughput", "errors", "p50_ms", "p90_ms", "p99_ms", "active_threads", "in_flight",
          "busy_threads", "load1"}


@pytest.fixture
def run_dir(tmp_path):
    cells = [{"id": f"users={n},think_ms={z}", "axes": {"users": n, "think_ms": z},
              "samples": closed_loop(n, 100, z, duration_s=20), "users": n, "think_ms": z, "think_dist": "constant"}
             for z in (0, 100) for n in (1, 2, 4, 8)]
    return make_run(tmp_path / "run", cells, {"criteria": ["p90 < 150ms", "closed_law_error < 3%"]})


def test_a_run_folder_gives_summary_json_beside_it_with_every_field_of_the_contract(run_dir, capsys):
    assert cli_main(["analyze", str(run_dir)]) == 0
    assert "8 cells, 0 checks failed" in capsys.readouterr().out
    s = json.loads((run_dir / "summary.json").read_text())
    assert TOP <= set(s) and s["schema"] == "littlegrid.summary/4"
    assert s["trim"] == {"warmup_s": 2.0, "cooldown_s": 1.0, "basis": "first sample"}
    assert s["axes"] == {"users": [1, 2, 4, 8], "think_ms": [0, 100]} and s["run"]["source"] == "run"
    for cell in s["cells"]:
        assert CELL <= set(cell) and STATS <= set(cell["overall"]) and SERIES <= set(cell["series"])
        assert all(CHECK <= set(c) for c in cell["checks"])
        assert {"closed_law", "workload", "think_time", "users"} <= {c["name"] for c in cell["checks"]}
    assert [k["label"] for k in s["curves"]] == ["think_ms = 0", "think_ms = 100"]
    assert all({"bounds", "usl", "knee", "slo_capacity", "mmcn", "overhead", "host_limit", "concurrency",
                "shared_cores"}
               == set(k["models"])
               for k in s["curves"])
    assert [k["x"] for k in s["curves"]] == [[1, 2, 4, 8]] * 2 and {k["workload"] for k in s["curves"]} == {"closed"}
    assert len(s["criteria"]) == 16  # two criteria × eight cells, evaluated by littlegrid.criteria
    assert [r["max_load"] for k in s["curves"] for r in k["models"]["slo_capacity"]] == [8, 8]


def test_analyzing_again_replaces_the_summary_and_a_failed_write_keeps_the_previous_one(run_dir):
    analyze_path = run_dir / "summary.json"
    cli_main(["analyze", str(run_dir)])
    before = analyze_path.read_bytes()
    with pytest.raises(TypeError):
        summary_mod.write({"schema": summary_mod.SCHEMA, "bad": object()}, analyze_path)
    assert analyze_path.read_bytes() == before
    assert [p.name for p in run_dir.iterdir() if p.name.endswith(".tmp")] == []
    assert cli_main(["analyze", str(run_dir), "--warmup", "3"]) == 0
    assert json.loads(analyze_path.read_text())["trim"]["warmup_s"] == 3.0


def test_a_file_that_is_not_a_summary_is_never_overwritten_without_force(tmp_path, capsys):
    jtl = write_jtl(closed_loop(4, 50, 50, duration_s=10), tmp_path / "results.jtl")
    victim = tmp_path / "notes.json"
    victim.write_text('{"mine": true}')
    assert cli_main(["analyze", str(jtl), "--json", str(victim)]) == 2
    assert "not a littlegrid summary; use --force" in capsys.readouterr().err
    assert victim.read_text() == '{"mine": true}'
    assert cli_main(["analyze", str(jtl), "--json", str(victim), "--force"]) == 0
    assert json.loads(victim.read_text())["schema"] == "littlegrid.summary/4"


def test_a_bare_jtl_is_one_cell_whose_n_is_the_threads_seen_and_whose_summary_goes_beside_it(tmp_path):
    jtl = write_jtl(closed_loop(6, 50, 150, duration_s=15), tmp_path / "results.jtl")
    assert cli_main(["analyze", str(jtl), "--warmup", "1", "--cooldown", "1"]) == 0
    s = json.loads((tmp_path / "results.jtl.summary.json").read_text())
    cell = s["cells"][0]
    assert s["run"]["source"] == "jtl" and cell["users"]["n"] == 6 and cell["users"]["basis"].startswith("threads")
    assert cell["window"]["warmup_s"] == 1.0 and cell["window"]["samples_trimmed_before"] > 0
    law = next(c for c in cell["checks"] if c["name"] == "closed_law")
    assert law["passed"] and law["value"] == pytest.approx(6, rel=0.01)


def test_a_jtl_shorter_than_warm_up_plus_cool_down_is_refused_in_one_line_naming_it(tmp_path, capsys):
    jtl = write_jtl(closed_loop(2, 50, 50, duration_s=3), tmp_path / "short.jtl")
    assert cli_main(["analyze", str(jtl), "--warmup", "2", "--cooldown", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "short.jtl: the samples span" in err and "no steady window" in err
    assert not (tmp_path / "short.jtl.summary.json").exists()


def test_unknown_tolerance_names_in_the_grid_are_refused(tmp_path):
    run = make_run(tmp_path / "run", [{"id": "users=1", "axes": {"users": 1}, "samples": closed_loop(1, 10, 10, 5),
                                       "users": 1}], {"tolerances": {"closed_lwa": 0.1}})
    with pytest.raises(Exception, match="unknown name 'closed_lwa'"):
        analyze([run])


def open_arrivals(rate_per_s, service_ms, threads, seconds, seed=3):
    """Poisson arrivals served by a pool of threads: each arrival takes the thread free soonest."""
    rng = np.random.default_rng(seed)
    t, free, rows = 1_700_000_000_000.0, np.full(threads, 1_700_000_000_000.0), []
    while t < 1_700_000_000_000 + 1000 * seconds:
        t += rng.exponential(1000 / rate_per_s)
        i = int(np.argmin(free))
        start = max(t, free[i])
        free[i] = start + service_ms
        rows.append((int(start), service_ms, f"Open 1-{i + 1}"))
    return table(sorted(rows), threads)


@pytest.mark.parametrize("service_ms, sized", [(20, True), (180, False)])
def test_open_workload_checks_rate_poisson_arrivals_and_warn_of_coordinated_omission(tmp_path, service_ms, sized):
    run = make_run(tmp_path / "run", [{"id": "rate_per_s=50", "axes": {"rate_per_s": 50},
                                       "samples": open_arrivals(50, service_ms, 10, 40), "users": 10,
                                       "properties": {"rate_per_s": "50", "threads": "10"}}])
    checks = {c.name: c for c in analyze([run]).cells[0].checks}
    assert checks["open_rate"].passed and checks["open_rate"].value == pytest.approx(50, rel=0.1)
    assert checks["interarrival_cv"].passed is sized  # a saturated pool makes arrivals regular
    assert checks["generator_sizing"].passed is sized
    assert checks["generator_sizing"].value == pytest.approx(50 * service_ms / 1000, rel=0.1)
    assert "think_time" not in checks and checks["closed_law"].passed
    assert checks["throughput_bound"].passed is None  # open: only the server's c/S bounds X, unknown here


def test_a_cell_whose_jtl_cannot_be_read_or_is_too_short_keeps_its_reason_and_the_other_cells_are_analysed(tmp_path):
    cells = [{"id": f"users={n}", "axes": {"users": n}, "samples": closed_loop(n, 50, 50, duration_s=10), "users": n}
             for n in (1, 2, 3)]
    run = make_run(tmp_path / "run", cells)
    (run / "cells" / "users=2" / "results.jtl").write_text("this is not a JTL\n")
    short = closed_loop(3, 50, 50, duration_s=2)
    write_jtl(short, run / "cells" / "users=3" / "results.jtl")
    s = analyze([run])
    by_id = {c.id: c for c in s.cells}
    assert by_id["users=1"].overall.count > 0
    assert by_id["users=2"].overall is None and "results.jtl" in by_id["users=2"].reason
    assert by_id["users=3"].overall is None and "no steady window" in by_id["users=3"].reason


def test_transaction_controller_parents_are_not_counted_as_requests_but_keep_their_own_label(corpus):
    # perfplugin-filewithtransactions.csv (SOURCES.md): 313 rows, 103 of them Transaction Controller parents
    s = analyze([corpus / "perfplugin-filewithtransactions.csv"], by_label=True)
    cell = s.cells[0]
    assert cell.reading.transaction_rows_excluded == 103
    assert cell.overall.count == 313 - 103
    assert {"HP", "Search", "Scenario"} <= set(cell.labels) and "HP-0" in cell.labels
    assert sum(v.count for v in cell.labels.values()) == 313


def test_a_label_scoped_criterion_in_the_grid_turns_on_the_per_label_statistics(tmp_path):
    run = make_run(tmp_path / "run", [{"id": "users=2", "axes": {"users": 2}, "users": 2,
                                       "samples": closed_loop(2, 100, 100, duration_s=10)}],
                   {"criteria": ['p90 < 150ms label "GET /"']})
    s = analyze([run])
    assert list(s.cells[0].labels) == ["GET /"]
    assert [c.passed for c in s.criteria] == [True]


def test_the_throughput_bound_counts_successful_completions_so_fast_failures_do_not_break_it(tmp_path):
    # 20 threads alternate a 95 ms success and a 1 ms refused connection, 10 ms apart: total X ≈ 345/s is
    # above N/(S+Z) = 20/0.105 s = 190/s, but each success still cost a 95 ms service: X_ok ≈ 172/s is not.
    rows, ok = [], []
    for i in range(20):
        t = T0 + i * 6
        while t + 116 <= T0 + 30_000:
            rows += [(t, 95, f"Thread Group 1-{i + 1}"), (t + 105, 1, f"Thread Group 1-{i + 1}")]
            ok += [True, False]
            t += 116
    order = np.argsort([r[0] for r in rows], kind="stable")
    samples = table([rows[k] for k in order], 20, success=[ok[k] for k in order],
                    codes=["200" if ok[k] else "Non HTTP response code: java.net.ConnectException" for k in order])
    run = make_run(tmp_path / "run", [{"id": "users=20", "axes": {"users": 20}, "samples": samples, "users": 20,
                                       "think_ms": 10, "think_dist": "constant",
                                       "server": {"server.tomcat.threads.max": 100},
                                       "properties": {"path": "/io?ms=95"}}])
    cell = analyze([run]).cells[0]
    bound = {c.name: c for c in cell.checks}["throughput_bound"]
    assert cell.overall.throughput_per_s == pytest.approx(2 * 20 / 0.116, rel=0.02)
    assert bound.value == pytest.approx(20 / 0.116, rel=0.02) and bound.expected == pytest.approx(20 / 0.105)
    assert bound.passed and "successful" in bound.explanation


def test_a_spike_gets_no_steady_state_checks_or_models_but_keeps_its_statistics_and_error_classes(tmp_path):
    # 40 users released at once, one 2 s request each on 10 threads: waves at 2, 4, 6, 8 s; 10 refused.
    rows = [(T0 + (k // 10) * 2000 if k < 30 else T0, 2000 * (k // 10 + 1) if k < 30 else 3,
             f"Spike 1-{k + 1}") for k in range(40)]
    samples = table(rows, 40, success=[k < 30 for k in range(40)],
                    codes=["200" if k < 30 else "Non HTTP response code: java.net.ConnectException" for k in range(40)])
    seconds = np.arange(10)
    server = pd.DataFrame({"time_ms": T0 - 500 + 1000 * seconds, "in_flight": 10, "busy_threads": 10,
                           "requests_total": np.minimum(seconds // 2 * 10, 30), "service_seconds_total": seconds * 10.0,
                           "in_flight_seconds_total": seconds * 10.0})
    cells = [{"id": "users=40", "axes": {"users": 40}, "samples": samples, "users": 40, "warmup_s": 0,
              "cooldown_s": 0, "properties": {"requests_per_user": "1", "path": "/io?ms=2000"},
              "server": {"server.tomcat.threads.max": 10}, "server_metrics": server}]
    summary = analyze([make_run(tmp_path / "run", cells)])  # found a spike by its requests_per_user
    cell = summary.cells[0]
    checks = {c.name: c for c in cell.checks}
    assert cell.intended.workload == "spike"
    assert checks["closed_law"].passed is None and "spike has no steady state" in checks["closed_law"].explanation
    assert {"think_time", "workload", "throughput_bound", "server_little"}.isdisjoint(checks)
    assert cell.server.busy_threads_mean == 10  # the server's figures are still there
    assert checks["users"].passed
    assert cell.overall.count == 40 and cell.overall.errors == 10
    assert summary.curves == []  # a spike is no point of a curve: no bounds, no USL
