"""Benchmark: the report of a JTL with 5,000 labels — overview size and its first draw in headless Chromium.

Usage (from analysis/):
    python bench/bench_labels.py                        # 5,000 labels, 500,000 rows
    python bench/bench_labels.py --labels 20000 --rows 2000000 --keep
Targets (issue 21): the overview (the statistics per label, errors, charts over time) stays under 5 MB and
draws in headless Chromium in under 2 s: from navigation to the label table's first page and every chart
drawn. Also printed, without targets: the analysis + render time of `littlegrid report`, and how long a sort
by p90 and a text filter take in the page. Figures are printed beside the targets; nothing here fails a build.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

LITTLEGRID = str(Path(sys.executable).parent / "littlegrid")  # the console script users run
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
HEADER = ("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,"
          "sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n")
THREADS = 50


def _line(what: str, value: float, limit: float | None, unit: str) -> None:
    verdict = "" if limit is None else f"target < {limit:g} {unit:<3} {'PASS' if value < limit else 'MISS'}"
    print(f"  {what:<52} {value:9.3f} {unit:<3} {verdict}")


def generate(path: Path, labels: int, rows: int, seed: int = 21) -> None:
    """A CSV JTL in JMeter 5.x's default layout: `labels` labels (Zipf-like sizes, URL-like names up to ~150
    characters, some with commas), log-normal elapsed times that differ per label, 2 % errors of four types."""
    rng = np.random.default_rng(seed)
    names = [f"GET /api/v{i % 3 + 1}/catalogue/{i:05d}/items" + ("?page=1&size=50&sort=name,asc" if i % 4 == 0
                                                                    else "") + ("/details" * (i % 7)) for i in range(labels)]
    names = [f'"{n}"' if "," in n else n for n in names]
    weights = 1.0 / np.arange(1, labels + 1) ** 0.8
    which = rng.choice(labels, size=rows, p=weights / weights.sum())
    which[:labels] = np.arange(labels)  # every label has at least one sample
    thread = np.arange(rows) % THREADS
    elapsed = (rng.lognormal(3.5, 0.7, rows) * (1 + which % 13)).astype(np.int64) + 1
    start = 1_700_000_000_000 + np.sort(rng.integers(0, 600_000, rows))
    failed = rng.random(rows) < 0.02
    kinds = rng.integers(0, 4, rows)
    codes = np.array(["500", "503", "404", "Non HTTP response code: java.net.SocketTimeoutException"])
    messages = np.array(["Internal Server Error", "Service Unavailable", "Not Found",
                         "Non HTTP response message: Read timed out"])
    with path.open("w", encoding="utf-8", newline="") as f:
        f.write(HEADER)
        for s, e, w, t, bad, k in zip(start.tolist(), elapsed.tolist(), which.tolist(), thread.tolist(),
                                      failed.tolist(), kinds.tolist()):
            code, message = (codes[k], messages[k]) if bad else ("200", "OK")
            f.write(f"{s},{e},{names[w]},{code},{message},Thread Group 1-{t + 1},text,{'false' if bad else 'true'},"
                    f",{1000 + w % 5000},200,{THREADS},{THREADS},http://127.0.0.1/x,{e // 2},0,{e % 5}\n")


def bench_browser(index: Path) -> None:
    if not CHROMIUM.exists():
        print(f"browser: skipped, {CHROMIUM} absent (apt-get install -y chromium)")
        return
    from playwright.sync_api import sync_playwright

    ready = "window.littlegrid && window.littlegrid.ready === true"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        started = time.perf_counter()
        page.goto(index.resolve().as_uri(), wait_until="load")
        while not page.evaluate(ready):  # evaluate, not wait_for_function: the page's CSP forbids its eval
            page.wait_for_timeout(5)
        first_draw = time.perf_counter() - started
        rows = page.evaluate("document.querySelectorAll('#lt-rows tr').length")
        in_page = page.evaluate("performance.now()")
        sort = page.evaluate("""() => { const t = performance.now();
            document.querySelector("#label-table th[data-key='p90_ms'] button").click(); return performance.now() - t; }""")
        filt = page.evaluate("""() => { const f = document.getElementById('lt-errors'), t = performance.now();
            f.click(); return performance.now() - t; }""")
        height = page.evaluate("document.documentElement.scrollHeight")
        browser.close()
    _line(f"overview first draw in headless Chromium ({rows} rows shown)", first_draw, 2, "s")
    print(f"  (the page's own clock at ready: {in_page / 1000:.3f} s; page height {height:,} px)")
    _line("sort 5,000 rows by p90 and draw the first page", sort / 1000, None, "s")
    _line("filter to the labels with errors and draw", filt / 1000, None, "s")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=5_000)
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--skip-browser", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the work folder and print it")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="littlegrid-bench-labels-"))
    try:
        jtl = workdir / "labels.jtl"
        started = time.perf_counter()
        generate(jtl, args.labels, args.rows)
        print(f"JTL: {args.rows:,} rows, {args.labels:,} labels, {jtl.stat().st_size / 2**20:.0f} MiB "
              f"(generated in {time.perf_counter() - started:.1f} s)")
        started = time.perf_counter()
        subprocess.run([LITTLEGRID, "report", str(jtl), "-o", str(workdir / "report")], check=True,
                       stdout=subprocess.DEVNULL)
        _line("littlegrid report (read, analyse, render)", time.perf_counter() - started, None, "s")
        index = workdir / "report" / "index.html"
        _line("overview size", index.stat().st_size / 1e6, 5, "MB")
        print(f"  summary.json {(workdir / 'report' / 'summary.json').stat().st_size / 1e6:.2f} MB")
        if not args.skip_browser:
            bench_browser(index)
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
