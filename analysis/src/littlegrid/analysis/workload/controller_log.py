"""When the controller saw each remote engine start and finish its test, from the controller's jmeter.log.

In remote mode the controller starts the engines one after the other, and on a loaded host one may start a second
or more after another. Each engine then runs its thread groups for their own duration, so its samples begin and
end later by the same amount: from the samples alone that stagger looks exactly like a clock that is off. The
controller logs, on its own clock, when each engine told it that its test started and ended (JMeter's
ListenToTest: "Started remote host:  H (ms)", "Finished remote host: H (ms)"); measured against those, the stagger
cancels and what remains is the engine's clock (analysis.workload.engines.clock_offsets_s).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_EVENT = re.compile(r"(Started|Finished) remote host:\s+(\S+)\s+\((\d+)\)")


@dataclass(frozen=True)
class EngineTimes:
    """One engine's test start and end as the controller saw them (epoch ms, controller's clock)."""

    started_ms: int | None
    finished_ms: int | None


def engine_times(log: Path | None) -> dict[str, EngineTimes]:
    """Each engine's EngineTimes by the name the controller gave it; {} when there is no log or it names none
    (a JMeter run on one host, a log cut short, a version that does not write these lines)."""
    if log is None:
        return {}
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    started: dict[str, int] = {}
    finished: dict[str, int] = {}
    for kind, engine, ms in _EVENT.findall(text):
        if kind == "Started":
            started.setdefault(engine, int(ms))
        else:
            finished[engine] = int(ms)
    return {e: EngineTimes(started.get(e), finished.get(e)) for e in sorted(started.keys() | finished.keys())}
