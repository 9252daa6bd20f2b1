"""The plan a cell runs: the cell's users over the load groups, littlegrid's think time, the grid's host on every
sampler, listeners off, CSV paths absolute; the user's files byte-identical afterwards."""

import hashlib
from pathlib import Path

import pytest

from littlegrid.plan import inspect as facts
from littlegrid.plan.derive import THINK_TIMER_CLASS, CellLoad, PlanOptions, derive, split_users
from littlegrid.plan.jmx import Plan, PlanError, from_bytes, prop

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
