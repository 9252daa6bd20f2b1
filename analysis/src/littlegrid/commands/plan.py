"""`littlegrid plan`: inspect a plan of your own (what littlegrid controls, what stops it), and write the plans
each cell of a grid would run, without any load (the plan stage's facts, the run stage's grid)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from littlegrid.plan.inspect import Inspection, Setting, inspect
from littlegrid.plan.jmx import PlanError, load
from littlegrid.usererror import UserError

HELP = "a plan of your own: what littlegrid can control in it (inspect), the plan each cell runs (derive)"
EXAMPLES = [
    "littlegrid plan inspect my-plan.jmx",
    "littlegrid plan inspect my-plan.jmx --json",
    "littlegrid plan derive grids/example-shop.toml --out derived/",
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="plan_command", metavar="ACTION", required=True)
    p = sub.add_parser("inspect", help="state what littlegrid can control in a plan and what blocks it "
                       "(exit 0: runnable as a grid, 2: blocked)")
    p.add_argument("plan", type=Path, help="the JMX test plan")
    p.add_argument("--json", action="store_true", help="the facts as JSON")
    d = sub.add_parser("derive", help="write each cell's derived plan to DIR/<cell-id>/plan.jmx, run nothing")
    d.add_argument("grid", type=Path, help="a grid file naming a plan of your own")
    d.add_argument("--out", type=Path, required=True, metavar="DIR", help="where the derived plans go")


def main(args: argparse.Namespace) -> int:
    if args.plan_command == "inspect":
        return inspect_command(args.plan, as_json=args.json)
    return derive_command(args.grid, args.out)


def _jmeter_home() -> Path | None:
    """The provisioned JMeter's folder, to tell which plugins and elements it has; None when there is none."""
    from littlegrid.run.jmeter import find_jmeter
    try:
        return find_jmeter().home
    except UserError:
        return None


def inspect_command(path: Path, as_json: bool = False) -> int:
    """Print the inspection; 0 when the plan can run as a grid, 2 when something blocks it. Never a traceback:
    a plan JMeter cannot load is refused in one line naming the element."""
    try:
        result = inspect(load(path), jmeter_home=_jmeter_home())
    except PlanError:
        raise
    except Exception as e:  # noqa: BLE001 - any plan whatever gets one line, as promised; the class names the bug
        raise UserError(f"{path}: cannot inspect this plan ({e.__class__.__name__}: {e}); please report it")
    if as_json:
        print(json.dumps(result.as_json(), indent=2, ensure_ascii=False))
    else:
        print("\n".join(text_lines(result)))
    return 0 if result.runnable else 2


def _setting(label: str, s: Setting | None, unit: str = "") -> str | None:
    if s is None:
        return None
    return f"{label} {s.text()}" + (unit if s.written and s.source == "hard-coded" else "")


def text_lines(r: Inspection) -> list[str]:
    lines = [f"plan: {r.plan}", "thread groups:"]
    for g in r.thread_groups:
        settings = [x for x in (_setting("threads", g.threads), _setting("ramp-up", g.rampup, " s"),
                                _setting("loops", g.loops), _setting("duration", g.duration, " s"),
                                _setting("schedule", g.schedule)) if x]
        lines.append(f"  {g.kind} \"{g.name}\" ({g.role}): {', '.join(settings) or 'no settings'}; {g.control}")
    lines.append("timers and pauses:" if r.timers else "timers and pauses: none")
    for t in r.timers:
        mean = f"mean {t.mean_ms:g} ms" if t.mean_ms is not None else "mean known only at run time"
        role = "think time" if t.think else "pacing, not think time"
        lines.append(f"  {t.kind} \"{t.path}\": {mean}, {role}")
    lines.append("hosts the samplers reach:" if r.targets else "hosts the samplers reach: no HTTP or JDBC samplers")
    for t in r.targets:
        where = f"{t.protocol}://{t.host or '?'}:{t.port if t.port is not None else '?'}"
        if t.protocol.startswith("jdbc"):
            where = t.url or f"{where}/{t.database or ''}"
        lines.append(f"  \"{t.path}\": {where} ({t.via})")
    lines.append("CSV Data Set files:" if r.data_files else "CSV Data Set files: none")
    for d in r.data_files:
        state = "found" if d.found else "MISSING"
        lines.append(f"  \"{d.path}\": {d.written} -> {d.resolved or 'no path on this machine'}: {state}")
    lines.append("listeners that would run (disabled in derived plans):" if r.listeners else
                 "listeners that would run: none")
    for li in r.listeners:
        lines.append(f"  {li.kind} \"{li.path}\"" + (f" (writes {li.file})" if li.file else ""))
    lines.append("plugin elements:" if r.plugins else "plugin elements: none")
    for p in r.plugins:
        state = {True: "installed", False: "NOT installed", None: "no JMeter found to look in"}[p.installed]
        lines.append(f"  \"{p.name}\": {p.element}, plugins-manager id {p.plugin_id or 'unknown'} ({state})")
    if r.transactions:
        lines.append(f"transactions: {', '.join(r.transactions)}")
    lines += [f"note: {n}" for n in r.notes]
    lines += [f"blocker: {b}" for b in r.blockers]
    lines.append("runnable as a grid" if r.runnable else f"not runnable as a grid: {len(r.blockers)} blocker(s)")
    return lines


def derive_command(grid_path: Path, out: Path) -> int:
    """Each cell's derived plan under out/<cell-id>/plan.jmx, and what was changed; no load, no run folder."""
    from littlegrid.run.grid_file import load_grid
    from littlegrid.run.own_plan import derive_cell, planned_target

    grid = load_grid(grid_path)
    if grid.own_plan is None:
        raise UserError(f"{grid_path}: plan {grid.plan.name} is one of the suite's plans, which run as they are "
                        "(driven by properties); derive is for a plan of your own")
    target = planned_target(grid)
    home = _jmeter_home()
    for cell in grid.cells():
        path, derived = derive_cell(grid, cell, target, Path(out) / cell.id, home)
        print(f"{cell.id}: {path}")
        for change in derived.changes:
            print(f"  {change}")
    return 0
