"""`littlegrid run`: execute a grid file cell by cell into a resumable run folder."""

from __future__ import annotations

import argparse
import dataclasses
import re
import signal
import socket
import sys
import threading
import time
import tomllib
from contextlib import contextmanager
from pathlib import Path

from littlegrid.run import engines as eng
from littlegrid.run import own_plan, placement
from littlegrid.run import run_folder as rf
from littlegrid.run import server_warmup
from littlegrid.run.cell_run import CellOutcome, Interrupted, run_cell
from littlegrid.run.grid import Cell, Grid, Target, format_value
from littlegrid.run.grid_file import load_grid
from littlegrid.run.jmeter import JMeter, find_jmeter, java_version
from littlegrid.run.observe import check_source
from littlegrid.run.plan_properties import save_service_properties, workload_of
from littlegrid.run.progress import Clock, Live, hms
from littlegrid.render import words
from littlegrid.run.stopping import Watcher, cell_rule, free_udp_port, port_properties, precise_conditions
from littlegrid.run.parts import Parts, check as check_part, port_is_busy
from littlegrid.run.sample_server import PORT_KNOBS, SampleServer, cpu_split, find_server_jar
from littlegrid.usererror import UserError

HELP = ("run a grid file: JMeter once per cell, the host and the [observe] sources sampled beside each, into "
        "reports/<run-id>/")
EXAMPLES = [
    "littlegrid run grids/ci.toml",
    "littlegrid run grids/ci.toml --dry-run",
    "littlegrid run grids/littles-law.toml --out reports/ --run-id littles-law-1",
    "littlegrid run --resume reports/20261122-120000-ci",
]

SUMMARISER_INTERVAL_S = 5
UNFINISHED = "not finished: running, or the runner stopped before the cell ended"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("grid", nargs="?", type=Path, help="the grid file (TOML); optional with --resume")
    parser.add_argument("--resume", type=Path, metavar="RUN_DIR", help="re-run only the cells of RUN_DIR not complete, "
                        "and those whose analysis found an outage, recovered or not (not a stall; the earlier attempt "
                        "kept in cells/<id>/attempts/)")
    parser.add_argument("--retry", type=int, default=0, metavar="N", help="re-run a failed cell up to N more times "
                        "during the run, each attempt kept (default 0)")
    parser.add_argument("--dry-run", action="store_true", help="validate, print the cells and the expected time, run nothing")
    parser.add_argument("--keystore", type=Path, metavar="FILE", help="the RMI keystore the remote engines were started "
                        "with (default: the grid's [engines] keystore; `littlegrid engines keystore` makes one)")
    add_run_arguments(parser, shown="the run", watched="the run")


def add_run_arguments(parser: argparse.ArgumentParser, shown: str, watched: str) -> None:
    """The options every command that runs cells takes (`run`, `search`): where the run folder goes, JMeter's heap,
    the live view. shown: what the live view shows; watched: what anyone reaching it can watch."""
    parser.add_argument("--out", type=Path, default=Path("reports"), help="parent of the run folder (default: reports/)")
    parser.add_argument("--run-id", metavar="ID", help="name of the run folder (default: <UTC time>-<grid name>)")
    parser.add_argument("--jmeter-heap", default="1g", metavar="SIZE", help="JMeter's -Xms/-Xmx (default: 1g)")
    parser.add_argument("--live", metavar="[HOST:]PORT", help=f"serve a live view of {shown} at http://HOST:PORT/ "
                        "(default host 127.0.0.1; docs/live.md)")
    parser.add_argument("--live-bind-any", action="store_true", help="let --live listen on an address that is not "
                        f"loopback (anyone who reaches it can watch {watched})")


def main(args: argparse.Namespace) -> int:
    if args.grid is None and args.resume is None:
        raise UserError("give a grid file, or --resume RUN_DIR")
    if args.retry < 0:
        raise UserError(f"--retry {args.retry}: must be 0 or more")
    folder = run_grid(args.grid, out=args.out, resume=args.resume, dry_run=args.dry_run, run_id=args.run_id,
                      jmeter_heap=args.jmeter_heap, live=args.live, live_bind_any=args.live_bind_any,
                      retry=args.retry, keystore=args.keystore)
    if args.dry_run:
        return 0
    manifest = rf.read_json(folder / rf.MANIFEST) or {}
    print(f"run folder: {folder}")
    return 0 if manifest.get("status") == "complete" else 1


def run_grid(grid_path: Path | None, out: Path = Path("reports"), resume: Path | None = None, dry_run: bool = False,
             run_id: str | None = None, jmeter_heap: str = "1g", live: str | None = None,
             live_bind_any: bool = False, retry: int = 0, keystore: Path | None = None) -> Path:
    """Run every cell of the grid (or, with `resume`, every cell of that run not complete); returns the run folder.
    live: "[HOST:]PORT" to serve the live view there while the grid runs (littlegrid.run.live)."""
    live_address = _live_address(live, live_bind_any)
    if resume is not None:
        folder = rf.RunFolder.open(resume)
        grid_path = _resume_grid_path(folder, grid_path)
    grid = _engine_access(load_grid(grid_path), keystore, check=not dry_run)
    cells = grid.cells()
    if resume is not None:
        if _toml(folder.root / rf.GRID_COPY) != grid.raw:
            raise UserError(f"{grid_path}: differs from the grid this run was started with "
                            f"({folder.root / rf.GRID_COPY}); resume with the same grid, or start a new run")
    if not _check_jmeter_heap(jmeter_heap):
        raise UserError(f"--jmeter-heap {jmeter_heap!r}: must look like 512m or 2g")
    if run_id is not None:
        rf.check_run_id(run_id)
    run_id = folder.root.name if resume is not None else (run_id or rf.new_run_id(grid.name))
    _print_plan(grid, cells, Path(out) / run_id if resume is None else folder.root)
    if dry_run:
        return Path(out) / run_id if resume is None else folder.root

    jmeter = find_jmeter()
    _preflight(grid)
    if grid.own_plan is not None:
        # blockers and hosts the grid does not name: refused before any load; what engines elsewhere must hold
        for note in own_plan.check_cells(grid, cells, jmeter.home):
            print(note, flush=True)
    session = _open_live(live_address, live_bind_any, f"{grid.name} ({run_id})")  # a busy port: refused here
    try:
        if resume is None:
            folder = rf.RunFolder.create(Path(out), run_id, grid_path)
        with folder.locked():  # a second run or --resume of this folder is refused while this one writes it
            return _Run(grid, cells, folder, jmeter, jmeter_heap, resumed=resume is not None,
                        live=session.view if session else None, retry=retry).execute()
    finally:
        if session is not None:
            session.close()


def _live_address(live: str | None, bind_any: bool) -> tuple[str, int] | None:
    if live is None:
        if bind_any:
            raise UserError("--live-bind-any: give --live [HOST:]PORT too")
        return None
    from littlegrid.run.live.server import parse_address
    return parse_address(live, bind_any)


def _open_live(address: tuple[str, int] | None, bind_any: bool, title: str):
    if address is None:
        return None
    from littlegrid.run.live.session import open_live
    session = open_live(*address, title=title, bind_any=bind_any)
    print(f"live view: {session.url}", flush=True)
    return session


class _Run:
    """One execution of a grid into a run folder: the server's lifecycle, the cells in order, the manifests."""

    def __init__(self, grid: Grid, cells: list[Cell], folder: rf.RunFolder, jmeter: JMeter, heap: str, resumed: bool,
                 live=None, retry: int = 0):
        self.grid, self.cells, self.folder, self.jmeter, self.heap = grid, cells, folder, jmeter, heap
        self.resumed, self.retry = resumed, retry
        self.live = live  # a littlegrid.run.live LiveView told which cell runs and which finished, or None
        self.server: SampleServer | None = None
        self.manifest: dict = {}  # the run's manifest as written; the sample server's start adds its placement
        self.server_port = grid.server.port if grid.server else None
        self.management_port: int | None = None  # the actuator's own port, chosen free at the first start
        # ([server] cpus, the CPUs left for JMeter) when the grid pins the server; None: both run anywhere
        self.cpus = cpu_split(pinned) if (pinned := _server_cpus(grid)) else None
        self.parts = Parts(grid.processes, folder.root, grid.path)  # [processes.<name>], started before the first cell
        self.tty = sys.stdout.isatty()
        # a precise cell's stopping conditions given its rule (a search adds its SLO's to the precision's)
        self.stop_conditions = precise_conditions

    def execute(self) -> Path:
        manifest = self.manifest = self._start_manifest()
        self.folder.write_manifest(manifest)
        if self.live:
            self.live.run_started(self.folder.root, [c.id for c in self.cells], f"{self.grid.name} ({self.folder.root.name})")
        outages = _outage_cells(self.folder) if self.resumed else {}
        for cell_id, why in outages.items():
            print(f"{cell_id}: complete, but its analysis found an outage ({why}): running it again")
        todo = [c for c in self.cells
                if not (self.resumed and self.folder.cell_status(c.id) == "complete" and c.id not in outages)]
        clock = Clock([self.grid.timing.duration_s] * len(todo), _server_starts(todo), _warmup_s(self.grid))
        t0 = time.monotonic()
        status, reason = "incomplete", None
        try:
            with _signals_raise_interrupted():
                self._start_parts()
                for cell in self.cells:
                    self._parts_alive()
                    if cell not in todo:
                        print(f"[{cell.index}/{len(self.cells)}] {cell.id}  complete already: kept")
                        continue
                    for attempt in range(1 + self.retry):
                        self._ensure_server(cell.knobs, clock)
                        outcome = self._run_cell(cell, clock, t0)
                        if outcome.status == "complete" or attempt == self.retry:
                            break
                        print(f"{cell.id}: {outcome.status} ({outcome.reason}); retry {attempt + 1} of {self.retry}")
            statuses = [self.folder.cell_status(c.id) for c in self.cells]
            failed = [c.id for c, s in zip(self.cells, statuses) if s != "complete"]
            status = "complete" if not failed else "failed"
            reason = None if not failed else f"{len(failed)} cell(s) not complete: {', '.join(failed[:5])}"
        except Interrupted as e:
            reason = f"interrupted by {e.signal_name}"
            print(f"\n{reason}: JMeter and the sample server stopped; finished cells kept. "
                  f"Resume with: littlegrid run --resume {self.folder.root}", file=sys.stderr)
            raise
        except UserError as e:
            status, reason = "failed", str(e)
            raise
        finally:
            self._stop_server()
            self.parts.stop()
            manifest.update({"ended": rf.utc_now(), "status": status, "reason": reason})
            self.folder.write_manifest(manifest)
            if self.live:
                self.live.run_ended(status if reason is None else f"{status}: {reason}")
        return self.folder.root

    def _start_manifest(self) -> dict:
        previous = self.folder.read_manifest() if self.resumed else {}
        grid = self.grid
        return {
            "schema": rf.RUN_SCHEMA,
            "run_id": self.folder.root.name,
            "grid_name": grid.name,
            "description": grid.description,
            "grid_file": str(grid.path.resolve()),
            "grid": grid.raw,
            "plan": str(grid.plan),
            **({"plan_sha256": own_plan.sha256(grid.plan), "plan_options": grid.raw.get("plan_options", {})}
               if grid.own_plan is not None else {}),
            "started": previous.get("started") or rf.utc_now(),
            "resumed": previous.get("resumed", []) + ([rf.utc_now()] if self.resumed else []),
            "ended": None,
            "status": "running",
            "reason": None,
            "versions": rf.versions(self.jmeter.version, java_version()),
            "host": rf.host_facts(),
            "remote_hosts": list(grid.remote_hosts),
            "engines": grid.engines,
            **({"cpus": {"server": list(self.cpus[0]), "generator": list(self.cpus[1])}} if self.cpus else {}),
            **({"rmi": {"ssl": grid.rmi.ssl, "keystore": str(grid.rmi.keystore) if grid.rmi.keystore else None,
                        "controller_host": grid.rmi.controller_host}} if grid.remote_hosts else {}),
            "cells": [c.id for c in self.cells],
            **self._placements(),
        }

    def _placements(self) -> dict:
        """Where the target and each [observe] source run, found before any load (run/placement.py): the
        manifest's "target", "targets" and "observe_hosts". The sample server runs here, on its loopback address."""
        target = self._target()
        sources = self._observe_sources()
        port = target.port or self.server_port or None
        return {"target": placement.placement(target.host, port),
                # every cell's, when a host or port axis moves the target: each cell's sources are told by it
                "targets": placement.of_targets(target.host, port, [c.plan_properties for c in self.cells]),
                "observe_hosts": {url: placement.of_url(url) for url in sources}}

    # -- the parts the grid starts ------------------------------------------------------------------
    def _start_parts(self) -> None:
        """Every [processes.<name>], in order, each set up and ready before the next; then what needed them up to be
        checked (the target answering, the [observe] sources), before any load. A failure stops them all (the
        caller's finally) and is refused in one line."""
        if not self.grid.processes:
            return
        self.parts.start(announce=lambda line: print(line, flush=True))
        _preflight_reachable(self.grid)
        self.manifest["processes"] = {p.spec.name: {"command": p.argv(p.spec.command), "log": str(p.log),
                                                    **({"cpus": list(p.spec.cpus)} if p.spec.cpus else {}),
                                                    **({"role": p.spec.role} if p.spec.role else {})}
                                      for p in self.parts.started}
        self.folder.write_manifest(self.manifest)

    def _parts_alive(self) -> None:
        dead = self.parts.dead()
        if dead:
            name, code = dead[0]
            raise UserError(f"[processes.{name}] exited with code {code} during the run "
                            f"(see {self.folder.root / 'processes' / name / (name + '.log')})")

    def _watched(self):
        """The process whose death fails a cell: the sample server's, else the part that is the system under test."""
        if self.server is not None:
            return getattr(self.server, "process", None)
        return next((p.process for p in self.parts.started if p.spec.role == "server"), None)

    # -- the sample server -----------------------------------------------------------------------
    def _ensure_server(self, knobs: dict | None, clock: Clock) -> None:
        """Start the sample server with these knobs, restarting it only when they differ from the running ones."""
        if knobs is None:
            return
        if self.server is not None and self.server.knobs == _spring_knobs(knobs):
            process = getattr(self.server, "process", None)
            if process is None or process.poll() is None:
                return
            # It died during the previous cell (whose samples show it); the next cell gets a fresh one.
            print(f"sample server: exited with code {process.returncode} (see {self.folder.server_log}); restarting",
                  flush=True)
        self._stop_server()
        spec = self.grid.server
        t = time.monotonic()
        print(f"sample server: starting with {_knob_text(knobs)}", flush=True)
        server = SampleServer(knobs, port=self.server_port, management_port=self.management_port,
                              log=self.folder.server_log, heap=spec.heap, ready_timeout_s=spec.ready_timeout_s,
                              cpus=self.cpus[0] if self.cpus else None)
        self.server_port, self.management_port = server.port, server.management_port  # kept for the whole run
        self.server = server  # before start(): a Ctrl-C while it boots must still stop it
        server.start()
        self.manifest.update(self._placements())  # its port and actuator, known now, before any load
        self.folder.write_manifest(self.manifest)
        if spec.warmup_s > 0:
            target = self._target()
            done = server_warmup.warm(target.host, target.port, target.path, spec.warmup_s, target.method, target.body)
            print(f"sample server: warmed for {done.seconds:.0f} s ({done.requests:,} requests to {target.path}"
                  + (f", {done.failures:,} failed" if done.failures else "") + "; not recorded)", flush=True)
        clock.server_started(time.monotonic() - t)

    def _stop_server(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            server.stop()

    # -- one cell ---------------------------------------------------------------------------------
    def _run_cell(self, cell: Cell, clock: Clock, t0: float) -> CellOutcome:
        grid, n = self.grid, len(self.cells)
        folder, attempts = self.folder.fresh_cell_dir(cell.id)
        target = self._target()
        properties = cell_properties(grid, cell, target)
        plan, derived_fields = grid.plan, {}
        if grid.own_plan is not None:  # the cell runs the plan derived from the user's, kept in its folder
            plan, derived = own_plan.derive_cell(grid, cell, target, folder, self.jmeter.home)
            derived_fields = own_plan.manifest_fields(grid, derived, plan)
            # with remote engines, each engine's share of each load group, which its derived plan reads
            properties.update({k: format_value(v) for k, v in derived.engine_properties.items()})
        base = {**self._cell_manifest(cell, properties), **derived_fields, "started": rf.utc_now(),
                **({"attempts": attempts} if attempts else {})}
        # Written before JMeter starts, so that a runner killed mid-cell leaves the cell marked as not finished.
        self.folder.write_cell_manifest(cell.id, {**base, "status": "incomplete", "reason": UNFINISHED})
        if self.live:
            self.live.cell_started(cell.id, folder, index=cell.index, duration_s=grid.timing.duration_s,
                                   warmup_s=grid.timing.warmup_s, engines=grid.engines, axes=cell.axes,
                                   engine_names=tuple(grid.remote_hosts))
        prefix = f"[{cell.index}/{n}] {cell.id}"

        timing = grid.timing
        bound = "≤" if timing.precise else ""  # a precise cell's length is known only as its bound, max_s

        def show(live: Live, took: float) -> None:
            if self.tty:
                eta = clock.expected_total() - min(took, timing.duration_s)
                print(f"\r\033[K{prefix}  {hms(took)}/{bound}{hms(timing.duration_s)}  {live.text()}  "
                      f"elapsed {hms(time.monotonic() - t0)}  ETA {bound}{hms(eta)}", end="", flush=True)

        outcome = None
        port = free_udp_port()  # JMeter's own command port, this cell's alone (run/stopping.py)
        rule = cell_rule(timing.rule(), base, grid.tolerances) if timing.precise else None
        watcher = Watcher(folder / rf.RESULTS, rule, self.stop_conditions(rule)) if rule is not None else None
        try:
            outcome = run_cell(self.jmeter, plan, folder, properties, duration_s=timing.duration_s,
                               remote_hosts=list(grid.remote_hosts), heap=self.heap,
                               controller_options=_controller_options(grid)
                               + [f"-J{k}={v}" for k, v in port_properties(port).items()],
                               on_progress=show, server=self._watched(),
                               cpus=self.cpus[1] if self.cpus else None,
                               server_cpus=self.cpus[0] if self.cpus else None,
                               observe_sources=self._observe_sources(), observe_keep=grid.observe.keep,
                               command_port=port, watcher=watcher)
        except Interrupted as e:
            stopped = {"stop": watcher.stop("interrupted").model_dump()} if watcher is not None else {}
            self.folder.write_cell_manifest(cell.id, {**base, "ended": rf.utc_now(),
                                                      "status": "incomplete", "reason": f"interrupted by {e.signal_name}",
                                                      "exit_code": None, "samples": rf.count_samples(folder / rf.RESULTS),
                                                      **stopped})
            raise
        finally:
            if watcher is not None:
                watcher.close()
        manifest = {**base, "started": outcome.started, "ended": outcome.ended, "status": outcome.status,
                    "reason": outcome.reason, "exit_code": outcome.exit_code, "samples": outcome.samples,
                    **({"stop": outcome.stop.model_dump()} if outcome.stop is not None else {}),
                    **({"load_s": round(outcome.load_s, 3)} if timing.precise and outcome.load_s is not None else {})}
        if outcome.observed is not None:
            manifest["observe"] = outcome.observed
        if grid.remote_hosts:  # which engine produced what: rows carry the engine as thread-name prefix
            manifest["samples_by_engine"] = rf.samples_by_engine(folder / rf.RESULTS, list(grid.remote_hosts))
        self.folder.write_cell_manifest(cell.id, manifest)
        if self.live:
            self.live.cell_finished(cell.id)
        clock.cell_done(timing.duration_s, outcome.took_s, outcome.load_s)
        rate = outcome.samples / max(1.0, outcome.load_s or timing.duration_s)
        errors = "" if outcome.errors is None else \
            f"errors {outcome.errors} ({100.0 * outcome.errors / max(1, outcome.samples):.2f}%)  "
        stopped = f"{words.stopped(outcome.stop)}  " \
            if timing.precise and outcome.stop is not None and outcome.status == "complete" else ""
        print(("\r\033[K" if self.tty else "")
              + f"{prefix}  {outcome.status}  {stopped}{outcome.samples} samples (≈{rate:.1f}/s)  {errors}"
              + (f"reason: {outcome.reason}  " if outcome.reason else "")
              + f"elapsed {hms(time.monotonic() - t0)}  ETA {bound}{hms(clock.expected_total())}", flush=True)
        return outcome

    def _observe_sources(self) -> list[str]:
        """[observe]'s endpoints, and the sample server's actuator when the runner started it: one path for both."""
        return list(self.grid.observe.sources) + ([self.server.metrics_url] if self.server is not None else [])

    def _target(self) -> Target:
        t = self.grid.target
        if self.server is None:
            return t
        return Target(host="127.0.0.1", port=self.server.port, path=t.path, method=t.method, body=t.body,
                      protocol="http")

    def _cell_manifest(self, cell: Cell, properties: dict) -> dict:
        grid, timing = self.grid, self.grid.timing
        def intended(name):
            # The grid's value, else the plan's own default (what JMeter ran with), as a number where it is one.
            if name in cell.plan_properties:
                return cell.plan_properties[name]
            return _number_or_text(grid.plan_defaults.get(name))

        return {
            "id": cell.id, "index": cell.index, "axes": cell.axes, "properties": properties,
            "plan": str(grid.plan), "workload": workload_of(grid.plan_defaults),
            "users": intended("users"), "engines": grid.engines,
            **({"threads_by_engine": split} if (split := threads_by_engine(grid, cell)) else {}),
            "remote_hosts": list(grid.remote_hosts),
            "think_ms": intended("think_ms"), "think_dist": intended("think_dist"),
            "rate_per_s": intended("rate_per_s"),
            "duration_s": timing.duration_s, "warmup_s": timing.warmup_s, "cooldown_s": timing.cooldown_s,
            "rampup_s": timing.rampup_s, "repetition": cell.repetition, "server": cell.knobs,
            "until": timing.until,
            **({"precision": timing.precision, "min_s": timing.min_s, "max_s": timing.max_s} if timing.precise else {}),
            "started": None, "ended": None,
        }


def _outage_cells(folder: rf.RunFolder) -> dict[str, str]:
    """The cells of a run folder that ran to their end but whose analysis found an outage (the server or target
    stopped answering: requests failed in it, or it never came back), recovered or not: {cell id: the analysis's
    reason}. A stall (requests held, then all answered) leaves the cell complete: its data are what the server did,
    and running it again would only hide the pause. Analysed now, from the cells' own files."""
    from littlegrid.summarize import analyze  # the resume's one use of the analysis
    try:
        summary = analyze([folder.root])
    except UserError as e:
        print(f"note: the cells could not be analysed for outages ({e}); only cells not complete run again")
        return {}
    return {c.id: c.reason or "outage" for c in summary.cells if c.status == "outage"}


def cell_properties(grid: Grid, cell: Cell, target: Target) -> dict:
    """Every -J property of a cell: save-service settings, summariser, JMeter's own, target, timing, the plan's."""
    props = {**save_service_properties(),
             "summariser.name": "summary", "summariser.interval": SUMMARISER_INTERVAL_S, "summariser.out": "true"}
    props.update(grid.jmeter_properties)
    props.update(target.properties())
    props.update({"duration_s": grid.timing.duration_s, "rampup_s": grid.timing.rampup_s})
    props.update(cell.plan_properties)
    props.update(eng.users_properties(threads_by_engine(grid, cell) or {}))  # each engine's share of N
    return {k: format_value(v) for k, v in props.items()}


def threads_by_engine(grid: Grid, cell: Cell) -> dict[str, int] | None:
    """users is the total N: each remote engine's threads (None on one host, or for a plan without users)."""
    users = cell.plan_properties.get("users", _number_or_text(grid.plan_defaults.get("users")))
    if not grid.remote_hosts or not isinstance(users, int) or isinstance(users, bool):
        return None
    return eng.split_users(users, list(grid.remote_hosts))


def _engine_access(grid: Grid, keystore: Path | None, check: bool = True) -> Grid:
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


def _controller_options(grid: Grid) -> list[str]:
    """The controller's RMI settings as JMeter options (-J, never sent to the engines with -G), and the address the
    engines call it back on."""
    if not grid.remote_hosts:
        return []
    options = [f"-J{k}={v}" for k, v in grid.rmi.properties().items()]
    host = grid.rmi.controller_host
    if host is None and all(eng.is_loopback(eng.host_and_port(e)[0]) for e in grid.remote_hosts):
        host = "127.0.0.1"  # engines on this host only; JMeter refuses to export the controller under a loopback name
    if host:
        options.append(f"-Djava.rmi.server.hostname={host}")
    return options


# -- before anything runs ----------------------------------------------------------------------------
def _server_cpus(grid: Grid) -> tuple[int, ...] | None:
    """The CPUs the system under test is pinned to: [server] cpus, or those of the part with role = "server"."""
    if grid.server is not None:
        return grid.server.cpus
    return next((p.cpus for p in grid.processes if p.role == "server"), None)


def _preflight(grid: Grid) -> None:
    """Refuse, in one line, what would make every cell fail: no server jar, a busy port, a part whose program is not
    there or whose port is taken, an unreachable target, an [observe] URL that does not answer Prometheus text
    (those two after the parts started, when the grid starts any)."""
    if grid.server is not None:
        find_server_jar()
        if grid.server.port is not None and port_is_busy(grid.server.port):
            raise UserError(f"{grid.path}: [server] port {grid.server.port} on 127.0.0.1 is already in use")
    if _server_cpus(grid):
        cpu_split(_server_cpus(grid))
    for spec in grid.processes:
        check_part(spec, grid.path)
    if not grid.processes:
        _preflight_reachable(grid)
    for engine in grid.remote_hosts:
        host, _, port = engine.rpartition(":") if ":" in engine.lstrip("[").split("]")[-1] else (engine, "", "1099")
        _reachable(host.strip("[]"), int(port), f"{grid.path}: remote_hosts {engine} (is jmeter-server running?)")


def _preflight_reachable(grid: Grid) -> None:
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


def _resume_grid_path(folder: rf.RunFolder, grid_path: Path | None) -> Path:
    if grid_path is not None:
        return grid_path
    original = Path(folder.read_manifest().get("grid_file") or "")
    if original.is_file():
        return original
    raise UserError(f"{folder.root}: the grid file it was started with ({original}) is gone; give it as GRID")


def _toml(path: Path) -> dict | None:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None


def _check_jmeter_heap(heap: str) -> bool:
    return bool(re.fullmatch(r"\d+[kKmMgG]?", heap))


def _warmup_s(grid: Grid) -> float:
    return grid.server.warmup_s if grid.server is not None else 0.0


def _server_starts(cells: list[Cell]) -> int:
    starts, last = 0, object()
    for c in cells:
        if c.knobs is not None and c.knobs != last:
            starts, last = starts + 1, c.knobs
    return starts


def _number_or_text(text: str | None):
    """A plan default as JSON: "10" -> 10, "0.5" -> 0.5, "exponential" stays; an expression (${...}) -> None."""
    if text is None or "${" in text:
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _spring_knobs(knobs: dict) -> dict:
    return {k: v for k, v in knobs.items() if k not in PORT_KNOBS}


def _knob_text(knobs: dict) -> str:
    return ", ".join(f"{k}={format_value(v)}" for k, v in knobs.items()) or "its defaults"


def _print_plan(grid: Grid, cells: list[Cell], folder: Path) -> None:
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
    expected = Clock([timing.duration_s] * len(cells), _server_starts(cells), _warmup_s(grid)).expected_total()
    bound = "at most about" if timing.precise else "about"  # a precise cell's length is known only as max_s
    print(f"expected time: {bound} {hms(expected)}; run folder: {folder}", flush=True)


def _cpu_words(cpus) -> str:
    return ", ".join(str(c) for c in cpus)


@contextmanager
def _signals_raise_interrupted():
    """SIGTERM and SIGINT raise Interrupted in the main thread, so that every `finally` stops what it started."""
    def handler(signum, frame):
        raise Interrupted(signal.Signals(signum).name)

    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return
    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
