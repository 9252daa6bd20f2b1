"""Where the time goes, and two arms in words, on the throttling experiment built on paper for several service
times and core counts: N closed users without think time on c cores of S ms each. Without a throttle the N
requests share the cores (time in service max(S, N·S/c)); with a throttle admitting K = c, time in service stays S
and the rest waits in its queue, W_q = L_q/X. Both arms reach X = c/S: the same throughput."""

import re

import numpy as np
import pytest

from littlegrid.analysis.cells import Service
from littlegrid.analysis.modelling import curves
from littlegrid.analysis.queueing import little
from littlegrid.analysis.queueing.laws import DEFAULT_TOLERANCES
from littlegrid.analysis.reading.histogram import ExactHistogram, cell_histogram, completions_per_second
from littlegrid.analysis.statistics.stats import nearest_rank
from littlegrid.analysis.steady.blocks import BlockHistograms
from littlegrid.comparison.deltas import arms_of
from littlegrid.findings import findings
from littlegrid.findings.expect import evaluate
from typed_cells import cell as typed_cell
from typed_cells import costed, recosted, summary as typed_summary

THROTTLE = "littlegrid.throttle.max-concurrent"
FRONT_MS = 0.5  # client R − server R: the network and Tomcat's accept, the same at every N
WINDOW_S = 30


def samples(mean_ms: float, x: float, rng) -> dict:
    """A steady window of X per second whose elapsed times average mean_ms (±10%): overall figures and the
    exact histogram with blocks of seconds, as analyze keeps them, so the comparison can resample them."""
    n = int(x * WINDOW_S)
    elapsed = np.maximum(1, np.round(rng.uniform(0.9, 1.1, n) * mean_ms)).astype(np.int64)
    end = np.sort(rng.uniform(0, WINDOW_S * 1000, n)).astype(np.int64)
    ordered = np.sort(elapsed)
    overall = {"count": n, "mean_ms": float(elapsed.mean()), "throughput_per_s": n / WINDOW_S,
               "successes_per_s": n / WINDOW_S, "error_rate": 0.0}
    overall |= {f"p{p}_ms": float(nearest_rank(ordered, p)) for p in (50, 90, 99)}
    histogram = cell_histogram(ExactHistogram.of(elapsed), completions_per_second(end, 0, WINDOW_S * 1000)) | {
        "blocks": BlockHistograms.from_samples(elapsed, end, 0, WINDOW_S * 1000).as_summary()}
    return {"overall": overall, "histogram": histogram, "window": {"start_ms": 0, "end_ms": WINDOW_S * 1000,
                                                                    "length_s": float(WINDOW_S)}}


def throttling_cell(n: int, k: int, s_ms: float, cores: int, rng):
    """One cell on paper: X = min(N, c)/S; unthrottled, time in service N·S/c once N > c; throttled, S in service
    and the rest in the throttle's queue. The server figures are the analysis's own split (little.throttle_split, little.boundaries)."""
    x = 1000.0 * min(n, cores) / s_ms
    r = 1000.0 * n / x + FRONT_MS
    r_server = r - FRONT_MS
    queue = max(0.0, n - k) if k else None  # closed, no think time: the N − K requests not admitted wait
    cpu = min(1.0, n / cores)
    measured = samples(r, x, rng)
    x, r = measured["overall"]["throughput_per_s"], measured["overall"]["mean_ms"]
    server = {"service_mean_ms": r_server, "throughput_per_s": x, "throttle_queue_mean": queue,
              "in_flight_mean": x * r_server / 1000.0, "busy_threads_mean": float(n)}
    server |= little.throttle_split(queue, x, r_server)
    server |= little.boundaries(x, r, server)  # where the requests are, as the analysis writes it
    axes = {THROTTLE: k, "users": n}
    return typed_cell({"id": ",".join(f"{a}={v}" for a, v in axes.items()), "axes": axes, "users": {"n": n},
                       "intended": {"think_ms": 0.0, "think_dist": "constant", "workload": "closed"},
                       "server": server, "host": {"cpu_util_mean": cpu, "load1_mean": n + 1.0 if not k else k + 1.0},
                       **measured})


def throttling(s_ms: float, cores: int, loads=(1, 2, 4, 8), seed=1):
    rng = np.random.default_rng(seed)
    cells = [throttling_cell(n, k, s_ms, cores, rng) for k in (0, cores) for n in loads]
    services = {c.id: Service(cores, s_ms, "const") for c in cells}
    run = {"host": {"cpus": cores}, "arms": f"{THROTTLE}=0,{cores}"}
    cells, built, _ = curves.build(costed(cells, run), services, [], lambda cid, q: None, DEFAULT_TOLERANCES)
    return typed_summary(cells, run=run,
                         axes={THROTTLE: [0, cores], "users": list(loads)}, curves=built,
                         tolerances=dict(DEFAULT_TOLERANCES))


def of(found, kind, k=None):
    return [f for f in found if f.kind == kind and (k is None or dict(f.where).get(THROTTLE) == k)]


@pytest.mark.parametrize("s_ms, cores", [(5.0, 2), (20.0, 4), (2.0, 8)])
def test_with_the_throttle_time_in_service_stays_flat_and_the_queue_takes_the_rest(s_ms, cores):
    loads = (1, cores, 2 * cores, 4 * cores)
    s = throttling(s_ms, cores, loads)
    found = findings(s, arms_of(s, s.run.arms))
    flat, stretched = of(found, "service", cores), of(found, "service", 0)
    assert [f.resource for f in flat] == ["flat"] and [f.resource for f in stretched] == ["stretched"]
    # unthrottled: at N = 4c each request is in service N/c × S = 4S
    heaviest = next(c for c in s.cells if c.axes == {THROTTLE: 0, "users": 4 * cores})
    assert dict(stretched[0].figures)["service_last_ms"] == pytest.approx(4 * s_ms, rel=0.01)
    assert f"L/cores × S = {4 * cores:g}/{cores:g} × " in stretched[0].statement  # L_server = N: Z = 0, pool ≥ N
    assert heaviest.id in stretched[0].cells
    # throttled: W_q = L_q/X with L_q = N − K, so at N = 4c three quarters of R wait in the queue
    queue = of(found, "waiting", cores)
    queue = [f for f in queue if f.resource == "throttle"]
    assert len(queue) == 1
    figures = dict(queue[0].figures)
    throttled = next(c for c in s.cells if c.axes == {THROTTLE: cores, "users": 4 * cores})
    x = throttled.overall.throughput_per_s
    assert figures["throttle_wait_ms"] == pytest.approx(1000.0 * 3 * cores / x)
    assert figures["in_service_ms"] == pytest.approx(throttled.server.service_mean_ms - figures["throttle_wait_ms"])
    assert figures["in_service_ms"] == pytest.approx(s_ms, rel=0.1)
    assert "in the throttle's queue" in queue[0].statement and "in service" in queue[0].statement
    # no throttle, no throttle queue
    assert not [f for f in of(found, "waiting", 0) if f.resource == "throttle"]


def test_the_arms_reach_the_same_throughput_within_its_interval_and_the_throttle_is_chosen_for_its_load():
    s = throttling(5.0, 2)
    found = findings(s, arms_of(s, s.run.arms))
    arms = of(found, "arms")
    assert len(arms) == 1 and arms[0].resource == "equivalent" and arms[0].standing == "holds"
    text = arms[0].statement
    assert "at N = 8 throughput is equivalent within ±5%: " in text and "95% interval" in text
    figures = dict(arms[0].figures)
    assert -0.05 < figures["rel_lo"] <= figures["rel_hi"] < 0.05 and figures["margin"] == 0.05
    # the figures that differ at N = 8: time in service 20 ms against 5 ms, load average 9 against 3
    assert "time in service, 20 ms against" in text and "load average, 9 against 3" in text
    assert f"Choose {THROTTLE} = 2: throughput equivalent within ±5%" in text and "lower load average" in text
    got = evaluate(["arms same", f"service flat where {THROTTLE} == 2", f"service stretched where {THROTTLE} == 0",
                    f"waiting throttle where {THROTTLE} == 2", f"no waiting throttle where {THROTTLE} == 0"],
                   s, [f.as_dict() for f in found])
    assert [e["passed"] for e in got] == [True] * 5, got


def test_the_margin_a_grid_states_for_its_arms_words_their_finding_and_judges_its_expectations():
    """`arms same within 10%` in the grid: the arms finding (analyze's arms_of, the report's comparison page) says
    ±10%, and each expectation is judged at its own margin by the interval the finding states."""
    from littlegrid.comparison.arms import arm
    from littlegrid.comparison.deltas import compare_runs
    from typed_cells import update
    s = throttling(5.0, 2)
    s = update(s, run=update(s.run, expect=["arms same within 10%"]))
    arms = arms_of(s, s.run.arms)
    assert arms.margin == 0.1
    found = of(findings(s, arms), "arms")
    assert "at N = 8 throughput is equivalent within ±10%: " in found[0].statement
    assert dict(found[0].figures)["margin"] == 0.1
    page = compare_runs(arm(s, THROTTLE, "0"), arm(s, THROTTLE, "2"), arms_named=(THROTTLE, "0", "2"))
    assert page.margin == 0.1 and page.findings[0].statement == found[0].statement
    lo, hi = dict(found[0].figures)["rel_lo"], dict(found[0].figures)["rel_hi"]
    tight = max(-lo, hi) * 0.9  # a margin the interval does not fit inside
    got = evaluate(["arms same within 10%", f"arms same within {100 * tight:.2f}%"], s, [f.as_dict() for f in found])
    assert [e["passed"] for e in got] == [True, False], got


def test_arms_whose_throughput_differs_say_so_and_choose_the_one_that_serves_more():
    """A throttle of K = 1 on 2 cores halves X: different, and the unthrottled arm is chosen."""
    rng = np.random.default_rng(3)
    cells = [throttling_cell(n, 0, 5.0, 2, rng) for n in (1, 2, 4, 8)]
    cells += [throttling_cell(n, 1, 5.0, 1, rng) for n in (1, 2, 4, 8)]  # one admitted at a time: X = 1/S
    services = {c.id: Service(2, 5.0, "const") for c in cells}
    run = {"host": {"cpus": 2}, "arms": f"{THROTTLE}=0,1"}
    cells, built, _ = curves.build(costed(cells, run), services, [], lambda cid, q: None, DEFAULT_TOLERANCES)
    s = typed_summary(cells, run=run, curves=built,
                      axes={THROTTLE: [0, 1], "users": [1, 2, 4, 8]}, tolerances=dict(DEFAULT_TOLERANCES))
    arms = of(findings(s, arms_of(s, s.run.arms)), "arms")
    assert len(arms) == 1 and arms[0].resource == "different"
    assert f"at N = 8 throughput is different ({THROTTLE} = 1 lower): " in arms[0].statement
    # by the ratio and its interval at the precision the interval supports (findings/precision.py), as the headline
    assert re.search(rf"Choose {re.escape(THROTTLE)} = 0: at N = 8 it gives about 2\.0\d?× the throughput "
                     r"\(1\.9\d?× to 2\.\d+×\)\.", arms[0].statement), arms[0].statement


def test_a_curve_whose_response_time_does_not_grow_says_nothing_about_time_in_service():
    s = throttling(5.0, 8, loads=(1, 2, 4, 8))  # 8 cores: nothing queues up to N = 8
    found = findings(s)
    assert not of(found, "service") and not [f for f in of(found, "waiting") if f.resource == "throttle"]
    assert not of(found, "arms")  # no comparison handed in, no arms finding


def test_the_headline_of_a_two_arm_grid_says_the_arms_comparison_with_its_interval_and_choice():
    s = throttling(5.0, 2)
    found = findings(s, arms_of(s, s.run.arms))
    from littlegrid.findings import headline
    text = " ".join(headline(s, found)["sentences"])
    assert f"Arms {THROTTLE} = 0 against 2 (within this run): at N = 8 throughput is equivalent within ±5% (" in text
    assert (f"; choose {THROTTLE} = 2: throughput equivalent within ±5%, p99 not shown to differ beyond the margin, "
            f"and a lower load average") in text


def test_a_lightest_cell_slowed_by_other_load_is_not_taken_for_s_in_the_cores_sharing_figure():
    """The unthrottled N = 1 cell served in 10 ms what takes 5 (the host busy with something else): still
    stretched by R's growth, but L/cores × S from it (40 ms at N = 8) is said not to be the service time alone."""
    from typed_cells import update
    s = throttling(5.0, 2)
    slow = next(c for c in s.cells if c.axes == {THROTTLE: 0, "users": 1})
    s = recosted(update(s, cells=[update(c, server=update(c.server, service_mean_ms=10.0),
                                         overall=update(c.overall, mean_ms=10.0 + FRONT_MS)) if c.id == slow.id
                                  else c for c in s.cells]))
    stretched = of(findings(s), "service", 0)
    assert [f.resource for f in stretched] == ["stretched"]
    assert "8/2 × 10 ms = 40 ms, but 20 ms was measured, less than that: S from the lightest cell" in stretched[0].statement
    plain = of(findings(throttling(5.0, 2)), "service", 0)[0].statement
    assert "8/2 × 5 ms = 20 ms, measured 20 ms." in plain


def test_the_comparison_of_two_arms_begins_with_the_arms_in_words_as_the_run_says_them():
    from littlegrid.comparison.arms import arm
    from littlegrid.comparison.deltas import compare_runs
    s = throttling(5.0, 2)
    run_says = of(findings(s, arms_of(s, s.run.arms)), "arms")[0].statement
    page = compare_runs(arm(s, THROTTLE, "0"), arm(s, THROTTLE, "2"), arms_named=(THROTTLE, "0", "2"))
    assert page.findings[0].statement == run_says
    plain = compare_runs(arm(s, THROTTLE, "0"), arm(s, THROTTLE, "2"))
    assert all(not f.statement.startswith("Arms ") for f in plain.findings)


def test_arms_that_nothing_separates_are_either_and_a_split_without_a_throttle_queue_does_not_name_one():
    """On 8 cores nothing queues up to N = 8: the throttle K = 8 never holds anyone back, so the arms are alike."""
    from littlegrid.findings.where_time import split_words
    s = throttling(5.0, 8, loads=(1, 2, 4, 8))
    arms = of(findings(s, arms_of(s, s.run.arms)), "arms")
    assert len(arms) == 1 and arms[0].resource == "equivalent"
    assert ("Either arm: throughput equivalent within ±5% and nothing else measured separates them at N = 8."
            in arms[0].statement)
    assert all("throttle" not in split_words(c) for c in s.cells)
    assert "in front of the server of R = " in split_words(s.cells[0])


def test_a_non_blocking_pool_of_10_matching_a_blocking_100_is_said_and_the_reverse_is_not():
    """/proxy: 100 ms on a backend; blocking holds a thread for it (10 threads: X = 100/s), non-blocking does not."""
    mode, threads = "littlegrid.proxy.mode", "server.tomcat.threads.max"
    rng = np.random.default_rng(5)
    cells = []
    for m in ("blocking", "non-blocking"):
        for t in (10, 100):
            for n in (20, 80):
                x = 1000.0 * (min(n, t) if m == "blocking" else n) / 100.0
                axes = {mode: m, threads: t, "users": n}
                cells.append(typed_cell({"id": ",".join(f"{a}={v}" for a, v in axes.items()), "axes": axes,
                                         "users": {"n": n}, "host": {"cpu_util_mean": 0.3, "load1_mean": 1.0},
                                         "intended": {"think_ms": 0.0, "workload": "closed"},
                                         **samples(1000.0 * n / x, x, rng)}))
    run = {"host": {"cpus": 2}, "arms": f"{threads}=10,100"}
    cells, built, _ = curves.build(costed(cells, run), {}, [], lambda cid, q: None, DEFAULT_TOLERANCES)
    s = typed_summary(cells, run=run, curves=built,
                      axes={mode: ["blocking", "non-blocking"], threads: [10, 100], "users": [20, 80]},
                      tolerances=dict(DEFAULT_TOLERANCES))
    arms = of(findings(s, arms_of(s, s.run.arms)), "arms")
    matches = [f for f in arms if f.statement.startswith("With ")]
    assert len(matches) == 1
    assert matches[0].statement.startswith(f"With {mode} = non-blocking, {threads} = 10 reaches the throughput that "
                                           f"{mode} = blocking needs {threads} = 100 for")
    assert "N = 80, 800/s against 800/s" in matches[0].statement
    got = evaluate([f'arms same where {mode} == "blocking" and {threads} == 100',
                    f'arms different where {mode} == "blocking"'], s, [f.as_dict() for f in findings(
                        s, arms_of(s, s.run.arms))])
    assert [e["passed"] for e in got] == [True, True]


def test_arms_compared_where_the_generator_fell_short_only_suggest_their_difference():
    """The transform acceptance run: at N = 80 the threads thought 4-14 ms for 0 asked (JMeter starved of the
    cores): the arms' throughput differs, but part of it may be JMeter's."""
    from typed_cells import think_time, update
    s = throttling(5.0, 2)
    heavy = next(c for c in s.cells if c.axes == {THROTTLE: 0, "users": 8})
    check = {"name": "think_time", "cell": heavy.id, "passed": False, "rel_error": 1.0, "tolerance": 0.04,
             "explanation": "threads thought 10 ms for 0 asked"}
    s = update(s, cells=[update(c, checks=[check], think_time=think_time({"mean_ms": 10.0, "gaps": 1000}))
                         if c.id == heavy.id else c for c in s.cells])
    arms = of(findings(s, arms_of(s, s.run.arms)), "arms")[0]
    assert arms.standing == "suggests"
    assert f"the generator did not deliver the load asked for at N = 8 in {THROTTLE} = 0:" in arms.statement


def test_the_cpu_each_request_cost_is_said_when_it_differs_between_the_arms():
    """The second throttling acceptance run: the unthrottled arm's requests cost 17.8 core-ms against 7.8 (the host's
    CPU went to other work while that arm ran): the figure that explains a throughput gap is said with its ratio."""
    from typed_cells import update
    s = throttling(5.0, 2)
    assert "CPU per request" not in of(findings(s, arms_of(s, s.run.arms)), "arms")[0].statement  # 5 against 5
    light = next(c for c in s.cells if c.axes == {THROTTLE: 2, "users": 8})
    s = recosted(update(s, cells=[update(c, host=update(c.host, cpu_util_mean=0.4)) if c.id == light.id else c
                                  for c in s.cells]))
    x_a = next(c for c in s.cells if c.axes == {THROTTLE: 0, "users": 8}).overall.throughput_per_s
    x_b = light.overall.throughput_per_s
    text = of(findings(s, arms_of(s, s.run.arms)), "arms")[0].statement
    assert f"CPU per request U·cores/X, {2000 / x_a:.3g} core-ms against {800 / x_b:.3g} core-ms" in text


def _with_cpu(s, util_by_cell: dict):
    from typed_cells import update
    return recosted(update(s, cells=[update(c, host=update(c.host, cpu_util_mean=util_by_cell[c.id]))
                                     if c.id in util_by_cell else c for c in s.cells]))


def test_arms_that_both_fill_the_cpu_are_bound_by_it_and_a_gap_in_x_is_the_cpu_each_request_cost():
    """The utilisation law at the heaviest pair: both arms at U ≥ 90% of the server's cores means neither left
    capacity unused; X then differs only as D = U·cores/X does."""
    s = throttling(5.0, 2)  # at N = 8 both arms keep the 2 cores full: equal X
    text = of(findings(s, arms_of(s, s.run.arms)), "arms")[0].statement
    # not pinned: the host's cores, JMeter's work on them too, never called the server's
    assert ("Both arms kept the CPU full (100% and 100% busy, of the host's 2 cores, shared with the generator "
            "(JMeter's own work included)): the cores bound") in text
    # the throttled arm's requests cost 30% more CPU, its X 1/1.3 of the other's: both still full
    rng = np.random.default_rng(5)
    cells = [throttling_cell(n, 0, 5.0, 2, rng) for n in (1, 2, 4, 8)]
    cells += [throttling_cell(n, 2, 6.5, 2, rng) for n in (1, 2, 4, 8)]
    services = {c.id: Service(2, 5.0, "const") for c in cells}
    run = {"host": {"cpus": 2}, "arms": f"{THROTTLE}=0,2"}
    cells, built, _ = curves.build(costed(cells, run), services, [], lambda cid, q: None, DEFAULT_TOLERANCES)
    s = typed_summary(cells, run=run, curves=built,
                      axes={THROTTLE: [0, 2], "users": [1, 2, 4, 8]}, tolerances=dict(DEFAULT_TOLERANCES))
    arm = of(findings(s, arms_of(s, s.run.arms)), "arms")[0]
    figures = dict(arm.figures)
    assert arm.resource == "different"
    assert figures["cpu_ms_per_request_b"] / figures["cpu_ms_per_request_a"] == pytest.approx(
        figures["throughput_a"] / figures["throughput_b"])
    assert figures["cpu_ms_per_request_a"] == pytest.approx(5.0, rel=0.05)
    assert figures["cpu_ms_per_request_b"] == pytest.approx(6.5, rel=0.05)
    assert "so by the utilisation law X = U·cores/D the throughput differs only as the CPU each request cost does (" \
        "above)" in arm.statement  # the +30% is already among the figures that differ


def test_an_arm_that_leaves_the_cpu_idle_while_the_other_fills_it_is_named():
    s = throttling(5.0, 2)
    light = next(c for c in s.cells if c.axes == {THROTTLE: 2, "users": 8})
    s = _with_cpu(s, {light.id: 0.55})
    text = of(findings(s, arms_of(s, s.run.arms)), "arms")[0].statement
    assert (f"Only one arm kept the CPU full (100% and 55% busy, of the host's 2 cores, shared with the generator "
            f"(JMeter's own work included)): {THROTTLE} = 2 left the cores idle 45% of the time") in text
    both_idle = _with_cpu(s, {c.id: 0.5 for c in s.cells})
    assert "kept the CPU full" not in of(findings(both_idle, arms_of(both_idle, both_idle.run.arms)), "arms")[0].statement


def cpu_bound(pool: int, z_ms: float = 100.0, s_ms: float = 10.0, cores: int = 2, loads=(2, 40), l_server=True):
    """A closed curve on paper whose requests each need S ms of CPU on c cores shared evenly, Z = 100 ms, a pool of
    `pool` Tomcat threads. N = 2: X = N/(S+Z) = 18.2/s, nothing shared. N = 40 saturates the cores: X = c/S =
    200/s, R = N/X − Z = 100 ms, and X·Z = 20 users think. Of the 20 requests at the server, min(20, pool) are in
    service, each taking L/c × S (100 ms with a pool ≥ 20; 80 ms with 16), the rest wait in front."""
    cells = []
    for n in loads:
        x = min(n / ((s_ms + z_ms) / 1000), 1000 * cores / s_ms)
        r = 1000 * n / x - z_ms
        at_server = x * r / 1000
        in_service = min(at_server, pool)
        service = max(s_ms, in_service / cores * s_ms)
        server = {"service_mean_ms": service, "throughput_per_s": x, "busy_threads_mean": in_service,
                  "threads_max": pool, "in_flight_mean": in_service if l_server else None}
        server |= little.boundaries(x, r, server)  # where the requests are, as the analysis writes it
        axes = {"server.tomcat.threads.max": pool, "users": n}
        cells.append(typed_cell({
            "id": f"users={n}", "axes": axes, "users": {"n": n},
            "intended": {"think_ms": z_ms, "think_dist": "constant", "workload": "closed"},
            "overall": {"count": int(30 * x), "mean_ms": r, "throughput_per_s": x, "successes_per_s": x,
                        "error_rate": 0.0},
            "window": {"length_s": 30.0}, "think_time": {"mean_ms": z_ms, "gaps": int(30 * x)},
            "server": server, "host": {"cpu_util_mean": min(1.0, x * s_ms / 1000 / cores)}}))
    run = {"host": {"cpus": cores}}
    cells, built, _ = curves.build(costed(cells, run), {}, [], lambda cid, q: None, DEFAULT_TOLERANCES)
    return typed_summary(cells, run=run, curves=built, tolerances=dict(DEFAULT_TOLERANCES))


@pytest.mark.parametrize("pool, in_service, each_ms", [(200, 20.0, 100.0), (16, 16.0, 80.0)])
def test_cores_are_shared_by_the_requests_in_service_not_by_the_n_users(pool, in_service, each_ms):
    """With Z = 100 ms, 20 of the 40 users think; with a pool of 16 only 16 requests are in service. N/cores × S
    (40/2 × 10 ms = 200 ms) would blame other load on the host for the 100 or 80 ms measured; L/cores × S is it."""
    for measured in (True, False):  # L_server measured, else X·R_server by Little's law
        (found,) = of(findings(cpu_bound(pool, l_server=measured)), "service")
        assert found.resource == "stretched"
        assert "other load" not in found.statement, found.statement
        figures = dict(found.figures)
        assert figures["in_service_requests"] == pytest.approx(in_service)
        assert figures["shared_service_ms"] == pytest.approx(each_ms)
        assert figures["service_last_ms"] == pytest.approx(each_ms)
        assert f"L/cores × S = {in_service:g}/2 × 10 ms = {each_ms:g} ms, measured {each_ms:g} ms." in found.statement
        assert ("L_server measured at the server" if measured else "X·R_server = 200/s × ") in found.statement


def test_the_requests_in_service_share_the_cores_of_the_servers_host_when_its_node_exporter_measured_them():
    """The unthrottled arm on a server elsewhere whose node_exporter was scraped: its cores are that host's (its
    busy share as the throttling cells give it), while the generator's own host was 30% busy. The sentence names
    that host's cores, never the generator's."""
    from littlegrid.summary.model import Observed, TargetPlacement
    from typed_cells import update

    s = throttling(5.0, 2, (1, 2, 4, 8))
    node = "http://10.0.0.7:9100/metrics"

    def observed(c):
        return Observed.model_validate({
            "sources": [{"url": node, "host": "10.0.0.7", "target_host": True, "scrapes": 30, "failed": 0,
                         "slow": 0, "readings": 27}],
            "hosts": [{"source": node, "host": "10.0.0.7", "cpu_util_mean": c.host.cpu_util_mean, "cores": 2,
                       "load1_mean": None, "mem_available_min_bytes": None, "network_bytes_per_s_mean": None,
                       "readings": 27}]})
    cells = [update(c, observed=observed(c), host=update(c.host, cpu_util_mean=0.3)) for c in s.cells]
    run = update(s.run, target=TargetPlacement(host="10.0.0.7", port=8080, addresses=["10.0.0.7"],
                                               placement="elsewhere"))
    s = recosted(update(s, run=run, cells=cells))
    assert {c.server_cpu.basis for c in s.cells} == {"server_host"}
    (stretched,) = of(findings(s, arms_of(s, s.run.arms)), "service", 0)
    assert "share the 2 cores of 10.0.0.7 (100% busy)" in stretched.statement
