"""The live view's state: what the runner (or a search) says is running and finished, and the thread that turns
the files being written into a fresh status every UPDATE_S seconds.

The hook (what a caller drives), all thread-safe and cheap (no analysis runs on the caller's thread):
    view.run_started(run_dir, cell_ids, title)       once, when the run folder exists
    view.cell_started(cell_id, folder, index=, duration_s=, warmup_s=, engines=, engine_names=, axes=)
    view.cell_finished(cell_id)                       after the cell's manifest is written
    view.search_update({...})                         a search's probes and its converging answer (plain JSON)
    view.run_ended(state)                             "complete", "failed", "interrupted"
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from littlegrid.run import run_folder as rf
from littlegrid.run.live import status as st
from littlegrid.summary import plain

UPDATE_S = 1.0  # the status is recomputed this often (the page polls as often); the issue asks for ≤ 2 s
SCHEMA = "littlegrid.live/1"


@dataclass
class _Running:
    id: str
    folder: Path
    index: int
    duration_s: float
    warmup_s: float
    engines: int | None
    axes: dict
    started: float
    rows: st.CellRows
    server: st.ObservedRows
    host: st.MetricsRows


@dataclass
class _State:
    run_dir: Path | None = None
    title: str = ""
    cell_ids: list = field(default_factory=list)
    running: _Running | None = None
    to_analyze: list = field(default_factory=list)
    entries: dict = field(default_factory=dict)  # cell id -> summary entry (model.Cell) of a finished cell
    search: dict | None = None
    state: str = "starting"


class LiveView:
    """Holds the latest status as JSON bytes; `start()` runs the updater thread (a daemon)."""

    def __init__(self, update_s: float = UPDATE_S):
        self.update_s = update_s
        self._lock = threading.Lock()
        # one recomputation at a time: a slower one begun earlier (before a cell started) must not publish its older
        # picture over a newer one, and the running cell's file is tailed by one reader
        self._refreshing = threading.Lock()
        self._state = _State()
        self._scratch = Path(tempfile.mkdtemp(prefix="littlegrid-live-"))  # never inside the run folder
        self._json = json.dumps(self._status(None, None), allow_nan=False).encode()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.updates = 0
        self.last_update_s: float | None = None  # how long the last recomputation took

    # -- the hook ---------------------------------------------------------------------------------
    def run_started(self, run_dir: Path, cell_ids: list[str], title: str = "") -> None:
        with self._lock:
            s = self._state
            s.run_dir, s.cell_ids, s.title, s.state = Path(run_dir), list(cell_ids), title, "running"
            # cells complete already (a resumed run) join the table as soon as the updater has analysed them
            s.to_analyze += [c for c in cell_ids if _recorded_status(Path(run_dir), c) == "complete"]

    def cell_started(self, cell_id: str, folder: Path, *, index: int, duration_s: float, warmup_s: float = 0.0,
                     engines: int | None = 1, axes: dict | None = None, engine_names: tuple = ()) -> None:
        folder = Path(folder)
        running = _Running(cell_id, folder, index, float(duration_s), float(warmup_s or 0.0), engines, dict(axes or {}),
                           time.time(), st.CellRows(folder / rf.RESULTS, self._scratch / "batch.jtl",
                                                    warmup_s=float(warmup_s or 0.0), engines=engines,
                                                    engine_names=engine_names),
                           st.ObservedRows(folder / rf.OBSERVED, self._state.run_dir),
                           st.MetricsRows(folder / rf.HOST_METRICS))
        with self._lock:
            self._state.running = running
            if cell_id not in self._state.cell_ids:  # a search's probes are not known in advance
                self._state.cell_ids.append(cell_id)

    def cell_finished(self, cell_id: str) -> None:
        with self._lock:
            if self._state.running is not None and self._state.running.id == cell_id:
                self._state.running = None
            self._state.to_analyze.append(cell_id)

    def search_update(self, search: dict) -> None:
        with self._lock:
            self._state.search = plain(search)

    def run_ended(self, state: str) -> None:
        with self._lock:
            self._state.running, self._state.state = None, state
        self.refresh()

    # -- the status ---------------------------------------------------------------------------------
    def status_json(self) -> bytes:
        return self._json  # replaced whole by the updater: a reader never sees half of it

    def refresh(self) -> None:
        """One recomputation: finished cells waiting for analysis, then the running cell's rows so far."""
        with self._refreshing:
            self._refresh()

    def _refresh(self) -> None:
        t = time.monotonic()
        with self._lock:
            s = self._state
            pending, s.to_analyze = list(s.to_analyze), []
            run_dir, running = s.run_dir, s.running
        entries = {}
        for cell_id in pending:
            try:
                entry = st.analyze_finished(run_dir, cell_id) if run_dir else None
            except Exception as e:  # the live view reports; it never stops the run
                entry = st.unanalysed(cell_id, f"live view: {e}")
            if entry is not None:
                entries[cell_id] = entry
        cell = None
        if running is not None:
            try:
                running.rows.update()
                cell = st.running_cell(running.rows, running.server.observed(), running.host.frame())
            except Exception as e:
                cell = {"note": f"live view could not read the cell's files: {e}"}
                traceback.print_exc(limit=2)
            cell |= {"id": running.id, "index": running.index, "axes": running.axes,
                     "elapsed_s": time.time() - running.started, "duration_s": running.duration_s,
                     "warmup_s": running.warmup_s, "rows_skipped": running.rows.rows_skipped,
                     "warnings": running.rows.warnings}
        with self._lock:
            self._state.entries.update(entries)
            body = self._status(cell, self._state)
        self._json = json.dumps(body, allow_nan=False, separators=(",", ":")).encode()
        self.updates += 1
        self.last_update_s = time.monotonic() - t

    def _status(self, cell: dict | None, s: _State | None) -> dict:
        s = s or _State()
        finished = [s.entries[c] for c in s.cell_ids if c in s.entries]
        return plain({"schema": SCHEMA, "updated_ms": int(time.time() * 1000), "update_s": self.update_s,
                      "run": {"id": s.run_dir.name if s.run_dir else None, "title": s.title, "state": s.state,
                              "cells_total": len(s.cell_ids), "cells_finished": len(finished)},
                      "cell": cell, "cells": [st.finished_row(e) for e in finished],
                      "curves": st.grid_curves([e for e in finished if e.overall is not None]),
                      "search": s.search})

    # -- the updater thread ---------------------------------------------------------------------------
    def start(self) -> "LiveView":
        self._thread = threading.Thread(target=self._loop, name="littlegrid-live-status", daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.refresh()
            except Exception:  # a bug here must not end the updates, let alone the run
                traceback.print_exc(limit=3)
            self._stop.wait(self.update_s)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        shutil.rmtree(self._scratch, ignore_errors=True)


def _recorded_status(run_dir: Path, cell_id: str) -> str | None:
    manifest = rf.read_json(run_dir / "cells" / cell_id / rf.MANIFEST)
    return manifest.get("status") if manifest else None
