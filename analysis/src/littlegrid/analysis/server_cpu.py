"""The cores the server under test has, and how busy they were: the host's, shared with JMeter, or the CPUs the
grid pinned the sample server to (`[server] cpus`, JMeter then on the others); and whose they were (`basis`), so a
sentence never calls the generator's CPU the server's. Every stage that reasons about the server's CPU (bounds from
the demand law, the CPU bottleneck, time in service shared by the cores, CPU per request: analysis/cpu_demand.py)
asks here, so the rule is written once."""

from __future__ import annotations

from littlegrid.summary.model import Host, Run

# Whose cores a CPU figure is of (CpuPerRequest.basis, HostLimit.basis)
SERVER_PINNED = "server_pinned"    # the CPUs the server was pinned to, measured apart; JMeter on the others
HOST_SHARED = "host_shared"        # the host's cores, the server and JMeter on them both
GENERATOR_HOST = "generator_host"  # the host JMeter ran on; the server was not started there
NOT_MEASURED = "not_measured"      # no CPU figure, or no core count


def cores(run: Run) -> float | None:
    """The measured cores: as many as the CPUs the server was pinned to, else the host's."""
    if run.server_cpus:
        return float(len(run.server_cpus))
    return float(run.host.cpus) if run.host.cpus else None


def util(host: Host | None) -> float | None:
    """Busy share of the measured cores over the cell's window: of the pinned CPUs when the server was pinned (the
    host sampler measures them apart only then), else of the whole host's."""
    if host is None:
        return None
    return host.server_cpu_util_mean if host.server_cpu_util_mean is not None else host.cpu_util_mean


def basis(run: Run) -> str:
    """Whose cores `cores` and `util` are of, when measured: the server's own (pinned), the host's that the server
    shared with JMeter, or the generator's host alone (a target the runner did not start)."""
    if run.server_cpus:
        return SERVER_PINNED
    return GENERATOR_HOST if run.server_started is False else HOST_SHARED


def shared(run: Run) -> bool:
    """Whether JMeter ran on the measured cores (then CPU figures hold the generator's work too)."""
    return not run.server_cpus


def owner(run: Run) -> str:
    """Whose CPU a utilisation is, possessive: "the server's" (pinned), "the host's" (shared with JMeter), "the
    generator's host's" (the server ran elsewhere)."""
    b = basis(run)
    return "the server's" if b == SERVER_PINNED else "the generator's host's" if b == GENERATOR_HOST else "the host's"


def words(run: Run) -> str:
    """Whose cores, for a sentence: "its own CPU 1 (JMeter on CPU 0)", "the host's 2 cores, which JMeter shares",
    "the generator's host's 2 cores (the server ran elsewhere: its CPU is not measured)"."""
    if run.server_cpus:
        own = ", ".join(str(c) for c in run.server_cpus)
        rest = ", ".join(str(c) for c in run.generator_cpus or ())
        return (f"its own CPU{'s' if len(run.server_cpus) > 1 else ''} {own}"
                + (f" (JMeter on CPU{'s' if len(run.generator_cpus) > 1 else ''} {rest})" if rest else ""))
    n = cores(run)
    count = f"{n:g} cores" if n else "cores"
    if basis(run) == GENERATOR_HOST:
        return f"the generator's host's {count} (the server ran elsewhere: its CPU is not measured)"
    return f"the host's {count}, which JMeter shares"
