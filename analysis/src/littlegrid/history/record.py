"""A run's record for the history (store.RunRecord) from its summary and run folder: what makes two runs comparable
(the grid, the plan, the server configuration, the kind of host, each as a hash of its canonical form), its commit
and its figures (figures.py)."""

from __future__ import annotations

import hashlib
import re
import subprocess
import tomllib
from pathlib import Path

from littlegrid.history import figures
from littlegrid.history.store import RunRecord, digest
from littlegrid.summary.model import Summary

GIB = 1 << 30
# grid-file keys that change nothing measured, so an edit of them keeps the grid's series (history/series.py): how
# the run is judged (criteria, expect, tolerances, the arms compared) and described; the plan's path (its content
# is the plan hash: a grid copied elsewhere names the same plan by another path); and the target (the service, path
# and method under test: a slower endpoint is the change the gate is there to catch, so it is recorded, named, and
# compared)
UNMEASURED_GRID_KEYS = {"description", "criteria", "expect", "tolerances", "arms", "plan", "target"}
RECORDED_NOT_JUDGED = ("target",)  # configuration recorded with the run, not part of what makes runs comparable


def record(summary: Summary, summary_path: Path, *, report: str | None = None) -> RunRecord:
    """The history's record of the run whose summary is at `summary_path` (its folder may hold grid.toml and
    report/). report: the run's report folder (default: the folder's report/ when it exists)."""
    folder = summary_path.parent
    run = summary.run
    host = host_facts(summary)
    grid = grid_file(folder)
    config = server_config(summary) | {"target": (grid or {}).get("target", {})}
    if report is None and (folder / "report" / "index.html").is_file():
        report = str((folder / "report").resolve())
    return RunRecord(
        key=f"{run.id}@{run.started or ''}", run_id=run.id, grid_name=run.grid_name,
        grid_hash=grid_hash(summary, folder), plan_hash=plan_hash(run.plan), config=config,
        config_hash=digest(comparable_config(config)), host=host, host_kind=digest(host_kind(host)),
        commit=commit_of(folder), started=run.started, report=report, figures=figures.run_figures(summary))


def grid_file(folder: Path) -> dict | None:
    """The run folder's grid.toml as parsed, or None (a summary of JTL files, or one without its folder)."""
    try:
        parsed = tomllib.loads((folder / "grid.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return parsed if isinstance(parsed, dict) else None


def grid_hash(summary: Summary, folder: Path) -> str:
    """The grid as it measures, from the run folder's grid.toml (comments, layout and UNMEASURED_GRID_KEYS do not
    count), else its name, axes and plan as the summary holds them."""
    parsed = grid_file(folder)
    if parsed is not None:
        return digest({k: v for k, v in parsed.items() if k not in UNMEASURED_GRID_KEYS})
    return digest({"name": summary.run.grid_name, "axes": summary.axes, "plan": Path(summary.run.plan or "").name})


def plan_hash(plan: str | None) -> str | None:
    """The plan file's content when it is readable here (another checkout's path holds the same bytes), else its
    file name; None without a plan (JTL files)."""
    if not plan:
        return None
    try:
        return hashlib.sha256(Path(plan).read_bytes()).hexdigest()[:16]
    except OSError:
        return digest({"plan": Path(plan).name})


def server_config(summary: Summary) -> dict:
    """The server configuration a run measured: its knobs, the CPUs the server and JMeter were pinned to, and where
    the target ran (this host or elsewhere)."""
    run = summary.run
    return {"knobs": run.server_knobs or {}, "server_cpus": run.server_cpus, "generator_cpus": run.generator_cpus,
            "placement": run.target.placement if run.target is not None else "unknown"}


def comparable_config(config: dict) -> dict:
    """The configuration that must match for two runs to be compared: all of it but the target."""
    return {k: v for k, v in config.items() if k not in RECORDED_NOT_JUDGED}


def host_facts(summary: Summary) -> dict:
    """The generator's host as the run recorded it: CPUs, memory (whole GiB), OS, kernel, architecture, name."""
    h = summary.run.host
    m = re.fullmatch(r"\s*(\S+)\s+(\S+)(?:\s+\((\S+)\))?\s*", h.os or "")
    return {"cpus": h.cpus, "memory_gib": round(h.memory_bytes / GIB) if h.memory_bytes else None,
            "os": m.group(1) if m else h.os, "kernel": m.group(2) if m else None,
            "arch": m.group(3) if m else None, "hostname": h.hostname}


HOST_KIND = ("cpus", "memory_gib", "os", "arch")  # a kernel update or another CI runner's name is the same kind


def host_kind(host: dict) -> dict:
    return {k: host.get(k) for k in HOST_KIND}


def host_text(host: dict) -> str:
    """"2 CPUs, 24 GiB, Linux x86_64": a kind of host in words."""
    parts = [f"{host.get('cpus')} CPUs" if host.get("cpus") else "CPUs unknown",
             f"{host.get('memory_gib')} GiB" if host.get("memory_gib") else "memory unknown",
             " ".join(str(host[k]) for k in ("os", "arch") if host.get(k)) or "OS unknown"]
    return ", ".join(parts)


def commit_of(folder: Path) -> str | None:
    """The commit checked out where the run folder lives (git rev-parse HEAD), None outside a repository or
    without git. It is the commit at the time the run is recorded: record right after the run, as
    `analyze --history` does."""
    try:
        done = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{40,64}", commit) else None
