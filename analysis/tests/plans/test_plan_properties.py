"""The knobs each plan declares, the README's tables that document them, and the save-service settings."""

from __future__ import annotations

import re

import pytest
from plan_files import PLANS, README

from littlegrid.run.plan_properties import (JTL_COLUMNS, SAVE_SERVICE_PROPERTIES, declared_properties, property_calls,
                                        read_properties_file, save_service_properties, workload_of)
from littlegrid.usererror import UserError

HTTP = {"protocol": "http", "host": "127.0.0.1", "port": "8080", "path": "/", "method": "GET", "body": "",
        "content_type": "application/json"}


def test_closed_declares_its_workload_knobs_with_their_defaults():
    assert declared_properties(PLANS / "closed.jmx") == HTTP | {
        "users": "10", "rampup_s": "1", "duration_s": "60", "think_ms": "1000", "think_dist": "exponential",
        "think_offset_ms": "0", "connect_timeout_ms": "5000", "response_timeout_ms": "30000"}


def test_open_declares_rate_and_a_little_law_default_for_threads():
    declared = declared_properties(PLANS / "open.jmx")
    assert declared.pop("threads") == ("${__javaScript(var L = ${__P(rate_per_s,50)} * ${__P(expected_response_ms,100)}"
                                       " / 1000; Math.ceil(L + 4 * Math.sqrt(L)) + 2)}")
    assert declared == HTTP | {"rate_per_s": "50", "expected_response_ms": "100", "duration_s": "60",
                               "random_seed": "0", "connect_timeout_ms": "5000", "response_timeout_ms": "30000"}


def test_spike_declares_users_requests_and_long_timeouts():
    assert declared_properties(PLANS / "spike.jmx") == HTTP | {
        "users": "100", "requests_per_user": "1", "release_timeout_ms": "60000",
        "connect_timeout_ms": "60000", "response_timeout_ms": "120000"}


@pytest.mark.parametrize("plan, workload", [("closed.jmx", "closed"), ("open.jmx", "open"), ("spike.jmx", "spike"),
                                            ("jdbc.jmx", "closed")])
def test_each_plans_workload_kind_follows_from_the_properties_it_reads(plan, workload):
    assert workload_of(declared_properties(PLANS / plan)) == workload


def test_property_calls_split_on_top_level_commas_only():
    text = r"${__P(a,1)}x${__P(b,${__groovy(Math.max(1\, 2),)})}${__P(c)}"
    assert property_calls(text) == [("a", "1"), ("b", r"${__groovy(Math.max(1\, 2),)}"), ("c", None)]


def test_a_name_with_two_defaults_is_refused(tmp_path):
    plan = tmp_path / "two.jmx"
    plan.write_text('<jmeterTestPlan><hashTree><TestPlan testname="${__P(users,10)} ${__P(users,20)}"/>'
                    '<hashTree/></hashTree></jmeterTestPlan>', encoding="utf-8")
    with pytest.raises(UserError, match="'users' has two defaults, '10' and '20'"):
        declared_properties(plan)


def test_a_file_that_is_not_xml_is_refused_with_its_name(tmp_path):
    plan = tmp_path / "broken.jmx"
    plan.write_text("<jmeterTestPlan>", encoding="utf-8")
    with pytest.raises(UserError, match="broken.jmx: not a readable JMX file"):
        declared_properties(plan)


def _readme_tables() -> dict[str, dict[str, str]]:
    """heading -> {name: default cell} for the property tables of plans/README.md."""
    tables, heading = {}, None
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            heading = line[3:]
        elif heading and (m := re.match(r"^\|\s*`([^`]+)`\s*\|\s*([^|]*)\|", line)):
            tables.setdefault(heading, {})[m.group(1)] = m.group(2).strip()
    return tables


@pytest.mark.parametrize("plan", ["closed.jmx", "open.jmx", "spike.jmx", "jdbc.jmx"])
def test_readme_states_each_default_as_the_plan_has_it(plan):
    documented = {}
    for heading, rows in _readme_tables().items():
        if plan in heading:
            documented |= rows
    for name, default in declared_properties(PLANS / plan).items():
        if "${" in default:  # a computed default: the README states its rule instead
            continue
        assert documented[name] in (f"`{default}`", "(empty)" if default == "" else None), name


def test_properties_file_is_the_save_service_dict():
    assert read_properties_file(PLANS / "littlegrid.properties") == SAVE_SERVICE_PROPERTIES


def test_save_service_properties_returns_a_copy():
    props = save_service_properties()
    props["jmeter.save.saveservice.output_format"] = "xml"
    assert SAVE_SERVICE_PROPERTIES["jmeter.save.saveservice.output_format"] == "csv"


def test_readme_documents_the_jtl_columns_in_order():
    assert f"`{','.join(JTL_COLUMNS)}`" in README.read_text(encoding="utf-8")


def test_a_properties_line_without_equals_is_refused_with_its_line(tmp_path):
    bad = tmp_path / "bad.properties"
    bad.write_text("# ok\na=1\nnonsense\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"bad.properties:3: expected name=value"):
        read_properties_file(bad)
