"""A grid over a plan of the user's own: [plan_options] checked, the plan's blockers and stray hosts refused
before any load, each in one line naming the file and key."""

from pathlib import Path

import pytest

from littlegrid.plan.derive import PlanOptions
from littlegrid.run.grid_file import load_grid
from littlegrid.run.own_plan import cell_load, check_cells, derive_cell, manifest_fields, planned_target
from littlegrid.usererror import UserError

PLANS = Path(__file__).parents[1] / "plan" / "fixtures"
WINDOWS_CSV = r"C:\Users\perf\jmeter\data\users.csv"


def grid(tmp_path: Path, plan: str, extra: str = "", axes: str = "users = [3, 8]\nthink_ms = [50]") -> Path:
    path = tmp_path / "own.toml"
    path.write_text(f'name = "own"\nplan = "{PLANS / plan}"\n{extra}\n[target]\nhost = "127.0.0.1"\nport = 9999\n'
                    f'[cell]\nduration_s = 20\nwarmup_s = 5\ncooldown_s = 2\n[axes]\n{axes}\n', encoding="utf-8")
    return path


def test_any_plan_takes_users_and_think_ms_and_each_cell_derives_its_plan(tmp_path):
    g = load_grid(grid(tmp_path, "two_groups.jmx"))
    assert g.own_plan == PlanOptions()
    cells = g.cells()
    assert [c.id for c in cells] == ["users=3,think_ms=50", "users=8,think_ms=50"]
    load = cell_load(g, cells[1], planned_target(g))
    assert (load.users, load.think_ms, load.think_dist, load.host, load.port, load.duration_s) == \
        (8, 50.0, "exponential", "127.0.0.1", 9999, 20.0)
    check_cells(g, cells, None)
    path, derived = derive_cell(g, cells[1], planned_target(g), tmp_path / "cells" / cells[1].id)
    assert path == tmp_path / "cells" / "users=8,think_ms=50" / "plan.jmx" and path.is_file()
    fields = manifest_fields(g, derived, path)
    assert fields["users"] == 8 and fields["load_groups"] == {"Browsers": 6, "Buyers": 2}
    assert fields["setup_groups"] == ["prepare data"] and fields["workload"] == "closed"
    assert fields["plan_source"] == str(PLANS / "two_groups.jmx") and len(fields["plan_sha256"]) == 64


def test_over_remote_engines_users_is_the_total_and_each_cell_records_each_engines_share(tmp_path):
    engines = ["10.0.0.3:1099", "10.0.0.4:1099"]
    g = load_grid(grid(tmp_path, "two_groups.jmx", f"remote_hosts = {engines!r}".replace("'", '"'),
                       axes="users = [3, 8]"))
    cells = g.cells()
    assert cell_load(g, cells[0], planned_target(g)).engines == tuple(engines)
    path, derived = derive_cell(g, cells[1], planned_target(g), tmp_path / "cells" / cells[1].id)
    fields = manifest_fields(g, derived, path)
    assert fields["users"] == 8 and fields["load_groups"] == {"Browsers": 6, "Buyers": 2}
    assert fields["threads_by_engine"] == {engines[0]: 4, engines[1]: 4}
    assert fields["load_groups_by_engine"] == {e: {"Browsers": 3, "Buyers": 1} for e in engines}
    assert derived.engine_properties == {"littlegrid.group0.10.0.0.3:1099": 3, "littlegrid.group0.10.0.0.4:1099": 3,
                                         "littlegrid.group1.10.0.0.3:1099": 1, "littlegrid.group1.10.0.0.4:1099": 1}
    # JMeter sends engines the plan, not its CSV: engines on other hosts must hold it at the same path
    (note,) = check_cells(g, cells, None)
    assert note == (f'note: JMeter sends remote engines the plan, not its data files: CSV Data Set "accounts" reads '
                    f'{PLANS / "data" / "users.csv"}, which must be at that path on {engines[0]}, {engines[1]}')
    assert "each remote engine reads it at this path on its own host" in " ".join(derived.changes)
    here = load_grid(grid(tmp_path, "two_groups.jmx", 'remote_hosts = ["127.0.0.1:1099", "127.0.0.1:1100"]'))
    assert check_cells(here, here.cells(), None) == []  # engines on this host read this host's files
    with pytest.raises(UserError, match=r"users = 1 on 2 engines: users is the total N"):
        load_grid(grid(tmp_path, "two_groups.jmx", f"remote_hosts = {engines!r}".replace("'", '"'),
                       axes="users = [1, 8]"))


def test_a_windows_csv_is_mapped_by_plan_options_files_relative_to_the_grid(tmp_path):
    mapped = tmp_path / "users.csv"
    mapped.write_text("user,password\na,b\n", encoding="utf-8")
    extra = f"[plan_options]\nfiles = {{ '{WINDOWS_CSV}' = \"users.csv\" }}"
    g = load_grid(grid(tmp_path, "recorded_https.jmx", extra))
    assert g.own_plan.files == {WINDOWS_CSV: str(mapped)}


@pytest.mark.parametrize("plan, extra, axes, message", [
    ("recorded_https.jmx", "", "users = [2]",
     r"own.toml:2: plan: cannot run as a grid .*CSV Data Set \"Users\": file C:\\Users.*cannot be found"),
    ("two_groups.jmx", '[plan_options]\nthink = "faster"', "users = [2]",
     r"\[plan_options\] think: must be one of replace, scale, keep"),
    ("two_groups.jmx", '[plan_options]\nshares = { "Sellers" = 1 }', "users = [2]",
     r"no enabled load thread group is called 'Sellers' \(the plan's: 'Browsers', 'Buyers'\)"),
    ("two_groups.jmx", '[plan_options]\nthink = "keep"', "users = [2]\nthink_ms = [100]",
     r"\[axes\] think_ms: think = \"keep\" leaves the plan's timers"),
    ("two_groups.jmx", "", "users = [2]\nrate_per_s = [5]", r"users or rate_per_s, not both"),
    ("jmeter2_constant_timer.jmx", "", "users = [2]\nthink_dist = [\"gamma\"]",
     r"\[axes\] think_dist: must be one of exponential, poisson, constant"),
])
def test_what_a_grid_cannot_ask_of_a_plan_is_refused_in_one_line(tmp_path, plan, extra, axes, message):
    with pytest.raises(UserError, match=message):
        load_grid(grid(tmp_path, plan, extra, axes))


def test_a_sampler_that_reaches_a_host_of_its_own_is_refused_before_any_load_naming_it(tmp_path):
    text = (PLANS / "jmeter2_constant_timer.jmx").read_text(encoding="utf-8")
    tcp = ('<TCPSampler guiclass="TCPSamplerGui" testclass="TCPSampler" testname="legacy socket" enabled="true">'
           '<stringProp name="TCPSampler.server">mainframe.example.com</stringProp>'
           '<stringProp name="TCPSampler.port">7001</stringProp></TCPSampler><hashTree/>')
    plan = tmp_path / "tcp.jmx"
    plan.write_text(text.replace("<ConstantTimer ", tcp + "<ConstantTimer ", 1), encoding="utf-8")
    path = tmp_path / "tcp.toml"
    path.write_text(f'plan = "{plan}"\n[target]\nhost = "127.0.0.1"\nport = 9999\n[axes]\nusers = [2]\n',
                    encoding="utf-8")
    with pytest.raises(UserError, match=r'TCPSampler "Visitors / legacy socket": a TCPSampler reaches '
                                        r'mainframe.example.com'):
        load_grid(path)


def test_target_path_method_and_body_belong_to_the_suites_plans(tmp_path):
    path = grid(tmp_path, "two_groups.jmx")
    path.write_text(path.read_text(encoding="utf-8").replace("port = 9999\n", 'port = 9999\npath = "/x"\n'),
                    encoding="utf-8")
    with pytest.raises(UserError, match=r"\[target\] path: a plan of your own sends its own requests"):
        load_grid(path)
