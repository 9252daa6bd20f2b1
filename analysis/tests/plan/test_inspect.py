"""plan inspect on plans written the way other people write them: every fact stated, every blocker named, and no
traceback on any input."""

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from littlegrid import cli
from littlegrid.plan.inspect import inspect
from littlegrid.plan.jmx import PlanError, load

FIXTURES = Path(__file__).parent / "fixtures"


def facts(name, **kw):
    return inspect(load(FIXTURES / name), **kw)


def test_a_jmeter_2_plan_states_its_hard_coded_threads_its_constant_timer_as_think_time_and_its_host(capsys):
    r = facts("jmeter2_constant_timer.jmx")
    (group,) = r.thread_groups
    assert (group.name, group.role, group.threads.value, group.threads.source) == ("Visitors", "load", 25, "hard-coded")
    assert group.loops.written == "10" and group.duration is None  # scheduler off: loops end it
    (timer,) = r.timers
    assert (timer.kind, timer.mean_ms, timer.think) == ("ConstantTimer", 300.0, True)
    (target,) = r.targets
    assert (target.protocol, target.host, target.port) == ("http", "www.example.org", 80)
    assert [li.file for li in r.listeners] == [r"C:\results\homepage.jtl"]
    assert r.runnable
    assert cli.main(["plan", "inspect", str(FIXTURES / "jmeter2_constant_timer.jmx")]) == 0
    out = capsys.readouterr().out
    assert "threads 25" in out and "ConstantTimer \"Visitors / Constant Timer\": mean 300 ms, think time" in out


def test_a_recorded_https_flow_resolves_hosts_through_defaults_variables_and_full_urls_and_blocks_on_its_windows_csv(
        capsys):
    r = facts("recorded_https.jmx")
    hosts = {t.sampler: (t.protocol, t.host, t.port) for t in r.targets}
    assert hosts == {"/ home": ("https", "shop.example.com", 443),          # HTTP Request Defaults, ${BASE_HOST}
                     "/static/app.js": ("https", "cdn.example.net", 8443),  # a full URL in the path wins
                     "/login": ("https", "shop.example.com", 443), "/account": ("https", "shop.example.com", 443)}
    assert [(t.kind, t.mean_ms) for t in r.timers] == [("Flow Control Action (pause)", 2000.0),
                                                       ("Flow Control Action (pause)", 3000.0)]
    assert r.transactions == ["Shoppers / 01 Home", "Shoppers / 02 Login", "Shoppers / 03 Account"]
    assert [li.kind for li in r.listeners] == ["BackendListener"]  # the disabled View Results Tree would not run
    (data,) = r.data_files
    assert data.resolved is None and not data.found
    (blocker,) = r.blockers
    assert blocker.startswith('CSV Data Set "Users": file C:\\Users\\perf\\jmeter\\data\\users.csv cannot be found')
    assert cli.main(["plan", "inspect", str(FIXTURES / "recorded_https.jmx")]) == 2
    assert f"blocker: {blocker}" in capsys.readouterr().out.splitlines()


def test_two_load_groups_a_setup_group_a_gaussian_timer_and_a_constant_throughput_timer(capsys):
    r = facts("two_groups.jmx")
    assert [(g.name, g.role, g.threads.value) for g in r.thread_groups] == [
        ("prepare data", "setUp", 1), ("Browsers", "load", 30), ("Buyers", "load", 10)]
    assert [(t.kind, t.mean_ms, t.think) for t in r.timers] == [("GaussianRandomTimer", 300.0, True),
                                                               ("ConstantThroughputTimer", None, False)]
    (data,) = r.data_files
    assert data.found and Path(data.resolved) == (FIXTURES / "data" / "users.csv").resolve()  # relative to the plan
    assert r.runnable
    assert cli.main(["plan", "inspect", str(FIXTURES / "two_groups.jmx"), "--json"]) == 0
    as_json = json.loads(capsys.readouterr().out)
    assert as_json["runnable"] is True and as_json["thread_groups"][2]["threads"]["value"] == 10


def test_plugin_thread_groups_and_the_open_model_group_are_replaced_and_a_missing_plugin_sampler_blocks(jmeter):
    r = facts("plugin_groups.jmx", jmeter_home=jmeter.home)
    assert [(g.kind, g.threads.value if g.threads else None) for g in r.thread_groups] == [
        ("jpgc Concurrency Thread Group", 40), ("Open Model Thread Group", None), ("jpgc Ultimate Thread Group", 30)]
    assert r.thread_groups[1].schedule.written == "rate(5/sec) random_arrivals(60 sec)"
    assert all("the grid, not the plan, defines the load schedule" in g.control for g in r.thread_groups)
    ids = {p.element.rsplit(".", 1)[-1]: p.plugin_id for p in r.plugins}
    assert ids == {"ConcurrencyThreadGroup": "jpgc-casutg", "UltimateThreadGroup": "jpgc-casutg",
                   "VariableThroughputTimer": "jpgc-tst", "DummySampler": "jpgc-dummy",
                   "CorrectedResultCollector": "jpgc-graphs-basic"}
    # the thread groups are replaced, the listener removed, the shaping timer replaced by think = "replace":
    # only the Dummy Sampler still needs its plugin, which this JMeter lacks
    (blocker,) = r.blockers
    assert blocker.startswith('DummySampler "Waves / jp@gc - Dummy Sampler": needs the plugin jpgc-dummy')
    keep = facts("plugin_groups.jmx", jmeter_home=jmeter.home, think="keep")
    assert any("jpgc-tst" in b for b in keep.blockers)  # kept, the shaping timer needs its plugin


def test_a_malformed_plan_is_refused_in_one_line_naming_file_and_line(capsys):
    assert cli.main(["plan", "inspect", str(FIXTURES / "malformed.jmx")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"littlegrid plan: {FIXTURES / 'malformed.jmx'}:14: not well-formed XML at column 5; " \
                  "JMeter cannot load it"


@pytest.mark.parametrize("text, problem", [
    ("", "not well-formed XML"),
    ("<testResults/>", "not a JMeter test plan"),
    ("<jmeterTestPlan><hashTree/></jmeterTestPlan>", "holds no test plan"),
    ("<jmeterTestPlan><hashTree><TestPlan testname='t'/><hashTree><ThreadGroup testname='users'/></hashTree>"
     "</hashTree></jmeterTestPlan>", 'element <ThreadGroup> "users" has no hashTree after it'),
])
def test_plans_jmeter_cannot_load_are_refused_naming_the_element(tmp_path, capsys, text, problem):
    plan = tmp_path / "p.jmx"
    plan.write_text(text, encoding="utf-8")
    assert cli.main(["plan", "inspect", str(plan)]) == 2
    err = capsys.readouterr().err
    assert problem in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_an_element_jmeter_does_not_know_is_a_blocker(tmp_path, jmeter):
    text = (FIXTURES / "jmeter2_constant_timer.jmx").read_text(encoding="utf-8")
    plan = tmp_path / "typo.jmx"
    plan.write_text(text.replace("ConstantTimer guiclass", "ConstantTimr guiclass")
                    .replace("</ConstantTimer>", "</ConstantTimr>"), encoding="utf-8")
    r = inspect(load(plan), jmeter_home=jmeter.home)
    assert any(b.startswith('element <ConstantTimr> "Visitors / Constant Timer"') for b in r.blockers), r.blockers


@settings(max_examples=150, deadline=None)
@given(cut=st.integers(min_value=0, max_value=20000), junk=st.binary(max_size=40))
def test_any_damaged_plan_gives_facts_or_one_line_never_a_traceback(tmp_path_factory, cut, junk):
    source = (FIXTURES / "recorded_https.jmx").read_bytes()
    plan = tmp_path_factory.mktemp("fuzz") / "damaged.jmx"
    plan.write_bytes(source[:cut] + junk + source[cut + len(junk):])
    try:
        inspect(load(plan))
    except PlanError as e:
        assert "\n" not in str(e) and str(plan) in str(e)
