"""Cells of an analysis: from a run folder's manifests (contract §4), or bare JTL files forming one cell."""

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from littlegrid.analysis.observed import server_metrics_csv
from littlegrid.analysis.observed.mapping import PoolSpec
from littlegrid.analysis.observed.observed_sources import Places
from littlegrid.analysis.observed.prometheus_text import parse_selector
from littlegrid.summary.model import STOP_REASONS, STOP_RULES, STOP_SLO
from littlegrid.usererror import UserError

MANIFEST = "manifest.json"  # the run's and each cell's (contract §4): run_folder writes them, this module reads them

# The sample server's endpoints whose service time is known from the request (server/README.md):
# GET / sleeps 100 ms; GET /io?ms=N&dist=D holds the thread for a mean of N ms drawn from D.
HOME_SERVICE_MS = 100.0
TOMCAT_DEFAULT_THREADS = 200


@dataclass(frozen=True)
class Service:
    """What the grid says about the server: c request threads and a per-request service time S."""

    servers: int
    service_ms: float
    dist: str  # "const" | "exp" | "lognormal"


@dataclass(frozen=True)
class Cell:
    """One point of the grid (one JMeter run) and everything analyze needs to know about it."""

    id: str
    index: int
    axes: dict
    jtl_paths: tuple
    status: str = "complete"
    reason: str | None = None
    plan_users: int | None = None  # users: the total N when split across engines, else threads per engine
    engines: int | None = None
    # users.<engine> threads when the runner split users (the total N) across remote engines; None otherwise
    threads_by_engine: dict | None = None
    # a user's plan over remote engines: each engine's threads in each load group (the groups may loop at different
    # rates, so an engine's share of the throughput follows its mix of groups, not its threads alone)
    groups_by_engine: dict | None = None
    remote_hosts: tuple = ()  # the engines as the controller named them: each one's rows carry that name as prefix
    controller_log: Path | None = None  # the controller's jmeter.log: when it saw each remote engine start and end
    think_ms: float | None = None
    think_dist: str | None = None
    think_offset_ms: float = 0.0
    rate_per_s: float | None = None  # open workload: intended arrival rate
    workload: str = "closed"  # "closed" | "open" | "spike" (users released at once: no steady state)
    warmup_s: float | None = None
    cooldown_s: float | None = None
    server_knobs: dict | None = None
    service: Service | None = None
    observed: Path | None = None  # observed.csv: what [observe] scraped (the sample server's actuator among them)
    server_metrics: Path | None = None  # an older folder's server-metrics.csv, read when there is no observed.csv
    host_metrics: Path | None = None  # the generator's host (host-metrics.csv)
    observe_counts: dict = field(default_factory=dict)  # per source: scrapes, failed, slow (the cell manifest's)
    observe_pools: tuple = ()  # [observe.pools]: observed.PoolSpec
    target_port: int | None = None  # the port under test: Tomcat's connector of that port is the pool under test
    # where the cell's target and each source ran (observed_sources.of_cell tells the cell's sources from them)
    places: Places = field(default_factory=Places)
    moved_target: dict | None = None  # the cell's target when an axis moved it from [target]'s (port or host axis)
    left_out_groups: tuple = ()  # a user's plan's setUp and tearDown thread groups: their rows are no load
    properties: dict = field(default_factory=dict)
    # why the runner stopped the cell (the manifest's "stop" record, summary.model.Stop's fields); None: a bare JTL
    stop: dict | None = None

    @property
    def intended_think_ms(self) -> float | None:
        """Mean think time asked for: think_ms, plus the offset for JMeter's Poisson timer (offset + Poisson(λ))."""
        if self.think_ms is None:
            return None
        return self.think_ms + (self.think_offset_ms if self.think_dist == "poisson" else 0.0)


@dataclass(frozen=True)
class Inputs:
    """The run around the cells: what summary.json's "run", "axes", tolerances and criteria come from."""

    run: dict
    axes: dict
    cells: tuple
    tolerances: dict
    criteria: tuple
    slos: tuple = ()  # the grid's slo: objectives the SLO capacity table answers, judged in no cell


def _load_json(path: Path) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise UserError(f"{path}:{e.lineno}: not valid JSON: {e.msg}") from None
    except OSError as e:
        raise UserError(f"{path}: cannot read: {e.strerror}") from None


def number(value):
    if value is None or value == "":
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def service_of(knobs: dict | None, properties: dict, target_path: str | None) -> Service | None:
    """The sample server's c and S for this cell, when the grid started it and the path names a known endpoint."""
    if knobs is None:
        return None
    servers = int(number(knobs.get("server.tomcat.threads.max")) or TOMCAT_DEFAULT_THREADS)
    throttle = number(knobs.get("littlegrid.throttle.max-concurrent"))
    if throttle and throttle > 0:
        servers = min(servers, int(throttle))  # the throttle, not Tomcat, then bounds concurrency in service
    path = properties.get("path", target_path)
    if not path:
        return None
    url = urlsplit(str(path))
    query = parse_qs(url.query)
    if url.path in ("", "/"):
        return Service(servers, HOME_SERVICE_MS, "const")
    if url.path == "/io" and "ms" in query:
        ms = number(query["ms"][0])
        if ms is None or ms <= 0:
            return None
        return Service(servers, ms, query.get("dist", ["const"])[0])
    return None


def from_run_folder(run_dir: Path) -> Inputs:
    """Read manifest.json and cells/<id>/manifest.json of a run folder written by `littlegrid run`."""
    manifest_path = run_dir / MANIFEST
    if not manifest_path.is_file():
        raise UserError(f"{run_dir}: not a run folder (no manifest.json); give JTL files to analyze them as one cell")
    manifest = _load_json(manifest_path)
    grid = manifest.get("grid") or {}
    target = grid.get("target") or {}
    cell_defaults = grid.get("cell") or {}
    placement = manifest.get("target")  # where the target ran, as the runner found it before any load
    server_started = True if (grid.get("server") or {}).get("start") is True else (
        False if grid.get("target") else None)
    port, pools, places = observe_context(manifest)
    cells = []
    for index, cell_id in enumerate(manifest.get("cells") or []):
        folder = run_dir / "cells" / cell_id
        cm_path = folder / MANIFEST
        if not cm_path.is_file():
            cells.append(Cell(id=cell_id, index=index, axes={}, jtl_paths=(), status="incomplete",
                              reason=f"{cm_path}: missing"))
            continue
        cm = _load_json(cm_path)
        props = cm.get("properties") or {}
        jtl = folder / "results.jtl"
        status, reason = cm.get("status", "complete"), cm.get("reason")
        if status == "complete" and not jtl.is_file():
            status, reason = "failed", f"{jtl}: missing"
        knobs = cm.get("server")
        cells.append(Cell(
            id=cm.get("id", cell_id),
            index=int(cm.get("index", index)),
            axes=cm.get("axes") or {},
            jtl_paths=(jtl,) if jtl.is_file() else (),
            status=status,
            reason=reason,
            plan_users=int(cm["users"]) if number(cm.get("users")) is not None else None,
            engines=int(number(cm.get("engines")) or 1),
            threads_by_engine=cm.get("threads_by_engine") or None,
            groups_by_engine=cm.get("load_groups_by_engine") or None,
            remote_hosts=tuple(cm.get("remote_hosts") or ()),
            controller_log=_existing(folder / "jmeter.log") if cm.get("remote_hosts") else None,
            left_out_groups=tuple(cm.get("setup_groups") or ()),
            think_ms=number(cm.get("think_ms", props.get("think_ms"))),
            think_dist=cm.get("think_dist", props.get("think_dist")),
            think_offset_ms=number(props.get("think_offset_ms")) or 0.0,
            rate_per_s=_offered_rate(cm, props),
            workload=_workload(cm, props),
            warmup_s=number(cm.get("warmup_s", cell_defaults.get("warmup_s"))),
            cooldown_s=number(cm.get("cooldown_s", cell_defaults.get("cooldown_s"))),
            server_knobs=knobs,
            service=service_of(knobs, props, target.get("path")),
            observed=_existing(folder / "observed.csv"),
            server_metrics=_existing(folder / server_metrics_csv.SOURCE),
            host_metrics=_existing(folder / "host-metrics.csv"),
            observe_counts=cm.get("observe") or {},
            observe_pools=pools,
            target_port=cell_port(props, port),
            places=replace(places, target=(own := cell_target(manifest, props))),
            moved_target=own if own is not None and _address(own) != _address(placement) else None,
            properties=props,
            stop=stop_record(cm.get("stop"), folder / MANIFEST),
        ))
    # every cell knows every cell's target: a source serving another's is not its own (observed_sources)
    cells = [replace(c, places=with_targets(c.places, [d.places.target for d in cells]))
             for c in cells]
    finished = sum(c.status != "incomplete" for c in cells)  # the runner marks a cell incomplete until it ends
    run = {
        "id": manifest.get("run_id", run_dir.name),
        "grid_name": manifest.get("grid_name", grid.get("name")),
        "plan": manifest.get("plan", grid.get("plan")),
        "description": grid.get("description"),
        "arms": grid.get("arms"),
        "expect": list(grid.get("expect") or []),  # expected findings (littlegrid.findings.expect)
        "started": manifest.get("started"),
        "ended": manifest.get("ended"),
        "versions": manifest.get("versions") or {},
        "host": manifest.get("host") or {},
        "server_knobs": (grid.get("server") or {}).get("knobs"),
        "server_cpus": (manifest.get("cpus") or {}).get("server"),
        "generator_cpus": (manifest.get("cpus") or {}).get("generator"),
        # the sample server started here, else a [target] elsewhere (the host measured is JMeter's), else unknown
        "server_started": server_started,
        "target": placement,  # null: an older folder, which did not record it
        "source": "run",
        "inputs": [str(run_dir)],
    }
    if finished < len(cells):
        run["unfinished"] = {"cells_finished": finished, "cells_total": len(cells), "reason": manifest.get("reason"),
                             "resume": f"littlegrid run --resume {run_dir}"}
    axes = {k: list(v) for k, v in (grid.get("axes") or {}).items()}
    if not axes:  # fall back to the values the cells carry, in first-seen order
        for c in cells:
            for k, v in c.axes.items():
                axes.setdefault(k, [])
                if v not in axes[k]:
                    axes[k].append(v)
    return Inputs(run=run, axes=axes, cells=tuple(cells), tolerances=dict(grid.get("tolerances") or {}),
                  criteria=tuple(grid.get("criteria") or ()), slos=tuple(grid.get("slo") or ()))


STOP_NUMBERS = ("at_s", "precision_asked", "x_rel", "r_rel", "warmup_s")
DURATION_STOP = {"rule": "duration", "reason": "duration"}  # a manifest from before the runner recorded its stop


def stop_record(stop, manifest: Path) -> dict:
    """A cell manifest's "stop" (docs/contracts.md) as summary.model.Stop's fields: its rule and reason checked,
    its figures numbers or null; none at all (an older runner's manifest) reads as a fixed duration. A record
    that is not one is the manifest's error, said in one line."""
    if stop is None:
        return dict(DURATION_STOP)
    if not isinstance(stop, dict) or stop.get("rule") not in STOP_RULES or stop.get("reason") not in STOP_REASONS:
        raise UserError(f"{manifest}: \"stop\" must be an object with rule {' or '.join(STOP_RULES)} and reason "
                        f"one of {', '.join(STOP_REASONS)}, not {json.dumps(stop)[:120]}")
    bad = [k for k in STOP_NUMBERS if stop.get(k) is not None and number(stop.get(k)) is None]
    if bad:
        raise UserError(f"{manifest}: \"stop\".{bad[0]} must be a number or null, not {stop[bad[0]]!r}")
    if stop.get("slo") not in (None, *STOP_SLO):
        raise UserError(f"{manifest}: \"stop\".slo must be {' or '.join(map(json.dumps, STOP_SLO))} or null, not "
                        f"{json.dumps(stop.get('slo'))[:60]}")
    why = stop.get("why")
    return {"rule": stop["rule"], "reason": stop["reason"], **{k: number(stop.get(k)) for k in STOP_NUMBERS},
            "why": str(why) if why is not None else None, "slo": stop.get("slo")}


def _offered_rate(cm: dict, props: dict) -> float | None:
    """The cell's offered rate λ: each engine of a distributed run offers the plan's rate_per_s (it is not split
    across engines as users are), so the cell's is that times the engines."""
    rate = number(cm.get("rate_per_s", props.get("rate_per_s")))
    return None if rate is None else rate * int(number(cm.get("engines")) or 1)


def _workload(cm: dict, props: dict) -> str:
    """The runner records the plan's workload; folders written before it did: a rate means open, a
    requests_per_user property or a plan named like spike.jmx means a spike."""
    if cm.get("workload") in ("closed", "open", "spike"):
        return cm["workload"]
    if number(cm.get("rate_per_s", props.get("rate_per_s"))) is not None:
        return "open"
    if "requests_per_user" in props or "spike" in Path(str(cm.get("plan", ""))).stem:
        return "spike"
    return "closed"


def observe_context(manifest: dict) -> tuple[int | None, tuple, Places]:
    """What reading a cell's scrapes needs from the run's manifest: the port under test, the grid's
    [observe.pools], and where each source and every cell's target ran (a cell's own target: cell_target)."""
    grid = manifest.get("grid") or {}
    placement = manifest.get("target")
    port = _port(placement, grid.get("target") or {}, grid.get("server"))
    targets = manifest.get("targets")  # every cell's, as the runner recorded them; older folders: [target]'s
    # an older folder's server-metrics.csv: the sample server's actuator, which the runner started on this host
    assumed = {server_metrics_csv.SOURCE: (grid.get("server") or {}).get("start") is True}
    return port, _pools(grid.get("observe")), Places(
        target=placement, targets=tuple(targets if targets is not None else [placement] if placement else []),
        sources=dict(manifest.get("observe_hosts") or {}), assumed=assumed)


def cell_port(properties: dict, port: int | None) -> int | None:
    """The port a cell's load went to: an axis (two deployments compared by port) overrides the run's."""
    return int(number(properties.get("port"))) if number(properties.get("port")) is not None else port


def cell_target(manifest: dict, properties: dict) -> dict | None:
    """A cell's own target: the host and port its load went to (a host or port axis overrides [target]'s), placed
    as the runner recorded it before any load; None for an older folder, which recorded no placement."""
    run_target = manifest.get("target")
    if run_target is None:
        return None
    host = str(properties.get("host") or run_target.get("host") or "")
    port = cell_port(properties, run_target.get("port"))
    recorded = [t for t in manifest.get("targets") or () if t.get("host") == host and t.get("port") == port]
    if recorded:
        return recorded[0]
    if run_target.get("host") == host:
        return {**run_target, "port": port}
    return {"host": host, "port": port, "addresses": [], "placement": "unknown"}


def with_targets(places: Places, targets: list) -> Places:
    """The places with `targets` among the run's targets (each host and port counted once)."""
    distinct = list({(t.get("host"), t.get("port")): t for t in [*places.targets, *targets] if t}.values())
    return replace(places, targets=tuple(distinct))


def _address(target: dict | None) -> tuple:
    return ((target or {}).get("host"), (target or {}).get("port"))


def _port(placement: dict | None, target: dict, server: dict | None) -> int | None:
    """The port under test: as the runner recorded it, else the grid's [target] port, else [server] port."""
    for value in ((placement or {}).get("port"), target.get("port"), (server or {}).get("port")):
        if number(value) is not None:
            return int(number(value))
    return None


def _pools(observe: dict | None) -> tuple:
    """The grid's [observe.pools] as the mapping reads them (the runner checked them before any load)."""
    pools = []
    for name, spec in ((observe or {}).get("pools") or {}).items():
        try:
            size = spec.get("size")
            pools.append(PoolSpec(name, parse_selector(spec["busy"]),
                                  parse_selector(size) if isinstance(size, str) else
                                  None if size is None else float(size)))
        except (AttributeError, KeyError, TypeError, UserError):
            continue  # not a pool the runner would have run with
    return tuple(pools)


def _existing(path: Path) -> Path | None:
    return path if path.is_file() and path.stat().st_size > 0 else None


def from_jtl_files(paths: list[Path]) -> Inputs:
    """Bare JTL files: one cell with no grid facts (N is then counted from the threads seen)."""
    for p in paths:
        if not p.is_file():
            raise UserError(f"{p}: no such file")
    cell_id = paths[0].name if len(paths) == 1 else f"{paths[0].name} (+{len(paths) - 1} files)"
    cell = Cell(id=cell_id, index=0, axes={}, jtl_paths=tuple(paths))
    run = {"id": paths[0].stem, "grid_name": None, "plan": None, "description": None, "arms": None, "expect": [],
           "started": None,
           "ended": None, "versions": {}, "host": {}, "server_knobs": None, "source": "jtl", "target": None,
           "inputs": [str(p) for p in paths]}
    return Inputs(run=run, axes={}, cells=(cell,), tolerances={}, criteria=())


def discover(inputs: list) -> Inputs:
    """One run folder, or one or more JTL files."""
    paths = [Path(p) for p in inputs]
    if not paths:
        raise UserError("analyze: give a run folder or JTL files")
    if len(paths) == 1 and paths[0].is_dir():
        return from_run_folder(paths[0])
    dirs = [p for p in paths if p.is_dir()]
    if dirs:
        raise UserError(f"{dirs[0]}: give either one run folder or JTL files, not both")
    return from_jtl_files(paths)
