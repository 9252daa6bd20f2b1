"""The run folder (docs/contracts.md §4): its layout, atomic manifests, versions and host facts, resume state."""

from __future__ import annotations

import csv
import fcntl
import json
import os
import platform
import re
import shutil
import socket
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from littlegrid import __version__
from littlegrid.analysis.cells import MANIFEST
from littlegrid.atomic import write_atomic
from littlegrid.usererror import UserError

RUN_SCHEMA = "littlegrid.run/1"
CELL_SCHEMA = "littlegrid.cell/1"
GRID_COPY = "grid.toml"
ATTEMPTS = "attempts"  # cells/<id>/attempts/<k>/: earlier attempts of a re-run cell, kept whole
LOCK = ".lock"  # held by the run writing the folder
SERVER_LOG = "server.log"
SAFE_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._=,+-]{0,120}$")

# The files of one cell (contract §4); jmeter.out is JMeter's console output (summariser lines, start-up errors).
RESULTS, JMETER_LOG, JMETER_OUT = "results.jtl", "jmeter.log", "jmeter.out"
HOST_METRICS = "host-metrics.csv"  # the generator's host (run/metrics_sampler.py)
OBSERVED = "observed.csv"  # [observe]: every reading of every Prometheus source, raw (run/observe.py)


def utc_now() -> str:
    """ISO 8601 UTC with milliseconds, e.g. 2026-11-22T12:30:01.123Z."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def new_run_id(grid_name: str) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    name = re.sub(r"[^A-Za-z0-9._-]", "_", grid_name)[:60] or "grid"
    return f"{stamp}-{name}"


def check_run_id(run_id: str) -> str:
    if not SAFE_RUN_ID.match(run_id) or run_id in (".", ".."):
        raise UserError(f"--run-id {run_id!r}: use letters, digits and . _ - = , + only (it names a folder)")
    return run_id


def write_json(path: Path, data: dict) -> None:
    """Write JSON whole or not at all (atomic.write_atomic: fsynced, 0644, renamed over the target)."""
    write_atomic(path, json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")


def read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def host_facts() -> dict:
    import psutil  # imported here: only the runner needs it

    return {
        "hostname": socket.gethostname(),
        "cpus": os.cpu_count(),
        "memory_bytes": psutil.virtual_memory().total,
        "os": f"{platform.system()} {platform.release()} ({platform.machine()})",
        # the kernel's boot time (/proc/stat btime, as node_exporter's node_boot_time_seconds reads it): an exporter
        # reporting it runs on this machine, in whatever network namespace (analysis/observed/server_cpu.py)
        "boot_time_s": psutil.boot_time(),
    }


def versions(jmeter_version: str, java_version: str) -> dict:
    return {"jmeter": jmeter_version, "java": java_version, "python": platform.python_version(),
            "littlegrid": __version__}


def count_samples(jtl: Path) -> int:
    """Data records of a CSV JTL (header excluded); quoted fields may span lines, so count CSV records, not lines."""
    if not jtl.is_file():
        return 0
    with jtl.open(newline="", encoding="utf-8", errors="replace") as f:
        reader = csv.reader(f)
        try:
            first = next(reader)
        except (StopIteration, csv.Error):
            return 0
        count = 0 if first and first[0] == "timeStamp" else 1
        try:
            for _ in reader:
                count += 1
        except csv.Error:  # a file cut mid-record: count what was whole
            pass
    return count


def samples_by_engine(jtl: Path, engines: list[str]) -> dict[str, int]:
    """Rows per remote engine: JMeter prefixes each thread name with the engine's "host:port" as the controller
    named it (`127.0.0.1:1099-users 1-3`), so engines on one machine stay apart although Hostname is the same."""
    counts = {engine: 0 for engine in engines}
    if not jtl.is_file():
        return counts
    with jtl.open(newline="", encoding="utf-8", errors="replace") as f:
        reader = csv.reader(f)
        try:
            column = next(reader).index("threadName")
            prefixes = [(engine + "-", engine) for engine in engines]  # host names may contain '-' themselves
            for row in reader:
                name = row[column] if len(row) > column else ""
                for prefix, engine in prefixes:
                    if name.startswith(prefix):
                        counts[engine] += 1
                        break
        except (StopIteration, ValueError, csv.Error):
            pass
    return counts


class RunFolder:
    """reports/<run-id>/: the grid copy, the run manifest and one folder per cell."""

    def __init__(self, root: Path):
        self.root = Path(root)

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    @property
    def server_log(self) -> Path:
        return self.root / SERVER_LOG

    def cell_dir(self, cell_id: str) -> Path:
        return self.root / "cells" / cell_id

    @classmethod
    def create(cls, out: Path, run_id: str, grid_path: Path) -> "RunFolder":
        root = Path(out) / run_id
        if root.exists():
            raise UserError(f"{root}: the run folder already exists; resume it with --resume {root}, "
                            "or choose another --run-id")
        (root / "cells").mkdir(parents=True)
        shutil.copyfile(grid_path, root / GRID_COPY)
        return cls(root)

    @classmethod
    def open(cls, root: Path) -> "RunFolder":
        root = Path(root)
        if not (root / MANIFEST).is_file() or not (root / GRID_COPY).is_file():
            raise UserError(f"{root}: not a littlegrid run folder (no {MANIFEST} and {GRID_COPY})")
        manifest = read_json(root / MANIFEST)
        if not manifest or manifest.get("schema") != RUN_SCHEMA:
            raise UserError(f"{root / MANIFEST}: not a {RUN_SCHEMA} manifest")
        (root / "cells").mkdir(exist_ok=True)
        return cls(root)

    def read_manifest(self) -> dict:
        return read_json(self.manifest_path) or {}

    def write_manifest(self, manifest: dict) -> None:
        write_json(self.manifest_path, manifest)

    def cell_status(self, cell_id: str) -> str | None:
        """The status a cell's manifest records (None: never started)."""
        manifest = read_json(self.cell_dir(cell_id) / MANIFEST)
        return manifest.get("status") if manifest else None

    def fresh_cell_dir(self, cell_id: str) -> tuple[Path, list[dict]]:
        """An empty folder for a cell, never appended to: what an earlier attempt left moves aside, whole, into
        attempts/<k>/ beside the earlier ones. Returns the folder and the attempts kept so far ({attempt, status,
        reason, folder}), oldest first, for the new attempt's manifest."""
        folder = self.cell_dir(cell_id)
        attempts = folder / ATTEMPTS
        kept = self.attempts(cell_id)
        leftover = [p for p in folder.iterdir() if p.name != ATTEMPTS] if folder.exists() else []
        if leftover:
            previous = read_json(folder / MANIFEST) or {}
            k = len(kept) + 1
            target = attempts / str(k)
            target.mkdir(parents=True)
            for p in leftover:
                shutil.move(str(p), target / p.name)
            kept.append({"attempt": k, "status": previous.get("status"), "reason": previous.get("reason"),
                         "folder": f"{ATTEMPTS}/{k}"})
        folder.mkdir(parents=True, exist_ok=True)
        return folder, kept

    def attempts(self, cell_id: str) -> list[dict]:
        """The earlier attempts kept in cells/<id>/attempts/, as their manifests say, oldest first."""
        root = self.cell_dir(cell_id) / ATTEMPTS
        out = []
        for d in sorted((p for p in root.iterdir() if p.name.isdigit()), key=lambda p: int(p.name)) \
                if root.is_dir() else []:
            m = read_json(d / MANIFEST) or {}
            out.append({"attempt": int(d.name), "status": m.get("status"), "reason": m.get("reason"),
                        "folder": f"{ATTEMPTS}/{d.name}"})
        return out

    @contextmanager
    def locked(self):
        """Hold the folder's lock while a run writes it: a second run or --resume of the same folder is refused in
        one line, not interleaved. The lock is the kernel's (flock), so a killed runner leaves none behind."""
        handle = open(self.root / LOCK, "a+")
        try:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.seek(0)
                holder = handle.read().strip() or "another process"
                raise UserError(f"{self.root}: another littlegrid run is writing this folder ({holder}); "
                                f"wait for it, or stop it first") from None
            handle.seek(0)
            handle.truncate()
            handle.write(f"pid {os.getpid()}")
            handle.flush()
            yield self
        finally:
            handle.close()

    def write_cell_manifest(self, cell_id: str, manifest: dict) -> None:
        write_json(self.cell_dir(cell_id) / MANIFEST, {"schema": CELL_SCHEMA, **manifest})

