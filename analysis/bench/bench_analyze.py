"""Benchmark: `littlegrid analyze` of one JTL beside the bare read_jtl of the same file and JMeter's exact dashboard.

Usage (from analysis/):
    python bench/bench_analyze.py                  # 5,000,000 rows (~585 MiB)
    python bench/bench_analyze.py --rows 500000    # a quick look
    python bench/bench_analyze.py --jtl FILE       # an existing JTL

Each contender runs in its own process under /usr/bin/time -v, one after the other, on the same file; the
reference is JMeter's own exact dashboard (`jmeter -g`, statistic_window=-1) measured on this machine for
5 million rows: about 103 s and 3.8 GB (docs/DESIGN facts; bench_jtl.py re-measures it). The report's target
(render included) is 1/20 of that time and under 1 GB, so analyze must leave room for reading and rendering.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_jtl import generate  # noqa: E402  (the same generated file as the reader's benchmark)

READ = """
import sys, time
t0 = time.perf_counter()
from littlegrid.jtl import read_jtl
reading = read_jtl([sys.argv[1]])
print("SECONDS", time.perf_counter() - t0)
"""
ANALYZE = """
import sys, time
t0 = time.perf_counter()
from littlegrid.summarize import analyze
summary = analyze([sys.argv[1]], warmup_s=5, cooldown_s=2, by_label=True)
print("SECONDS", time.perf_counter() - t0)
"""
JMETER_REFERENCE = (103.0, 3.8 * 1024)  # seconds, MiB, for 5 million rows


def measure(code: str, jtl: Path) -> tuple[float, float]:
    out = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-c", code, str(jtl)], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(out.stderr[-2000:])
    seconds = float(re.search(r"SECONDS (\S+)", out.stdout).group(1))
    rss_mib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr).group(1)) / 1024
    return seconds, rss_mib


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--jtl", type=Path, help="use this JTL instead of generating one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        jtl = args.jtl
        if jtl is None:
            jtl = Path(tmp) / "bench.jtl"
            generate(jtl, args.rows)
        size = jtl.stat().st_size / 2 ** 20
        read_s, read_mib = measure(READ, jtl)
        analyze_s, analyze_mib = measure(ANALYZE, jtl)
    scale = args.rows / 5_000_000 if args.jtl is None else None
    print(f"{jtl.name}: {size:.0f} MiB")
    print(f"{'':28}{'wall s':>10}{'peak MiB':>10}")
    print(f"{'read_jtl':28}{read_s:10.2f}{read_mib:10.0f}")
    print(f"{'analyze (read included)':28}{analyze_s:10.2f}{analyze_mib:10.0f}")
    print(f"{'analysis alone':28}{analyze_s - read_s:10.2f}")
    if scale:
        ref_s, ref_mib = JMETER_REFERENCE
        print(f"{'JMeter exact dashboard':28}{ref_s * scale:10.1f}{ref_mib:10.0f}   (reference, scaled to the rows)")
        print(f"analyze / JMeter: {analyze_s / (ref_s * scale):.3f} (report target, render included: 0.05)")


if __name__ == "__main__":
    main()
