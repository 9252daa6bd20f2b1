"""The plans are GUI-friendly and data-free; the lint that says so catches each kind of defect."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_files import PLAN_FILES, PLANS, README
from plan_lint import lint


def test_the_four_plans_exist():
    assert [p.name for p in PLAN_FILES] == ["closed.jmx", "jdbc.jmx", "open.jmx", "spike.jmx"]


@pytest.mark.parametrize("plan", PLAN_FILES, ids=lambda p: p.name)
def test_plan_is_clean(plan):
    assert lint(plan, README) == []


def _doctored(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (PLANS / name).read_text(encoding="utf-8")
    assert old in text, f"the doctoring string is not in {name}: the test needs updating"
    copy = tmp_path / name
    copy.write_text(text.replace(old, new, 1), encoding="utf-8")
    return copy


DEFECTS = {
    "hard-coded host in the sampler": (
        "closed.jmx", "${__P(host,127.0.0.1)}", "test.example.com", "hard-coded host 'test.example.com'"),
    "hard-coded address in a path": (
        "open.jmx", "${__P(path,/)}", "http://10.0.0.7:8080/", "hard-coded host 'http://10.0.0.7:8080'"),
    "enabled summary report": (
        "closed.jmx", 'testclass="ResultCollector" testname="Summary Report (enable it to watch a run in the GUI; '
                      'disable it again before saving)" enabled="false"',
        'testclass="ResultCollector" testname="Summary Report"', "enabled listener (SummaryReport)"),
    "disabled listener that writes a file": (
        "spike.jmx", '<stringProp name="filename"></stringProp>',
        '<stringProp name="filename">results/spike.jtl</stringProp>', "listener writes the file 'results/spike.jtl'"),
    "absolute path in a listener": (
        "closed.jmx", '<stringProp name="filename"></stringProp>',
        '<stringProp name="filename">/home/me/closed.jtl</stringProp>', "absolute path"),
    "absolute Windows path in a listener": (
        "open.jmx", '<stringProp name="filename"></stringProp>',
        '<stringProp name="filename">C:\\results\\open.jtl</stringProp>', "absolute path"),
    "undocumented property": (
        "spike.jmx", "${__P(requests_per_user,1)}", "${__P(requests_per_user,${__P(burst_factor,1)})}",
        "property 'burst_factor' is missing from README.md's table for spike.jmx"),
    "property without a default": (
        "open.jmx", "${__P(random_seed,0)}", "${__P(random_seed)}", "${__P(random_seed)} has no default"),
}


@pytest.mark.parametrize("defect", DEFECTS, ids=list(DEFECTS))
def test_lint_catches(defect, tmp_path):
    name, old, new, expected = DEFECTS[defect]
    problems = lint(_doctored(tmp_path, name, old, new), README)
    assert any(expected in p for p in problems), problems
    assert all(p.startswith(f"{name}: ") for p in problems)


def test_lint_reads_only_the_section_of_its_own_plan(tmp_path):
    readme = tmp_path / "README.md"
    text = README.read_text(encoding="utf-8")
    # think_ms is documented only under closed.jmx: moving that section's heading away must be caught
    readme.write_text(text.replace("## closed.jmx", "## closed plan"), encoding="utf-8")
    problems = lint(PLANS / "closed.jmx", readme)
    assert "closed.jmx: property 'think_ms' is missing from README.md's table for closed.jmx" in problems
    assert not any("'host'" in p for p in problems)  # the section for every plan still covers host
