"""Host metrics from /proc: load average, run-queue length, CPU utilisation between readings, memory in use."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

COLUMNS = ["time_ms", "load1", "run_queue", "cpu_util", "cpu_user", "cpu_system", "cpu_iowait", "mem_used_bytes"]


@dataclass(frozen=True)
class CpuTimes:
    """The aggregate `cpu` line of /proc/stat, in clock ticks since boot."""

    user: int
    system: int
    iowait: int
    idle: int
    total: int

    @classmethod
    def parse(cls, line: str) -> "CpuTimes":
        # user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user/nice.
        f = [int(x) for x in line.split()[1:]]
        f += [0] * (10 - len(f))
        user, nice, system, idle, iowait, irq, softirq, steal = f[:8]
        return cls(user=user + nice, system=system + irq + softirq, iowait=iowait, idle=idle,
                   total=user + nice + system + idle + iowait + irq + softirq + steal)


def parse_proc_stat(text: str) -> tuple[CpuTimes | None, int | None]:
    """(aggregate CPU times, procs_running) from the text of /proc/stat."""
    cpu, running = None, None
    for line in text.splitlines():
        if line.startswith("cpu "):
            cpu = CpuTimes.parse(line)
        elif line.startswith("procs_running"):
            running = int(line.split()[1])
    return cpu, running


def parse_meminfo_used(text: str) -> int | None:
    """MemTotal − MemAvailable, in bytes: memory the system could not hand out without reclaiming."""
    fields = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        parts = rest.split()
        if parts:
            fields[name] = int(parts[0]) * 1024  # /proc/meminfo counts kB
    if "MemTotal" in fields and "MemAvailable" in fields:
        return fields["MemTotal"] - fields["MemAvailable"]
    return None


class HostSampler:
    """One row of host metrics per call; CPU shares are over the interval since the previous call (0..1 of all CPUs).

    run_queue is /proc/stat's procs_running, which includes the reading thread itself.
    """

    def __init__(self, proc: Path = Path("/proc")):
        self.proc = proc
        self._last: CpuTimes | None = None  # the first row has no interval behind it: its CPU shares stay empty

    def _read(self, name: str) -> str | None:
        try:
            return (self.proc / name).read_text()
        except OSError:
            return None

    def _read_stat(self) -> tuple[CpuTimes | None, int | None]:
        text = self._read("stat")
        return parse_proc_stat(text) if text else (None, None)

    def sample(self) -> dict:
        row = {"time_ms": int(time.time() * 1000)}
        loadavg = self._read("loadavg")
        row["load1"] = float(loadavg.split()[0]) if loadavg else None
        cpu, running = self._read_stat()
        row["run_queue"] = running
        row.update(cpu_shares(self._last, cpu))
        self._last = cpu or self._last
        meminfo = self._read("meminfo")
        row["mem_used_bytes"] = parse_meminfo_used(meminfo) if meminfo else None
        return row


def cpu_shares(before: CpuTimes | None, after: CpuTimes | None) -> dict:
    """Busy, user, system and iowait shares of all CPUs between two readings (None when they cover no time)."""
    empty = {"cpu_util": None, "cpu_user": None, "cpu_system": None, "cpu_iowait": None}
    if before is None or after is None:
        return empty
    total = after.total - before.total
    if total <= 0:
        return empty
    idle = (after.idle - before.idle) + (after.iowait - before.iowait)  # iowait is idle time waiting on disk
    return {
        "cpu_util": round(1 - idle / total, 4),
        "cpu_user": round((after.user - before.user) / total, 4),
        "cpu_system": round((after.system - before.system) / total, 4),
        "cpu_iowait": round((after.iowait - before.iowait) / total, 4),
    }
