"""A grid's series: its runs that measure the same thing (the grid as it measures, the plan, the server configuration,
the kind of host: RunRecord.series), in the order they were recorded. An edit that changes nothing measured (criteria,
expect, description, tolerances, comments) keeps the series; another plan, configuration or kind of host starts a new
one. Within a series, `history accept` pins a run: the reference set and the noise start again from it (a deliberate
change of performance). The reference set is the last k accepted runs of the segment: runs that passed the gate, the
series' first run (its reference until others pass) and the pinned one; a failed or unjudged run never is."""

from __future__ import annotations

from dataclasses import dataclass

from littlegrid.history.record import comparable_config, host_kind, host_text
from littlegrid.history.store import RunRecord, StoredRun

REFERENCE_RUNS = 5  # k: the reference is the median of the last k accepted runs, per cell and metric


@dataclass(frozen=True)
class Series:
    """One series of a grid: its key and its runs, oldest first."""
    key: str
    grid: str
    runs: list[StoredRun]

    @property
    def first(self) -> StoredRun:
        return self.runs[0]


def grid_of(record: RunRecord) -> str:
    """The grid a run belongs to, as the history names it: its name, else its hash."""
    return record.grid_name or record.grid_hash


def grid_series(history: list[StoredRun], grid: str) -> list[Series]:
    """The series of one grid, in the order their first runs were recorded."""
    found: dict[str, list[StoredRun]] = {}
    for r in history:
        if grid_of(r.record) == grid:
            found.setdefault(r.record.series, []).append(r)
    return [Series(key, grid, runs) for key, runs in found.items()]


def earlier(history: list[StoredRun], candidate: RunRecord) -> list[StoredRun]:
    """The runs recorded before the candidate (all of them when the history does not hold it), the candidate left
    out: a run checked again later is judged against what came before it, as it was the first time."""
    mine = next((r.pk for r in history if r.record.key == candidate.key), None)
    return [r for r in history if r.record.key != candidate.key and (mine is None or r.pk < mine)]


def of_candidate(history: list[StoredRun], candidate: RunRecord) -> list[StoredRun]:
    """The candidate's series before it, oldest first."""
    return [r for r in earlier(history, candidate) if r.record.series == candidate.series]


def segment(runs: list[StoredRun]) -> list[StoredRun]:
    """The runs from the last pinned one on (all of them when none is pinned)."""
    pinned = [i for i, r in enumerate(runs) if r.accepted == "pinned"]
    return runs[pinned[-1]:] if pinned else list(runs)


def segments(runs: list[StoredRun]) -> list[list[StoredRun]]:
    """The series cut at each pinned run: each segment measures one level of performance."""
    cuts = [i for i, r in enumerate(runs) if r.accepted == "pinned" and i > 0]
    edges = [0, *cuts, len(runs)]
    return [runs[a:b] for a, b in zip(edges, edges[1:]) if a < b]


def accepted(run: StoredRun) -> bool:
    """A run the reference set may hold: it passed the gate, started its series, or was pinned."""
    return run.gate == "passed" or run.accepted in ("start", "pinned")


def reference_set(runs: list[StoredRun], k: int = REFERENCE_RUNS) -> list[StoredRun]:
    """The last k accepted runs of the current segment, oldest first (empty: nothing accepted yet)."""
    return [r for r in segment(runs) if accepted(r)][-k:]


def differences(candidate: RunRecord, other: RunRecord) -> list[tuple[str, str]]:
    """What makes `other` another series than `candidate`: (kind, words) for each of "grid", "plan", "configuration",
    "host" that differs (empty: the same series). --allow-other-plan crosses the first three, --allow-other-host the
    last."""
    out = []
    if candidate.grid_hash != other.grid_hash:
        out.append(("grid", "the grid measures otherwise (its axes, properties, cell, server or observe tables)"))
    if candidate.plan_hash != other.plan_hash:
        out.append(("plan", "another plan"))
    if candidate.config_hash != other.config_hash:
        mine, theirs = comparable_config(candidate.config), comparable_config(other.config)
        changed = [f"{k} {theirs.get(k)} vs {mine.get(k)}" for k in sorted(set(theirs) | set(mine))
                   if theirs.get(k) != mine.get(k)]
        out.append(("configuration", "another server configuration (" + "; ".join(changed) + ")"))
    if host_kind(candidate.host) != host_kind(other.host):
        out.append(("host", f"another kind of host ({host_text(other.host)} vs {host_text(candidate.host)})"))
    return out
