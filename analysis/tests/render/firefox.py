"""Headless Debian Firefox ESR for the browser tests, driven over WebDriver BiDi (built into Firefox: no
geckodriver, no Playwright build). Opens pages from disk and records what they did, as browser.py does
for Chromium, into the same Visit (console errors, dialogs, charts; requests only through the CSP's
console errors, see open_page)."""

import base64
import contextlib
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from browser import Visit
from needs import missing

FIREFOX = Path(os.environ.get("LITTLEGRID_FIREFOX", "/usr/bin/firefox-esr"))
# What the page reports about itself once its charts have drawn (the same data-* attributes browser.py reads).
CHARTS_JS = """(() => {
  const ready = !!(window.littlegrid && window.littlegrid.ready === true);
  const source = document.getElementById('chart-data');
  const expected = {};
  for (const c of JSON.parse(source ? source.textContent : '[]')) expected[c.id] = c.series.length;
  const charts = [...document.querySelectorAll('[data-chart]')].map(h => ({
    id: h.dataset.chart, expected: expected[h.dataset.chart] ?? null, series: Number(h.dataset.series ?? -1),
    drawn: Number(h.dataset.drawn || 0), with_data: Number(h.dataset.seriesWithData || 0),
    canvas: h.querySelector('canvas') !== null}));
  return JSON.stringify({ready, charts, load_ms: performance.now()});
})()"""
PREFS = {  # a quiet browser: no first-run pages, updates, telemetry or background connections
    "browser.shell.checkDefaultBrowser": False, "browser.startup.homepage_override.mstone": "ignore",
    "app.update.enabled": False, "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.enabled": False, "browser.aboutwelcome.enabled": False,
    "network.captive-portal-service.enabled": False, "network.connectivity-service.enabled": False,
}


def require_firefox():
    if not FIREFOX.exists():
        missing("Firefox", f"{FIREFOX} is absent: install Debian's firefox-esr (apt-get install -y firefox-esr); .ci/run does")


class Firefox:
    """One headless Firefox with a fresh profile; stopped (by its PID) on close."""

    def __init__(self):
        from websockets.sync.client import connect

        self.profile = Path(tempfile.mkdtemp(prefix="littlegrid-firefox-"))
        (self.profile / "user.js").write_text("".join(f'user_pref("{k}", {json.dumps(v)});\n' for k, v in PREFS.items()))
        # stderr to a file, not a pipe: nobody would drain a pipe after start-up, and a full one blocks Firefox
        self.log = self.profile / "firefox-stderr.log"
        self._stack = contextlib.ExitStack()
        with open(self.log, "w") as err:
            self.process = subprocess.Popen(
                [str(FIREFOX), "--headless", "--no-remote", "--profile", str(self.profile), "--remote-debugging-port",
                 "0"], stdout=subprocess.DEVNULL, stderr=err)
        try:
            url = self._listening_url(deadline=time.monotonic() + 60)
            self.ws = self._stack.enter_context(connect(url + "/session", max_size=None, open_timeout=30))
            self.ids = itertools.count(1)
            self.events: list[dict] = []
            self.command("session.new", {"capabilities": {}})
        except BaseException:
            self.close()  # never leave a browser running behind a failed start
            raise

    def _listening_url(self, deadline: float) -> str:
        """The BiDi address Firefox prints ("WebDriver BiDi listening on ws://127.0.0.1:PORT"), within the deadline."""
        while time.monotonic() < deadline and self.process.poll() is None:
            found = re.search(r"WebDriver BiDi listening on (ws://\S+)", self.log.read_text(errors="replace"))
            if found:
                return found.group(1)
            time.sleep(0.1)
        raise RuntimeError(f"Firefox did not start its WebDriver BiDi server: {self.log.read_text(errors='replace')[-500:]}")

    def command(self, method: str, params: dict) -> dict:
        """Send one command and return its result; events that arrive meanwhile are kept in order."""
        ident = next(self.ids)
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=60))
            if message.get("type") == "event":
                self.events.append(message)
                if message["method"] == "browsingContext.userPromptOpened":  # dismiss, as a user would
                    self.ws.send(json.dumps({"id": next(self.ids), "method": "browsingContext.handleUserPrompt",
                                             "params": {"context": message["params"]["context"], "accept": False}}))
            elif message.get("id") == ident:
                if message.get("type") == "error":
                    raise RuntimeError(f"{method}: {message.get('error')}: {message.get('message')}")
                return message["result"]

    def close(self) -> None:
        try:
            self._stack.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            shutil.rmtree(self.profile, ignore_errors=True)


def open_page(firefox: Firefox, path: Path, screenshot: Path | None = None, probe: str | None = None,
              viewport: tuple[int, int] = (1400, 1000), first_screen: bool = False) -> Visit:
    """Load a page from file://, wait for its charts, and report console errors, requests, dialogs and charts;
    `probe`: a JavaScript expression whose JSON.stringify'd value lands, parsed, in visit.probe; `first_screen`: the
    screenshot holds what the viewport shows unscrolled, not the whole page."""
    context = firefox.command("browsingContext.create", {"type": "tab"})["context"]
    # No network events: Firefox's BiDi reports none for file:// pages (an <img> and a fetch to 127.0.0.1:9
    # gave none). A request shows up instead as the report's CSP refusing it, a console error (test_firefox).
    firefox.command("session.subscribe", {"events": ["log.entryAdded", "browsingContext.userPromptOpened"],
                                          "contexts": [context]})
    firefox.command("browsingContext.setViewport", {"context": context, "viewport": {"width": viewport[0], "height": viewport[1]}})
    first_event = len(firefox.events)
    firefox.command("browsingContext.navigate", {"context": context, "url": path.resolve().as_uri(), "wait": "complete"})
    deadline, state = time.monotonic() + 20, {"ready": False}
    while not state["ready"] and time.monotonic() < deadline:
        result = firefox.command("script.evaluate", {"expression": CHARTS_JS, "target": {"context": context},
                                                     "awaitPromise": False})
        state = json.loads(result["result"]["value"]) if result.get("type") == "success" else state
        if not state["ready"]:
            time.sleep(0.1)
    visit = Visit(charts=state.get("charts", []), load_ms=state.get("load_ms", 0.0))
    if not state["ready"]:
        visit.console_errors.append("window.littlegrid.ready never became true")
    for event in firefox.events[first_event:]:
        params = event["params"]
        if event["method"] == "log.entryAdded" and params.get("level") in ("error", "warn"):
            visit.console_errors.append(params.get("text"))
        elif event["method"] == "browsingContext.userPromptOpened":
            visit.dialogs.append(params.get("message"))
    if probe is not None:
        result = firefox.command("script.evaluate", {"expression": f"JSON.stringify({probe})",
                                                     "target": {"context": context}, "awaitPromise": False})
        visit.probe = json.loads(result["result"]["value"]) if result.get("type") == "success" else result
    if screenshot is not None:
        shot = firefox.command("browsingContext.captureScreenshot",
                               {"context": context, "origin": "viewport" if first_screen else "document"})
        screenshot.write_bytes(base64.b64decode(shot["data"]))
    firefox.command("browsingContext.close", {"context": context})
    return visit
