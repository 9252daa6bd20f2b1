"""haproxy in front of an HTTP service, both started by the grid ([processes]): Debian's haproxy 2.6 in http mode with
maxconn 3 on its server, gunicorn with more threads behind it, and haproxy's own Prometheus exporter scraped. The
findings name the limit from the exporter's figures: the bottleneck is haproxy's maxconn (its sessions sit at 3 with
requests queued) and the wait is in haproxy's queue (about N − 3 requests, W_q = L_q/X each). About 40 s of load:
run under the load lock."""

import re
import sys
from pathlib import Path
from string import Template

import pytest

from littlegrid.run.jmeter import repo_root
from littlegrid.run.runner import run_grid
from littlegrid.run.ports import free_ports
from littlegrid.summarize import analyze
from needs import missing

HAPROXY = Path("/usr/sbin/haproxy")  # Debian's haproxy (2.6 on bookworm): .ci/run installs it
SERVICES = Path(__file__).resolve().parents[1] / "services"
ROOT = repo_root(Path(__file__).parent)
MAXCONN = 3
# It starts haproxy, gunicorn and JMeter itself (run_grid, no load fixture): a load test by its own word.
pytestmark = pytest.mark.load


@pytest.fixture(scope="module")
def haproxy_run(tmp_path_factory):
    """The grid tests/services/haproxy-http.toml, its ports and Python filled in, run and analysed once."""
    if not HAPROXY.is_file():
        missing("haproxy", f"{HAPROXY} not found (apt-get install haproxy)")
    from littlegrid.run.jmeter import find_jmeter
    from littlegrid.usererror import UserError
    try:
        find_jmeter()
    except UserError as e:
        missing("JMeter", str(e))
    folder = tmp_path_factory.mktemp("haproxy")
    ports = dict(zip(("listen_port", "metrics_port", "upstream_port"), free_ports(3)))
    values = {**ports, "listen": f"127.0.0.1:{ports['listen_port']}", "metrics": f"127.0.0.1:{ports['metrics_port']}",
              "upstream": f"127.0.0.1:{ports['upstream_port']}", "maxconn": MAXCONN, "python": sys.executable,
              "services": str(SERVICES)}
    (folder / "haproxy.cfg").write_text(Template((SERVICES / "haproxy-http.cfg").read_text()).substitute(values))
    grid = folder / "haproxy-http.toml"
    text = Template((SERVICES / "haproxy-http.toml").read_text()).safe_substitute(values)
    grid.write_text(text.replace('plan = "plans/closed.jmx"', f'plan = "{ROOT / "plans" / "closed.jmx"}"'))
    run = run_grid(grid, out=folder / "reports", run_id="haproxy-http")
    summary = analyze([run])
    for f in summary.findings:  # the record (pytest -s): what `littlegrid explain` says
        if f.kind in ("saturation", "bottleneck", "waiting"):
            print(f"{f.kind}/{f.resource}: {f.statement}")
    return run, summary


def _the(summary, kind: str, resource: str):
    found = [f for f in summary.findings if f.kind == kind and f.resource == resource]
    assert found, (kind, resource, [f"{f.kind}/{f.resource}: {f.statement}" for f in summary.findings])
    return found[0]


def test_the_bottleneck_is_haproxys_maxconn_from_its_own_exporter(haproxy_run):
    run, summary = haproxy_run
    f = _the(summary, "bottleneck", "proxy")
    assert f"maxconn {MAXCONN}" in f.statement and "backend app" in f.statement, f.statement
    assert dict(f.figures)["proxy_limit"] == MAXCONN
    heaviest = max(summary.cells, key=lambda c: c.users.n)
    [proxy] = [p for p in heaviest.observed.proxies if p.backend == "app"]
    assert proxy.limit == MAXCONN and proxy.served_mean >= 0.9 * MAXCONN  # its sessions sit at maxconn
    # the headline names the same limit and where the rest wait, never "something not measured"
    head = summary.headline.sentences[0]
    assert re.match(rf"(With [^,]+, )?[hH]aproxy's maxconn {MAXCONN} (likely )?caps throughput at ", head), head
    assert "in haproxy's queue" in head, head


def test_the_wait_is_in_haproxys_queue_about_n_less_maxconn_requests(haproxy_run):
    run, summary = haproxy_run
    f = _the(summary, "waiting", "proxy")
    assert "haproxy's queue" in f.statement, f.statement
    heaviest = max(summary.cells, key=lambda c: c.users.n)
    [proxy] = [p for p in heaviest.observed.proxies if p.backend == "app"]
    n = heaviest.users.n
    # closed loop, Z = 0: the N users are all in haproxy (queued or in service) but for JMeter's own turnaround
    assert n - MAXCONN - 1.0 <= proxy.queue_mean <= n - MAXCONN + 0.5, proxy
    # W_q is Little's law on the queue over the window; haproxy's own average (a sliding one over its last 1024
    # sessions, which reach back into the cells before) is reported beside it, not instead of it
    assert proxy.queue_wait_ms == pytest.approx(1000.0 * proxy.queue_mean / proxy.sessions_per_s)
    assert proxy.queue_time_avg_ms is not None and proxy.queue_time_avg_ms > 0
    assert re.search(rf"about {proxy.queue_mean:.2g} requests wait in haproxy's queue", f.statement), f.statement
    assert not [w for w in summary.findings if w.kind == "waiting" and w.standing == "cannot tell"]


def test_the_grid_meets_its_expect_and_the_parts_logs_are_in_the_run_folder(haproxy_run):
    run, summary = haproxy_run
    assert summary.expectations and all(e.passed for e in summary.expectations), summary.expectations
    assert (run / "processes" / "haproxy" / "haproxy.cfg").is_file()
    assert (run / "processes" / "gunicorn" / "gunicorn.log").read_text().count("Booting worker") >= 1
