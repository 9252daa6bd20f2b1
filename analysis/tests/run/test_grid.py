"""The grid file: strict validation (one line naming file, line and key) and expansion into cells."""

import re
from pathlib import Path

import pytest

from littlegrid.run.grid import cell_id
from littlegrid.run.grid_file import load_grid
from littlegrid.usererror import UserError

FIXTURES = Path(__file__).parent / "fixtures"
PLAN = FIXTURES / "tiny.jmx"

VALID = f"""
name = "valid"
plan = "{PLAN}"
[target]
host = "127.0.0.1"
port = 8080
[cell]
duration_s = 20
warmup_s = 5
cooldown_s = 2
[axes]
users = [5, 10]
think_ms = [0, 50]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "grid.toml"
    path.write_text(text)
    return path


def test_a_valid_grid_expands_to_the_cartesian_product_in_declared_order(tmp_path):
    grid = load_grid(write(tmp_path, VALID))
    assert [c.id for c in grid.cells()] == ["users=5,think_ms=0", "users=5,think_ms=50",
                                            "users=10,think_ms=0", "users=10,think_ms=50"]
    cell = grid.cells()[3]
    assert cell.index == 4 and cell.axes == {"users": 10, "think_ms": 50} and cell.knobs is None
    assert cell.plan_properties == {"users": 10, "think_ms": 50}
    assert grid.timing.duration_s == 20 and grid.timing.repetitions == 1
    assert grid.engines == 1


def test_an_arms_expectation_may_state_its_margin_and_an_old_one_without_still_parses(tmp_path):
    for texts in (["arms same within 10%"], ["arms same within 2.5% where users == 10", "arms different"],
                  ["arms same"]):
        grid = load_grid(write(tmp_path, f"expect = {texts!r}\n" + VALID))
        assert grid.raw["expect"] == texts


def test_a_grid_may_name_the_axis_and_values_of_its_two_arms(tmp_path):
    assert load_grid(write(tmp_path, 'arms = "think_ms=0,50"\n' + VALID)).arms == "think_ms=0,50"
    assert load_grid(write(tmp_path, VALID)).arms is None


def test_repetitions_add_a_rep_suffix_to_every_cell(tmp_path):
    grid = load_grid(write(tmp_path, VALID.replace("cooldown_s = 2", "cooldown_s = 2\nrepetitions = 2")))
    ids = [c.id for c in grid.cells()]
    assert ids[:2] == ["users=5,think_ms=0,rep=1", "users=5,think_ms=0,rep=2"]
    assert len(ids) == 8 and len(set(ids)) == 8


def test_knob_axes_vary_slowest_so_the_server_restarts_only_when_a_knob_changes(tmp_path):
    text = VALID.replace('[target]\nhost = "127.0.0.1"\nport = 8080',
                         '[server]\nstart = true\nknobs = { "littlegrid.service-ms" = 20 }')
    text += '"server.tomcat.threads.max" = [2, 8]\n'
    grid = load_grid(write(tmp_path, text))
    cells = grid.cells()
    assert grid.knob_axes == ("server.tomcat.threads.max",)
    assert [c.knobs["server.tomcat.threads.max"] for c in cells] == [2, 2, 2, 2, 8, 8, 8, 8]
    assert all(c.knobs["littlegrid.service-ms"] == 20 for c in cells)
    # ids keep the declared axis order; the knob is not a plan property
    assert cells[0].id == "users=5,think_ms=0,server.tomcat.threads.max=2"
    assert "server.tomcat.threads.max" not in cells[0].plan_properties


def test_interleaved_arms_run_each_load_in_every_arm_before_the_next_load(tmp_path):
    """[cell] interleave: knob axes vary fastest, the other axes in their declared order, so the arms' paired cells
    run one after the other (the runner starts the server anew whenever the knobs change)."""
    text = VALID.replace('[target]\nhost = "127.0.0.1"\nport = 8080', '[server]\nstart = true')
    text = text.replace("cooldown_s = 2\n", "cooldown_s = 2\ninterleave = true\n")
    text += '"server.tomcat.threads.max" = [2, 8]\n'
    cells = load_grid(write(tmp_path, text)).cells()
    assert [(c.axes["users"], c.axes["think_ms"], c.knobs["server.tomcat.threads.max"]) for c in cells] == [
        (5, 0, 2), (5, 0, 8), (5, 50, 2), (5, 50, 8), (10, 0, 2), (10, 0, 8), (10, 50, 2), (10, 50, 8)]
    assert [c.index for c in cells] == list(range(1, 9))
    assert cells[1].id == "users=5,think_ms=0,server.tomcat.threads.max=8"
    with pytest.raises(UserError, match=r"\[cell\] interleave.*must be true or false, got 'yes'"):
        load_grid(write(tmp_path, text.replace("interleave = true", 'interleave = "yes"')))


def test_the_server_may_be_warmed_after_each_start(tmp_path):
    text = VALID.replace('[target]\nhost = "127.0.0.1"\nport = 8080', '[server]\nstart = true\nwarmup_s = 30\n[target]')
    assert load_grid(write(tmp_path, text)).server.warmup_s == 30.0
    assert load_grid(write(tmp_path, text.replace("warmup_s = 30\n", ""))).server.warmup_s == 0.0
    with pytest.raises(UserError, match=r"\[server\] warmup_s.*must be ≥ 0, got -1"):
        load_grid(write(tmp_path, text.replace("warmup_s = 30", "warmup_s = -1")))


def test_the_server_may_be_pinned_to_cpus_of_its_own(tmp_path):
    text = VALID.replace('[target]\nhost = "127.0.0.1"\nport = 8080', '[server]\nstart = true\ncpus = [1]\n[target]')
    assert load_grid(write(tmp_path, text)).server.cpus == (1,)
    assert load_grid(write(tmp_path, text.replace("cpus = [1]\n", ""))).server.cpus is None


def test_cell_ids_are_filesystem_safe_and_integral_floats_print_as_integers():
    assert cell_id({"users": 20, "think_ms": 50.0}) == "users=20,think_ms=50"
    assert cell_id({"path": "/a b/c"}) == "path=_a_b_c"
    assert cell_id({"think_dist": "exponential"}, 2) == "think_dist=exponential,rep=2"


def test_the_plan_is_found_relative_to_the_grid_folder_outside_a_checkout(tmp_path):
    (tmp_path / "plans").mkdir()
    (tmp_path / "plans" / "p.jmx").write_text(PLAN.read_text())
    grid = load_grid(write(tmp_path, VALID.replace(str(PLAN), "plans/p.jmx")))
    assert grid.plan == (tmp_path / "plans" / "p.jmx").resolve()


PRECISE = VALID.replace("duration_s = 20\n", 'until = "precise"\nprecision = "1.5%"\nmin_s = 15\nmax_s = 90\n')


def test_a_precise_grid_carries_its_rule_and_runs_the_plan_for_max_s(tmp_path):
    timing = load_grid(write(tmp_path, PRECISE)).timing
    assert timing.precise and timing.until == "precise"
    assert (timing.precision, timing.min_s, timing.max_s) == (0.015, 15.0, 90.0)
    assert timing.duration_s == 90.0  # the plan's thread groups end at max_s if nothing stops them earlier
    rule = timing.rule()
    assert (rule.precision, rule.min_s, rule.max_s, rule.warmup_floor_s, rule.cooldown_s) == (0.015, 15, 90, 5, 2)


def test_precise_defaults_are_two_percent_ten_seconds_and_two_minutes(tmp_path):
    timing = load_grid(write(tmp_path, VALID.replace("duration_s = 20\n", 'until = "precise"\n'))).timing
    assert (timing.precision, timing.min_s, timing.max_s, timing.duration_s) == (0.02, 10.0, 120.0, 120.0)
    assert load_grid(write(tmp_path, PRECISE.replace('"1.5%"', "0.03"))).timing.precision == 0.03


def test_a_fixed_grid_has_no_rule(tmp_path):
    timing = load_grid(write(tmp_path, VALID)).timing
    assert timing.until == "duration" and not timing.precise and timing.rule() is None
    assert (timing.precision, timing.min_s, timing.max_s) == (None, None, None)


# Each refusal: (what the grid does wrong, how to break VALID, what the one-line message must name).
REFUSALS = [
    ("unknown top-level key", lambda t: "colour = 'red'\n" + t, r"grid\.toml:1: colour: unknown key"),
    ("unknown key in [cell]", lambda t: t.replace("cooldown_s = 2", "cooldown_s = 2\nduraton_s = 3"),
     r"grid\.toml:\d+: \[cell\] duraton_s: unknown key"),
    ("unknown key in [target]", lambda t: t.replace("port = 8080", "port = 8080\nhots = 'x'"),
     r"\[target\] hots: unknown key"),
    ("empty axis", lambda t: t.replace("think_ms = [0, 50]", "think_ms = []"),
     r"grid\.toml:\d+: \[axes\] think_ms: empty axis"),
    ("negative duration", lambda t: t.replace("duration_s = 20", "duration_s = -20"),
     r"\[cell\] duration_s: must be > 0"),
    ("negative warm-up", lambda t: t.replace("warmup_s = 5", "warmup_s = -1"), r"\[cell\] warmup_s: must be ≥ 0"),
    ("warm-up and cool-down eat the cell", lambda t: t.replace("warmup_s = 5", "warmup_s = 18"),
     r"\[cell\] warmup_s: warmup_s \+ cooldown_s \(18 \+ 2 s\) must be less than duration_s"),
    ("missing plan file", lambda t: t.replace(str(PLAN), "plans/nope.jmx"), r"plan: plan file not found: .*nope\.jmx"),
    ("no plan at all", lambda t: t.replace(f'plan = "{PLAN}"', ""), r"plan: missing"),
    ("a property the plan does not declare", lambda t: t + "[properties]\nthinktime = 5\n",
     r"\[properties\] thinktime: the plan .* does not declare this property"),
    ("an axis the plan does not declare", lambda t: t.replace("think_ms = [0, 50]", "think = [0, 50]"),
     r"\[axes\] think: the plan .* does not declare"),
    ("a knob axis without a server", lambda t: t + '"server.tomcat.threads.max" = [2]\n',
     r"\[axes\] server\.tomcat\.threads\.max: .*needs \[server\] start = true"),
    ("bad remote host", lambda t: 'remote_hosts = ["127.0.0.1:99999"]\n' + t, r"remote_hosts: '127\.0\.0\.1:99999'"),
    ("remote host with a scheme", lambda t: 'remote_hosts = ["rmi://h:1099"]\n' + t, r"remote_hosts: 'rmi://h:1099'"),
    ("users that are not whole numbers", lambda t: t.replace("users = [5, 10]", "users = [5, 2.5]"),
     r"\[axes\] users: users must be whole numbers"),
    ("negative think time", lambda t: t.replace("think_ms = [0, 50]", "think_ms = [-1]"),
     r"\[axes\] think_ms: values must be numbers ≥ 0"),
    ("an axis that is also a fixed property", lambda t: t + "[properties]\nusers = 3\n",
     r"\[axes\] users: also set in \[properties\]"),
    ("timing as an axis", lambda t: t.replace("think_ms = [0, 50]", "duration_s = [10, 20]"),
     r"\[axes\] duration_s: timing is set in \[cell\]"),
    ("no target and no server", lambda t: t.replace('[target]\nhost = "127.0.0.1"\nport = 8080', ""),
     r"\[target\]: missing: give \[target\] host and port, or \[server\] start = true"),
    ("a target port with a started server", lambda t: t.replace("[target]", "[server]\nstart = true\n[target]"),
     r"\[target\] host: not allowed with \[server\] start = true"),
    ("a bad port", lambda t: t.replace("port = 8080", "port = 0"), r"\[target\] port: must be a TCP port"),
    ("server cpus not a list of CPU numbers", lambda t: t.replace(
        '[target]\nhost = "127.0.0.1"\nport = 8080', '[server]\nstart = true\ncpus = [1, 1]\n[target]'),
     r"grid\.toml:\d+: \[server\] cpus: must be a list of distinct CPU numbers counted from 0, e\.g\. \[1\], "
     r"got \[1, 1\]"),
    ("server cpus a list of lists (found by the grid fuzzer: a traceback before)", lambda t: t.replace(
        '[target]\nhost = "127.0.0.1"\nport = 8080', '[server]\nstart = true\ncpus = [[]]\n[target]'),
     r"\[server\] cpus: must be a list of distinct CPU numbers"),
    ("server cpus empty", lambda t: t.replace(
        '[target]\nhost = "127.0.0.1"\nport = 8080', '[server]\nstart = true\ncpus = []\n[target]'),
     r"\[server\] cpus: must be a list of distinct CPU numbers"),
    ("criteria not a list of strings", lambda t: "criteria = 'p90 < 1s'\n" + t, r"criteria: must be a list"),
    ("a malformed criterion", lambda t: "criteria = ['p90 <']\n" + t, r"grid\.toml:1: criteria: criterion 'p90 <'"),
    ("not TOML at all", lambda t: t + "[axes\n", r"grid\.toml:(\d+): not valid TOML: .*\(at line \1, column"),
    ("a top-level key written under a table", lambda t: t + 'criteria = ["p90 < 1s"]\n',
     r"\[axes\] criteria: .*criteria is a top-level key: write it before the first \[table\]"),
    ("a repeated axis value", lambda t: t.replace("think_ms = [0, 50]", "think_ms = [0, 0]"),
     r"\[axes\] think_ms: repeated value"),
    ("arms on a value the axis lacks", lambda t: 'arms = "users=5,40"\n' + t,
     r"grid\.toml:1: arms: users must be an axis holding both 5 and 40 \(axes: users = \[5, 10\]"),
    ("arms on no axis", lambda t: 'arms = "threads=5,10"\n' + t, r"arms: threads must be an axis holding both"),
    ("arms without two values", lambda t: 'arms = "users=5"\n' + t, r"\.toml:1: arms: 'users=5': write AXIS=A,B"),
    ("an arms margin that is no percentage", lambda t: "expect = ['arms same within ten%']\n" + t,
     r"grid\.toml:1: expect: expectation 'arms same within ten%': margin 'ten%': write the margin as a percentage "
     r"between 0 and 100, e\.g\. \"arms same within 10%\""),
    ("an arms margin without its percent sign", lambda t: "expect = ['arms same within 10']\n" + t,
     r"expect: expectation 'arms same within 10': margin '10': write the margin as a percentage"),
    ("an arms margin of 100% or more", lambda t: "expect = ['arms same within 100%']\n" + t,
     r"expect: expectation 'arms same within 100%': margin '100%' is not between 0% and 100%"),
    ("a margin after another word than same", lambda t: "expect = ['arms different within 5%']\n" + t,
     r"expect: expectation 'arms different within 5%': a margin \(within N%\) goes only after \"arms same\""),
    ("two margins for the arms", lambda t: "expect = ['arms same within 5%', 'no arms same within 10%']\n" + t,
     r"expect: expectations 'arms same within 5%' and 'no arms same within 10%' state two margins for the arms"),
    ("until neither duration nor precise", lambda t: t.replace("duration_s = 20", 'until = "exact"'),
     r"grid\.toml:\d+: \[cell\] until: must be \"duration\" .* or \"precise\" .*got 'exact'"),
    ("a precision of 50% or more", lambda t: PRECISE.replace('"1.5%"', '"50%"'),
     r"grid\.toml:\d+: \[cell\] precision: must be more than 0% and less than 50%"),
    ("a precision of zero", lambda t: PRECISE.replace('"1.5%"', "0"), r"\[cell\] precision: must be more than 0%"),
    ("a precision written as a whole percentage without %", lambda t: PRECISE.replace('"1.5%"', "2"),
     r"\[cell\] precision: must be more than 0% and less than 50% \(e\.g\. \"2%\"\), got 2"),
    ("a precision that is no share", lambda t: PRECISE.replace('"1.5%"', '"tight"'),
     r"\[cell\] precision: must be a share such as \"2%\""),
    ("min_s more than max_s", lambda t: PRECISE.replace("min_s = 15", "min_s = 100"),
     r"grid\.toml:\d+: \[cell\] min_s: min_s \(100 s\) is more than max_s \(90 s\)"),
    ("max_s inside the trims", lambda t: PRECISE.replace("min_s = 15", "min_s = 0").replace("max_s = 90", "max_s = 7"),
     r"\[cell\] max_s: max_s \(7 s\) must be more than warmup_s \+ cooldown_s \(5 \+ 2 s\)"),
    ("a min_s window that cannot fit in max_s", lambda t: PRECISE.replace("min_s = 15", "min_s = 85"),
     r"\[cell\] min_s: a window of min_s \(85 s\) .* does not fit in max_s \(90 s\)"),
    ("duration_s with until precise", lambda t: PRECISE.replace("max_s = 90", "max_s = 90\nduration_s = 30"),
     r"grid\.toml:\d+: \[cell\] duration_s: not with until = \"precise\".*give max_s instead"),
    ("a precision without until precise", lambda t: t.replace("duration_s = 20", 'duration_s = 20\nprecision = "2%"'),
     r"grid\.toml:\d+: \[cell\] precision: only with until = \"precise\""),
    ("until precise with remote engines", lambda t: 'remote_hosts = ["10.0.0.5:1099"]\n' + PRECISE,
     r"grid\.toml:\d+: \[cell\] until: until = \"precise\" runs on this host's JMeter only: remote engines send "
     r"their samples in batches"),
    ("until as an axis", lambda t: t.replace("think_ms = [0, 50]", "until = [1, 2]"),
     r"\[axes\] until: timing is set in \[cell\]"),
]


@pytest.mark.parametrize("what,breaks,message", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_a_bad_grid_is_refused_in_one_line_naming_the_file_and_key(tmp_path, what, breaks, message):
    path = write(tmp_path, breaks(VALID))
    with pytest.raises(UserError) as refused:
        load_grid(path)
    text = str(refused.value)
    assert "\n" not in text
    assert text.startswith(str(path))
    assert re.search(message, text), text
