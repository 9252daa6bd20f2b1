"""Headless Debian Chromium for the browser tests: opens pages from disk and records what they did."""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from needs import missing

CHROMIUM = Path(os.environ.get("LITTLEGRID_CHROMIUM", "/usr/bin/chromium"))
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def require_chromium():
    if not CHROMIUM.exists():
        missing("Chromium", f"{CHROMIUM} is absent: install Debian's chromium (apt-get install -y chromium); .ci/run does")


@dataclass
class Visit:
    console_errors: list = field(default_factory=list)
    requests: list = field(default_factory=list)
    dialogs: list = field(default_factory=list)
    charts: list = field(default_factory=list)  # [{id, expected, series, drawn}]
    load_ms: float = 0.0
    probe: object = None  # what an extra expression evaluated to in the page (firefox.open_page)


def open_page(browser, path: Path, screenshot: Path | None = None, on_request_failed=None,
              viewport: tuple[int, int] = (1400, 1000), first_screen: bool = False) -> tuple[Visit, object]:
    """Load a page from file://, wait for its charts, and report console errors, requests, dialogs and charts;
    `first_screen`: the screenshot holds what the viewport shows unscrolled, not the whole page."""
    visit = Visit()
    page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
    if on_request_failed is not None:
        page.on("requestfailed", on_request_failed)
    page.on("console", lambda m: visit.console_errors.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: visit.console_errors.append(str(e)))
    page.on("request", lambda r: visit.requests.append(r.url))

    def on_dialog(d):
        visit.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", on_dialog)
    page.goto(path.resolve().as_uri(), wait_until="load")
    page.wait_for_function("window.littlegrid && window.littlegrid.ready === true", timeout=20_000)
    visit.load_ms = page.evaluate("performance.now()")
    data = json.loads(page.evaluate("document.getElementById('chart-data').textContent"))
    expected = {c["id"]: len(c["series"]) for c in data}
    for host in page.query_selector_all("[data-chart]"):
        cid = host.get_attribute("data-chart")
        visit.charts.append({"id": cid, "expected": expected.get(cid), "series": int(host.get_attribute("data-series") or -1),
                             "drawn": int(host.get_attribute("data-drawn") or 0),
                             "with_data": int(host.get_attribute("data-series-with-data") or 0),
                             "canvas": host.query_selector("canvas") is not None})
    if screenshot is not None:
        page.screenshot(path=str(screenshot), full_page=not first_screen)
    return visit, page


def assert_clean(visit: Visit, where: str) -> None:
    assert not visit.console_errors, f"{where}: console errors {visit.console_errors}"
    assert not visit.dialogs, f"{where}: a dialog opened: {visit.dialogs}"
    remote = [u for u in visit.requests if not (u.startswith("file://") or u.startswith("data:"))]
    assert not remote, f"{where}: network requests {remote}"
    for c in visit.charts:
        assert c["series"] == c["expected"] == c["with_data"] and c["drawn"] >= 1 and c["canvas"], \
            f"{where}: chart {c} did not draw its data"
