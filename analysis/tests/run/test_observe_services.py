"""Real services no one here wrote, each on a host of its own: a network namespace at 10.232.0.2 joined to this
host's root namespace (JMeter's, `littlegrid run`'s) by a veth pair, the service and what scrapes it started inside
it by the test and stopped by PID at the end, also on failure. The grids are files beside the services
(tests/services/*.toml), each with the `expect` lines its outcome must meet, and each test checks what the laws
guarantee on top of them:

- gunicorn (gthread) with a known pool of c threads holding each request 25 ms, nothing scraped (c = 4) and with
  Debian's node_exporter beside it (c = 2 × 3 = 6): the saturation level is the measured plateau, the limit the
  laws infer (X_max · D) is c within ±0.5, and no sentence speaks the sample server's words (Tomcat, threads.max,
  its throttle) or calls any CPU the server's when nothing measured it; with node_exporter the server's CPU is the
  namespace host's, never the generator's;
- the same service made CPU-bound (10 ms of CPU a request, 2 processes × 2 threads): named CPU-bound from the
  namespace's node_exporter, this machine's cores;
- nginx (Debian) in front of it with `max_conns = k` to its upstream (gunicorn's pool larger): the limit is nginx's
  k; open-source nginx sheds what is beyond k at once with 502, so only the answered requests are held by it;
- the sample server as if it were a user's service (two servers, 10 and 100 Tomcat threads, told apart by their
  port), observed only through [observe]: littles-law.toml's cells and expectations, retargeted.

Minutes of load (about 12 in all): run one at a time, as root, under the exclusive load lock, e.g.
    flock "$HOME/.littlegrid-load.lock" target/venv/bin/python -m pytest -m acceptance -s \\
        tests/run/test_observe_services.py -k gunicorn_pool_without
The figures each run gave are in docs/observe.md ("What littlegrid says about real services").
"""

import os
import re
import subprocess
import sys
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from string import Template

import pytest

from littlegrid.render.words import text
from littlegrid.run.grid_file import load_grid
from littlegrid.run.runner import run_grid
from littlegrid.summarize import analyze
from needs import missing
from netns import namespaces, netns_available, start_in, wait_listening  # noqa: F401 (netns_available: a fixture)

pytestmark = pytest.mark.acceptance

NET = "10.232.0"                # a private /24 used only on the bridge made here (test_distributed_netns: 10.231.0)
SERVICE_HOST = f"{NET}.2"       # the service's host: every grid under tests/services targets it
SERVICES = Path(__file__).resolve().parents[1] / "services"
NODE_EXPORTER = "/usr/bin/prometheus-node-exporter"  # Debian's prometheus-node-exporter
NODE_EXPORTER_PORT = 9100
NGINX = "/usr/sbin/nginx"                            # Debian's nginx
LIMIT_TOLERANCE = 0.5           # the inferred limit within ±0.5 of the pool (issue 50)
PLATEAU_TOLERANCE = 0.05        # the saturation level within 5% of the plateau measured at the heaviest cell
# The sample server's vocabulary, and the server's CPU: no sentence about a service that has none of these (or
# whose CPU nothing measured) may speak them. Saying that the server's CPU was not measured is what a reader must
# be told, and claims nothing about it; the generator's cores worded as the server's ("the server's 2 cores") are
# what issue 50 found said.
FOREIGN_WORDS = re.compile(r"tomcat|threads\.max|throttle|the server's cpu(?! was not measured)|server's \d+ cores?", re.I)


@dataclass(frozen=True)
class Gunicorn:
    """gunicorn's gthread workers: `workers` processes of `threads` threads each, a pool of c = workers × threads."""

    workers: int
    threads: int
    bind: str

    @property
    def pool(self) -> int:
        return self.workers * self.threads

    def command(self) -> list[str]:
        # keep-alive longer than any pause of a JMeter thread: a connection is not closed under a waiting request
        return [sys.executable, "-m", "gunicorn", "--worker-class", "gthread", "--workers", str(self.workers),
                "--threads", str(self.threads), "--keep-alive", "30", "--bind", self.bind,
                "--chdir", str(SERVICES), "app:app"]


def needs(*programs: str) -> None:
    for program in programs:
        if not Path(program).is_file():
            missing(Path(program).name, f"{program} not found (apt-get install {Path(program).name})")


@contextmanager
def service_host(tag: str):
    """The service's namespace (its own host at SERVICE_HOST) and an ExitStack stopping what starts in it."""
    with namespaces(tag, NET, {"svc": SERVICE_HOST}) as ns, ExitStack() as stack:
        yield ns["svc"], stack


def start_gunicorn(ns: str, stack: ExitStack, tmp_path: Path, service: Gunicorn) -> None:
    log = tmp_path / "gunicorn.log"
    process = start_in(ns, service.command(), log, stack)
    host, port = service.bind.rsplit(":", 1)
    if host == "127.0.0.1":  # listening on the namespace's own loopback: probe from inside it
        wait_in(ns, host, int(port), process, log)
    else:
        wait_listening(host, int(port), process, log)


def wait_in(ns: str, host: str, port: int, process, log: Path, timeout_s: float = 30) -> None:
    """Until host:port accepts a connection inside namespace ns (an address the root namespace cannot reach)."""
    probe = f"import socket; socket.create_connection(({host!r}, {port}), timeout=1).close()"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert process.poll() is None, f"exited with {process.returncode}: {log.read_text()[-2000:]}"
        if subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", probe], capture_output=True).returncode == 0:
            return
        time.sleep(0.3)
    pytest.fail(f"{host}:{port} in {ns} not listening after {timeout_s:.0f} s ({log})")


def start_node_exporter(ns: str, stack: ExitStack, tmp_path: Path) -> None:
    log = tmp_path / "node-exporter.log"
    process = start_in(ns, [NODE_EXPORTER, f"--web.listen-address={SERVICE_HOST}:{NODE_EXPORTER_PORT}"], log, stack)
    wait_listening(SERVICE_HOST, NODE_EXPORTER_PORT, process, log)


def start_nginx(ns: str, stack: ExitStack, tmp_path: Path, listen: str, upstream: str, max_conns: int) -> None:
    """nginx with its own config, pid, logs and temporary files under tmp_path/nginx (tests/services/nginx.conf)."""
    home = tmp_path / "nginx"
    home.mkdir()
    conf = home / "nginx.conf"
    conf.write_text(Template((SERVICES / "nginx.conf").read_text()).substitute(
        dir=home, listen=listen, upstream=upstream, max_conns=max_conns))
    log = tmp_path / "nginx.out"
    # -e: the error log before the config is read (Debian's default /var/log/nginx is not ours to write)
    process = start_in(ns, [NGINX, "-c", str(conf), "-p", str(home), "-e", str(home / "error.log")], log, stack)
    host, port = listen.rsplit(":", 1)
    wait_listening(host, int(port), process, log)


def run_and_analyze(grid_name: str, tmp_path: Path):
    """The grid tests/services/<grid_name>.toml run into tmp_path, and its summary; the findings printed for the
    record (what `littlegrid explain` prints)."""
    grid = SERVICES / f"{grid_name}.toml"
    assert load_grid(grid).target.host == SERVICE_HOST, f"{grid}: [target] host must be {SERVICE_HOST}"
    run = run_grid(grid, out=tmp_path / "reports", run_id=grid_name)
    summary = analyze([run])
    print(f"\n== {grid_name}")
    print("headline:", " ".join(summary.headline.sentences) if summary.headline else None)
    print(text(summary.findings))
    for cell in summary.cells:
        o = cell.overall
        print(f"{cell.id}: X {o.throughput_per_s:.1f}/s (answered {o.successes_per_s:.1f}/s), R {o.mean_ms:.1f} ms, "
              f"errors {o.error_rate:.1%}; server CPU {cell.server_cpu}")
    for e in summary.expectations:
        print(f"expect {e.expectation!r}: {e.passed} ({e.explanation})")
    for curve in summary.curves:
        print(f"curve {curve.label or '(one)'}: concurrency {curve.models.concurrency if curve.models else None}")
    return summary


def words(summary) -> str:
    """Every sentence a reader meets: the headline and each finding's statement, reason and recommendation."""
    parts = list(summary.headline.sentences) if summary.headline else []
    for f in summary.findings:
        parts += [f.statement, f.why, f.recommendation or ""]
    return "\n".join(parts)


def assert_expectations_met(summary) -> None:
    missed = [e for e in summary.expectations if e.passed is not True]
    assert summary.expectations and not missed, missed


def the(summary, kind: str):
    found = [f for f in summary.findings if f.kind == kind]
    assert len(found) == 1, (kind, [f.statement for f in summary.findings])
    return found[0]


def assert_plateau_and_limit(summary, pool: int) -> None:
    """The saturation level is the plateau measured: within 5% of the answered X at the heaviest cell, where the
    limit is surely full; and the limit the laws infer, X_max · D, is the pool's c within ±0.5, said as about c."""
    saturation = the(summary, "saturation")
    heaviest = max(summary.cells, key=lambda c: c.users.n)
    measured = heaviest.overall.successes_per_s
    level = saturation.figures["throughput_per_s"]
    assert abs(level / measured - 1) <= PLATEAU_TOLERANCE, (level, measured, heaviest.id)
    bottleneck = the(summary, "bottleneck")
    limit = bottleneck.figures.get("in_service")
    assert limit is not None and abs(limit - pool) <= LIMIT_TOLERANCE, (pool, bottleneck.statement, bottleneck.figures)
    assert re.search(rf"\babout {pool}\b", bottleneck.statement), bottleneck.statement


@pytest.fixture
def tag() -> str:
    """A short tag for the bridge's and namespaces' names (at most 15 characters each); one test at a time uses it,
    and removes what it made before the next."""
    return f"o{os.getpid() % 1000}"


def test_gunicorn_pool_without_any_scrape_is_named_by_the_laws(runnable, netns_available, tmp_path, tag):
    service = Gunicorn(workers=1, threads=4, bind=f"{SERVICE_HOST}:8000")
    with service_host(tag) as (ns, stack):
        start_gunicorn(ns, stack, tmp_path, service)
        summary = run_and_analyze("gunicorn-pool", tmp_path)
    assert summary.run.target.placement == "elsewhere", summary.run.target
    assert_expectations_met(summary)
    assert_plateau_and_limit(summary, service.pool)
    said = words(summary)
    assert not FOREIGN_WORDS.search(said), FOREIGN_WORDS.search(said)
    # nothing measured the server's CPU: no cell says otherwise
    assert {c.server_cpu.basis for c in summary.cells if c.server_cpu} <= {"not_measured"}


def test_gunicorn_pool_with_node_exporter_ties_the_cpu_to_the_service_host(runnable, netns_available, tmp_path, tag):
    needs(NODE_EXPORTER)
    service = Gunicorn(workers=2, threads=3, bind=f"{SERVICE_HOST}:8000")
    with service_host(tag) as (ns, stack):
        start_node_exporter(ns, stack, tmp_path)
        start_gunicorn(ns, stack, tmp_path, service)
        summary = run_and_analyze("gunicorn-pool-node", tmp_path)
    assert_expectations_met(summary)
    assert_plateau_and_limit(summary, service.pool)
    said = words(summary)
    assert not re.search(r"tomcat|threads\.max|throttle", said, re.I), said
    for cell in summary.cells:
        cpu = cell.server_cpu
        # node_exporter's in the namespace, on the service's address: the same kernel as JMeter's (its boot time is
        # this host's), so this machine's cores, JMeter's work in them, never "the server host's" (issue 62)
        assert cpu is not None and cpu.basis == "host_shared" and cpu.host == SERVICE_HOST, (cell.id, cpu)
        assert cpu.shared_with_generator and "a network namespace of it" in cpu.words, (cell.id, cpu)
        (host,) = cell.observed.hosts
        assert host.host == SERVICE_HOST and host.source == f"http://{SERVICE_HOST}:{NODE_EXPORTER_PORT}/metrics"


def test_a_cpu_bound_gunicorn_is_named_cpu_bound_from_the_service_hosts_figures(runnable, netns_available, tmp_path,
                                                                                tag):
    needs(NODE_EXPORTER)
    service = Gunicorn(workers=2, threads=2, bind=f"{SERVICE_HOST}:8000")
    with service_host(tag) as (ns, stack):
        start_node_exporter(ns, stack, tmp_path)
        start_gunicorn(ns, stack, tmp_path, service)
        summary = run_and_analyze("gunicorn-cpu-node", tmp_path)
    assert_expectations_met(summary)
    bottleneck = the(summary, "bottleneck")
    assert bottleneck.resource == "cpu", bottleneck.statement
    cells = [c for c in summary.cells if c.id in bottleneck.cells]
    # this machine's cores, seen by node_exporter in the namespace (the same boot time): JMeter's work in them too
    assert cells and all(c.server_cpu.basis == "host_shared" and c.server_cpu.host == SERVICE_HOST for c in cells)
    # the cores, not the pool of 4, cap it: X stays under 2 cores / 10 ms of CPU a request
    assert all(c.overall.throughput_per_s <= 2 / 0.010 for c in cells), [c.overall.throughput_per_s for c in cells]


def test_behind_nginx_with_an_upstream_limit_the_limit_is_nginxs(runnable, netns_available, tmp_path, tag):
    needs(NGINX)
    k = 3
    service = Gunicorn(workers=1, threads=8, bind="127.0.0.1:8000")  # a larger pool, reachable only through nginx
    with service_host(tag) as (ns, stack):
        start_gunicorn(ns, stack, tmp_path, service)
        start_nginx(ns, stack, tmp_path, listen=f"{SERVICE_HOST}:8080", upstream=service.bind, max_conns=k)
        summary = run_and_analyze("nginx-limit", tmp_path)
    assert_expectations_met(summary)
    assert_plateau_and_limit(summary, k)
    said = words(summary)
    assert not FOREIGN_WORDS.search(said), FOREIGN_WORDS.search(said)


SAMPLE_SERVERS = {8080: 10, 8090: 100}  # the port each server answers on -> its Tomcat threads (littles-law's arms)


def test_the_sample_server_in_a_namespace_observed_only_through_observe_meets_littles_law(
        runnable, server_jar, netns_available, tmp_path, tag):
    with service_host(tag) as (ns, stack):
        started = []
        for port, threads in SAMPLE_SERVERS.items():
            log = tmp_path / f"server-{port}.log"
            process = start_in(ns, ["java", "-Xmx512m", "-jar", str(server_jar), f"--server.port={port}",
                                    f"--server.address={SERVICE_HOST}", f"--management.server.port={port + 1}",
                                    f"--management.server.address={SERVICE_HOST}",
                                    f"--server.tomcat.threads.max={threads}"], log, stack)
            started.append((port, process, log))
        for port, process, log in started:
            wait_listening(SERVICE_HOST, port, process, log)
            wait_listening(SERVICE_HOST, port + 1, process, log)  # its actuator, which [observe] checks before load
        summary = run_and_analyze("littles-law-netns", tmp_path)
    assert_expectations_met(summary)
    # as when littlegrid starts it (test_acceptance_findings): 10 threads of 100 ms serve 100/s
    bottleneck = the(summary, "bottleneck")
    assert bottleneck.where == {"port": 8080} and bottleneck.resource == "thread_pool", bottleneck
    assert bottleneck.figures["throughput_per_s"] == pytest.approx(100.0, rel=0.05)
    assert summary.run.target.placement == "elsewhere", summary.run.target
    # each cell's pool is the Tomcat connector of the port that cell loaded, scraped from that server's actuator:
    # both actuators are scraped in every cell, and the idle server's pool is not the one under test
    for cell in summary.cells:
        port = cell.axes["port"]
        server = cell.server
        assert server is not None and server.pool_kind == "tomcat", (cell.id, server)
        assert server.pool_name.endswith(str(port)) and server.threads_max == SAMPLE_SERVERS[port], (cell.id, server)
        own = f"http://{SERVICE_HOST}:{port + 1}/actuator/prometheus"
        assert server.source == own, (cell.id, server.source)
        # its process CPU is its own JVM's, and the other server's actuator is listed as serving the other port
        assert cell.server_cpu.basis == "server_process" and cell.server_cpu.host == SERVICE_HOST, cell.server_cpu
        assert {p.source for p in cell.observed.process_cpu} == {own}, cell.observed.process_cpu
        (other,) = [s for s in cell.observed.sources if s.url != own]
        assert not other.target_host and other.serves == f"{SERVICE_HOST}:{sum(SAMPLE_SERVERS) - port}", other
