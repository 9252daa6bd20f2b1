"""The server's CPU over a cell's window: whose cores, on which host, how many, how busy, answered once per cell
(Cell.server_cpu) by the first of these that has a figure:

1. the CPUs the grid pinned the sample server to (`[server] cpus`), measured apart on this host, JMeter on the
   others (server_pinned);
2. the target host's node_exporter: its busy share and cores (server_host); one whose kernel boot time is this
   host's runs in a network namespace of this machine, and its CPU is this machine's, JMeter's included
   (host_shared, never "the server host's": `same_machine`);
3. this host, when the target ran here: the generator's host-metrics.csv, whose cores JMeter shares (host_shared);
4. the service process's own CPU as it reports it ([observe]: process_cpu_*) from a source on the target's host,
   with a core count (system_cpu_count) (server_process); on a host a same-machine node_exporter shares, its cores
   are said to be this machine's, shared with JMeter;
5. otherwise not measured: the generator's host is never the server's when the server ran elsewhere.

The host's figures come before the process's: whether the cores are saturated is a property of the cores, and a
process kept from them by other work on its host (JMeter's, when the target ran here) shows a busy share well
below 1 while the host's is at 1. The process's figure answers when nothing measured its host.

Every stage that reasons about the server's CPU (bounds from the demand law, the CPU bottleneck, time in service
shared by the cores, CPU per request: analysis/observed/cpu_demand.py) reads Cell.server_cpu, so the rule is written once.
The generator's own host figures stay in Cell.host for the generator's findings."""

from __future__ import annotations

from littlegrid.analysis.observed.mapping import THIS_HOST
from littlegrid.summary.model import Cell, ObservedHost, Run, ServerCpu

# Whose cores a CPU figure is of (ServerCpu.basis, CpuPerRequest.basis, HostLimit.basis)
SERVER_PINNED = "server_pinned"    # the CPUs the server was pinned to, measured apart; JMeter on the others
SERVER_PROCESS = "server_process"  # the service process's own CPU, as it reported it, on its host's cores
SERVER_HOST = "server_host"        # the server host's CPUs, as its node_exporter reported them
HOST_SHARED = "host_shared"        # the host's cores, the server and JMeter on them both
GENERATOR_HOST = "generator_host"  # older summaries only: the host JMeter ran on, the server elsewhere
NOT_MEASURED = "not_measured"      # no CPU figure of the server's host, or no core count


def target_here(run: Run, cell: Cell | None = None) -> bool:
    """Whether the cell's target (the run's, unless an axis moved it) ran on this host, the one JMeter and
    host-metrics.csv measured: as the runner recorded it; for an older folder that did not, unless its grid named
    a [target] (the sample server ran here)."""
    target = cell.target if cell is not None and cell.target is not None else run.target
    placement = target.placement if target is not None else "unknown"
    if placement != "unknown":
        return placement == "this_host"
    return run.server_started is not False


def of_cell(cell: Cell, run: Run) -> ServerCpu | None:
    """The cell's server CPU by the order above (None for a cell without a window's figures)."""
    if cell.overall is None:
        return None
    observed = cell.observed
    on_target = {s.url for s in observed.sources if s.target_host} if observed is not None else set()
    here = target_here(run, cell)
    if run.server_cpus:
        util = cell.host.server_cpu_util_mean if cell.host is not None else None
        if util is not None:
            return _answer(SERVER_PINNED, THIS_HOST, float(len(run.server_cpus)), util, False, here, run)
    hosts = [h for h in (observed.hosts if observed else ()) if h.source in on_target]
    for h in hosts:
        if h.cpu_util_mean is not None and h.cores:
            if same_machine(h, run):  # a network namespace of this host: its cores are JMeter's too
                return ServerCpu(basis=HOST_SHARED, host=h.host, cores=float(h.cores), util=h.cpu_util_mean,
                                 shared_with_generator=True, words=_namespace_words(h))
            return _answer(SERVER_HOST, h.host, float(h.cores), h.cpu_util_mean, here, here, run)
    if here and not run.server_cpus and cell.host is not None and cell.host.cpu_util_mean is not None \
            and run.host.cpus:
        return _answer(HOST_SHARED, THIS_HOST, float(run.host.cpus), cell.host.cpu_util_mean, True, here, run)
    this_machine = {h.host for h in (observed.hosts if observed else ()) if same_machine(h, run)}
    for p in (observed.process_cpu if observed else ()):
        if p.source in on_target and p.cores:
            cpu = _answer(SERVER_PROCESS, p.host, p.cores, p.cores_busy_mean / p.cores, False, here, run)
            if p.host in this_machine:  # its host's node_exporter runs on this machine: so does the process
                cpu = cpu.model_copy(update={"words": f"the server process's CPU on this machine ({_count(p.cores)}, "
                                                      f"which JMeter shares; at {p.host}, a network namespace of it)"})
            return cpu
    cores = float(len(run.server_cpus)) if run.server_cpus else float(run.host.cpus) if here and run.host.cpus \
        else None
    return _answer(NOT_MEASURED, None, cores, None, here and not run.server_cpus, here, run)


SAME_BOOT_S = 1.0  # boot times within this are one kernel's (both read /proc/stat's whole-second btime)


def same_machine(host: ObservedHost, run: Run) -> bool:
    """Whether a node_exporter's host is this machine, whatever its address: a network namespace of this host (its
    own address, which this host cannot bind, so placement calls it elsewhere) shares this kernel, and so its boot
    time (node_boot_time_seconds against the run's /proc/stat btime). Its CPU is then this machine's, JMeter's
    included, never "the server host's". False when either boot time is unknown (an older run folder, an exporter
    without the stat collector)."""
    mine, theirs = run.host.boot_time_s, host.boot_time_s
    return mine is not None and theirs is not None and abs(mine - theirs) <= SAME_BOOT_S


def _namespace_words(host: ObservedHost) -> str:
    """Whose cores a same-machine node_exporter's figure is, for a sentence."""
    return (f"this machine's {_count(float(host.cores))} (node_exporter at {host.host}, a network namespace of it: "
            f"the same boot time), which JMeter shares")


def _answer(basis: str, host: str | None, cores: float | None, util: float | None, shared: bool, here: bool,
            run: Run) -> ServerCpu:
    return ServerCpu(basis=basis, host=host, cores=cores, util=util, shared_with_generator=shared,
                     words=_words(basis, host, cores, shared, here, run))


def _count(cores: float | None) -> str:
    return f"{cores:g} core{'s' if cores != 1 else ''}" if cores else "cores"


def _words(basis: str, host: str | None, cores: float | None, shared: bool, here: bool, run: Run) -> str:
    """Whose cores, for a sentence: "its own CPU 1 (JMeter on CPU 0)", "the server process's CPU on 10.0.0.7
    (4 cores)", "10.0.0.7's 4 cores (its node_exporter)", "the host's 2 cores, which JMeter shares"."""
    if basis == SERVER_PINNED:
        own = ", ".join(str(c) for c in run.server_cpus)
        rest = ", ".join(str(c) for c in run.generator_cpus or ())
        return (f"its own CPU{'s' if len(run.server_cpus) > 1 else ''} {own}"
                + (f" (JMeter on CPU{'s' if len(run.generator_cpus) > 1 else ''} {rest})" if rest else ""))
    if basis == SERVER_PROCESS:
        return f"the server process's CPU on {host} ({_count(cores)})"
    if basis == SERVER_HOST:
        return f"{host}'s {_count(cores)} (its node_exporter)" + (", which JMeter shares" if shared else "")
    if basis == HOST_SHARED:
        return f"the host's {_count(cores)}, which JMeter shares"
    if here:
        return "not measured"
    return "not measured (the server ran elsewhere and nothing scraped its host's CPU)"


def owner(cpu: ServerCpu | None) -> str:
    """Whose CPU a utilisation is, possessive: "the server's" (pinned), "the server process's", "the server
    host's" (node_exporter), "the host's" (shared with JMeter), "the generator's host's" (older summaries)."""
    return owner_of(cpu.basis if cpu is not None else NOT_MEASURED)


def owner_of(basis: str) -> str:
    """owner() by a basis alone (what a finding keeps of it)."""
    return {SERVER_PROCESS: "the server process's", SERVER_HOST: "the server host's", HOST_SHARED: "the host's",
            GENERATOR_HOST: "the generator's host's"}.get(basis, "the server's")


def util(cell: Cell) -> float | None:
    """Busy share of the server's cores over the cell's window (None: not measured)."""
    return cell.server_cpu.util if cell.server_cpu is not None else None


def cores(cell: Cell) -> float | None:
    """The server's cores, when known."""
    return cell.server_cpu.cores if cell.server_cpu is not None else None


def shared(cell: Cell) -> bool:
    """Whether JMeter ran on the server's measured cores (then CPU figures hold the generator's work too)."""
    return cell.server_cpu is not None and cell.server_cpu.shared_with_generator


def ran_here(cell: Cell) -> bool:
    """Whether the cell's server ran on the generator's host (pinned there, sharing its cores, or not measured but
    placed here): then the host's figures (its load average) are the server's host's too; an older summary without
    a server CPU record is taken as not known to be here."""
    cpu = cell.server_cpu
    return cpu is not None and (cpu.host == THIS_HOST or cpu.shared_with_generator)


def basis(cell: Cell) -> str:
    return cell.server_cpu.basis if cell.server_cpu is not None else NOT_MEASURED


def words(cell: Cell) -> str:
    return cell.server_cpu.words if cell.server_cpu is not None else "not measured"


def demand_words(cpu: ServerCpu) -> str:
    """Whose cores a CPU per request is of, for a sentence or a table."""
    if cpu.basis == SERVER_PINNED:
        return "the server's pinned " + cpu.words.removeprefix("its own ")
    if cpu.basis == HOST_SHARED:
        return f"the host's {cpu.cores:g} cores, shared with the generator (JMeter's own work included)"
    if cpu.basis == NOT_MEASURED:
        return "not measured"
    return cpu.words
