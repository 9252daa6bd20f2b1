"""How many users a cell ran: the plan's users × engines, or the threads seen in the window (bare JTLs)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from littlegrid.analysis.statistics.rowblock import Block
from littlegrid.summary.model import USERS_SPLIT_BASIS


class UsersAccumulator:
    """Threads that completed a sample in the window (by global thread id), and the largest allThreads."""

    def __init__(self) -> None:
        self._seen = np.zeros(0, dtype=bool)
        self._all_threads_max: int | None = None

    def add(self, block: Block) -> None:
        keys = block.sample_keys[block.samples_in_window]
        if len(keys):
            top = int(keys.max()) + 1
            if top > len(self._seen):
                self._seen = np.concatenate((self._seen, np.zeros(top - len(self._seen), dtype=bool)))
            self._seen[keys] = True
        peak = block.samples["all_threads"].max()  # nulls skipped, no copy
        if not pd.isna(peak):
            self._all_threads_max = int(peak) if self._all_threads_max is None else max(self._all_threads_max,
                                                                                        int(peak))

    def result(self, plan_users: int | None, engines: int | None, split: bool = False) -> dict:
        """N from the manifest: users itself when the runner split it across the engines (split), else, in run
        folders from before the split, plan users × engines (allThreads is per engine, never summed); bare JTLs:
        the threads seen."""
        threads_seen = int(np.count_nonzero(self._seen))
        from_plan = plan_users is not None
        n = plan_users if split else plan_users * (engines or 1) if from_plan else threads_seen
        basis = SPLIT_BASIS if split else "plan users × engines" if from_plan else "threads seen in the window"
        return {"n": n, "plan_users": plan_users, "engines": engines, "all_threads_max": self._all_threads_max,
                "threads_seen": threads_seen, "basis": basis}


SPLIT_BASIS = USERS_SPLIT_BASIS
