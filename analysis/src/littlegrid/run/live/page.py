"""The live page: rendered once from its template with the report's CSS and vendored uPlot; live.js fills it."""

from __future__ import annotations

from littlegrid import __version__
from littlegrid.render import html

SCRIPTS = ("uPlot.iife.min.js", "live.js")
# (status key of the running cell's figures, what the page calls it)
FIGURES = (("elapsed", "elapsed / duration"), ("samples", "samples read"),
           ("throughput_per_s", "X, throughput so far (/s, errors included)"), ("error_rate", "errors"),
           ("mean_ms", "R, mean response time (ms)"), ("p50_ms", "p50 (ms)"), ("p90_ms", "p90 (ms)"),
           ("p99_ms", "p99 (ms)"), ("busy_threads", "server busy threads (last reading)"),
           ("in_flight", "server in-flight requests (last reading)"), ("load1", "host load, 1 min (last reading)"))
CELL_CHARTS = (("throughput", "throughput and errors per second"), ("latency", "response time p50 / p90 / p99 (ms)"),
               ("threads", "active threads, server busy threads and in-flight"), ("host", "host load (1 min)"))
GRID_CHARTS = (("x-vs-users", "throughput X vs users N"), ("r-vs-users", "response time vs users N (mean, p90)"))


def assets() -> html.Assets:
    """The report's assets with live.js in place of the report's script; the page may fetch its own origin."""
    return html.page_assets(SCRIPTS, connect_self=True)


def render_page(title: str) -> bytes:
    return html.environment().get_template("live.html.j2").render(
        assets=assets(), title=title, version=__version__, figures=FIGURES, cell_charts=CELL_CHARTS,
        grid_charts=GRID_CHARTS).encode("utf-8")
