"""`littlegrid plan derive`: each cell's plan written and its changes printed, with no load and no run folder."""

from pathlib import Path

from littlegrid import cli
from littlegrid.plan import inspect as facts
from littlegrid.plan.jmx import load, prop

ROOT = Path(__file__).resolve().parents[2]


def test_derive_writes_each_cells_plan_and_says_what_it_changed(tmp_path, capsys):
    out = tmp_path / "derived"
    assert cli.main(["plan", "derive", str(ROOT / "grids" / "example-shop.toml"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    cells = sorted(p.name for p in out.iterdir())
    assert cells == ["users=4,think_ms=100", "users=4,think_ms=400", "users=8,think_ms=100", "users=8,think_ms=400"]
    assert sorted(p.name for p in out.rglob("*")) == sorted(cells + ["plan.jmx"] * 4)  # plans only: no run folder
    plan = load(out / "users=8,think_ms=400" / "plan.jmx")
    (group,) = facts.load_groups(plan)
    assert prop(group.element, "ThreadGroup.num_threads") == "8"
    assert 'thread group "Shoppers": 8 threads (was 5), ramp-up 1 s, loops until 30 s' in printed
    assert "removed 3 timers and pauses of the plan (Flow Control Action, UniformRandomTimer)" in printed
    assert "listeners disabled: View Results Tree, Aggregate Report" in printed


def test_derive_refuses_a_grid_over_one_of_the_suites_plans(tmp_path, capsys):
    assert cli.main(["plan", "derive", str(ROOT / "grids" / "ci.toml"), "--out", str(tmp_path)]) == 2
    assert "one of the suite's plans" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
