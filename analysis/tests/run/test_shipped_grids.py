"""Every grid shipped in grids/ passes `littlegrid run --dry-run` (the same code path: run_grid(dry_run=True)), so
a change to the grid format, a plan's properties or the criteria grammar cannot leave a shipped grid broken."""

from pathlib import Path

import pytest

from littlegrid.run.grid_file import load_grid
from littlegrid.run.jmeter import repo_root
from littlegrid.run.runner import run_grid

ROOT = repo_root(Path(__file__).parent)
GRIDS = sorted((ROOT / "grids").glob("*.toml"))


def test_the_checkout_ships_grids():  # the parametrised test below would pass vacuously over an empty folder
    assert {"ci.toml", "littles-law.toml"} <= {g.name for g in GRIDS}


@pytest.mark.parametrize("grid_path", GRIDS, ids=lambda p: p.name)
def test_shipped_grid_passes_the_dry_run_and_lists_every_cell(grid_path, tmp_path, capsys):
    if load_grid(grid_path).ranges:  # a search grid has no cells of its own: its searches must be well formed
        from littlegrid.search.runner import spaces
        axis, searches = spaces(load_grid(grid_path))
        assert searches and all(s.low <= s.high for _, s in searches)
        return
    out = tmp_path / "reports"
    assert run_grid(grid_path, out=out, dry_run=True, run_id="dry") == out / "dry"
    assert not out.exists()  # a dry run writes nothing
    grid = load_grid(grid_path)
    cells = grid.cells()
    printed = capsys.readouterr().out
    each = "each until X and mean R are known to" if grid.timing.precise else "of "  # a precise cell's length is its data's
    assert f"grid {grid.name}: {len(cells)} cells {each}" in printed
    assert [line.split(". ", 1)[1] for line in printed.splitlines() if line.startswith("  ")] == [c.id for c in cells]
    assert len({c.id for c in cells}) == len(cells) > 0


@pytest.mark.parametrize("grid_path", GRIDS, ids=lambda p: p.name)
def test_shipped_grid_is_named_after_its_file_and_documented(grid_path):
    assert load_grid(grid_path).name == grid_path.stem  # the default run folder is <UTC time>-<name>
    docs = (ROOT / "README.md").read_text(encoding="utf-8") + (ROOT / "grids" / "README.md").read_text(encoding="utf-8")
    assert f"`{grid_path.name}`" in docs, f"{grid_path.name} is in neither README.md nor grids/README.md"
