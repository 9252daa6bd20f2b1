"""`littlegrid run`: execute a grid file cell by cell into a resumable run folder."""

from __future__ import annotations

import signal
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from littlegrid.render import words
from littlegrid.run import engines as eng, own_plan, placement, preflight, run_folder as rf, server_warmup
from littlegrid.run.cell_run import CellOutcome, Interrupted, run_cell
from littlegrid.run.grid import Cell, Grid, Target, format_value
from littlegrid.run.grid_file import load_grid
from littlegrid.run.jmeter import JMeter, find_jmeter, java_version
from littlegrid.run.parts import Parts
from littlegrid.run.plan_properties import save_service_properties, workload_of
from littlegrid.run.preflight import (check_reachable, engine_access, number_or_text, pinned_cpus, print_plan,
                                      read_toml, resume_grid_path, server_starts, server_warmup_s, threads_by_engine,
                                      valid_heap)
from littlegrid.run.progress import Clock, Live, hms
from littlegrid.run.sample_server import PORT_KNOBS, SampleServer, cpu_split
from littlegrid.run.stopping import Watcher, cell_rule, free_udp_port, port_properties, precise_conditions
from littlegrid.usererror import UserError


SUMMARISER_INTERVAL_S = 5
UNFINISHED = "not finished: running, or the runner stopped before the cell ended"


def run_grid(grid_path: Path | None, out: Path = Path("reports"), resume: Path | None = None, dry_run: bool = False,
             run_id: str | None = None, jmeter_heap: str = "1g", live: str | None = None,
             live_bind_any: bool = False, retry: int = 0, keystore: Path | None = None) -> Path:
    """Run every cell of the grid (or, with `resume`, every cell of that run not complete); returns the run folder.
    live: "[HOST:]PORT" to serve the live view there while the grid runs (littlegrid.run.live)."""
    address = live_address(live, live_bind_any)
    if resume is not None:
        folder = rf.RunFolder.open(resume)
        grid_path = resume_grid_path(folder, grid_path)
    grid = engine_access(load_grid(grid_path), keystore, check=not dry_run)
    cells = grid.cells()
    if resume is not None:
        if read_toml(folder.root / rf.GRID_COPY) != grid.raw:
            raise UserError(f"{grid_path}: differs from the grid this run was started with "
                            f"({folder.root / rf.GRID_COPY}); resume with the same grid, or start a new run")
    if not valid_heap(jmeter_heap):
        raise UserError(f"--jmeter-heap {jmeter_heap!r}: must look like 512m or 2g")
    if run_id is not None:
        rf.check_run_id(run_id)
    run_id = folder.root.name if resume is not None else (run_id or rf.new_run_id(grid.name))
    print_plan(grid, cells, Path(out) / run_id if resume is None else folder.root)
    if dry_run:
        return Path(out) / run_id if resume is None else folder.root

    jmeter = find_jmeter()
    preflight.check_grid(grid)  # through the module, so that one stand-in serves run and search
    if grid.own_plan is not None:
        # blockers and hosts the grid does not name: refused before any load; what engines elsewhere must hold
        for note in own_plan.check_cells(grid, cells, jmeter.home):
            print(note, flush=True)
    session = open_live(address, live_bind_any, f"{grid.name} ({run_id})")  # a busy port: refused here
    try:
        if resume is None:
            folder = rf.RunFolder.create(Path(out), run_id, grid_path)
        with folder.locked():  # a second run or --resume of this folder is refused while this one writes it
            return GridRun(grid, cells, folder, jmeter, jmeter_heap, resumed=resume is not None,
                        live=session.view if session else None, retry=retry).execute()
    finally:
        if session is not None:
            session.close()


def live_address(live: str | None, bind_any: bool) -> tuple[str, int] | None:
    """The live view's (host, port) from `--live [HOST:]PORT`, None without one; `--live-bind-any` alone refused.
    A run and a search read it alike (search/runner.py)."""
    if live is None:
        if bind_any:
            raise UserError("--live-bind-any: give --live [HOST:]PORT too")
        return None
    from littlegrid.run.live.server import parse_address
    return parse_address(live, bind_any)


def open_live(address: tuple[str, int] | None, bind_any: bool, title: str):
    """The live view's session at `address` (None: no live view), its URL printed; a busy port is refused here,
    before any load."""
    if address is None:
        return None
    from littlegrid.run.live import session as live_session
    session = live_session.open_live(*address, title=title, bind_any=bind_any)
    print(f"live view: {session.url}", flush=True)
    return session


class GridRun:
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
        self.cpus = cpu_split(pinned) if (pinned := pinned_cpus(grid)) else None
        self.parts = Parts(grid.processes, folder.root, grid.path)  # [processes.<name>], started before the first cell
        self.tty = sys.stdout.isatty()
        # a precise cell's stopping conditions given its rule (a search adds its SLO's to the precision's)
        self.stop_conditions = precise_conditions

    def execute(self) -> Path:
        manifest = self.manifest = self.start_manifest()
        self.folder.write_manifest(manifest)
        if self.live:
            self.live.run_started(self.folder.root, [c.id for c in self.cells], f"{self.grid.name} ({self.folder.root.name})")
        outages = _outage_cells(self.folder) if self.resumed else {}
        for cell_id, why in outages.items():
            print(f"{cell_id}: complete, but its analysis found an outage ({why}): running it again")
        todo = [c for c in self.cells
                if not (self.resumed and self.folder.cell_status(c.id) == "complete" and c.id not in outages)]
        clock = Clock([self.grid.timing.duration_s] * len(todo), server_starts(todo), server_warmup_s(self.grid))
        t0 = time.monotonic()
        status, reason = "incomplete", None
        try:
            with signals_raise_interrupted():
                self.start_parts()
                for cell in self.cells:
                    self._parts_alive()
                    if cell not in todo:
                        print(f"[{cell.index}/{len(self.cells)}] {cell.id}  complete already: kept")
                        continue
                    for attempt in range(1 + self.retry):
                        self.ensure_server(cell.knobs, clock)
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
            self.stop_server()
            self.parts.stop()
            manifest.update({"ended": rf.utc_now(), "status": status, "reason": reason})
            self.folder.write_manifest(manifest)
            if self.live:
                self.live.run_ended(status if reason is None else f"{status}: {reason}")
        return self.folder.root

    def start_manifest(self) -> dict:
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
    def start_parts(self) -> None:
        """Every [processes.<name>], in order, each set up and ready before the next; then what needed them up to be
        checked (the target answering, the [observe] sources), before any load. A failure stops them all (the
        caller's finally) and is refused in one line."""
        if not self.grid.processes:
            return
        self.parts.start(announce=lambda line: print(line, flush=True))
        check_reachable(self.grid)
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

    def _watched(self) -> dict:
        """run_cell's `server` and `server_name`: the process whose death fails a cell, the sample server's, else
        the part that is the system under test, named as the grid names it ([processes.<name>])."""
        if self.server is not None:
            return {"server": getattr(self.server, "process", None)}
        part = next((p for p in self.parts.started if p.spec.role == "server"), None)
        return {"server": part.process, "server_name": f"[processes.{part.spec.name}]"} if part is not None else {}

    # -- the sample server -----------------------------------------------------------------------
    def ensure_server(self, knobs: dict | None, clock: Clock) -> None:
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
        self.stop_server()
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

    def stop_server(self) -> None:
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
                               controller_options=controller_options(grid)
                               + [f"-J{k}={v}" for k, v in port_properties(port).items()],
                               on_progress=show, **self._watched(),
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
            return number_or_text(grid.plan_defaults.get(name))

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


def controller_options(grid: Grid) -> list[str]:
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


def _spring_knobs(knobs: dict) -> dict:
    return {k: v for k, v in knobs.items() if k not in PORT_KNOBS}


def _knob_text(knobs: dict) -> str:
    return ", ".join(f"{k}={format_value(v)}" for k, v in knobs.items()) or "its defaults"


@contextmanager
def signals_raise_interrupted():
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
