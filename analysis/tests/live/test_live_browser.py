"""The live page in headless Chromium, fed by a LiveView over files written by the test (no JMeter): charts
drawn, figures updated, only its own origin fetched, hostile text from the run shown as text and run never."""

import pytest

from synthetic_summary import HOSTILE
from littlegrid.run.live.session import open_live
from runs import write_jtl, write_run

pytestmark = pytest.mark.browser
RUNNING_SCRIPTS = "document.querySelectorAll('script:not([type=\"application/json\"])').length"


def test_the_page_draws_updates_and_keeps_hostile_text_inert(browser, tmp_path):
    run = write_run(tmp_path / "run", users=(2, 8), think_ms=(0,), seconds=8.0)
    session = open_live("127.0.0.1", 0, title=HOSTILE[0], update_s=0.3)
    try:
        hostile_id = "variant=" + HOSTILE[1]
        session.view.run_started(run, ["users=2,think_ms=0", "users=8,think_ms=0", hostile_id], HOSTILE[0])
        session.view.search_update({"probe": HOSTILE[2], "answer": {"users": 8, "why": HOSTILE[1]}})
        folder = tmp_path / "running"
        write_jtl(tmp_path / "whole.jtl", users=4, think_ms=5, service_ms=10, seconds=8, seed=4, labels=HOSTILE,
                  error_message=HOSTILE[1])
        data = (tmp_path / "whole.jtl").read_bytes()
        folder.mkdir()
        (folder / "results.jtl").write_bytes(data[: len(data) // 3])
        session.view.cell_started(hostile_id, folder, index=2, duration_s=8, warmup_s=1, axes={"variant": HOSTILE[1]})
        requests, errors, dialogs = [], [], []
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("request", lambda r: requests.append(r.url))
        page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(session.url, wait_until="load")
        # functions, not strings: the page's CSP has no 'unsafe-eval', which a string expression would need
        page.wait_for_function("() => window.littlegridLive && window.littlegridLive.ready && "
                               "document.querySelectorAll('#cells-table tbody tr').length === 2", timeout=20_000)
        samples_before = page.text_content("[data-figure='samples']")
        for chart in ("throughput", "latency", "threads", "x-vs-users", "r-vs-users"):
            host = page.query_selector(f"[data-live-chart='{chart}']")
            assert host.query_selector("canvas") is not None and int(host.get_attribute("data-drawn")) >= 1, chart
            assert int(host.get_attribute("data-points")) >= 2, chart
        with (folder / "results.jtl").open("ab") as f:
            f.write(data[len(data) // 3:])
        page.wait_for_function("before => document.querySelector(\"[data-figure='samples']\").textContent !== before",
                               arg=samples_before, timeout=10_000)
        assert int(page.text_content("[data-figure='samples']")) > int(samples_before)
        body = page.evaluate("document.body.innerText")
        assert HOSTILE[1] in body and HOSTILE[2] in body  # shown, as text
        assert page.evaluate("document.querySelectorAll('img, iframe, object, embed, [onerror], [onload]').length") == 0
        assert page.evaluate(RUNNING_SCRIPTS) == 2  # uPlot and live.js
        assert not dialogs and not errors, (dialogs, errors)
        assert requests and all(u.startswith(session.url) for u in requests), requests
        page.close()
    finally:
        session.close()
