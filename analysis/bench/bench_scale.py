"""Benchmark: `littlegrid report` of a closed-workload JTL as it grows (5 M, 20 M, 100 M rows spanning 3, 12 and 60
hours), beside a bare parse of the same file and JMeter's exact dashboard.

Usage (from analysis/):
    python bench/bench_scale.py                          # 5 M (with JMeter), 20 M and 100 M rows
    python bench/bench_scale.py --rows 2000000,8000000   # a quicker look at the same shape
    python bench/bench_scale.py --skip-jmeter

Prints, from one run on this machine, side by side: for every size, `littlegrid report`'s wall time, peak RSS and
time per row, and a bare parse of the same file (both cores, no analysis: the floor any report from pyarrow has):
`pyarrow.csv.read_csv` while the table fits in a quarter of the memory, else pyarrow's streaming reader
(`open_csv`, the same parser a block at a time, said so in the table); for the first (reference) size, JMeter
5.6.3's exact dashboard (`jmeter -g`, `-Jjmeter.reportgenerator.statistic_window=-1`). Each file is generated
(jmeter_closed.generate_closed: JMeter's default CSV written as a closed workload runs, 100 threads in sequence with
exponential think time, rows in completion order; --transactions, --subresults add a Transaction Controller and
redirect sub-results), measured under /usr/bin/time -v, and deleted before the next one, so the disk holds one
file at a time. littlegrid runs as an installed package does, its modules compiled beforehand
(bench_jtl.installed_env).

Targets (issues 17 and 36): peak RSS < 1 GiB up to 100 M rows (60 hours); the reference report <= 1.5x the bare
parse and <= 1/40 of JMeter's exact dashboard; time per row at 100 M within 15% of the 5 M run's; a file that
does not fit in memory (e.g. --rows 300000000) still reports. The analysis reads files larger than one piece once, in blocks, and keeps counts, not rows, so
memory no longer grows with the file; the disk must hold the file and think time's spill (~125 + 33 bytes a row). A
size the disk cannot hold is not run; the table says so.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_jtl import LITTLEGRID, PYARROW, find_jmeter, installed_env, measure  # noqa: E402  (one timer)
from jmeter_closed import generate_closed  # noqa: E402

PYARROW_STREAMING = """
import sys, time
import pyarrow.csv
t0 = time.perf_counter()
rows = sum(batch.num_rows for batch in pyarrow.csv.open_csv(sys.argv[1]))
print("ROWS", rows, "SECONDS", time.perf_counter() - t0)
"""
# The blocks the report's pass reads (pyarrow's stream, assembled; the columns a report by label reads), and no
# analysis: what the pass cannot go below, on the same two cores the analysis needs.
OWN_READ = """
import sys, time
t0 = time.perf_counter()
from pathlib import Path
from littlegrid.analysis.reading.fields import ANALYZED_FIELDS, LABEL_FIELDS
from littlegrid.jtl.blocks import BlockReader
rows = sum(len(table) for table in BlockReader([Path(sys.argv[1])]).blocks(ANALYZED_FIELDS + LABEL_FIELDS))
print("ROWS", rows, "SECONDS", time.perf_counter() - t0)
"""
READ_CSV_BYTES_PER_FILE_BYTE = 3.6  # pyarrow.csv.read_csv's peak RSS over the file's size (2.2 GB for 618 MB)

RSS_TARGET_ROWS = 100_000_000  # peak RSS < 1 GiB is asked up to here; a larger file need only report
DISK_BYTES_PER_ROW = 125 + 33  # the generated JTL, and think time's spill of its rows (analysis/workload/think_blocks.py)


def _free_bytes(folder: Path) -> int:
    return shutil.disk_usage(folder).free


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", default="5000000,20000000,100000000",
                        help="comma-separated sizes; the first is the reference (default 5M,20M,100M)")
    parser.add_argument("--skip-jmeter", action="store_true", help="do not run JMeter's dashboard")
    parser.add_argument("--jmeter-home", help="JMeter directory (default: JMETER_HOME or target/config.json)")
    parser.add_argument("--workdir", type=Path, help="where the generated files go (default: a temporary folder)")
    parser.add_argument("--transactions", action="store_true", help="a Transaction Controller wraps two samplers")
    parser.add_argument("--subresults", action="store_true", help="the first sampler writes redirect sub-results")
    args = parser.parse_args(argv)
    sizes = [int(float(s)) for s in args.rows.split(",")]
    workdir = Path(tempfile.mkdtemp(prefix="bench-scale-", dir=args.workdir))
    jar = None if args.skip_jmeter else find_jmeter(args.jmeter_home)
    if not args.skip_jmeter and jar is None:
        print("JMeter not found (JMETER_HOME, --jmeter-home or target/config.json): its line is skipped")
    rows_out, jmeter, own_read = [], None, None
    try:
        warm = workdir / "warm-up.jtl"  # a small report, untimed, compiles what a report imports
        generate_closed(warm, 20_000)
        installed = installed_env(workdir / "pycache", [LITTLEGRID, "report", str(warm), "-o", str(workdir / "warm")])
        warm.unlink()
        for i, n in enumerate(sizes):
            need = n * DISK_BYTES_PER_ROW
            if need > 0.9 * _free_bytes(workdir):
                rows_out.append((n, None, None, None, None, f"not run: needs ~{need / 2**30:.0f} GiB of disk, "
                                                           f"{_free_bytes(workdir) / 2**30:.0f} GiB free"))
                continue
            path = workdir / f"bench-{n}.jtl"
            t0 = time.perf_counter()
            generate_closed(path, n, transactions=args.transactions, subresults=args.subresults)
            # the file's pages written out before anything is timed: the kernel's write-back of a just-written
            # file otherwise runs through whichever measure comes first (the report)
            os.sync()
            size = path.stat().st_size
            print(f"generated {n:,} rows ({size / 2**20:,.0f} MiB) in {time.perf_counter() - t0:.0f} s", flush=True)
            got = measure([LITTLEGRID, "report", str(path), "-o", str(workdir / "report")], env=installed)
            print(f"  littlegrid report: {got['wall_s']:.1f} s, {got['rss_mib']:,.0f} MiB", flush=True)
            # what no analysis can beat: pyarrow parsing the file, both cores, nothing else
            whole = size * READ_CSV_BYTES_PER_FILE_BYTE < _memory_bytes() / 4
            floor = measure([sys.executable, "-c", PYARROW if whole else PYARROW_STREAMING, str(path)])
            floor["how"] = "read_csv" if whole else "open_csv"
            print(f"  bare pyarrow {floor['how']}: {floor['wall_s']:.1f} s, {floor['rss_mib']:,.0f} MiB", flush=True)
            rows_out.append((n, size / 2**20, got["wall_s"], got["rss_mib"], floor, ""))
            if i == 0:
                own_read = measure([sys.executable, "-c", OWN_READ, str(path)], env=installed)
                print(f"  littlegrid's read alone (its pass's blocks, no analysis): {own_read['wall_s']:.1f} s, "
                      f"{own_read['rss_mib']:,.0f} MiB", flush=True)
            if i == 0 and jar:
                out = workdir / "dashboard"
                jmeter = measure(["java", "-jar", str(jar), "-g", str(path), "-o", str(out),
                                  "-Jjmeter.reportgenerator.statistic_window=-1", "-j", str(workdir / "jmeter.log")])
                if not (out / "index.html").is_file():  # JMeter exits 0 even when it refuses its options
                    raise SystemExit(f"JMeter wrote no dashboard; see {workdir / 'jmeter.log'}")
                print(f"  JMeter exact dashboard: {jmeter['wall_s']:.1f} s, {jmeter['rss_mib']:,.0f} MiB", flush=True)
                shutil.rmtree(out)
            path.unlink()
            shutil.rmtree(workdir / "report", ignore_errors=True)
        _print(rows_out, jmeter, own_read)
        return 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _memory_bytes() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _print(rows_out, jmeter, own_read) -> None:
    ref = rows_out[0]
    print(f"\n{'rows':>13}{'JTL MiB':>10}{'wall s':>9}{'peak MiB':>10}{'µs/row':>8}{'per row vs first':>18}"
          f"{'parse s':>9}{'parse MiB':>11}{'report/parse':>14}")
    for n, mib, wall, rss, floor, note in rows_out:
        if wall is None:
            print(f"{n:>13,}   {note}")
            continue
        per_row = wall / n * 1e6
        ratio = per_row / (ref[2] / ref[0] * 1e6) if ref[2] else None
        print(f"{n:>13,}{mib:>10,.0f}{wall:>9.1f}{rss:>10,.0f}{per_row:>8.2f}{ratio:>17.2f}x"
              f"{floor['wall_s']:>9.1f}{floor['rss_mib']:>11,.0f}{wall / floor['wall_s']:>13.2f}x  ({floor['how']})")
    if jmeter:
        print(f"{'JMeter -g':>13}{'':>10}{jmeter['wall_s']:>9.1f}{jmeter['rss_mib']:>10,.0f}"
              f"{jmeter['wall_s'] / ref[0] * 1e6:>8.2f}   (exact dashboard, {ref[0]:,} rows)")
    print("\ntargets (issues 17 and 36):")
    if ref[2]:
        _verdict(f"report / bare parse at {ref[0]:,}", ref[2] / ref[4]["wall_s"], 1.5)
        print(f"  {f'(its read alone / bare parse)':<32} {own_read['wall_s'] / ref[4]['wall_s']:8.3f}  what the pass "
              f"cannot go below: pyarrow's stream of the columns read, assembled")
    if jmeter and ref[2]:
        _verdict(f"report / JMeter at {ref[0]:,}", ref[2] / jmeter["wall_s"], 1 / 40)
    for n, _, wall, rss, _, _ in rows_out:
        if wall is not None and n <= RSS_TARGET_ROWS:
            _verdict(f"peak RSS GiB at {n:,}", rss / 1024, 1.0)
        elif wall is not None:  # past 100 M rows the target asks only that the file reports
            print(f"  {f'reports at {n:,}':<32} {'yes':>8}  (peak RSS {rss / 1024:.3f} GiB; the target: it reports)")
    last = rows_out[-1]
    if last[2] is not None and last is not ref:
        _verdict(f"per row at {last[0]:,} vs {ref[0]:,}", (last[2] / last[0]) / (ref[2] / ref[0]), 1.15)


def _verdict(what: str, value: float, limit: float) -> None:
    print(f"  {what:<32} {value:8.3f}  limit {limit:.3f}  {'PASS' if value <= limit else 'MISS'}")


if __name__ == "__main__":
    sys.exit(main())
