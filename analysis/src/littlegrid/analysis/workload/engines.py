"""Each remote engine's share of a distributed cell, from the rows it wrote: in remote mode JMeter prefixes every
thread name with the engine's name as the controller listed it ("10.231.0.3:1099-users 1-2"), so the merged JTL
still tells the engines apart. Per engine: its threads, throughput, mean response time and error rate in the
window, and its first and last sample times, which show whether the engines' clocks agree: against when the
controller saw each engine start and finish (analysis.workload.controller_log) when its log says, else against each other."""

from __future__ import annotations

import math
import re

import numpy as np

from littlegrid.analysis.statistics.rowblock import Block, ThreadIds
from littlegrid.analysis.workload.controller_log import EngineTimes
from littlegrid.jtl.schema import THREAD_NUMBER_SUFFIX

# Engines start a test one after the other (the controller calls each in turn) and each runs its own duration:
# measured against each other, their first and last samples may differ by this much on agreeing clocks (on a loaded
# host more, which is why the controller's own times are preferred). Measured against the controller's times, what
# remains is the spread of each engine's delay from "test started" to its first sample.
START_SKEW_S = 1.0
# What an engine's clock is measured against: the controller's log of its start and end, or the other engines.
AGAINST_CONTROLLER, AGAINST_ENGINES = "controller", "engines"
# An engine's clock may be off by this share of the window: its samples then move that far across the window's
# edges, and its throughput is off by about as much.
CLOCK_SHARE_OF_WINDOW = 0.01
GROUP_OF_THREAD = re.compile("(.*)" + THREAD_NUMBER_SUFFIX)  # a thread's group, from its name (engine's cut off)


class EngineSharesAccumulator:
    """Per engine (by thread-name prefix, told by rowblock.ThreadIds): samples and errors in the window, Σ elapsed and
    Σ elapsed², the threads that completed a sample there, and the first start and last end of its samples over the
    whole cell."""

    def __init__(self, engines: list[str], threads: ThreadIds | None = None) -> None:
        self.engines = list(engines)
        self._thread_ids = threads  # the cell's thread ids, for their names (each thread's load group)
        self._per_thread = np.zeros(0, dtype=np.int64)  # samples in the window, by thread id
        k = len(self.engines)
        self._count, self._errors = np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64)
        self._sum, self._sum2 = np.zeros(k), np.zeros(k)
        self._threads: list[set[int]] = [set() for _ in range(k)]
        self._first, self._last = [None] * k, [None] * k

    def add(self, block: Block) -> None:
        samples, engines = block.samples, block.sample_engines
        if not len(samples) or engines is None:
            return
        in_window = block.samples_in_window
        keys = block.sample_keys
        failed = block.sample_classes.notna().to_numpy()
        elapsed = samples["elapsed_ms"].to_numpy(dtype=np.float64)
        named = in_window & (engines >= 0)
        if named.any():
            counts = np.bincount(keys[named])
            if len(counts) > len(self._per_thread):
                self._per_thread = np.concatenate((self._per_thread, np.zeros(len(counts) - len(self._per_thread),
                                                                              dtype=np.int64)))
            self._per_thread[:len(counts)] += counts
        starts, ends = samples["start_ms"].to_numpy(), samples["end_ms"].to_numpy()
        for i, engine in enumerate(self.engines):
            mine = engines == i
            if not mine.any():
                continue
            first, last = int(starts[mine].min()), int(ends[mine].max())
            self._first[i] = first if self._first[i] is None else min(self._first[i], first)
            self._last[i] = last if self._last[i] is None else max(self._last[i], last)
            counted = mine & in_window
            self._count[i] += int(counted.sum())
            self._errors[i] += int((counted & failed).sum())
            self._sum[i] += float(elapsed[counted].sum())
            self._sum2[i] += float((elapsed[counted] ** 2).sum())
            self._threads[i].update(np.unique(keys[counted]).tolist())

    def expected_shares(self, groups_by_engine: dict | None) -> dict[str, float] | None:
        """Each engine's share of the cell's samples in the window when its threads run load groups that loop at
        different rates: Σ over groups of its threads there × the group's samples per thread (over every engine),
        over the same for all engines. None without each engine's groups, or when thread names do not say their
        group; an engine's share is then its share of the threads."""
        if not groups_by_engine or self._thread_ids is None:
            return None
        names = self._thread_ids.names()
        engine_of = self._thread_ids.engines(np.arange(len(self._per_thread)))
        samples, threads = {}, {}
        for key in np.flatnonzero(self._per_thread).tolist():
            i = int(engine_of[key])
            m = GROUP_OF_THREAD.fullmatch((names[key] or "")[len(self.engines[i]) + 1:]) if i >= 0 else None
            if m is None:
                return None
            samples[m.group(1)] = samples.get(m.group(1), 0) + int(self._per_thread[key])
            threads[m.group(1)] = threads.get(m.group(1), 0) + 1
        weight = {e: sum(n * samples[g] / threads[g] for g, n in (groups_by_engine.get(e) or {}).items()
                         if threads.get(g)) for e in self.engines}
        total = sum(weight.values())
        return {e: w / total for e, w in weight.items()} if total > 0 else None

    def result(self, window_length_s: float, threads_by_engine: dict | None,
               controller: dict[str, EngineTimes] | None = None, groups_by_engine: dict | None = None) -> list[dict]:
        out, shares = [], self.expected_shares(groups_by_engine)
        for i, engine in enumerate(self.engines):
            n = int(self._count[i])
            mean = self._sum[i] / n if n else None
            sd = math.sqrt(max(0.0, self._sum2[i] / n - mean ** 2)) * math.sqrt(n / (n - 1)) if n > 1 else None
            out.append({
                "engine": engine,
                "threads": (threads_by_engine or {}).get(engine),
                "expected_share": shares.get(engine) if shares else None,
                "threads_seen": len(self._threads[i]),
                "count": n,
                "throughput_per_s": n / window_length_s if window_length_s > 0 else None,
                "mean_ms": mean,
                "sd_ms": sd,
                "error_rate": int(self._errors[i]) / n if n else None,
                "first_start_ms": self._first[i],
                "last_end_ms": self._last[i],
            })
        offsets, against = clock_offsets_s(out, controller)
        return [s | {"clock_offset_s": offsets.get(s["engine"]),
                     "clock_against": against if s["engine"] in offsets else None} for s in out]


def clock_offsets_s(shares: list[dict], controller: dict[str, EngineTimes] | None = None
                    ) -> tuple[dict[str, float], str | None]:
    """Each engine's clock against the engines' median, in seconds, and what it was measured against.

    With the controller's times for every engine (AGAINST_CONTROLLER): the mean of how far its first sample start
    sits after the controller saw it start and its last sample end after the controller saw it finish, less the
    median engine's; a start that came late moves both the engine's samples and the controller's time of it, so
    it cancels. Otherwise (AGAINST_ENGINES): the mean of how far its first start and last end sit from the median
    engine's, which holds while the engines start within START_SKEW_S of each other."""
    timed = [(s["engine"], s["first_start_ms"], s["last_end_ms"]) for s in shares
             if s["first_start_ms"] is not None and s["last_end_ms"] is not None]
    if len(timed) < 2:
        return {}, None
    times = controller or {}
    if all(e in times and times[e].started_ms is not None and times[e].finished_ms is not None for e, _, _ in timed):
        lead = {e: ((start - times[e].started_ms) + (end - times[e].finished_ms)) / 2 for e, start, end in timed}
        middle = float(np.median(list(lead.values())))
        return {e: (v - middle) / 1000.0 for e, v in lead.items()}, AGAINST_CONTROLLER
    first = float(np.median([r[1] for r in timed]))
    last = float(np.median([r[2] for r in timed]))
    return {e: ((start - first) + (end - last)) / 2000.0 for e, start, end in timed}, AGAINST_ENGINES


def clock_tolerance_s(window_length_s: float) -> float:
    """How far an engine's clock may be off before the window's figures move by more than 1 %."""
    return max(START_SKEW_S, CLOCK_SHARE_OF_WINDOW * window_length_s)
