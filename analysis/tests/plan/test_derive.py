"""The plan a cell runs: the cell's users over the load groups, littlegrid's think time, the grid's host on every
sampler, listeners off, CSV paths absolute; the user's files byte-identical afterwards."""

import hashlib
from pathlib import Path

import pytest

from littlegrid.plan import inspect as facts
from hypothesis import given
from hypothesis import strategies as st

from littlegrid.plan.derive import THINK_TIMER_CLASS, CellLoad, PlanOptions, derive, engine_share_property, \
    split_users, spread_over_engines
from littlegrid.plan.elements import ENGINE_NAME_PROPERTY
from littlegrid.plan.jmx import Plan, PlanError, evaluate, from_bytes, prop
from littlegrid.run.engines import split_users as split_over_engines

FIXTURES = Path(__file__).parent / "fixtures"
TIMER_PLAN = Path(__file__).parents[3] / "plans" / "closed.jmx"  # littlegrid's think-time timer
WINDOWS_CSV = r"C:\Users\perf\jmeter\data\users.csv"
USERS_CSV = FIXTURES / "data" / "users.csv"


def cell(**kw) -> CellLoad:
    values = dict(users=12, rate_per_s=None, think_ms=200.0, think_dist="exponential", rampup_s=2.0,
                  duration_s=30.0, protocol="http", host="127.0.0.1", port=9999, label="users=12,think_ms=200")
    values.update(kw)
    return CellLoad(**values)


def derived_plan(name, options=PlanOptions(), **kw) -> tuple[Plan, object]:
    out = derive(FIXTURES / name, options, cell(**kw), TIMER_PLAN)
    return from_bytes(out.xml, f"derived from {name}"), out


def reached(plan: Plan) -> set:
    return {(t.protocol, t.host, t.port) for t in (facts.http_target(s, {}) for s in facts.samplers(plan))}


def digest(paths):
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


ALL_FILES = sorted(FIXTURES.glob("*.jmx")) + [USERS_CSV]


@pytest.fixture(autouse=True)
def users_files_are_byte_identical_afterwards():
    before = digest(ALL_FILES)
    yield
    assert digest(ALL_FILES) == before


def test_largest_remainder_keeps_the_plans_proportions_and_gives_each_group_a_thread_when_users_allow():
    assert split_users(5, [30, 10]) == [4, 1]
    assert split_users(8, [30, 10]) == [6, 2]
    assert split_users(3, [1, 1, 10]) == [1, 1, 1]   # 0, 0, 3 by remainder; each group gets one
    assert split_users(2, [1, 1, 10]) == [0, 0, 2]   # N too small for every group
    assert split_users(10, [1, 1, 1]) == [4, 3, 3]
    assert sum(split_users(97, [7, 3, 11, 5])) == 97


def test_groups_are_dealt_to_the_engines_in_turn_each_group_going_on_where_the_last_one_stopped():
    assert spread_over_engines([5], ["a", "b"]) == [{"a": 3, "b": 2}]
    # threads 0-3 go to a b c a, threads 4-6 to b c a: each engine's total is 3, 2, 2 (N = 7 on 3 engines)
    assert spread_over_engines([4, 3], ["a", "b", "c"]) == [{"a": 2, "b": 1, "c": 1}, {"a": 1, "b": 1, "c": 1}]
    assert spread_over_engines([6, 2], ["a", "b", "c"]) == [{"a": 2, "b": 2, "c": 2}, {"a": 1, "b": 1, "c": 0}]
    assert spread_over_engines([1, 0, 1], ["a", "b"]) == [{"a": 1, "b": 0}, {"a": 0, "b": 0}, {"a": 0, "b": 1}]


@given(st.lists(st.integers(0, 40), min_size=1, max_size=6), st.integers(1, 7))
def test_every_engine_gets_the_share_of_n_the_runner_gives_and_every_group_is_spread_within_one_thread(counts, k):
    engines = [f"10.0.0.{i}:1099" for i in range(k)]
    spread = spread_over_engines(counts, engines)
    assert [sum(g.values()) for g in spread] == counts
    assert all(max(g.values()) - min(g.values()) <= 1 for g in spread)
    totals = {e: sum(g[e] for g in spread) for e in engines}
    assert totals == split_over_engines(sum(counts), engines)


def test_with_remote_engines_each_group_reads_its_engines_share_and_the_total_is_n():
    engines = ("10.0.0.3:1099", "10.0.0.4:1099", "10.0.0.5:1099")
    plan, out = derived_plan("two_groups.jmx", users=8, engines=engines)
    assert out.group_threads == {"Browsers": 6, "Buyers": 2}
    assert out.threads_by_engine == split_over_engines(8, list(engines)) == dict(zip(engines, (3, 3, 2)))
    assert out.groups_by_engine == {engines[0]: {"Browsers": 2, "Buyers": 1}, engines[1]: {"Browsers": 2, "Buyers": 1},
                                    engines[2]: {"Browsers": 2, "Buyers": 0}}
    assert out.engine_properties == {engine_share_property(0, e): 2 for e in engines} | {
        engine_share_property(1, engines[0]): 1, engine_share_property(1, engines[1]): 1,
        engine_share_property(1, engines[2]): 0}
    groups = {g.name: g for g in facts.load_groups(plan)}
    written = prop(groups["Buyers"].element, "ThreadGroup.num_threads")
    assert written == "${__P(littlegrid.group1.${__P(__jm.D_TG,)},2)}"
    for engine in engines:  # what each engine's JMeter reads: its own share of each group
        told = {ENGINE_NAME_PROPERTY: engine, **out.engine_properties}
        got = {name: evaluate(prop(g.element, "ThreadGroup.num_threads"), {}, told).number() for name, g in groups.items()}
        assert got == {"Browsers": 2, "Buyers": 1 if engine != engines[2] else 0}
    # on one host (no share sent) the group runs whole, as the cell does
    assert evaluate(written, {}, {}).number() == 2
    assert "6 threads (2 on 10.0.0.3:1099 + 2 on 10.0.0.4:1099 + 2 on 10.0.0.5:1099)" in " ".join(out.changes)
    # the setUp group runs as written, on every engine
    setup = next(g for g in facts.thread_groups(plan) if g.name == "prepare data")
    assert prop(setup.element, "ThreadGroup.num_threads") == "1"


def test_with_remote_engines_and_the_plans_own_counts_their_sum_is_the_total_dealt_out():
    engines = ("a:1", "b:2")
    _, out = derived_plan("two_groups.jmx", users=None, engines=engines)
    assert out.group_threads == {"Browsers": 30, "Buyers": 10}
    assert out.threads_by_engine == {"a:1": 20, "b:2": 20}
    _, one_host = derived_plan("two_groups.jmx", users=None)
    assert one_host.threads_by_engine == {} and one_host.engine_properties == {}


def test_fewer_threads_than_engines_is_refused_and_an_open_workload_offers_its_rate_on_each_engine():
    with pytest.raises(PlanError, match=r"2 threads in all on 3 engines: .*each engine needs at least one thread"):
        derived_plan("two_groups.jmx", users=2, engines=("a:1", "b:2", "c:3"))
    _, out = derived_plan("two_groups.jmx", users=None, rate_per_s=10.0, engines=("a:1", "b:2"))
    assert out.threads_by_engine == {} and out.engine_properties == {}
    assert any("arrivals/s (Poisson) for 30 s on each engine" in c for c in out.changes)


def test_a_jmeter_2_plan_gets_the_cells_users_duration_think_timer_and_host():
    plan, out = derived_plan("jmeter2_constant_timer.jmx")
    (group,) = facts.load_groups(plan)
    assert [prop(group.element, n) for n in ("ThreadGroup.num_threads", "ThreadGroup.ramp_time",
                                               "ThreadGroup.scheduler", "ThreadGroup.duration",
                                               "LoopController.loops")] == ["12", "2", "true", "30", "-1"]
    assert out.group_threads == {"Visitors": 12} and out.think_ms == 200.0
    timers = [n for n in facts.think_elements(plan)]
    assert [t.tag for t in timers] == [THINK_TIMER_CLASS] and timers[0].parent is group  # the timer of closed.jmx
    assert [prop(timers[0].element, n) for n in ("distribution", "meanMs", "offsetMs", "variable")] == \
        ["exponential", "200", "0", "think_drawn_ms"]
    assert reached(plan) == {("http", "127.0.0.1", 9999)}
    assert not [n for n in facts.listeners(plan) if n.enabled]
    assert prop(facts.samplers(plan)[0].element, "HTTPSampler.image_parser") == "false"


def test_a_recorded_https_flow_is_retargeted_everywhere_its_pauses_go_and_its_windows_csv_is_mapped():
    options = PlanOptions(files={WINDOWS_CSV: str(USERS_CSV)})
    plan, out = derived_plan("recorded_https.jmx", options, users=7)
    assert out.group_threads == {"Shoppers": 7}
    assert reached(plan) == {("http", "127.0.0.1", 9999)}
    app = next(s for s in facts.samplers(plan) if s.name == "/static/app.js")
    assert prop(app.element, "HTTPSampler.path") == "/static/app.js?v=3"  # the CDN's full URL, now a path here
    assert not [n for n in facts.think_elements(plan) if n.tag != THINK_TIMER_CLASS]  # both Flow Control pauses gone
    assert [prop(n.element, "filename") for n in facts.data_sets(plan)] == [str(USERS_CSV)]
    assert not [n for n in facts.listeners(plan) if n.enabled]  # the Backend Listener too
    assert [n.name for n in plan.nodes() if n.tag == "TransactionController"] == ["01 Home", "02 Login",
                                                                                  "03 Account"]


def test_a_missing_csv_is_refused_naming_the_element_and_the_path():
    with pytest.raises(PlanError, match=r'CSV Data Set "Users": file C:\\Users\\perf\\jmeter\\data\\users.csv '
                                        r'cannot be found'):
        derive(FIXTURES / "recorded_https.jmx", PlanOptions(), cell(), TIMER_PLAN)


def test_two_load_groups_share_the_users_by_their_own_proportions_or_by_shares_and_setup_runs_as_written():
    plan, out = derived_plan("two_groups.jmx", users=8)
    assert out.group_threads == {"Browsers": 6, "Buyers": 2} and out.setup_groups == ["prepare data"]
    setup = next(g for g in facts.thread_groups(plan) if g.name == "prepare data")
    assert prop(setup.element, "ThreadGroup.num_threads") == "1" and prop(setup.element, "ThreadGroup.duration") == "600"
    assert reached(plan) == {("http", "127.0.0.1", 9999)}  # the setUp group's sampler too
    _, shared = derived_plan("two_groups.jmx", PlanOptions(shares={"Buyers": 3, "Browsers": 1}), users=8)
    assert shared.group_threads == {"Browsers": 2, "Buyers": 6}
    # the Gaussian timer and the Constant Throughput Timer are gone; setUp's own elements stay
    assert {n.tag for n in facts.think_elements(plan)} == {THINK_TIMER_CLASS}


def test_think_scale_sets_the_mean_per_request_and_keep_reports_what_the_plan_gives():
    # Browsers: 2 requests, each after the Gaussian timer (mean 300 ms); Buyers: 1 request, paced only:
    # 600 ms of think over 3 requests, 200 ms per request
    plan, out = derived_plan("two_groups.jmx", PlanOptions(think="scale"), think_ms=100.0)
    (gauss,) = [n for n in facts.think_elements(plan)]
    assert (prop(gauss.element, "ConstantTimer.delay"), prop(gauss.element, "RandomTimer.range")) == ("150", "50")
    assert out.think_ms == 100.0
    _, kept = derived_plan("two_groups.jmx", PlanOptions(think="keep"), think_ms=None)
    assert kept.think_ms == 200.0
    # the recorded flow: pauses of 2 s and 3 s over 4 requests = 1250 ms per request, scaled to 500 ms
    options = PlanOptions(think="scale", files={WINDOWS_CSV: str(USERS_CSV)})
    plan, out = derived_plan("recorded_https.jmx", options, think_ms=500.0)
    assert [prop(n.element, "ActionProcessor.duration") for n in facts.think_elements(plan)] == ["800", "1200"]


def test_think_scale_refuses_a_plan_whose_think_time_is_scripted(tmp_path):
    derived, _ = derived_plan("jmeter2_constant_timer.jmx")  # its think time is now littlegrid's timer
    scripted = tmp_path / "scripted.jmx"
    derived.document.write(scripted, encoding="UTF-8", xml_declaration=True)
    with pytest.raises(PlanError, match=r'ThinkTimeTimer "Visitors / littlegrid think time .*": think = "scale" '
                                        r'cannot scale it'):
        derive(scripted, PlanOptions(think="scale"), cell(), TIMER_PLAN)


def test_plugin_and_open_model_groups_become_standard_groups_or_open_model_groups_given_a_rate():
    plan, out = derived_plan("plugin_groups.jmx", users=10)
    assert [g.tag for g in facts.thread_groups(plan)] == ["ThreadGroup"] * 3
    assert sum(out.group_threads.values()) == 10 and set(out.group_threads) == {"Steady", "Arrivals", "Waves"}
    assert not [n for n in plan.nodes() if n.tag.startswith("kg.apc.jmeter.vizualizers")]  # plugin listener removed
    plan, out = derived_plan("plugin_groups.jmx", users=None, rate_per_s=14.2, think_ms=None)
    schedules = [prop(g.element, "OpenModelThreadGroup.schedule") for g in facts.thread_groups(plan)]
    assert schedules == ["rate(8/sec) random_arrivals(30 sec)", "rate(0.2/sec) random_arrivals(30 sec)",
                         "rate(6/sec) random_arrivals(30 sec)"]  # 14.2/s in proportions 40 : 1 : 30
    assert out.group_threads == {}


def test_plugin_groups_replaced_over_remote_engines_read_each_engines_share_too():
    engines = ("a:1", "b:2", "c:3")
    plan, out = derived_plan("plugin_groups.jmx", users=10, engines=engines)
    groups = facts.thread_groups(plan)
    assert [g.tag for g in groups] == ["ThreadGroup"] * 3
    for engine in engines:  # what each engine runs of each replaced group adds up to its share of N = 10
        told = {ENGINE_NAME_PROPERTY: engine, **out.engine_properties}
        ran = sum(evaluate(prop(g.element, "ThreadGroup.num_threads"), {}, told).number() for g in groups)
        assert ran == out.threads_by_engine[engine] == split_over_engines(10, list(engines))[engine]
    assert {g: sum(out.groups_by_engine[e][g] for e in engines) for g in out.group_threads} == out.group_threads
