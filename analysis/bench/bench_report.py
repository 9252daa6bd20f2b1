"""Benchmark: report size, render time from summary.json, page load in headless Chromium, and a full JTL report.

Usage (from analysis/):
    python bench/bench_report.py                     # 12 cells, 1,000,000 samples; no JTL step
    python bench/bench_report.py --jtl-rows 5000000  # + `littlegrid report` of a 5 M-row JTL
    python bench/bench_report.py --samples 200000 --skip-browser   # a quick look

Targets (issue 8): a 12-cell grid of 1 M samples gives a report < 10 MB that renders < 3 s in headless
Chromium, rendered from summary.json in < 5 s; a full `littlegrid report` of a 5 M-row JTL takes <= 1/20 of
JMeter's exact dashboard on the same file (about 103 s here, see DESIGN.md; bench_jtl.py measures JMeter)
with peak RSS < 1 GB. Figures are printed beside the targets; nothing here fails a build.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

# the console script beside this interpreter: what users run (it ends with os._exit, unlike python -m)
LITTLEGRID = str(Path(sys.executable).parent / "littlegrid")

JMETER_EXACT_DASHBOARD_S = 103.0  # DESIGN.md, measured on this kind of machine (5 M rows, statistic_window=-1)
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def _line(what: str, value: float, limit: float, unit: str) -> None:
    print(f"  {what:<44} {value:9.2f} {unit:<4} target < {limit:g} {unit:<4} {'PASS' if value < limit else 'MISS'}")


def _size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def bench_render(workdir: Path, samples: int) -> Path:
    from littlegrid.summary import read as read_summary
    from littlegrid.render.report import build_report
    sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
    from synthetic_summary import synthetic_summary  # noqa: E402  (the report tests' synthetic grids)

    started = time.perf_counter()
    summary = synthetic_summary(users=(1, 2, 5, 10, 20, 40), think_ms=(0, 50), samples_total=samples, seed=1)
    path = workdir / "summary.json"
    path.write_text(json.dumps(summary))
    print(f"synthetic summary: 12 cells, {samples:,} samples, {path.stat().st_size / 1e6:.2f} MB "
          f"(built in {time.perf_counter() - started:.1f} s)")
    started = time.perf_counter()
    index = build_report(read_summary(path), workdir / "report")
    render_s = time.perf_counter() - started
    pages = list((workdir / "report").rglob("*.html"))
    _line("render from summary.json (read + write)", render_s, 5, "s")
    _line(f"report size ({len(pages)} pages)", _size_mb(workdir / "report"), 10, "MB")
    biggest = max(pages, key=lambda p: p.stat().st_size)
    print(f"  largest page: {biggest.name} {biggest.stat().st_size / 1e6:.2f} MB")
    return index


def bench_browser(index: Path) -> None:
    if not CHROMIUM.exists():
        print(f"browser: skipped, {CHROMIUM} absent (apt-get install -y chromium)")
        return
    from playwright.sync_api import sync_playwright

    pages = [index, index.parent / "distributions.html"] + sorted((index.parent / "cells").glob("*.html"))
    times = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        for path in pages:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            started = time.perf_counter()
            page.goto(path.resolve().as_uri(), wait_until="load")
            page.wait_for_function("window.littlegrid && window.littlegrid.ready === true", timeout=60_000)
            times[path.name] = time.perf_counter() - started
            page.close()
        browser.close()
    slowest = max(times, key=times.get)
    _line("overview load + draw in headless Chromium", times[index.name], 3, "s")
    _line("distributions load + draw", times["distributions.html"], 3, "s")
    _line(f"slowest page ({slowest})", times[slowest], 3, "s")


def bench_full_jtl(workdir: Path, rows: int) -> None:
    """`littlegrid report` of one JTL (analysis included), in its own process under /usr/bin/time -v."""
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_jtl import generate, measure  # the JTL benchmark's generator: same file shape as its figures

    jtl = workdir / "big.jtl"
    started = time.perf_counter()
    generate(jtl, rows)
    print(f"JTL: {rows:,} rows, {jtl.stat().st_size / 2**20:.0f} MiB (generated in {time.perf_counter() - started:.0f} s)")
    result = measure([LITTLEGRID, "report", str(jtl), "-o", str(workdir / "jtl-report")])
    limit = JMETER_EXACT_DASHBOARD_S / 20 * rows / 5_000_000
    _line(f"littlegrid report of the JTL (1/20 of {JMETER_EXACT_DASHBOARD_S * rows / 5e6:.0f} s)", result["wall_s"], limit, "s")
    _line("peak RSS", result["rss_mib"] / 1024, 1, "GiB")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000, help="samples over the 12 cells (default 1,000,000)")
    parser.add_argument("--jtl-rows", type=int, default=0, help="also time `littlegrid report` of a JTL of this many rows")
    parser.add_argument("--skip-browser", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the work folder and print it")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="littlegrid-bench-report-"))
    try:
        index = bench_render(workdir, args.samples)
        if not args.skip_browser:
            bench_browser(index)
        if args.jtl_rows:
            bench_full_jtl(workdir, args.jtl_rows)
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
