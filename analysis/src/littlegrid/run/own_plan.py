"""A grid over a plan of the user's own: each cell's derived plan (littlegrid.plan.derive), written where it ran."""

from __future__ import annotations

from pathlib import Path

from littlegrid.plan.derive import THINK_TIMER_PLAN, CellLoad, Derived, derive, sha256
from littlegrid.run.engines import host_and_port, is_loopback
from littlegrid.run.grid import Cell, Grid, Target
from littlegrid.run.jmeter import repo_root
from littlegrid.usererror import UserError

DERIVED_PLAN = "plan.jmx"  # cells/<cell-id>/plan.jmx: the plan that ran, openable in the GUI
# The sample server's port when a derived plan is written before the server has one (`plan derive`).
SAMPLE_SERVER_PORT = 8080


def cell_load(grid: Grid, cell: Cell, target: Target) -> CellLoad:
    """What the cell asks of the plan: its load, think time and timing, and where requests go."""
    props = cell.plan_properties
    users, rate = props.get("users"), props.get("rate_per_s")
    think = props.get("think_ms")
    return CellLoad(users=int(users) if users is not None else None,
                    rate_per_s=float(rate) if rate is not None else None,
                    think_ms=float(think) if think is not None else None,
                    think_dist=str(props.get("think_dist", "exponential")),
                    rampup_s=grid.timing.rampup_s, duration_s=grid.timing.duration_s,
                    protocol=target.protocol, host=target.host, port=target.port, label=cell.id,
                    engines=tuple(grid.remote_hosts), database=target.database)


def planned_target(grid: Grid) -> Target:
    """The target before any server runs: the grid's, or the sample server at its port (8080 when it gets a
    free one at run time)."""
    if grid.server is None:
        return grid.target
    return Target(host="127.0.0.1", port=grid.server.port or SAMPLE_SERVER_PORT, protocol="http")


def think_timer_plan() -> Path:
    """plans/closed.jmx of the checkout littlegrid runs from: the think-time timer derived plans carry."""
    root = repo_root(Path(__file__).parent) or repo_root()
    if root is None:
        raise UserError(f"{THINK_TIMER_PLAN}: no littlegrid checkout found (it holds the think-time timer)")
    return root / THINK_TIMER_PLAN


def derive_cell(grid: Grid, cell: Cell, target: Target, folder: Path,
                jmeter_home: Path | None = None) -> tuple[Path, Derived]:
    """Write the cell's derived plan into `folder` (created); the user's plan is only read."""
    derived = derive(grid.plan, grid.own_plan, cell_load(grid, cell, target), think_timer_plan(), jmeter_home)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / DERIVED_PLAN
    path.write_bytes(derived.xml)
    return path, derived


def check_cells(grid: Grid, cells: list[Cell], jmeter_home: Path | None) -> list[str]:
    """Derive every cell's plan in memory: a blocker or a sampler that would still reach a host the grid does not
    name is refused here, before any load (derive raises, listing them). Returns what the user should know before
    the load: the data files engines on other hosts must hold (JMeter does not send them)."""
    target, timer = planned_target(grid), think_timer_plan()
    files: dict = {}  # (CSV Data Set, path), in the plan's order
    for cell in cells:
        derived = derive(grid.plan, grid.own_plan, cell_load(grid, cell, target), timer, jmeter_home)
        files.update(dict.fromkeys(derived.data_files))
    away = [e for e in grid.remote_hosts if not is_loopback(host_and_port(e)[0])]
    if not away or not files:
        return []
    return [f"note: JMeter sends remote engines the plan, not its data files: CSV Data Set \"{name}\" reads {path}, "
            f"which must be at that path on {', '.join(away)}" for name, path in files]


def manifest_fields(grid: Grid, derived: Derived, plan_path: Path) -> dict:
    """What a cell's manifest says about a derived plan: which ran, from which file, and the load it carried."""
    users = sum(derived.group_threads.values()) if derived.group_threads else None
    fields = {"plan": str(plan_path), "plan_source": str(grid.plan), "plan_sha256": sha256(grid.plan),
              "workload": "closed" if derived.group_threads else "open", "users": users,
              "load_groups": derived.group_threads, "setup_groups": derived.setup_groups,
              "think_ms": derived.think_ms}
    if derived.threads_by_engine:  # users is the total N; each engine ran its share of each load group
        fields["threads_by_engine"] = derived.threads_by_engine
        fields["load_groups_by_engine"] = derived.groups_by_engine
    if grid.own_plan.think != "replace":
        fields["think_dist"] = None  # the plan's own timers: no littlegrid distribution was drawn from
    return fields
