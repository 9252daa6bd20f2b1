"""With nothing scraped, the laws still name the limit (findings.bottleneck.bottleneck reading the curve's
models.concurrency): a plateau of c workers with service time S holds about c requests at once, whatever c, S and
Z, closed or open, and the words never borrow the sample server's vocabulary for a service not known to be Tomcat."""

import pytest

from littlegrid.analysis.modelling import curves
from littlegrid.analysis.queueing.laws import DEFAULT_TOLERANCES
from littlegrid.findings import findings, headline
from plateau_cells import cell, closed_curve, open_curve
from typed_cells import summary as typed_summary
from typed_cells import update, update_cells

SAMPLE_SERVER_WORDS = ("Tomcat", "threads.max", "throttle", "tomcat_threads", "busy threads vs")


def summary_of(cells, run=None):
    """The summary around the cells with the curves and models analyze builds (no grid: no c, no S)."""
    cells, built, _ = curves.build(cells, {}, [], lambda cid, q: None, DEFAULT_TOLERANCES)
    return typed_summary(cells, run=run or {"host": {"cpus": 2}}, curves=built, tolerances=dict(DEFAULT_TOLERANCES),
                         checks=[], criteria=[], axes={})


def bottleneck(found):
    return next(f for f in found if f.kind == "bottleneck")


def text_of(s, found) -> str:
    said = headline(s, found) or {"sentences": []}
    return " ".join([f.statement + " " + f.why for f in found] + said["sentences"])


@pytest.mark.parametrize("c", [2, 4, 8])
@pytest.mark.parametrize("s_ms", [25.0, 100.0])
@pytest.mark.parametrize("z_ms", [0.0, 1000.0])
def test_a_closed_plateau_without_server_metrics_names_a_limit_of_about_c(c, s_ms, z_ms):
    s = summary_of(closed_curve(c, s_ms, z_ms))
    found = findings(s)
    b = bottleneck(found)
    assert b.resource == "concurrency" and b.standing == "suggests"
    assert f"the service holds about {c} requests at once" in b.statement
    assert f"a limit of {c} (worker threads or processes, connections, or cores) caps it" in b.statement
    assert dict(b.figures)["in_service"] == pytest.approx(c, abs=0.5)
    assert "the server's CPU was not measured" in b.statement and "[observe]" in b.statement
    text = text_of(s, found)
    assert not [w for w in SAMPLE_SERVER_WORDS if w in text], text


@pytest.mark.parametrize("c, s_ms", [(2, 25.0), (4, 100.0), (8, 25.0)])
def test_an_open_plateau_without_server_metrics_names_a_limit_of_about_c(c, s_ms):
    s = summary_of(open_curve(c, s_ms))
    found = findings(s)
    sat = next(f for f in found if f.kind == "saturation")
    assert sat.standing == "suggests"  # no server figure says which resource was full
    b = bottleneck(found)
    assert b.resource == "concurrency" and f"holds about {c} requests at once" in b.statement
    assert not [w for w in SAMPLE_SERVER_WORDS if w in text_of(s, found)]


def test_an_open_curve_short_of_its_rate_without_a_growing_queue_is_not_the_servers_plateau():
    # the same figures, but R flat through the window: the excess was never sent (the generator), not queued
    cells = [update(c, trend=None) for c in open_curve(4, 50.0)]
    found = findings(summary_of(cells))
    assert not [f for f in found if f.kind in ("saturation", "bottleneck")]


def test_a_proxy_failing_fast_past_its_upstream_limit_is_named_by_its_successes():
    # nginx with max_conns = 3 over S = 40 ms: 75 successes/s at most, the rest a 502 in 1 ms
    cells = [cell(1, 25, 40.0), cell(3, 75, 40.0), cell(6, 75, 40.0, failed_per_s=600),
             cell(12, 75, 40.0, failed_per_s=1800)]
    s = summary_of(cells)
    found = findings(s)
    b = bottleneck(found)
    assert "the service holds about 3 requests at once" in b.statement and "75/s" in b.statement
    # R past the level is not N/X − Z of the successes' level (nginx's headline said "R = N/102 s − 0.01 s" while
    # its R fell to 2 ms): the rest failed
    said = headline(s, found)["sentences"][0]
    assert "response time grows" not in said and "past it the other requests failed" in said


def test_an_interval_wider_than_half_a_request_is_given_as_the_range():
    # few, scattered samples at the lightest cell: D = 25 ± 20 ms over 20 samples
    cells = [cell(1, 1, 25.0, spread_ms=20, wobble=0), cell(4, 160, 25.0), cell(8, 161, 50.0), cell(16, 160, 100.0)]
    b = bottleneck(findings(summary_of(cells)))
    low, high = (dict(b.figures)[k] for k in ("in_service_low", "in_service_high"))
    assert high - low > 1.0
    assert "the service holds about" not in b.statement and " to " in dict(b.figures)["held"]


def test_a_measured_server_cpu_not_full_leaves_cores_out_of_the_candidates():
    s = summary_of(closed_curve(4, 25.0, 0.0))
    s = update_cells(s, lambda c: update(c, server_cpu={"basis": "server_host", "host": "10.0.0.2", "cores": 8,
                                                          "util": 0.3, "shared_with_generator": False,
                                                          "words": "the server host's 8 cores"}))
    found = findings(s)
    b = bottleneck(found)
    assert "(worker threads or processes, or connections)" in b.statement
    # the headline names the same candidates (gunicorn-pool-node's still offered cores its host showed not full)
    assert "(a limit of 4: worker threads or processes, or connections) likely cap throughput" in \
        headline(s, found)["sentences"][0]
    assert "the server host's 8 cores were 30% busy, not full" in b.statement
    assert "not measured" not in b.statement
    # what to measure next leaves out what was measured: the host's node_exporter (gunicorn-pool-node's words
    # asked for it while quoting its figures), or the process CPU
    assert "measure next with [observe], the service's pool metric (busy against its size) (docs/observe.md)" \
        in b.statement
    assert "node_exporter" not in b.statement and "process CPU" not in b.statement


def test_a_full_server_host_names_the_cpu_from_that_host_and_says_what_the_generators_own_host_showed():
    # the server host's node_exporter 99% busy; the generator fell short of N by 20% (not its per-cycle overhead)
    # with its own host 97% busy: the run cannot know JMeter had CPUs of its own, so it says what it measured
    s = summary_of(closed_curve(4, 25.0, 0.0))
    short = {"name": "workload", "cell": None, "value": 0.8, "expected": 1.0, "rel_error": 0.2, "tolerance": 0.05,
             "passed": False, "explanation": "X·(R+Z) = 0.8 of N"}
    s = update_cells(s, lambda c: update(c, server_cpu={"basis": "server_host", "host": "10.0.0.2", "cores": 2,
                                                          "util": 0.99, "shared_with_generator": False,
                                                          "words": "10.0.0.2's 2 cores (its node_exporter)"},
                                          host={"readings": 30, "cpu_util_mean": 0.97}, checks=[short]))
    found = findings(s)
    b = bottleneck(found)
    assert b.resource == "cpu" and "10.0.0.2's 2 cores (its node_exporter) are 99% busy" in b.statement
    assert "on CPUs of its own" not in b.statement and "pinned" not in b.why
    assert "its own host's CPU was 97% busy, so it may have been short of CPU too" in b.statement
    assert "measured on the server's host" in b.why
    # the headline names whose cores: the server host's, not a bare "host" a reader takes for JMeter's (the
    # CPU-bound gunicorn run's headline read "The host's CPU caps throughput at 148/s")
    assert headline(s, found)["sentences"][0].startswith("With think_ms = 0.0, the server host's CPU caps throughput")


def test_a_hosts_cores_named_with_their_source_take_a_plural_verb():
    s = summary_of(closed_curve(4, 25.0, 0.0))
    s = update_cells(s, lambda c: update(c, server_cpu={"basis": "server_host", "host": "10.0.0.2", "cores": 2,
                                                          "util": 0.27, "shared_with_generator": False,
                                                          "words": "10.0.0.2's 2 cores (its node_exporter)"}))
    assert "10.0.0.2's 2 cores (its node_exporter) were 27% busy, not full" in bottleneck(findings(s)).statement


def test_the_cannot_tell_lines_say_each_missing_thing_once():
    s = summary_of(closed_curve(4, 25.0, 0.0))
    found = findings(s)
    for f in found:
        assert f.statement.count("no server metrics") <= 1, f.statement
        assert "(no server metrics)" not in f.statement
    waiting = next(f for f in found if f.kind == "waiting")
    assert waiting.statement.endswith(": no server metrics.")


@pytest.mark.parametrize("kind, name, said", [("named", "workers", "The pool 'workers' caps X"),
                                              ("jetty", None, "Jetty's thread pool caps X"),
                                              ("executor", "jobs", "The executor pool 'jobs' caps X")])
def test_a_scraped_pool_full_at_the_plateau_is_named_by_what_was_scraped(kind, name, said):
    s = summary_of(closed_curve(4, 25.0, 0.0))
    s = update_cells(s, lambda c: update(c, server={"busy_threads_mean": min(4.0, c.users.n), "threads_max": 4,
                                                    "pool_kind": kind, "pool_name": name,
                                                    "source": "http://10.0.0.2:9100/metrics"}))
    found = findings(s)
    b = bottleneck(found)
    assert b.resource == "thread_pool" and b.statement.startswith(said)
    assert "the server reports a pool of 4" in b.statement and "of the pool's size" in b.why
    assert not [w for w in SAMPLE_SERVER_WORDS if w in text_of(s, found)], text_of(s, found)


def test_a_generator_out_of_threads_is_never_said_to_leave_a_pool_below_its_size_when_none_was_measured():
    s = summary_of(closed_curve(4, 25.0, 0.0))
    s = update_cells(s, lambda c: update(c, checks=[*c.checks, {
        "name": "generator_sizing", "passed": False, "rel_error": 0.3, "tolerance": 0.1,
        "explanation": "the plan's threads were all busy"}]))
    b = bottleneck(findings(s))
    assert b.resource == "generator" and "(no pool measured, " in b.statement
    assert "threads.max" not in b.statement


def test_a_curve_where_nothing_succeeded_is_no_plateau_and_raises_nothing():
    # every request failed fast at every load: no successes to level, no bound to draw from them
    cells = [cell(n, 0, 1.0, failed_per_s=100 * n) for n in (1, 2, 4, 8)]
    found = findings(summary_of(cells))
    assert not [f for f in found if f.kind in ("saturation", "bottleneck")]


def test_an_expectation_can_state_the_laws_limit_as_likely_and_its_size():
    from littlegrid.findings import as_json
    from littlegrid.findings.expect import evaluate, parse
    from littlegrid.usererror import UserError
    s = summary_of(closed_curve(4, 25.0, 0.0))
    found = as_json(findings(s))
    got = {e["expectation"]: e["passed"] for e in evaluate(
        ["bottleneck concurrency", "likely bottleneck concurrency about 4", "likely bottleneck concurrency about 6",
         "likely bottleneck concurrency", "likely bottleneck thread_pool", "no bottleneck concurrency"], s, found)}
    assert got == {"bottleneck concurrency": None,  # only suggested: undecided without "likely"
                   "likely bottleneck concurrency about 4": True, "likely bottleneck concurrency about 6": False,
                   "likely bottleneck concurrency": True, "likely bottleneck thread_pool": False,
                   "no bottleneck concurrency": False}
    for bad in ("no likely bottleneck concurrency", "likely bottleneck cpu about 4", "bottleneck concurrency about",
                "bottleneck concurrency about four"):
        with pytest.raises(UserError, match="expectation"):
            parse(bad)


def test_with_only_the_server_hosts_figures_scraped_the_missing_thing_is_said_as_what_it_is():
    # gunicorn-pool-node: node_exporter on the service's host answered every scrape; the words said "No server
    # metrics and 10.232.0.2's 2 cores (its node_exporter) were 29% busy" and "where requests wait: no server metrics"
    node = "http://10.0.0.2:9100/metrics"
    s = summary_of(closed_curve(4, 25.0, 0.0))
    s = update_cells(s, lambda c: update(
        c, server_cpu={"basis": "server_host", "host": "10.0.0.2", "cores": 2, "util": 0.29,
                       "shared_with_generator": False, "words": "10.0.0.2's 2 cores (its node_exporter)"},
        observed={"sources": [{"url": node, "host": "10.0.0.2", "target_host": True, "scrapes": 20, "failed": 0,
                               "slow": 0, "readings": 14}]}))
    found = findings(s)
    assert not [f.statement for f in found if "no server metrics" in f.statement]
    assert "Nothing scraped counts the server's requests or busy workers and 10.0.0.2's 2 cores" in \
        bottleneck(found).statement
    waiting = next(f for f in found if f.kind == "waiting")
    assert waiting.statement.endswith(": nothing scraped counts the server's requests or busy workers.")


def test_a_plateau_measured_only_past_its_knee_gives_the_limit_as_an_upper_bound_in_the_finding_and_headline():
    # c = 4, S = 25 ms, Z = 0 measured from N = 8: R = 50 ms there holds a queue, so X_max·R says 8, not 4
    from plateau_cells import simulated_curve
    s = summary_of(simulated_curve(4, 25.0, 0.0, loads=[8, 16, 32]))
    found = findings(s)
    b = bottleneck(found)
    figures = dict(b.figures)
    assert b.resource == "concurrency" and figures["upper_bound"] == 1.0 and figures["held"].startswith("at most 8")
    assert "the service holds at most 8" in b.statement and "not shown below the knee" in b.statement
    assert "about 8" not in b.statement
    said = " ".join(headline(s, found)["sentences"])
    assert "at most 8 requests in service at once (a limit of 8 or fewer" in said and "about 8" not in said, said
    assert "at least the other" in said


def test_a_named_pool_full_at_its_size_says_where_the_rest_wait_and_recommends_its_own_size():
    """A Go service whose pool of 6 is named in [observe.pools] (5.67-5.94 of 6 busy at the plateau), nothing else
    scraped: S = 26 ms, X_max = 233/s, so the estimated N* = D·X_max = 6.06. The bottleneck names the pool; the
    rest of X·R wait outside it (X·R − busy), never "cannot tell … nothing scraped counts the busy workers"; the
    limit recommended is the pool's 6, not N* rounded up to 7."""
    from littlegrid.analysis.queueing import little
    s_ms, x_max = 26.0, 233.0
    loads = [1, 2, 4, 8, 16]
    busy = {1: 1.0, 2: 2.0, 4: 4.0, 8: 5.67, 16: 5.94}
    cells = []
    for n in loads:
        x = min(n / (s_ms / 1000), x_max)
        c = cell(n, x, max(s_ms, 1000 * n / x))
        server = {"busy_threads_mean": busy[n], "threads_max": 6, "pool_kind": "named", "pool_name": "workers",
                  "readings": 20, "failed_scrapes": 0}
        cells.append(update(c, server=server | little.boundaries(c.overall.throughput_per_s, c.overall.mean_ms,
                                                                 server)))
    s = summary_of(cells)
    found = findings(s)
    b = bottleneck(found)
    assert b.resource == "thread_pool" and b.standing == "holds" and "The pool 'workers' caps" in b.statement
    assert not [f for f in found if f.kind == "waiting" and f.standing == "cannot tell"]
    text = " ".join(f.statement for f in found)
    assert "nothing scraped counts" not in text and "Cannot tell where requests wait" not in text
    (waiting,) = [f for f in found if f.kind == "waiting"]
    heaviest = s.cells[-1]
    client = heaviest.overall.throughput_per_s * heaviest.overall.mean_ms / 1000
    assert dict(waiting.figures)["waiting_in_front"] == pytest.approx(client - 5.94)
    assert "at N = 16, about 10 requests wait outside the pool 'workers'" in waiting.statement, waiting.statement
    assert "in flight at the client the busy workers of the pool 'workers' hold 5.94" in waiting.statement
    (limit,) = [f for f in found if (f.recommendation or "").startswith("concurrency limit")]
    assert s.curves[0].models.bounds.n_star == pytest.approx(6.06, abs=0.02)
    assert dict(limit.figures)["limit"] == 6 and "to about 6 requests in service" in limit.statement
    said = " ".join(headline(s, found)["sentences"])
    assert "at N = 16, about 10 requests wait outside the pool 'workers'" in said, said
