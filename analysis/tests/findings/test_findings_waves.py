"""Waves of a spike, on the elapsed times the connection-limits run measured (10 threads, 2 s per request,
max-connections 20 + accept-count 10), and their negative controls."""

import numpy as np
import pytest

from littlegrid.analysis.reading.histogram import ExactHistogram
from littlegrid.analysis.reading.tail import ccdf
from littlegrid.findings import findings
from littlegrid.findings.waves import exact_counts, waves
from typed_cells import cell, summary as typed_summary

THREADS = "server.tomcat.threads.max"

# N = 40: four waves of 10 at about 2, 4, 6 and 8 s (the run's values, ms)
N40 = [2070, 2070, 2071, 2086, 2089, 2095, 2095, 2097, 2100, 2102, 4061, 4065, 4068, 4091, 4093, 4094, 4101, 4103,
       4106, 4108, 6068, 6083, 6086, 6105, 6107, 6107, 6114, 6114, 6117, 6127, 8081, 8087, 8088, 8107, 8108, 8108,
       8112, 8114, 8118, 8121]
# N = 120: 31 answered in waves (10, 10, 10, 1: max-connections + accept-count + the kernel's one extra), 89
# connect timeouts at about 3.06 s between the first two waves
N120 = ([2028, 2028, 2030, 2031, 2031, 2050, 2052, 2066, 2068, 2069] + [3035 + (i * 54) // 89 for i in range(89)]
        + [4007, 4012, 4017, 4019, 4019, 4051, 4054, 4056, 4058, 4068]
        + [6051, 6056, 6058, 6060, 6063, 6064, 6066, 6066, 6071, 6071] + [8063])


def spike_cell(values, errors=0, threads=10, workload="spike"):
    v = np.sort(np.array(values, dtype=np.int64))
    n = len(v)
    return cell({"id": f"users={n}", "axes": {"users": n}, "users": {"n": n}, "status": "complete",
                 "intended": {"workload": workload, "think_ms": 0.0},
                 "overall": {"count": n, "successes": n - errors, "errors": errors, "ccdf": ccdf(ExactHistogram.of(v)),
                             "min_ms": float(v[0]), "mean_ms": float(v.mean()), "throughput_per_s": 1.0},
                 "server": {"threads_max": threads}, "checks": []})


def summary(*cells):
    return typed_summary(cells, run={"host": {"cpus": 2}, "server_knobs": None}, axes={}, checks=[], criteria=[])


def test_the_ccdf_gives_back_every_value_with_its_count_while_it_holds_them_all():
    got = exact_counts(spike_cell(N40).overall)
    assert got[:2] == [(2070.0, 2), (2071.0, 1)] and sum(k for _, k in got) == 40
    big = spike_cell(list(range(1000, 1600)))  # 600 samples: the CCDF keeps at most 240 points, not all
    assert exact_counts(big.overall) is None


def test_forty_users_on_ten_threads_of_two_seconds_answer_in_four_waves_of_ten():
    w = waves(summary(spike_cell(N40)))
    assert len(w) == 1 and w[0].kind == "waiting" and w[0].standing == "holds"
    f = dict(w[0].figures)
    assert (f["waves"], f["wave_size"], f["service_ms"]) == (4, 10, 2070.0)
    assert "4 waves of S ≈ 2070 ms: 10 at 2088 ms, 10 at 4089 ms, 10 at 6103 ms, 10 at 8104 ms" in w[0].statement
    assert "its thread pool (the server reports threads.max = 10)" in w[0].statement


def test_a_spike_beyond_the_connection_limit_rides_waves_with_its_successes_and_names_the_failures():
    w = waves(summary(spike_cell(N120, errors=89)))
    f = dict(w[0].figures)
    assert (f["waves"], f["wave_size"]) == (4, 10) and w[0].standing == "holds"
    assert "10 at 2045 ms, 10 at 4036 ms, 10 at 6063 ms, 1 at 8063 ms" in w[0].statement
    assert "The other 89 of 120 requests failed and rode no wave." in w[0].statement
    assert "31 of 31 successful responses" in w[0].why


def test_waves_the_pool_does_not_explain_only_suggest_and_say_so():
    w = waves(summary(spike_cell(N40, threads=200)))
    assert w[0].standing == "suggests" and "while its thread pool has 200 threads" in w[0].statement


def test_no_waves_for_responses_spread_evenly_for_one_wave_or_for_a_steady_cell():
    spread = list(np.linspace(2000, 8000, 40).round())
    assert waves(summary(spike_cell(spread))) == []
    assert waves(summary(spike_cell(N40[:10]))) == []  # every request in the first wave
    assert waves(summary(spike_cell(N40, workload="closed"))) == []


def test_the_waves_finding_is_among_the_runs_findings():
    found = findings(summary(spike_cell(N40)))
    assert [f.kind for f in found if "waves of S" in f.statement] == ["waiting"]


@pytest.mark.parametrize("values", [N40, N120])
def test_every_wave_response_is_within_the_slack_of_its_multiple(values):
    s = min(values)
    on = [v for v in values if abs(v - round(v / s) * s) <= 0.15 * s]
    assert len(on) in (40, 31)
