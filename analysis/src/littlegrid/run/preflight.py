"""Before anything runs: how the controller reaches the engines (engine_access), the inputs of a run or a resume
checked, what would make every cell fail refused in one line (check_grid), and the plan printed with its expected time
(print_plan)."""

from __future__ import annotations

import dataclasses
import re
import socket
import sys
import tomllib
from pathlib import Path

from littlegrid.run import engines as eng, run_folder as rf
from littlegrid.run.grid import Cell, Grid
from littlegrid.run.observe import check_source
from littlegrid.run.parts import check as check_part, port_is_busy
from littlegrid.run.progress import Clock, hms
from littlegrid.run.sample_server import cpu_split, find_server_jar
from littlegrid.usererror import UserError


def threads_by_engine(grid: Grid, cell: Cell) -> dict[str, int] | None:
    """users is the total N: each remote engine's threads (None on one host, or for a plan without users)."""
    users = cell.plan_properties.get("users", number_or_text(grid.plan_defaults.get("users")))
    if not grid.remote_hosts or not isinstance(users, int) or isinstance(users, bool):
        return None
    return eng.split_users(users, list(grid.remote_hosts))


def engine_access(grid: Grid, keystore: Path | None, check: bool = True) -> Grid:
    """The grid with how its controller reaches the engines settled: --keystore over [engines] keystore; no
    keystore and no explicit ssl = false is refused before anything runs; ssl = false is warned about every run.
    check: whether the keystore must be here and valid now (a dry run may be planned on another machine)."""
    if not grid.remote_hosts:
        if keystore is not None:
            raise UserError(f"--keystore: {grid.path} names no remote_hosts")
        return grid
    rmi = grid.rmi
    away = [e for e in grid.remote_hosts if not eng.is_loopback(eng.host_and_port(e)[0])]
    if away and rmi.controller_host and eng.is_loopback(rmi.controller_host):
        raise UserError(f"{grid.path}: [engines] controller_host {rmi.controller_host} is a loopback address, which "
                        f"engines on other hosts ({', '.join(away)}) cannot call back; give the controller's address")
    if not rmi.ssl:
        if keystore is not None:
            raise UserError(f"--keystore: {grid.path} sets [engines] ssl = false; remove one of the two")
        print(eng.SSL_OFF_WARNING, file=sys.stderr, flush=True)
        return grid
    chosen = keystore if keystore is not None else rmi.keystore
    if chosen is None:
        raise UserError(f"{grid.path}: remote_hosts talk RMI over SSL and need the keystore the engines were started "
                        "with: [engines] keystore = \"FILE\" or --keystore FILE (`littlegrid engines keystore --out "
                        "FILE` makes one); [engines] ssl = false turns SSL off on a network you trust")
    where = "--keystore" if keystore is not None else f"{grid.path}: [engines] keystore"
    chosen = eng.check_keystore(chosen, where) if check else Path(chosen).expanduser().absolute()
    return dataclasses.replace(grid, rmi=dataclasses.replace(rmi, keystore=chosen))


# -- before anything runs ----------------------------------------------------------------------------
def pinned_cpus(grid: Grid) -> tuple[int, ...] | None:
    """The CPUs the system under test is pinned to: [server] cpus, or those of the part with role = "server"."""
    if grid.server is not None:
        return grid.server.cpus
    return next((p.cpus for p in grid.processes if p.role == "server"), None)


def check_grid(grid: Grid) -> None:
    """Refuse, in one line, what would make every cell fail: no server jar, a busy port, a part whose program is not
    there or whose port is taken, an unreachable target, an [observe] URL that does not answer Prometheus text
    (those two after the parts started, when the grid starts any)."""
    if grid.server is not None:
        find_server_jar()
        if grid.server.port is not None and port_is_busy(grid.server.port):
            raise UserError(f"{grid.path}: [server] port {grid.server.port} on 127.0.0.1 is already in use")
    if pinned_cpus(grid):
        cpu_split(pinned_cpus(grid))
    for spec in grid.processes:
        check_part(spec, grid.path)
    if not grid.processes:
        check_reachable(grid)
    for engine in grid.remote_hosts:
        host, _, port = engine.rpartition(":") if ":" in engine.lstrip("[").split("]")[-1] else (engine, "", "1099")
        _reachable(host.strip("[]"), int(port), f"{grid.path}: remote_hosts {engine} (is jmeter-server running?)")


def check_reachable(grid: Grid) -> None:
    """The target answers a connection (unless the runner starts the sample server) and every [observe] URL
    answers Prometheus text."""
    if grid.server is None:
        _reachable(grid.target.host, grid.target.port, f"{grid.path}: [target] {grid.target.host}:{grid.target.port}")
    for url, line in zip(grid.observe.sources, grid.observe.lines):
        check_source(url, f"{grid.path}:{line}: [observe] prometheus" if line else f"{grid.path}: [observe] prometheus")


def _reachable(host: str, port: int, what: str) -> None:
    try:
        with socket.create_connection((host, port), timeout=3):
            pass
    except OSError as e:
        raise UserError(f"{what}: cannot connect ({e.strerror or e})")


def resume_grid_path(folder: rf.RunFolder, grid_path: Path | None) -> Path:
    if grid_path is not None:
        return grid_path
    original = Path(folder.read_manifest().get("grid_file") or "")
    if original.is_file():
        return original
    raise UserError(f"{folder.root}: the grid file it was started with ({original}) is gone; give it as GRID")


def read_toml(path: Path) -> dict | None:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None


def valid_heap(heap: str) -> bool:
    return bool(re.fullmatch(r"\d+[kKmMgG]?", heap))


def server_warmup_s(grid: Grid) -> float:
    return grid.server.warmup_s if grid.server is not None else 0.0


def server_starts(cells: list[Cell]) -> int:
    starts, last = 0, object()
    for c in cells:
        if c.knobs is not None and c.knobs != last:
            starts, last = starts + 1, c.knobs
    return starts


def number_or_text(text: str | None):
    """A plan default as JSON: "10" -> 10, "0.5" -> 0.5, "exponential" stays; an expression (${...}) -> None."""
    if text is None or "${" in text:
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def print_plan(grid: Grid, cells: list[Cell], folder: Path) -> None:
    timing = grid.timing
    where = "the sample server (started by the runner)" if grid.server else f"{grid.target.host}:{grid.target.port}"
    engines = f", {grid.engines} remote engines ({', '.join(grid.remote_hosts)})" if grid.remote_hosts else ""
    length = (f"each until X and mean R are known to ±{timing.precision * 100:g}% (95%), at least a {timing.min_s:g} s "
              f"window, at most {timing.max_s:g} s" if timing.precise else f"of {timing.duration_s:g} s")
    cooldown = (f"the tail after the stop, {timing.cooldown_s:g} s at max_s" if timing.precise else
                f"{timing.cooldown_s:g} s")
    trims = f"warm-up found from the data, at least {timing.warmup_s:g} s; cool-down {cooldown}"
    print(f"grid {grid.name}: {len(cells)} cells {length} ({trims}), plan {grid.plan.name}, target {where}{engines}")
    if grid.server is not None and grid.server.cpus:
        print(f"the sample server runs on CPU {_cpu_words(grid.server.cpus)} ([server] cpus), JMeter on the others")
    for p in grid.processes:
        pinned = f" on CPU {_cpu_words(p.cpus)}" if p.cpus else ""
        under_test = ", the system under test: JMeter runs on the other CPUs" if p.role == "server" else ""
        print(f"started before the first cell, stopped after the last: {p.name} ({Path(p.command[0]).name}{pinned}"
              f"{under_test})")
    if grid.server is not None and grid.server.warmup_s:
        print(f"each start of the sample server is warmed for {grid.server.warmup_s:g} s before its cell "
              "([server] warmup_s; those requests are not recorded)")
    observed = list(grid.observe.sources) + (["the sample server's actuator"] if grid.server is not None else [])
    if observed:
        print(f"observed once a second beside each cell, into observed.csv: {', '.join(observed)}")
    if grid.remote_hosts:
        print(f"users is the total N, split across the {grid.engines} engines (the first engines listed take "
              "one more thread when N does not divide)")
    for c in cells:
        split = threads_by_engine(grid, c)
        print(f"  {c.index:>3}. {c.id}" + (f"  ({eng.split_text(split)})" if split else ""))
    expected = Clock([timing.duration_s] * len(cells), server_starts(cells), server_warmup_s(grid)).expected_total()
    bound = "at most about" if timing.precise else "about"  # a precise cell's length is known only as max_s
    print(f"expected time: {bound} {hms(expected)}; run folder: {folder}", flush=True)


def _cpu_words(cpus) -> str:
    return ", ".join(str(c) for c in cpus)
