"""The cores the server under test has, and how busy they were: the host's, shared with JMeter, or the CPUs the
grid pinned the sample server to (`[server] cpus`, JMeter then on the others). Every stage that reasons about the
server's CPU (bounds from the demand law, the CPU bottleneck, time in service shared by the cores, the arms' CPU
per request) asks here, so the rule is written once."""

from __future__ import annotations

from littlegrid.summary.model import Host, Run


def cores(run: Run) -> float | None:
    """The server's cores: as many as the CPUs it was pinned to, else the host's."""
    if run.server_cpus:
        return float(len(run.server_cpus))
    return float(run.host.cpus) if run.host.cpus else None


def util(host: Host | None) -> float | None:
    """Busy share of the server's cores over the cell's window: of the pinned CPUs when the server was pinned (the
    host sampler measures them apart only then), else of the whole host's."""
    if host is None:
        return None
    return host.server_cpu_util_mean if host.server_cpu_util_mean is not None else host.cpu_util_mean


def shared(run: Run) -> bool:
    """Whether JMeter ran on the server's cores (then CPU figures hold the generator's work too)."""
    return not run.server_cpus


def words(run: Run) -> str:
    """"the host's 2 cores, which JMeter shares" or "its own CPU 1 (JMeter on CPU 0)"."""
    if run.server_cpus:
        own = ", ".join(str(c) for c in run.server_cpus)
        rest = ", ".join(str(c) for c in run.generator_cpus or ())
        return (f"its own CPU{'s' if len(run.server_cpus) > 1 else ''} {own}"
                + (f" (JMeter on CPU{'s' if len(run.generator_cpus) > 1 else ''} {rest})" if rest else ""))
    n = cores(run)
    return f"the host's {n:g} cores, which JMeter shares" if n else "the host's cores, which JMeter shares"
