"""`littlegrid search`: probe a grid's range axis cell by cell (ordinary cells of an ordinary run folder, run by
the grid runner) until the strategy answers; search.json and the answer in words."""

from __future__ import annotations

import argparse
import time
import tomllib
from dataclasses import replace
from pathlib import Path

from littlegrid.analysis import cells as cells_mod
from littlegrid.analysis.cell import analyze_cell
from littlegrid.analysis.modelling import models
from littlegrid.analysis.queueing import laws
from littlegrid.findings.base import overhead_explains
from littlegrid.render import words
from littlegrid.run import run_folder as rf
from littlegrid.run.grid import Cell, Grid, cell_id
from littlegrid.run.grid_file import load_grid
from littlegrid.run.progress import Clock, hms
from littlegrid.run.command import add_run_arguments
from littlegrid.run.stopping import precise_conditions
from littlegrid.search.early_stop import SloClear
from littlegrid.search.result import document, load_words, probe_record, probe_words, progress_record, search_record
from littlegrid.search.slo import figures, parse_slo
from littlegrid.search.strategy import Answer, Probe, Space, next_step, remaining
from littlegrid.summarize import analyze
from littlegrid.summary import model
from littlegrid.usererror import UserError

HELP = "capacity search: the largest load of a grid's range axis that meets an SLO, in a handful of cells"
EXAMPLES = [
    'littlegrid search grids/search-home.toml --slo "p90 < 300ms"',
    'littlegrid search grids/search-home.toml --slo "p99 <= 1s and error_rate < 1%" --run-id home-1',
    'littlegrid search grids/search-home.toml --slo "p90 < 300ms" --run-id home-1 --resume',
    'littlegrid search grids/search-home.toml --slo "p90 < 300ms" --live 8050',
]
SEARCH_JSON = "search.json"
# A probe is trusted only when these checks pass (laws.py): the data is consistent (closed law), the generator
# delivered the load asked for (workload fidelity, open rate) and was big enough (generator sizing).
VALIDITY = ("closed_law", "workload", "open_rate", "generator_sizing")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("grid", type=Path, help="a grid file with one range axis, e.g. users = { min = 1, max = 400 }")
    parser.add_argument("--slo", action="append", required=True, metavar="CRITERION",
                        help='the objective, in the criteria grammar ("p90 < 300ms"); repeat or join with "and"')
    parser.add_argument("--resume", action="store_true", help="continue the search in --out/--run-id: finished "
                        "probes are kept, the strategy replays them and goes on")
    add_run_arguments(parser, shown="the probes and the converging answer", watched="the search")


def main(args: argparse.Namespace) -> int:
    folder, doc = search(args.grid, args.slo, out=args.out, run_id=args.run_id, resume=args.resume,
                         jmeter_heap=args.jmeter_heap, live=args.live, live_bind_any=args.live_bind_any)
    print(f"run folder: {folder}  ({folder / SEARCH_JSON})")
    answers = doc["answer"] if isinstance(doc["answer"], list) else [doc["answer"]]
    return 0 if all(a["kind"] != "invalid" for a in answers) else 1


def spaces(grid: Grid) -> tuple[str, list[tuple[dict, Space]]]:
    """The searched axis and one Space per combination of the other axes (the grid's list axes)."""
    if not grid.ranges:
        raise UserError(f"{grid.path}: no range axis to search: write the load as a range, e.g. "
                        "users = { min = 1, max = 400 } (or rate_per_s with open.jmx)")
    axis, rng = next(iter(grid.ranges.items()))
    flat = replace(grid, ranges={}, timing=replace(grid.timing, repetitions=1))
    groups = [c.axes for c in flat.cells()] if grid.axes else [{}]
    out = []
    for group in groups:
        cell = probe_cell(grid, group, axis, rng.low, 1, 1)
        service = cells_mod.service_of(cell.knobs, cell.plan_properties, grid.target.path if grid.target else None)
        out.append((group, Space(axis, rng.low, rng.high, rng.resolution,
                                 service=(service.servers, service.service_ms) if service else None,
                                 precision=grid.timing.precision if grid.timing.precise else None)))
    return axis, out


def probe_cell(grid: Grid, group: dict, axis: str, load: float, attempt: int, index: int) -> Cell:
    """The cell of one probe: the grid's own expansion at one point (plan properties, knobs), with the search
    axis last in its id and a rep suffix from the second probe at the same load on."""
    point = replace(grid, ranges={}, axes={**{k: [v] for k, v in group.items()}, axis: [load]},
                    timing=replace(grid.timing, repetitions=1))
    cell = point.cells()[0]
    return replace(cell, index=index, id=cell_id(cell.axes, attempt if attempt > 1 else None), repetition=attempt)


def search(grid_path: Path, slo_texts: list[str], out: Path = Path("reports"), run_id: str | None = None,
           resume: bool = False, jmeter_heap: str = "1g", live: str | None = None,
           live_bind_any: bool = False) -> tuple[Path, dict]:
    """Run the search; returns the run folder and search.json's content. Everything is refused before load.
    live: "[HOST:]PORT" to serve the live view there (the grid runner's, with the search's progress)."""
    from littlegrid.run.jmeter import find_jmeter
    from littlegrid.run import preflight
    from littlegrid.run.runner import live_address, open_live, GridRun

    address = live_address(live, live_bind_any)
    grid = preflight.engine_access(load_grid(grid_path), None)  # remote engines: the grid's keystore, or ssl = false warned
    slo = parse_slo(slo_texts)
    axis, searches = spaces(grid)
    if resume and run_id is None:
        raise UserError("--resume: give the --run-id of the search to continue")
    if run_id is not None:
        rf.check_run_id(run_id)
    run_id = run_id or rf.new_run_id(grid.name)
    jmeter = find_jmeter()
    preflight.check_grid(grid)
    folder = None
    if resume:
        folder = rf.RunFolder.open(Path(out) / run_id)
        _same_search(folder, grid, slo_texts)
    session = open_live(address, live_bind_any, f"search {grid.name} ({run_id})")  # a busy port: refused here
    try:
        folder = folder or rf.RunFolder.create(Path(out), run_id, grid_path)
        run = GridRun(grid, [], folder, jmeter, jmeter_heap, resumed=resume, live=session.view if session else None)
        return _search(run, grid_path, slo, slo_texts, axis, searches, out, resume)
    finally:
        if session is not None:
            session.close()


def _search(run, grid_path: Path, slo, slo_texts: list[str], axis: str, searches: list, out: Path,
            resume: bool) -> tuple[Path, dict]:
    from littlegrid.run.runner import signals_raise_interrupted

    grid, folder, view, run_id = run.grid, run.folder, run.live, run.folder.root.name
    # the runner's own writes (the sample server's placement when it starts) must carry the search's cells
    manifest = run.manifest = run.start_manifest()
    manifest["search"] = {"axis": axis, "slo": list(slo_texts), "range": [searches[0][1].low, searches[0][1].high]}
    done = _finished_cells(folder, manifest_cells=(folder.read_manifest().get("cells") or []) if resume else [])
    manifest["cells"] = [c for c in done]
    print(f"search {grid.name}: {axis} in {load_words(searches[0][1], searches[0][1].low)}.."
          f"{load_words(searches[0][1], searches[0][1].high)}, SLO {' and '.join(slo_texts)}, "
          f"{len(searches)} search{'es' if len(searches) > 1 else ''}, "
          + (f"probes until precise or their SLO verdict is clear, at most {grid.timing.max_s:g} s; "
             if grid.timing.precise else f"cells of {grid.timing.duration_s:g} s; ")
          + f"run folder {folder.root}", flush=True)
    prober = _Prober(grid, run, folder, manifest, slo, axis, slo_texts, view)
    if view is not None:
        view.run_started(folder.root, list(done), f"search {grid.name} ({folder.root.name})")
    results, status, reason, ended = [], "incomplete", None, "failed"
    try:
        with signals_raise_interrupted():
            run.start_parts()  # the grid's [processes], up before the first probe
            for group, space in searches:
                results.append(prober.search(group, space))
                rf.write_json(folder.root / SEARCH_JSON, document(space, slo_texts, results))
        status = ended = "complete"
    except KeyboardInterrupt as e:
        reason, ended = f"interrupted by {getattr(e, 'signal_name', 'SIGINT')}", "interrupted"
        print(f"\n{reason}: finished probes kept. Resume with: littlegrid search {grid_path} "
              f"--slo {' --slo '.join(repr(t) for t in slo_texts)} --out {out} --run-id {run_id} --resume")
        raise
    except UserError as e:
        status, reason = "failed", str(e)
        raise
    finally:
        run.stop_server()
        run.parts.stop()
        manifest.update({"ended": rf.utc_now(), "status": status, "reason": reason})
        folder.write_manifest(manifest)
        if view is not None:
            view.run_ended(ended)
    doc = document(searches[0][1], slo_texts, results)
    rf.write_json(folder.root / SEARCH_JSON, doc)
    from littlegrid import summary  # so that report, check and compare find the analysis made
    summary.write(analyze([folder.root]), folder.root / "summary.json")
    return folder.root, doc


def _same_search(folder: rf.RunFolder, grid: Grid, slo_texts: list[str]) -> None:
    try:
        copy = tomllib.loads((folder.root / rf.GRID_COPY).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        copy = None
    if copy != grid.raw:
        raise UserError(f"{grid.path}: differs from the grid this search was started with "
                        f"({folder.root / rf.GRID_COPY}); resume with the same grid, or start a new search")
    recorded = (folder.read_manifest().get("search") or {}).get("slo")
    if recorded != list(slo_texts):
        raise UserError(f"--slo {' '.join(slo_texts)!r}: this search was started with {recorded!r}")


def _finished_cells(folder: rf.RunFolder, manifest_cells: list[str]) -> list[str]:
    """The probes a killed search finished (complete or failed: both are evidence); unfinished ones are rerun."""
    return [c for c in manifest_cells if folder.cell_status(c) in ("complete", "failed")]


def lengthened(timing, factor: float):
    """The timing of a rerun `factor` times as long: a fixed probe's duration_s; a precise probe's min_s and max_s (a
    short window is the usual cause of an invalid probe, so the window it must reach grows too)."""
    if factor == 1:
        return timing
    if timing.precise:
        return replace(timing, min_s=timing.min_s * factor, max_s=timing.max_s * factor,
                       duration_s=timing.duration_s * factor)
    return replace(timing, duration_s=timing.duration_s * factor)


class _Prober:
    """Runs one probe at a time through the grid runner's cell machinery and turns its cell into a Probe."""

    def __init__(self, grid, run, folder, manifest, slo, axis, slo_texts, view=None):
        self.grid, self.run, self.folder, self.manifest, self.slo, self.axis = grid, run, folder, manifest, slo, axis
        self.slo_texts, self.view = list(slo_texts), view  # view: the live view told each step, or None
        self.answers: list[str] = []  # the finished searches' answers in words, for the live view
        self.tol = laws.tolerances(grid.tolerances)
        self.kept = list(manifest["cells"])  # finished cells of a resumed search, replayed in order
        self.t0 = time.monotonic()
        self.walls: list[float] = []
        # a precise probe stops when it is precise or, the sooner, when its SLO verdict is clear (early_stop.py)
        run.stop_conditions = lambda rule: precise_conditions(rule) + [("slo", SloClear(slo, rule))]

    def search(self, group: dict, space: Space) -> dict:
        probes, rows, entries, load_s = [], [], [], 0.0
        clock = Clock([], 1 if self.grid.server else 0)
        while True:
            step = next_step(space, probes)
            if isinstance(step, Answer):
                break
            self._tell(space, group, probes, rows, step, None)
            attempt = sum(1 for p in probes if p.load == step.load) + 1
            cell = probe_cell(self.grid, group, self.axis, step.load, attempt, len(self.manifest["cells"]) + 1)
            factor = 2 ** sum(1 for p in probes if p.load == step.load and not p.valid) if step.lengthen else 1
            replayed = cell.id in self.kept
            if not replayed:
                self._run(cell, factor, clock)
            probe, entry = self._probe(cell, step.load)
            probes.append(probe)
            entries.append(entry)
            load_s += probe.duration_s or 0.0
            rows.append(probe_record(space, probe, cell.id, step.why))
            self._say(space, probes, cell, probe, step.why, replayed)
        record = search_record(space, group, step, probes, rows, entries, self.slo, load_s)
        self._tell(space, group, probes, rows, None, record["answer"]["words"])
        self.answers.append(record["answer"]["words"])
        print(("" if not group else ", ".join(f"{k}={v}" for k, v in group.items()) + ": ")
              + record["answer"]["words"], flush=True)
        return record

    def _run(self, cell: Cell, factor: float, clock: Clock) -> None:
        run = self.run
        run.grid = replace(self.grid, timing=lengthened(self.grid.timing, factor))
        duration = run.grid.timing.duration_s
        run.cells = [*run.cells, cell]
        if cell.id not in self.manifest["cells"]:
            self.manifest["cells"].append(cell.id)
        # the analysis reads the probed values as the axis' list (the grid copy keeps the range)
        values = sorted({self._load_of(c) for c in self.manifest["cells"]} - {None})
        self.manifest["grid"] = {**self.grid.raw, "axes": {**self.grid.raw.get("axes", {}), self.axis: values}}
        self.folder.write_manifest(self.manifest)
        started = time.monotonic()
        run.ensure_server(cell.knobs, clock)
        clock.remaining = [duration]
        run._run_cell(cell, clock, self.t0)
        self.walls.append(time.monotonic() - started)

    def _load_of(self, cid: str):
        manifest = rf.read_json(self.folder.cell_dir(cid) / rf.MANIFEST) or {}
        return (manifest.get("axes") or {}).get(self.axis, cells_mod.number(cid.split(f"{self.axis}=")[-1].split(",")[0]))

    def _probe(self, cell: Cell, load: float) -> tuple[Probe, model.Cell]:
        found = {c.id: c for c in cells_mod.from_run_folder(self.folder.root).cells}
        entry, elapsed, window_seconds = analyze_cell(found[cell.id], None, None, False, self.tol)
        recorded = rf.read_json(self.folder.cell_dir(cell.id) / rf.MANIFEST) or {}
        # the seconds it loaded the target: a precise probe's own length (load_s), else the duration it was given
        duration = recorded.get("load_s") or recorded.get("duration_s")
        # a shortfall that JMeter's own per-cycle work explains (findings' "per-cycle overhead", read with care)
        # is the cell's real workload, not a broken one: at R = 5 ms and Z = 0, 0.6 ms between samples is 10%
        failed = [c for c in entry.checks if c.name in VALIDITY and c.passed is False
                  and not overhead_explains(entry, c)]
        why = None
        if entry.status != "complete":
            why = f"cell {entry.status}: {entry.reason or 'no reason recorded'}"
        elif failed:
            why = "; ".join(f"{c.name}: {c.explanation}" for c in failed)
        seconds = None
        if window_seconds is not None and entry.window is not None:
            seconds = window_seconds.second_histograms(elapsed)
        figs = figures(self.slo, entry, seconds, cell.id) if why is None else None
        if why is None and figs is None:
            why = "the cell has no samples in its steady window"
        overall = entry.overall
        probe = Probe(load, figs, why is None, why, mean_ms=overall.mean_ms if overall is not None else None,
                      throughput_per_s=overall.throughput_per_s if overall is not None else None,
                      think_ms=models.think_of(entry) if entry.think_time is not None else None, duration_s=duration,
                      stopped=words.stopped(entry.stop))
        return probe, entry

    def _tell(self, space: Space, group: dict, probes: list[Probe], rows: list[dict], step, answer: str | None) -> None:
        if self.view is not None:
            self.view.search_update(progress_record(space, group, self.slo_texts, probes, [r["cell"] for r in rows],
                                                    step, answer, self.answers[:]))

    def _say(self, space: Space, probes: list[Probe], cell: Cell, probe: Probe, why: str, replayed: bool) -> None:
        """One line per probe: its figure and interval against the SLO, why it was chosen, and the ETA."""
        figure = probe_words(probe)
        left = remaining(space, probes)
        wall = sum(self.walls) / len(self.walls) if self.walls else self.grid.timing.duration_s + 5
        print(f"probe {len(probes)}: {cell.id}  {figure}  ({why}{'; kept from the killed run' if replayed else ''})  "
              f"elapsed {hms(time.monotonic() - self.t0)}  ETA ~{hms(left * wall)} ({left} probes)", flush=True)
