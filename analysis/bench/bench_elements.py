"""Benchmark: what each per-request element of closed.jmx costs JMeter, measured side by side in one JMeter run.

Usage (from analysis/, under the load lock; about 45 s per run):
    flock "$LOAD_LOCK" target/venv/bin/python bench/bench_elements.py                # 5 runs, every variant
    flock "$LOAD_LOCK" target/venv/bin/python bench/bench_elements.py --runs 3 --variants no-header,no-timer

bench_generator.py runs each plan in a JMeter of its own, alternating with the bare plan; on this 2-core host the
host's state moves a whole run's CPU per request by up to 2x from one run to the next, which hides an element
that costs a tenth of a request. Here one JMeter runs them all at once: one plan whose thread groups are the bare
plan's (bench/bare.jmx), closed.jmx's and each variant's of closed.jmx less one element (bench/plan_variants.py),
`--threads` threads each, all against the same sample server at the same time, so they share the host's state,
the JVM, its JIT and its result writer. Each thread group's CPU is the sum of its threads' utime + stime
(/proc/<pid>/task/*/stat; JMeter names a thread after its group), read every 0.1 s and interpolated at the ends
of the steady window as bench_generator.py does, over the requests its threads completed in the window.
A group's figure is the work its own threads do per request: the sampler, its config elements, timers, the
result writer (-l, in the sampling thread). What threads share (the JIT, the garbage collector, the engine) is
reported for the whole run, beside the groups. Plan-wide settings (sample_variables, a disabled listener) are
the same for every group and are measured by bench_generator.py --variants.

Every run prints each group's CPU per request, its ratio to the bare group's and closed.jmx's group minus it
(what the element it lacks costs); the table gives min–max and median over the runs.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_generator import BARE, PLANS, ROOT, ThreadCpu, _cpu_s, _warm_up, jit_or_gc, measured_run  # noqa: E402
from littlegrid.plan.jmx import load, remove, set_prop  # noqa: E402
from littlegrid.run.jmeter import JMeter, find_jmeter  # noqa: E402
from littlegrid.run.plan_properties import save_service_properties  # noqa: E402
from littlegrid.run.sample_server import SampleServer  # noqa: E402
from plan_variants import BY_NAME as VARIANTS, write_variant  # noqa: E402

USER_VARIABLES = "elementProp[@name='TestPlan.user_defined_variables']/collectionProp"
# Variants that change a thread group's own elements; the others are plan-wide (see the module docstring).
GROUP_VARIANTS = [n for n in VARIANTS if n not in ("no-listener", "no-sample-variables")]


def side_by_side(groups: dict[str, Path], threads: int, path: Path) -> dict[str, str]:
    """One plan holding the first thread group of each plan in `groups`, `threads` threads each, named g1, g2...
    (a Linux thread name keeps 15 characters: JMeter's 'g3 3-12' survives whole). Returns group -> name."""
    plan = load(BARE)
    for node in [n for n in plan.root.children if n.tag == "ThreadGroup"]:
        remove(node)
    variables = plan.root.element.find(USER_VARIABLES)
    names = {}
    for i, (name, source) in enumerate(groups.items(), start=1):
        plan_of_group = load(source)
        variables.extend(copy.deepcopy(list(plan_of_group.root.element.find(USER_VARIABLES))))  # the variables variant
        group = next(n for n in plan_of_group.root.children if n.tag == "ThreadGroup")
        element, tree = copy.deepcopy(group.element), copy.deepcopy(group.tree)
        element.set("testname", f"g{i}")
        set_prop(element, "ThreadGroup.num_threads", str(threads))
        set_prop(element, "ThreadGroup.ramp_time", "1")
        plan.root.tree.append(element)
        plan.root.tree.append(tree)
        names[f"g{i}"] = name
    path.write_bytes(ET.tostring(plan.document.getroot(), encoding="UTF-8", xml_declaration=True))
    return names


def _kind(names: dict[str, str]):
    def kind_of(thread: str) -> str | None:
        group = thread.split(" ", 1)[0]
        return names.get(group) if group in names and " " in thread else jit_or_gc(thread)
    return kind_of


def run_once(jmeter: JMeter, label: str, plan: Path, names: dict[str, str], properties: dict, folder: Path,
             args) -> dict:
    """One side-by-side run: {group: (CPU s, requests)} over the steady window, plus the run's totals."""
    kinds = list(names.values()) + ["jit", "gc"]
    threads = {}

    def read(pid: int):  # (process CPU s, then each kind's CPU s)
        if (cpu := _cpu_s(pid)) is None:
            return None
        by_kind = threads.setdefault(pid, ThreadCpu(pid, _kind(names))).read()
        return (cpu, *(by_kind.get(k, 0.0) for k in kinds))

    started, _, window, spent, done = measured_run(jmeter, label, plan, properties, folder, read, args)
    group_of = done["thread"].astype(str).str.split(" ", n=1).str[0].map(names)
    requests = group_of.value_counts().to_dict()
    with open("/proc/loadavg", encoding="ascii") as f:
        load_1m = float(f.read().split()[0])
    result = {"started": started, "process": spent[0], "requests": len(done), "window_s": window.length_s,
              "load_1m": load_1m, "groups": {}}
    for kind, cpu in zip(kinds, spent[1:]):
        if kind in ("jit", "gc"):
            result[kind] = cpu
        else:
            result["groups"][kind] = (cpu, int(requests.get(kind, 0)))
    return result


def _line(result: dict) -> str:
    groups = result["groups"]
    us = {g: cpu / n * 1e6 for g, (cpu, n) in groups.items()}
    attributed = sum(cpu for cpu, _ in groups.values())
    other = result["process"] - attributed - result["jit"] - result["gc"]
    head = (f"{result['started']}  {result['requests'] / result['window_s']:,.0f} requests/s, JMeter "
            f"{result['process']:.2f} CPU s in {result['window_s']:.1f} s: threads of the groups {attributed:.2f}, "
            f"JIT {result['jit']:.2f}, GC {result['gc']:.2f}, other {other:.2f}; load {result['load_1m']:.2f}")
    rows = [f"    {g:>20}  {us[g]:6.1f} µs/request  {us[g] / us['bare']:5.2f}x bare  {groups[g][1]:7d} requests"
            + (f"  closed minus this {us['closed'] - us[g]:+6.1f} µs" if g not in ('bare', 'closed') else "")
            for g in groups]
    return "\n".join([head] + rows)


def _table(results: list[dict], args) -> None:
    groups = list(results[0]["groups"])
    us = {g: [r["groups"][g][0] / r["groups"][g][1] * 1e6 for r in results] for g in groups}

    def spread(values, fmt):
        return f"{fmt.format(min(values))}–{fmt.format(max(values))} (median {fmt.format(statistics.median(values))})"

    per_s = [r["requests"] / r["window_s"] for r in results]
    print(f"\nSide by side in one JMeter, {args.threads} threads per group, {args.path}; {results[0]['started']} to "
          f"{results[-1]['started']} UTC; {len(results)} runs of {args.duration} s (window from {args.warmup} s); "
          f"{spread(per_s, '{:,.0f}')} requests/s in all; per run, shared by the groups: JIT "
          f"{spread([r['jit'] / r['requests'] * 1e6 for r in results], '{:.1f}')} µs/request, GC "
          f"{spread([r['gc'] / r['requests'] * 1e6 for r in results], '{:.1f}')} µs/request")
    print("| thread group | its threads' CPU per request (µs) | ratio to the bare group | closed.jmx's group minus "
          "this (µs) |")
    print("|---|---|---|---|")
    for g in groups:
        ratio = [u / b for u, b in zip(us[g], us["bare"])]
        less = spread([c - u for c, u in zip(us["closed"], us[g])], "{:+.1f}") if g not in ("bare", "closed") else ""
        print(f"| {g} | {spread(us[g], '{:.1f}')} | {spread(ratio, '{:.2f}')} | {less} |")
    print("\n" + "; ".join(f"{n}: closed.jmx less {VARIANTS[n].drops}" for n in groups if n in VARIANTS))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default=",".join(GROUP_VARIANTS),
                        help=f"comma-separated variants of closed.jmx (default all of: {', '.join(GROUP_VARIANTS)})")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2, help="threads per thread group (default 2)")
    parser.add_argument("--duration", type=int, default=40, help="seconds per JMeter run (default 40)")
    parser.add_argument("--warmup", type=float, default=15.0, help="seconds trimmed after the first sample")
    parser.add_argument("--cooldown", type=float, default=2.0, help="seconds trimmed before the last end")
    parser.add_argument("--path", default="/io?ms=0")
    parser.add_argument("--server-threads", type=int, default=200)
    args = parser.parse_args(argv)
    wanted = [v.strip() for v in args.variants.split(",") if v.strip()]
    for name in wanted:
        if name not in GROUP_VARIANTS:
            raise SystemExit(f"--variants: no thread-group variant {name!r} (known: {', '.join(GROUP_VARIANTS)})")
    jmeter = find_jmeter(ROOT)
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-elements-") as tmp, \
            SampleServer({"server.tomcat.threads.max": args.server_threads}, log=Path(tmp) / "server.log") as server:
        folder = Path(tmp)
        properties = save_service_properties() | {
            "host": "127.0.0.1", "port": server.port, "path": args.path, "duration_s": args.duration,
            "think_ms": 0, "users": args.threads}
        sources = {"bare": BARE, "closed": PLANS["closed"]}
        sources |= {n: write_variant(PLANS["closed"], VARIANTS[n], properties, folder) for n in wanted}
        plan = folder / "side-by-side.jmx"
        names = side_by_side(sources, args.threads, plan)
        _warm_up(server)
        for r in range(1, args.runs + 1):
            result = run_once(jmeter, f"run-{r}", plan, names, properties, folder, args)
            results.append(result)
            print(_line(result), flush=True)
    _table(results, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
