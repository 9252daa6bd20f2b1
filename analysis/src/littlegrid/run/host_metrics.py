"""Host metrics from /proc: load average, run-queue length, CPU utilisation between readings (all CPUs, and those
the sample server is pinned to), memory in use."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

COLUMNS = ["time_ms", "load1", "run_queue", "cpu_util", "cpu_user", "cpu_system", "cpu_iowait", "mem_used_bytes",
           "server_cpu_util"]


@dataclass(frozen=True)
class CpuTimes:
    """The aggregate `cpu` line of /proc/stat, in clock ticks since boot."""

    user: int
    system: int
    iowait: int
    idle: int
    total: int

    def __add__(self, other: "CpuTimes") -> "CpuTimes":
        return CpuTimes(self.user + other.user, self.system + other.system, self.iowait + other.iowait,
                        self.idle + other.idle, self.total + other.total)

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


def parse_cpus(text: str, cpus: tuple[int, ...]) -> CpuTimes | None:
    """The summed times of these CPUs (the `cpuN` lines of /proc/stat); None when one of them is not listed."""
    lines = {}
    for line in text.splitlines():
        name = line.split(maxsplit=1)[0] if line.strip() else ""
        if name.startswith("cpu") and name[3:].isdigit():
            lines[int(name[3:])] = line
    if not cpus or any(c not in lines for c in cpus):
        return None
    total = CpuTimes.parse(lines[cpus[0]])
    for c in cpus[1:]:
        total = total + CpuTimes.parse(lines[c])
    return total


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

    run_queue is /proc/stat's procs_running, which includes the reading thread itself. server_cpu_util: the busy share
    of `server_cpus` alone (the CPUs the sample server was pinned to), empty when it was not pinned.
    """

    def __init__(self, proc: Path = Path("/proc"), server_cpus: tuple[int, ...] | None = None):
        self.proc = proc
        self.server_cpus = tuple(server_cpus) if server_cpus else None
        self._last: CpuTimes | None = None  # the first row has no interval behind it: its CPU shares stay empty
        self._last_server: CpuTimes | None = None

    def _read(self, name: str) -> str | None:
        try:
            return (self.proc / name).read_text()
        except OSError:
            return None

    def sample(self) -> dict:
        row = {"time_ms": int(time.time() * 1000)}
        loadavg = self._read("loadavg")
        row["load1"] = float(loadavg.split()[0]) if loadavg else None
        stat = self._read("stat")
        cpu, running = parse_proc_stat(stat) if stat else (None, None)
        row["run_queue"] = running
        row.update(cpu_shares(self._last, cpu))
        self._last = cpu or self._last
        meminfo = self._read("meminfo")
        row["mem_used_bytes"] = parse_meminfo_used(meminfo) if meminfo else None
        row["server_cpu_util"] = None
        if self.server_cpus:
            pinned = parse_cpus(stat, self.server_cpus) if stat else None
            row["server_cpu_util"] = cpu_shares(self._last_server, pinned)["cpu_util"]
            self._last_server = pinned or self._last_server
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
