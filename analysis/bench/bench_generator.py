"""Benchmark: JMeter's CPU per request in the steady window, each plan of the suite beside a bare one-sampler plan.

Usage (from analysis/, under the load lock; about 35 s per JMeter run):
    flock "$LOAD_LOCK" target/venv/bin/python bench/bench_generator.py              # closed, open, spike; 3 rounds
    flock "$LOAD_LOCK" target/venv/bin/python bench/bench_generator.py --plans closed --rounds 5
    flock "$LOAD_LOCK" target/venv/bin/python bench/bench_generator.py --plans closed,my-variant.jmx
    flock "$LOAD_LOCK" target/venv/bin/python bench/bench_generator.py --plans closed --variants all --bare-every 3

One sample server (200 Tomcat threads) serves `/io?ms=0` to one JMeter run at a time; each round runs the bare
plan (bench/bare.jmx: one Thread Group, one HttpClient4 keep-alive sampler, nothing else) and then each plan once,
in an order rotated by one from round to round, and a last bare run closes the run, so every plan run sits between
two bare runs and its ratio is to their mean (`--bare-every K` puts a bare run before every K plan runs, for long
rounds). Every plan is driven as fast as `users` threads go: closed.jmx at think time 0; open.jmx with `users`
threads and an arrival rate twice what the last bare run reached, so its timer always finds the next arrival due
(its schedule is behind) and the figure is its per-request cost at full speed; spike.jmx with `users` threads and
enough requests each to last about `--duration` seconds at the bare plan's rate. Every run gets the save-service
properties the runner passes (plans/littlegrid.properties), so the bare plan writes the same columns.

`--variants` adds variants of closed.jmx, each less one per-request element (bench/plan_variants.py: the header
manager, the timer, the `${__P()}` functions, the body argument, the timeouts, the content encoding, the disabled
listener, the recorded sample variable; `bare-like` all at once), generated into the run's temporary folder. A
variant's "closed.jmx minus this" is the same round's closed.jmx run less the variant's: what the element costs.

JMeter's CPU is the process's utime + stime (/proc/<pid>/stat), read every 0.1 s and interpolated at the ends of
the steady window (the JTL's first sample + `--warmup`, its last end − `--cooldown`); requests are the samples
completed in the window, so start-up, class loading and most of the JIT's work are left out. The host has two
cores that JMeter and the server share, so requests/s is what this host reaches, not what JMeter could. Each run
also says how quiet the host was: the CPU busy in the window beyond JMeter, the server and this script (others,
in cores, from /proc/stat), the CPU the hypervisor stole, and the load average at its end.

Target (issue 37): closed.jmx at think 0 costs at most 1.2x the bare plan's CPU per request in the same run
(the median of the rounds' ratios). The host's other load moves both figures by up to 2x from run to run
(JMeter's CPU per request grows when it shares the cores with more threads), hence the alternation and the median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from littlegrid.analysis.steady.window import steady_window  # noqa: E402
from littlegrid.jtl import read_jtl  # noqa: E402
from littlegrid.run.jmeter import JMeter, find_jmeter, repo_root  # noqa: E402
from littlegrid.run.plan_properties import save_service_properties  # noqa: E402
from littlegrid.run.sample_server import SampleServer  # noqa: E402
from plan_variants import BY_NAME as VARIANTS, Variant, write_variant  # noqa: E402

ROOT = repo_root(Path(__file__).parent)
BARE = Path(__file__).parent / "bare.jmx"
PLANS = {name: ROOT / "plans" / f"{name}.jmx" for name in ("closed", "open", "spike")}
TARGET = 1.2  # closed.jmx / bare plan, CPU per request (issue 37)
CLOCK_TICK_S = 1 / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Run:
    """One JMeter run's steady window: JMeter's CPU in it, the requests completed in it, its throughput, and what
    else the host did meanwhile (the CPU of everything but JMeter and the server, and the CPU stolen from the VM)."""

    plan: str
    cpu_s: float
    requests: int
    window_s: float
    started: str        # UTC, when the run began
    jit_s: float        # of cpu_s, JMeter's JIT compiler threads
    gc_s: float         # of cpu_s, JMeter's garbage collector threads
    others_cores: float  # host CPU busy in the window beyond JMeter and the server, in cores
    steal_cores: float  # CPU the hypervisor took from this VM in the window, in cores
    load_1m: float      # /proc/loadavg at the run's end (JMeter and the server count in it)

    @property
    def cpu_us_per_request(self) -> float:
        return self.cpu_s / self.requests * 1e6

    @property
    def throughput(self) -> float:
        return self.requests / self.window_s


def _cpu_s(pid: int) -> float | None:
    """utime + stime of the process (all its threads), in seconds; None once it has gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return (int(fields[11]) + int(fields[12])) * CLOCK_TICK_S  # fields 14 and 15 of proc(5), after "pid (comm)"


def jit_or_gc(thread: str) -> str | None:
    """The JVM's JIT compiler threads and its garbage collector's threads, by their names in /proc."""
    if thread.startswith(("C1 CompilerThre", "C2 CompilerThre")):
        return "jit"
    if thread.startswith(("GC Thread", "G1 ")):
        return "gc"
    return None


class ThreadCpu:
    """CPU seconds of a process's threads, summed by kind (`kind_of` names a thread's kind from its name, or None
    to leave it out), from its tasks' /proc stat. Each thread's last reading is kept, so a thread that ends (a
    compiler thread the JVM retires) still counts."""

    def __init__(self, pid: int, kind_of=jit_or_gc):
        self.pid, self.kind_of, self.last = pid, kind_of, {}  # tid -> (kind, CPU s)

    def read(self) -> dict[str, float]:
        for task in Path(f"/proc/{self.pid}/task").glob("*"):
            try:
                with open(task / "stat", encoding="ascii", errors="replace") as f:
                    text = f.read()
            except (FileNotFoundError, ProcessLookupError):
                continue
            kind = self.kind_of(text[text.index("(") + 1:text.rindex(")")])
            if kind:
                fields = text.rsplit(")", 1)[1].split()
                self.last[task.name] = (kind, (int(fields[11]) + int(fields[12])) * CLOCK_TICK_S)
        totals: dict[str, float] = {}
        for kind, cpu in self.last.values():
            totals[kind] = totals.get(kind, 0.0) + cpu
        return totals


def _host_s() -> tuple[float, float]:
    """(busy, steal) CPU seconds of the whole host since boot, all cores (/proc/stat's first line)."""
    with open("/proc/stat", encoding="ascii") as f:
        user, nice, system, idle, iowait, irq, softirq, steal = (int(x) for x in f.readline().split()[1:9])
    return (user + nice + system + irq + softirq) * CLOCK_TICK_S, steal * CLOCK_TICK_S


def measured_run(jmeter: JMeter, label: str, plan: Path, properties: dict, folder: Path, read, args):
    """Run the plan non-GUI, calling read(pid) (a tuple of CPU seconds) every 0.1 s while JMeter runs, and take the
    steady window of its JTL: (start time, samples, window, each reading's CPU s spent in the window, the samples
    completed in it). The one measurement both benchmarks make (this one's plans, bench_elements.py's groups)."""
    jtl, log = folder / f"{label}.jtl", folder / f"{label}.log"
    command = jmeter.command(plan, jtl=jtl, log=log, properties=properties)
    readings = []  # (epoch ms, *read(pid))
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as process:
        while (row := read(process.pid)) is not None and process.poll() is None:
            readings.append((time.time() * 1000, *row))
            time.sleep(0.1)
        stderr = process.communicate()[1]
    if process.returncode != 0:
        raise SystemExit(f"{label}: JMeter exited with {process.returncode}: {stderr.decode()[-500:]} (log: {log})")
    samples = read_jtl(jtl).samples
    window = steady_window(samples, args.warmup, args.cooldown)
    at_ms, *series = np.array(readings).T
    if not (at_ms[0] <= window.start_ms and window.end_ms <= at_ms[-1]):
        raise SystemExit(f"{label}: the CPU readings do not cover the steady window (log: {log})")
    spent = [float(np.interp(window.end_ms, at_ms, s) - np.interp(window.start_ms, at_ms, s)) for s in series]
    done = samples[samples["end_ms"].between(window.start_ms, window.end_ms)]
    if not done["success"].all():
        raise SystemExit(f"{label}: failed requests in the window ({jtl})")
    jtl.unlink()
    return started, samples, window, spent, done


def run_plan(jmeter: JMeter, label: str, plan: Path, properties: dict, folder: Path, server_pid: int, args) -> Run:
    """Run the plan non-GUI, reading JMeter's, the server's and the host's CPU every 0.1 s, and measure its steady
    window."""
    threads = {}

    def read(pid: int):
        # (JMeter CPU s, its JIT's, its GC's, server CPU s, host busy s, host steal s, this script's CPU s)
        if (cpu := _cpu_s(pid)) is None:
            return None
        kinds = threads.setdefault(pid, ThreadCpu(pid)).read()
        own = os.times()
        return (cpu, kinds.get("jit", 0.0), kinds.get("gc", 0.0), _cpu_s(server_pid) or 0.0, *_host_s(),
                own.user + own.system)

    started, samples, window, spent, done = measured_run(jmeter, label, plan, properties, folder, read, args)
    jmeter_s, jit_s, gc_s, server_s, busy_s, steal_s, own_s = spent
    with open("/proc/loadavg", encoding="ascii") as f:
        load_1m = float(f.read().split()[0])
    return Run(label, jmeter_s, len(done), window.length_s, started, jit_s, gc_s,
               others_cores=max(0.0, busy_s - jmeter_s - server_s - own_s) / window.length_s,
               steal_cores=steal_s / window.length_s, load_1m=load_1m)


def plan_properties(name: str, bare: Run | None, args) -> dict:
    """The properties that drive a plan as fast as `users` threads go (see the module docstring)."""
    common = {"path": args.path, "duration_s": args.duration}
    if name == "open":
        return common | {"threads": args.users, "rate_per_s": round(2 * bare.throughput)}
    if name == "spike":
        return {"path": args.path, "users": args.users,
                "requests_per_user": round(bare.throughput * args.duration / args.users)}
    return common | {"users": args.users, "think_ms": 0}  # closed.jmx, a variant of it, or a plan given as a path


def _warm_up(server: SampleServer, requests: int = 3000, concurrency: int = 20) -> None:
    """The server's first requests are slow (class loading, JIT): the benchmark measures JMeter, not that."""
    def get(_):
        with urllib.request.urlopen(f"{server.base_url}/io?ms=0", timeout=30) as response:
            response.read()

    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(get, range(requests)))


@dataclass(frozen=True)
class Entry:
    """One plan of the benchmark: a suite plan, a plan given as a path, or a variant of closed.jmx."""

    name: str
    plan: Path | None = None       # None: a variant, written per run (its literals follow the run's properties)
    variant: Variant | None = None


def _schedule(names: list[str], rounds: int, bare_every: int) -> list[str]:
    """The order of the runs: in each round every plan once, the order rotated by one from round to round (so that
    no plan always runs just after a bare run, or last), a bare run before every `bare_every` plans and at the end."""
    order = []
    for r in range(rounds):
        rotated = names[r % len(names):] + names[:r % len(names)]
        for i, name in enumerate(rotated):
            if i % bare_every == 0:
                order.append("bare")
            order.append(name)
    return order + ["bare"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plans", default="closed,open,spike",
                        help="comma-separated: closed, open, spike, or a .jmx path run as closed.jmx is")
    parser.add_argument("--variants", default="",
                        help=f"comma-separated variants of closed.jmx, or all: {', '.join(VARIANTS)}")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bare-every", type=int, default=0,
                        help="a bare run before every so many plan runs (default: once per round)")
    parser.add_argument("--users", type=int, default=20, help="JMeter threads of every plan (default 20)")
    parser.add_argument("--duration", type=int, default=30, help="seconds per JMeter run (default 30)")
    parser.add_argument("--warmup", type=float, default=12.0,
                        help="seconds trimmed after the first sample (JMeter's JIT is still compiling at 8 s)")
    parser.add_argument("--cooldown", type=float, default=2.0, help="seconds trimmed before the last end")
    parser.add_argument("--path", default="/io?ms=0")
    parser.add_argument("--server-threads", type=int, default=200)
    args = parser.parse_args(argv)
    entries = [Entry(n if n in PLANS else Path(n).stem, PLANS.get(n) or Path(n).resolve())
               for n in (p.strip() for p in args.plans.split(",")) if n]
    wanted = list(VARIANTS) if args.variants.strip() == "all" else \
        [v.strip() for v in args.variants.split(",") if v.strip()]
    for name in wanted:
        if name not in VARIANTS:
            raise SystemExit(f"--variants: no variant {name!r} (known: {', '.join(VARIANTS)})")
        entries.append(Entry(name, None, VARIANTS[name]))
    by_name = {e.name: e for e in entries}
    order = _schedule(list(by_name), args.rounds, args.bare_every or len(by_name))
    jmeter = find_jmeter(ROOT)
    runs: list[Run] = []
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="bench-generator-") as tmp, \
            SampleServer({"server.tomcat.threads.max": args.server_threads}, log=Path(tmp) / "server.log") as server:
        _warm_up(server)
        target = {"host": "127.0.0.1", "port": server.port}
        last_bare = None
        for name in order:
            counts[name] = counts.get(name, 0) + 1
            label = f"{name}-{counts[name]}"
            entry = by_name.get(name)
            kind = "closed" if name == "bare" or entry.variant else entry.name  # bare and variants: as closed.jmx
            properties = save_service_properties() | target | plan_properties(kind, last_bare, args)
            if name == "bare":
                plan = BARE
            elif entry.variant:
                properties = entry.variant.run(properties)
                plan = write_variant(PLANS["closed"], entry.variant, properties, Path(tmp))
            else:
                plan = entry.plan
            run = run_plan(jmeter, label, plan, properties, Path(tmp), server.process.pid, args)
            runs.append(run)
            if name == "bare":
                last_bare = run
            print(_line(run, last_bare if name != "bare" else None), flush=True)
    _table(runs, list(by_name), args)
    return 0


def _name(run: Run) -> str:
    return run.plan.rsplit("-", 1)[0]


def _ratios(runs: list[Run]) -> dict[str, list[float]]:
    """Each plan run's CPU per request over the mean of the bare runs just before and after it: a change in the
    host's other load during the run (the ratio's main noise) weighs on both sides alike."""
    bare_at = [i for i, r in enumerate(runs) if _name(r) == "bare"]
    ratios: dict[str, list[float]] = {}
    for i, run in enumerate(runs):
        if _name(run) == "bare":
            continue
        before = runs[max(b for b in bare_at if b < i)]
        after = runs[min(b for b in bare_at if b > i)]
        bare = (before.cpu_us_per_request + after.cpu_us_per_request) / 2
        ratios.setdefault(_name(run), []).append(run.cpu_us_per_request / bare)
    return ratios


def _line(run: Run, bare: Run | None = None) -> str:
    ratio = f"  {run.cpu_us_per_request / bare.cpu_us_per_request:5.2f}x last bare" if bare else ""
    return (f"{run.started}  {run.plan:>22}  {run.cpu_us_per_request:6.1f} µs/request  {run.throughput:7.0f} "
            f"requests/s  ({run.requests} requests, {run.cpu_s:.2f} CPU s in {run.window_s:.1f} s, JIT "
            f"{run.jit_s:.2f} s, GC {run.gc_s:.2f} s; others "
            f"{run.others_cores:.2f} cores, steal {run.steal_cores:.2f}, load {run.load_1m:.2f}){ratio}")


def _spread(values: list[float], fmt: str) -> str:
    return f"{fmt.format(min(values))}–{fmt.format(max(values))} (median {fmt.format(statistics.median(values))})"


def _table(runs: list[Run], names: list[str], args) -> None:
    ratios = _ratios(runs)
    rounds = {n: [r for r in runs if _name(r) == n] for n in ["bare"] + names}
    closed_cpu = [r.cpu_us_per_request for r in rounds.get("closed", [])]
    print(f"\nJMeter CPU per request in the steady window, {args.users} threads, {args.path}; {runs[0].started} to "
          f"{runs[-1].started} UTC; {args.rounds} rounds, each plan's ratio to the mean of the bare runs just before "
          f"and after it (min–max, median); others: the host's CPU beyond JMeter and the server, in cores")
    print("| plan | JMeter CPU per request (µs) | of which JIT / GC (µs, median) | ratio to the bare plan "
          "| requests/s | closed.jmx minus this (µs) | others (cores) | load 1 min |")
    print("|---|---|---|---|---|---|---|---|")
    for name, mine in rounds.items():
        cpu = [r.cpu_us_per_request for r in mine]
        ratio = _spread(ratios[name], "{:.2f}") if name in ratios else "1"
        saved = ""
        if name in VARIANTS and len(closed_cpu) == len(cpu):  # the same round's closed.jmx run, paired
            saved = _spread([c - v for c, v in zip(closed_cpu, cpu)], "{:+.1f}")
        jit = statistics.median(r.jit_s / r.requests * 1e6 for r in mine)
        gc = statistics.median(r.gc_s / r.requests * 1e6 for r in mine)
        rate = _spread([r.throughput for r in mine], "{:,.0f}")
        others = _spread([r.others_cores for r in mine], "{:.2f}")
        print(f"| {name} | {_spread(cpu, '{:.1f}')} | {jit:.1f} / {gc:.1f} | {ratio} | {rate} | {saved} | {others} "
              f"| {_spread([r.load_1m for r in mine], '{:.2f}')} |")
    if "closed" in ratios:
        median = statistics.median(ratios["closed"])
        print(f"\ntarget: closed.jmx / bare plan {median:.2f} (median of {len(ratios['closed'])} rounds, range "
              f"{min(ratios['closed']):.2f}–{max(ratios['closed']):.2f}), limit {TARGET:.2f}  "
              f"{'PASS' if median <= TARGET else 'MISS'}")
    if any(n in VARIANTS for n in names):
        print("\nvariants: " + "; ".join(f"{n}: closed.jmx less {VARIANTS[n].drops}" for n in names if n in VARIANTS))


if __name__ == "__main__":
    sys.exit(main())
