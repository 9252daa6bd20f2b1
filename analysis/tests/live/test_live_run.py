"""`littlegrid run --live` during a real 2-cell grid against the sample server: /status.json's finished cell has
the X `littlegrid analyze` finds, the page draws and updates in Chromium from 127.0.0.1 only, and the run folder
holds what it holds without --live.

Load test: run it under the machine's load lock, e.g. `flock "$LOAD_LOCK" pytest -m integration tests/live`.
"""

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from littlegrid.summarize import analyze
from littlegrid.run.jmeter import find_jmeter, repo_root
from littlegrid.run.ports import free_port
from littlegrid.run.sample_server import find_server_jar
from littlegrid.usererror import UserError
from needs import missing
from waiting import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.browser]
# server-metrics.csv is no more: the sample server's actuator is scraped into observed.csv like any source
CELL_FILES = ["host-metrics.csv", "jmeter.log", "jmeter.out", "manifest.json", "observed.csv", "results.jtl"]


def status(url: str) -> dict | None:
    try:
        with urllib.request.urlopen(url + "status.json", timeout=3) as r:
            return json.loads(r.read())
    except OSError:
        return None


def test_a_live_two_cell_grid_agrees_with_the_final_summary_and_draws_in_chromium(tmp_path, browser):
    for find, what in ((find_jmeter, "JMeter"), (find_server_jar, "the sample server jar")):
        try:
            find()
        except UserError as e:
            missing(what, str(e))
    plan = repo_root(Path(__file__).parent) / "plans" / "closed.jmx"
    grid = tmp_path / "live.toml"
    grid.write_text(f"""
name = "live"
plan = "{plan}"
[server]
start = true
knobs = {{ "server.tomcat.threads.max" = 4 }}
[target]
path = "/"
[cell]
duration_s = 10
warmup_s = 2
cooldown_s = 1
rampup_s = 0
[properties]
think_dist = "constant"
[axes]
users = [2, 4]
think_ms = [20]
""")
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    proc = subprocess.Popen([sys.executable, "-m", "littlegrid.cli", "run", str(grid), "--out", str(tmp_path / "reports"),
                             "--run-id", "r", "--jmeter-heap", "256m", "--live", str(port)], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_for(lambda: status(url), 30, "the live view to answer")
        requests, errors = [], []
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("request", lambda r: requests.append(r.url))
        page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url, wait_until="load")
        # the first cell past its warm-up: steady-state figures and per-second series
        wait_for(lambda: ((status(url) or {}).get("cell") or {}).get("figures"), 90, "the first cell's figures")
        page.wait_for_function("() => window.littlegridLive.ready && document.querySelector(\"[data-live-chart="
                               "'throughput'] canvas\")", timeout=10_000)
        seen = page.evaluate("() => [window.littlegridLive.updates, "
                             "document.querySelector(\"[data-figure='samples']\").textContent]")
        page.wait_for_function("seen => window.littlegridLive.updates > seen[0] + 1 && "
                               "document.querySelector(\"[data-figure='samples']\").textContent !== seen[1]",
                               arg=seen, timeout=10_000)
        for chart in ("throughput", "latency", "threads", "host"):
            host = page.query_selector(f"[data-live-chart='{chart}']")
            assert int(host.get_attribute("data-drawn")) >= 1 and int(host.get_attribute("data-points")) >= 2, chart
        finished = wait_for(lambda: (s := status(url)) and s["cells"] and s, 90, "the first cell in the table")
        row = finished["cells"][0]
        page.wait_for_function("() => document.querySelectorAll('#cells-table tbody tr').length >= 1 && "
                               "document.querySelector(\"[data-live-chart='x-vs-users'] canvas\")", timeout=10_000)
        # a fresh status every second or so, between cells too (a read may time out on a busy host: asked again)
        first = wait_for(lambda: (status(url) or {}).get("updated_ms"), 10, "the status between cells")
        wait_for(lambda: ((status(url) or {}).get("updated_ms") or 0) > first, 5, "a fresher status between cells")
        assert not errors, errors
        output, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=30)
    assert proc.returncode == 0, output
    assert f"live view: {url}" in output
    assert requests and all(u.startswith(url) for u in requests), requests  # nothing left 127.0.0.1:port
    run = tmp_path / "reports" / "r"
    summary = analyze([run])
    entry = next(c for c in summary.cells if c.id == row["id"])
    # the same function on the same finished file: the same figures, not merely close ones
    for key in ("throughput_per_s", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "error_rate"):
        assert row[key] == getattr(entry.overall, key), key
    assert row["users"] == entry.users.n
    for cell in (run / "cells").iterdir():  # --live wrote nothing into the run folder
        assert sorted(p.name for p in cell.iterdir()) == CELL_FILES
    print(f"\nlive X {row['throughput_per_s']:.2f}/s = summary X; p99 {row['p99_ms']} ms")
    page.close()
