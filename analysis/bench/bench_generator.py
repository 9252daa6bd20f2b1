"""Benchmark: JMeter's CPU per request in the steady window, each plan of the suite beside a bare one-sampler plan.

Usage (from analysis/, under the load lock; about 30 s per JMeter run):
    flock "$LOAD_LOCK" target/venv/bin/python bench/bench_generator.py              # closed, open, spike; 3 rounds
    flock "$LOAD_LOCK" target/venv/bin/python bench/bench_generator.py --plans closed --rounds 5
    flock "$LOAD_LOCK" target/venv/bin/python bench/bench_generator.py --plans closed,my-variant.jmx

One sample server (200 Tomcat threads) serves `/io?ms=0` to one JMeter run at a time; each round runs the bare
plan (bench/bare.jmx: one Thread Group, one HttpClient4 keep-alive sampler, nothing else) and then each plan, and a
last bare run closes the run, so every plan run sits between two bare runs and its ratio is to their mean. Every plan is driven as
fast as `users` threads go: closed.jmx at think time 0; open.jmx with `users` threads and an arrival rate twice
what the round's bare plan reached, so its timer always finds the next arrival due (its schedule is behind) and
the figure is its per-request cost at full speed; spike.jmx with `users` threads and enough requests each to
last about `--duration` seconds at the bare plan's rate. Every run gets the save-service properties the runner
passes (plans/littlegrid.properties), so the bare plan writes the same columns.

JMeter's CPU is the process's utime + stime (/proc/<pid>/stat), read every 0.1 s and interpolated at the ends of
the steady window (the JTL's first sample + `--warmup`, its last end − `--cooldown`); requests are the samples
completed in the window, so start-up, class loading and most of the JIT's work are left out. The host has two
cores that JMeter and the server share, so requests/s is what this host reaches, not what JMeter could.

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
from pathlib import Path

import numpy as np

from littlegrid.analysis.window import steady_window
from littlegrid.jtl import read_jtl
from littlegrid.run.jmeter import JMeter, find_jmeter, repo_root
from littlegrid.run.plan_properties import save_service_properties
from littlegrid.run.sample_server import SampleServer

ROOT = repo_root(Path(__file__).parent)
BARE = Path(__file__).parent / "bare.jmx"
PLANS = {name: ROOT / "plans" / f"{name}.jmx" for name in ("closed", "open", "spike")}
TARGET = 1.2  # closed.jmx / bare plan, CPU per request (issue 37)
CLOCK_TICK_S = 1 / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Run:
    """One JMeter run's steady window: JMeter's CPU in it, the requests completed in it, and its throughput."""

    plan: str
    cpu_s: float
    requests: int
    window_s: float

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


def run_plan(jmeter: JMeter, label: str, plan: Path, properties: dict, folder: Path, args) -> Run:
    """Run the plan non-GUI, reading JMeter's CPU every 0.1 s, and measure its steady window."""
    jtl, log = folder / f"{label}.jtl", folder / f"{label}.log"
    props = save_service_properties() | properties
    command = jmeter.command(plan, jtl=jtl, log=log, properties=props)
    readings = []  # (epoch ms, CPU s)
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as process:
        while (cpu := _cpu_s(process.pid)) is not None and process.poll() is None:
            readings.append((time.time() * 1000, cpu))
            time.sleep(0.1)
        stderr = process.communicate()[1]
    if process.returncode != 0:
        raise SystemExit(f"{label}: JMeter exited with {process.returncode}: {stderr.decode()[-500:]} (log: {log})")
    samples = read_jtl(jtl).samples
    window = steady_window(samples, args.warmup, args.cooldown)
    at_ms, cpu = np.array(readings).T
    if not (at_ms[0] <= window.start_ms and window.end_ms <= at_ms[-1]):
        raise SystemExit(f"{label}: the CPU readings do not cover the steady window (log: {log})")
    spent = float(np.interp(window.end_ms, at_ms, cpu) - np.interp(window.start_ms, at_ms, cpu))
    done = samples["end_ms"].between(window.start_ms, window.end_ms)
    if not samples.loc[done, "success"].all():
        raise SystemExit(f"{label}: failed requests in the window ({jtl})")
    jtl.unlink()
    return Run(label, spent, int(done.sum()), window.length_s)


def plan_properties(name: str, bare: Run, args) -> dict:
    """The properties that drive a plan as fast as `users` threads go (see the module docstring)."""
    common = {"path": args.path, "duration_s": args.duration}
    if name == "open":
        return common | {"threads": args.users, "rate_per_s": round(2 * bare.throughput)}
    if name == "spike":
        return {"path": args.path, "users": args.users,
                "requests_per_user": round(bare.throughput * args.duration / args.users)}
    return common | {"users": args.users, "think_ms": 0}  # closed.jmx, or a variant given as a path


def _warm_up(server: SampleServer, requests: int = 3000, concurrency: int = 20) -> None:
    """The server's first requests are slow (class loading, JIT): the benchmark measures JMeter, not that."""
    def get(_):
        with urllib.request.urlopen(f"{server.base_url}/io?ms=0", timeout=30) as response:
            response.read()

    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(get, range(requests)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plans", default="closed,open,spike",
                        help="comma-separated: closed, open, spike, or a .jmx path run as closed.jmx is")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--users", type=int, default=20, help="JMeter threads of every plan (default 20)")
    parser.add_argument("--duration", type=int, default=25, help="seconds per JMeter run (default 25)")
    parser.add_argument("--warmup", type=float, default=8.0, help="seconds trimmed after the first sample")
    parser.add_argument("--cooldown", type=float, default=2.0, help="seconds trimmed before the last end")
    parser.add_argument("--path", default="/io?ms=0")
    parser.add_argument("--server-threads", type=int, default=200)
    args = parser.parse_args(argv)
    given = [p.strip() for p in args.plans.split(",") if p.strip()]
    plans = {name if name in PLANS else Path(name).stem: PLANS.get(name) or Path(name).resolve() for name in given}
    names = list(plans)
    jmeter = find_jmeter(ROOT)
    bares: list[Run] = []
    rounds: list[list[Run]] = []  # each round's plan runs, which come after bares[i] and before bares[i + 1]
    with tempfile.TemporaryDirectory(prefix="bench-generator-") as tmp, \
            SampleServer({"server.tomcat.threads.max": args.server_threads}, log=Path(tmp) / "server.log") as server:
        _warm_up(server)
        target = {"host": "127.0.0.1", "port": server.port}
        for r in range(1, args.rounds + 2):  # a last bare run closes the last round
            bare = run_plan(jmeter, f"bare-{r}", BARE, target | plan_properties("bare", None, args), Path(tmp), args)
            bares.append(bare)
            print(_line(bare), flush=True)
            if r > args.rounds:
                break
            rounds.append([])
            for name, plan in plans.items():
                run = run_plan(jmeter, f"{name}-{r}", plan, target | plan_properties(name, bare, args), Path(tmp), args)
                rounds[-1].append(run)
                print(_line(run, bare), flush=True)
    # Each plan run is set beside the bare runs just before and after it, so a change in the host's other load
    # during the run (the ratio's main noise) weighs on both sides alike.
    runs = [(run, bares[i], bares[i + 1]) for i, round_runs in enumerate(rounds) for run in round_runs]
    _table(runs, bares, names, args)
    return 0


def _line(run: Run, bare: Run | None = None) -> str:
    ratio = f"  {run.cpu_us_per_request / bare.cpu_us_per_request:5.2f}x bare" if bare else ""
    return (f"{run.plan:>14}  {run.cpu_us_per_request:7.0f} µs/request  {run.throughput:7.0f} requests/s  "
            f"({run.requests} requests, {run.cpu_s:.2f} CPU s in {run.window_s:.1f} s){ratio}")


def _table(runs: list[tuple[Run, Run, Run]], bares: list[Run], names: list[str], args) -> None:
    print(f"\nJMeter CPU per request in the steady window, {args.users} threads, {args.path}, "
          f"{args.rounds} rounds alternating with the bare plan (min–max, median); a plan's ratio is to the mean of "
          f"the bare runs just before and after it")
    print(f"| plan | JMeter CPU per request | requests/s (max) | ratio to the bare runs before and after it |")
    print("|---|---|---|---|")
    print(_row("bare plan", bares))
    for name in names:
        mine = [(run, before, after) for run, before, after in runs if run.plan.rsplit("-", 1)[0] == name]
        ratios = [2 * run.cpu_us_per_request / (before.cpu_us_per_request + after.cpu_us_per_request)
                  for run, before, after in mine]
        print(_row(name, [run for run, _, _ in mine], ratios))
        if name == "closed":
            median = statistics.median(ratios)
            print(f"\ntarget: closed.jmx / bare plan {median:.2f} (median of rounds), limit {TARGET:.2f}  "
                  f"{'PASS' if median <= TARGET else 'MISS'}")


def _row(name: str, runs: list[Run], ratios: list[float] | None = None) -> str:
    cpu = [r.cpu_us_per_request for r in runs]
    rate = [r.throughput for r in runs]
    spread = f"{min(cpu):,.0f}–{max(cpu):,.0f} µs (median {statistics.median(cpu):,.0f})"
    ratio = f"{min(ratios):.2f}–{max(ratios):.2f} (median {statistics.median(ratios):.2f})" if ratios else "1"
    return f"| {name} | {spread} | {min(rate):,.0f}–{max(rate):,.0f} ({max(rate):,.0f}) | {ratio} |"


if __name__ == "__main__":
    sys.exit(main())
