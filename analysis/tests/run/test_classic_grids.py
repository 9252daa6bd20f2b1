"""The classic experiments' grids say in their criteria what each experiment promises, and nothing it disproves by
design: every one is run as the README's main job (`./mvnw verify -DskipTests -Dgrid=grids/<name>.toml`), whose
build fails on a failed criterion, so a criterion its own `expect` contradicts fails a build whose experiment
answered exactly what it asks (think-time.toml's unscoped p90 < 50 ms failed the 9 cells past each think time's
SLO capacity, which the grid runs to on purpose). No load: the grids are read and their cells expanded."""

import re
from pathlib import Path

import pytest

from littlegrid.criteria.evaluate import in_where
from littlegrid.criteria.grammar import parse
from littlegrid.findings import expect
from littlegrid.run.grid_file import load_grid
from littlegrid.run.jmeter import repo_root

ROOT = repo_root(Path(__file__).parent)
README = (ROOT / "README.md").read_text(encoding="utf-8")
ERROR_METRICS = ("error_rate", "errors")


def classic_grids() -> list[Path]:
    """The grids of the README's table of classic experiments (each `name.toml` in its first column)."""
    table = README.split("## The classic experiments", 1)[1].split("\n## ", 1)[0]
    names = [n for row in table.splitlines() if row.startswith("| `")
             for n in re.findall(r"`([\w.-]+\.toml)`", row.split("|")[1])]
    return [ROOT / "grids" / n for n in names]


CLASSIC = classic_grids()


def test_the_readme_lists_the_classic_grids():
    assert {"littles-law.toml", "throttling.toml", "throttling-haproxy.toml", "think-time.toml",
            "connection-limits.toml"} <= {g.name for g in CLASSIC}
    assert all(g.is_file() for g in CLASSIC), [g for g in CLASSIC if not g.is_file()]


def _latency(criterion) -> bool:
    return bool(re.fullmatch(r"p\d+(\.\d+)?", criterion.metric))


def _cells_in(grid, scope) -> list:
    return [c for c in grid.cells() if in_where(scope, c)]


@pytest.mark.parametrize("grid_path", CLASSIC, ids=lambda p: p.name)
def test_every_criterion_and_expectation_of_a_classic_grid_is_about_cells_it_runs(grid_path):
    """A scope that selects no cell is a promise nobody checks (a typo in a value, an axis value since removed)."""
    grid = load_grid(grid_path)
    for text in grid.criteria:
        assert _cells_in(grid, parse(text).scope), f"{grid_path.name}: criterion {text!r} selects no cell"
    for text in grid.raw.get("expect", []):
        e = expect.parse(text)
        if not e.negated:
            assert _cells_in(grid, e.scope), f"{grid_path.name}: expect {text!r} selects no cell"


@pytest.mark.parametrize("grid_path", CLASSIC, ids=lambda p: p.name)
def test_a_classic_grids_criteria_do_not_contradict_its_expect(grid_path):
    """What the expect says the experiment shows, no criterion may fail by design: an SLO capacity found inside the
    grid means cells past it (their latency is the objective's, stated as `slo`, never an unscoped criterion);
    connections expected to be the limit mean failed requests in those cells (no error criterion over them)."""
    grid = load_grid(grid_path)
    expected = [expect.parse(t) for t in grid.raw.get("expect", [])]
    criteria = [parse(t) for t in grid.criteria]
    if any(e.kind == "think_time" and e.resource == "capacity" and not e.negated for e in expected):
        assert grid.raw.get("slo"), f"{grid_path.name}: a capacity per think time needs the objective as slo = [...]"
        unscoped = [c.text for c in criteria if _latency(c) and not c.scope.where]
        assert not unscoped, f"{grid_path.name}: {unscoped} would fail every cell past the capacity the grid finds"
    for e in expected:
        if e.kind == "bottleneck" and e.resource == "connections" and not e.negated:
            refused = {c.id for c in _cells_in(grid, e.scope)}
            for c in criteria:
                if c.metric in ERROR_METRICS and c.op in ("<", "<=", "=="):
                    judged = {cell.id for cell in _cells_in(grid, c.scope)}
                    assert not judged & refused, (f"{grid_path.name}: {c.text!r} judges cells where connections are "
                                                  f"expected to fail: {sorted(judged & refused)}")


def test_the_rule_catches_think_times_old_criterion(tmp_path):
    """The defect this test exists for: think-time.toml's unscoped p90 < 50 ms beside 'think_time capacity'."""
    text = (ROOT / "grids" / "think-time.toml").read_text(encoding="utf-8")
    old = re.sub(r'(?ms)^slo = .*?\ncriteria = \[.*?\n\]', 'criteria = ["p90 < 50ms", "error_rate < 1%"]', text)
    assert old != text
    bad = tmp_path / "think-time.toml"
    bad.write_text(old.replace('plan = "plans/closed.jmx"', f'plan = "{ROOT / "plans" / "closed.jmx"}"'),
                   encoding="utf-8")
    with pytest.raises(AssertionError, match="slo|would fail every cell"):
        test_a_classic_grids_criteria_do_not_contradict_its_expect(bad)
