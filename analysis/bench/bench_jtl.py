"""Benchmark: read_jtl and a full `littlegrid report` vs a bare pyarrow.csv.read_csv vs JMeter's dashboard (-g) on one JTL.

Usage (from analysis/):
    python bench/bench_jtl.py                   # 5,000,000 rows (~585 MiB), all three
    python bench/bench_jtl.py --rows 200000 --skip-jmeter   # a quick look
    python bench/bench_jtl.py   # on a quiet machine; JMeter needs ~100 s, 3.8 GB

Each contender runs in its own process under /usr/bin/time -v (wall time and peak RSS of that process
tree's largest member), one after the other, on the same file. Targets: reader <= 1.5x pyarrow,
<= 1/20 of JMeter's exact dashboard, peak RSS < 1 GB; the same two for the full report (issue 8).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# the console script beside this interpreter: what users run (it ends with os._exit, unlike python -m)
LITTLEGRID = str(Path(sys.executable).parent / "littlegrid")

HEADER = ("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,"
          "bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect")
LABELS = ["GET /api/items", "GET /api/items/{id}", "POST /api/orders", "GET /health", "PUT /api/cart"]
READER = """
import sys, time
t0 = time.perf_counter()
from littlegrid.jtl import read_jtl
reading = read_jtl(sys.argv[1])
print("ROWS", len(reading.samples), "SECONDS", time.perf_counter() - t0)
"""
PYARROW = """
import sys, time
t0 = time.perf_counter()
import pyarrow.csv
table = pyarrow.csv.read_csv(sys.argv[1])
print("ROWS", table.num_rows, "SECONDS", time.perf_counter() - t0)
"""


def generate(path: Path, rows: int, seed: int = 1) -> None:
    """A JMeter 5.x default-format CSV JTL: 50 threads, 5 labels, ~1% errors, ~123 bytes per row."""
    rng = np.random.default_rng(seed)
    path.write_text(HEADER + "\n")
    with open(path, "a", encoding="utf-8") as out:
        for first in range(0, rows, 500_000):
            n = min(500_000, rows - first)
            start = 1_700_000_000_000 + np.arange(first, first + n) // 8
            elapsed = rng.gamma(2.0, 25.0, n).astype(np.int64) + 1
            label = rng.integers(0, len(LABELS), n)
            failed = rng.random(n) < 0.01
            thread = rng.integers(1, 51, n)
            received = rng.integers(200, 20000, n)
            latency = np.maximum(elapsed - rng.integers(0, 5, n), 0)
            connect = np.where(rng.random(n) < 0.05, rng.integers(1, 10, n), 0)
            item = rng.integers(1000, 99999, n)
            lines = [
                f"{s},{e},{LABELS[lb]},{'500' if f else '200'},{'Internal Server Error' if f else 'OK'},"
                f"Thread Group 1-{t},text,{'false' if f else 'true'},,{b},{130 + lb},50,50,"
                f"http://127.0.0.1:8080/items/{i},{la},0,{c}\n"
                for s, e, lb, f, t, b, i, la, c in zip(start.tolist(), elapsed.tolist(), label.tolist(),
                                                      failed.tolist(), thread.tolist(), received.tolist(),
                                                      item.tolist(), latency.tolist(), connect.tolist())
            ]
            out.writelines(lines)


def installed_env(folder: Path, warm_up: list[str] | None = None) -> dict:
    """The environment that times littlegrid as an installed package runs: its modules compiled beforehand, as pip
    compiles a wheel's on install, into `folder` (PYTHONPYCACHEPREFIX), never the source tree. Without it a shell
    with PYTHONDONTWRITEBYTECODE (the build's, and often a development shell's) compiles ~90 modules from source on
    every run: 0.3 s of a report. The prefix holds every module's bytecode, the libraries' too, so the caller's
    `warm_up` command (a small report, untimed) runs once first and fills it."""
    import littlegrid

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(folder)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(littlegrid.__file__).parent)], env=env,
                   check=True)
    # what a report imports, and what its image's child process imports (render/summary_png.Background)
    subprocess.run([sys.executable, "-c", "import littlegrid.commands.report, littlegrid.commands.analyze, littlegrid.commands.compare, "
                    "littlegrid.render.summary_png; littlegrid.render.summary_png._pyplot()"], env=env, check=True)
    if warm_up:
        subprocess.run(warm_up, env=env, check=True, capture_output=True)
    return env


def measure(command: list[str], env: dict | None = None) -> dict:
    """Run under /usr/bin/time -v: wall seconds and peak RSS (largest process of the tree)."""
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True, env=env,
                          timeout=1800)
    wall = time.perf_counter() - started
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-15:]
        raise SystemExit(f"{command[0]} failed ({done.returncode}):\n" + "\n".join(tail))
    rows = re.search(r"ROWS (\d+)", done.stdout)
    return {"wall_s": wall, "rss_mib": rss_kb / 1024, "rows": int(rows.group(1)) if rows else None}


def find_jmeter(given: str | None) -> Path | None:
    candidates = [given, os.environ.get("JMETER_HOME")]
    config = Path(__file__).resolve().parents[2] / "target" / "config.json"
    if config.is_file():
        candidates.append(json.loads(config.read_text())["configurations"][0]["jmeterDirectoryPath"])
    for home in filter(None, candidates):
        jar = Path(home) / "bin" / "ApacheJMeter-5.6.3.jar"
        if jar.is_file():
            return jar
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=5_000_000, help="rows to generate (default 5,000,000)")
    parser.add_argument("--file", type=Path, help="use (or create) this JTL instead of a temporary one")
    parser.add_argument("--skip-jmeter", action="store_true", help="do not run JMeter's dashboard")
    parser.add_argument("--jmeter-home", help="JMeter directory (default: JMETER_HOME or target/config.json)")
    args = parser.parse_args(argv)

    workdir = Path(tempfile.mkdtemp(prefix="bench-jtl-"))
    try:
        path = args.file or workdir / "bench.jtl"
        if not path.exists():
            t0 = time.perf_counter()
            generate(path, args.rows)
            print(f"generated {path} ({args.rows:,} rows, {path.stat().st_size / 2**20:.0f} MiB) "
                  f"in {time.perf_counter() - t0:.0f} s")
        size = path.stat().st_size / 2**20
        results = {
            "read_jtl": measure([sys.executable, "-c", READER, str(path)]),
            "pyarrow.csv.read_csv": measure([sys.executable, "-c", PYARROW, str(path)]),
            # the whole pipeline of issue 8: read, analyze, render (one bare JTL = one cell)
            "littlegrid report": measure([LITTLEGRID, "report", str(path),
                                          "-o", str(workdir / "report")]),
        }
        jar = None if args.skip_jmeter else find_jmeter(args.jmeter_home)
        if not args.skip_jmeter and jar is None:
            print("JMeter not found (JMETER_HOME, --jmeter-home or target/config.json): its column is skipped")
        if jar:
            out = workdir / "dashboard"
            results["jmeter -g (exact)"] = measure(
                ["java", "-jar", str(jar), "-g", str(path), "-o", str(out),
                 "-Jjmeter.reportgenerator.statistic_window=-1", "-j", str(workdir / "jmeter.log")])
            if not (out / "index.html").is_file():  # JMeter exits 0 even when it refuses its options
                raise SystemExit(f"JMeter wrote no dashboard; see {workdir / 'jmeter.log'}")
        print(f"\nfile: {size:.0f} MiB, {results['read_jtl']['rows']:,} rows read by read_jtl\n")
        print(f"{'contender':<24}{'wall s':>10}{'peak RSS MiB':>15}")
        for name, r in results.items():
            print(f"{name:<24}{r['wall_s']:>10.2f}{r['rss_mib']:>15.0f}")
        ours, arrow = results["read_jtl"], results["pyarrow.csv.read_csv"]
        print("\ntargets:")
        _verdict("read_jtl <= 1.5x pyarrow", ours["wall_s"] / arrow["wall_s"], 1.5, "x")
        if jar:
            _verdict("read_jtl <= 1/20 of JMeter", ours["wall_s"] / results["jmeter -g (exact)"]["wall_s"],
                     1 / 20, "")
        _verdict("read_jtl peak RSS < 1 GB", ours["rss_mib"] / 1024, 1.0, " GiB")
        report = results["littlegrid report"]
        if jar:
            _verdict("report <= 1/20 of JMeter", report["wall_s"] / results["jmeter -g (exact)"]["wall_s"],
                     1 / 20, "")
        _verdict("report peak RSS < 1 GB", report["rss_mib"] / 1024, 1.0, " GiB")
        return 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _verdict(what: str, value: float, limit: float, unit: str) -> None:
    print(f"  {what:<30} {value:8.3f}{unit:<5} limit {limit:.3f}  {'PASS' if value <= limit else 'MISS'}")


if __name__ == "__main__":
    sys.exit(main())
