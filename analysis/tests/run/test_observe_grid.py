"""[observe] in the grid file: URLs and selectors checked at load, one line naming file, line and key; and before any
load, each URL must answer Prometheus text, or the run is refused in one line naming the grid's line."""

import socket
from contextlib import contextmanager
from pathlib import Path

import pytest

from http_stub import serving
from littlegrid import cli
from littlegrid.analysis.observed.prometheus_text import Selector
from littlegrid.run import runner
from littlegrid.run.grid_file import load_grid
from littlegrid.usererror import UserError

PLAN = Path(__file__).parent / "fixtures" / "tiny.jmx"


def grid(tmp_path: Path, observe: str, port: int = 8080) -> Path:
    path = tmp_path / "g.toml"
    path.write_text(f"""name = "observed"
plan = "{PLAN}"
[target]
host = "127.0.0.1"
port = {port}
[cell]
duration_s = 20
warmup_s = 5
cooldown_s = 2
[axes]
users = [1]
{observe}""")
    return path


def test_sources_and_named_pools_are_read_with_each_urls_own_line(tmp_path):
    g = load_grid(grid(tmp_path, """[observe]
prometheus = [
  "http://10.0.0.7:9100/metrics",
  "https://orders.internal:8443/actuator/prometheus",
]
[observe.pools.workers]
busy = 'app_workers_busy{role!="admin",host=~"web-.*"}'
size = "app_workers_size"
[observe.pools.conns]
busy = "pgbouncer_pools_server_active_connections"
size = 20
"""))
    spec = g.observe
    assert spec.sources == ("http://10.0.0.7:9100/metrics", "https://orders.internal:8443/actuator/prometheus")
    assert spec.lines == (14, 15)  # the lines of the URLs themselves, inside the list
    workers, conns = spec.pools
    assert workers.name == "workers" and workers.busy.metric == "app_workers_busy" and len(workers.busy.matchers) == 2
    assert workers.size == Selector("app_workers_size") and conns.size == 20.0
    assert spec.keep == {"app_workers_busy", "app_workers_size", "pgbouncer_pools_server_active_connections"}


def test_a_grid_without_observe_observes_nothing(tmp_path):
    spec = load_grid(grid(tmp_path, "")).observe
    assert spec.sources == () and spec.pools == ()


@pytest.mark.parametrize("observe,line,problem", [
    ('[observe]\nprometheus = ["10.0.0.7:9100/metrics"]\n', 13, "[observe] prometheus: '10.0.0.7:9100/metrics' is not an "
                                                                "http:// or https:// URL with a host"),
    ('[observe]\nprometheus = ["http://a:99999/metrics"]\n', 13, "is not a URL (Port out of range"),
    ('[observe]\nprometheus = ["http://[::1/metrics"]\n', 13, "is not a URL (Invalid IPv6 URL)"),
    ('[observe]\nprometheus = ["http://a/m", "http://a/m"]\n', 13, "a URL is listed twice"),
    ('[observe]\nprometheus = [9100]\n', 13, "must be a list of URLs"),
    ('[observe]\nscrape = ["http://a/m"]\n', 13, "[observe] scrape: unknown key (expected one of: pools, prometheus)"),
    ('[observe]\nprometheus = ["http://a/m"]\n[observe.pools.w]\nbusy = "app busy"\n', 15,
     "[observe.pools.w] busy: 'app busy' is not a series selector"),
    ('[observe]\nprometheus = ["http://a/m"]\n[observe.pools.w]\nbusy = \'a{x="1" y="2"}\'\n', 15,
     "cannot read the label matchers"),
    ('[observe]\nprometheus = ["http://a/m"]\n[observe.pools.w]\nbusy = \'a{x=~"("}\'\n', 15, "not a regular expression"),
    ('[observe]\nprometheus = ["http://a/m"]\n[observe.pools.w]\nsize = 4\n', 14, "[observe.pools.w] busy: missing"),
    ('[observe]\nprometheus = ["http://a/m"]\n[observe.pools.w]\nbusy = "a"\nsize = 0\n', 16,
     "[observe.pools.w] size: must be a selector or a number > 0"),
    ('[observe]\nprometheus = ["http://a/m"]\n[observe.pools.w]\nbusy = "a"\nmax = 4\n', 16,
     "[observe.pools.w] max: unknown key"),
    ('[observe.pools.w]\nbusy = "a"\n', 12, "[observe.pools.w]: a pool is read from the sources scraped, and none"),
])
def test_a_wrong_observe_table_is_one_line_naming_file_line_and_key(tmp_path, observe, line, problem):
    path = grid(tmp_path, observe)
    with pytest.raises(UserError) as e:
        load_grid(path)
    message = str(e.value)
    assert message.startswith(f"{path}:{line}: ") and problem in message and "\n" not in message


def refused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def silent_port():
    """A port that accepts connections and never answers: the request waits until the scrape's timeout."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield s.getsockname()[1]


PROBLEMS = {"refused": "connection refused", "silent": "timed out",
            "html": "answers HTML, not Prometheus text", "typed html": "answers HTML, not Prometheus text"}
LOGIN_PAGE = b"<!DOCTYPE html><html><body><form>Grafana login</form></body></html>"


@pytest.mark.parametrize("answer", list(PROBLEMS))
def test_a_source_that_does_not_answer_prometheus_text_is_refused_before_any_load(jmeter, http_target, tmp_path,
                                                                                     capsys, monkeypatch, answer):
    # jmeter: the runner looks for JMeter first. The target answers; the second source does not answer as it should:
    # nothing there, a port that never answers, an HTML page (without a type, and typed text/html as a login page is)
    started = []
    monkeypatch.setattr(runner, "run_cell", lambda *args, **kwargs: started.append(args))
    with serving(lambda path: b"up 1\n") as good, silent_port() as silent, \
            serving(lambda path: LOGIN_PAGE) as html, serving(lambda path: LOGIN_PAGE, "text/html") as typed:
        port = {"refused": refused_port(), "silent": silent, "html": html, "typed html": typed}[answer]
        bad = f"http://127.0.0.1:{port}/metrics"
        path = grid(tmp_path, f'[observe]\nprometheus = [\n  "http://127.0.0.1:{good}/metrics",\n  "{bad}",\n]\n',
                    port=http_target)
        code = cli.main(["run", str(path), "--out", str(tmp_path / "reports")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and not (tmp_path / "reports").exists()
    assert err.startswith(f"littlegrid run: {path}:15: [observe] prometheus: {bad}: {PROBLEMS[answer]}")
    assert started == []  # JMeter never started: no cell ran


def test_the_dry_run_says_what_each_cell_observes(tmp_path, capsys):
    from littlegrid.run.runner import run_grid

    run_grid(grid(tmp_path, '[observe]\nprometheus = ["http://10.0.0.7:9100/metrics"]\n'), dry_run=True,
             out=tmp_path / "reports")
    assert "observed once a second beside each cell, into observed.csv: http://10.0.0.7:9100/metrics" in \
        capsys.readouterr().out
