"""[observe]'s scraper: once a second per source on its own thread, raw readings into observed.csv, failures and slow
answers counted and never stopping the cell; and the refusal of a source that does not answer Prometheus text."""

import csv
import socket
import threading
import time
from pathlib import Path

import pytest

from http_stub import serving
from littlegrid.run.observe import Observer, check_source
from littlegrid.usererror import UserError

EXPOSITION = b"""# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 12.5
# TYPE go_goroutines gauge
go_goroutines 42
# TYPE app_workers_busy gauge
app_workers_busy{worker="1"} 3
# TYPE request_seconds summary
request_seconds_sum{path="/"} 1.5
request_seconds_count{path="/"} 60
jvm_gc_pause_seconds_sum{action="end of minor GC",cause="G1 Evacuation Pause"} NaN
# EOF
"""


def rows(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def refused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed on leaving: nothing listens there


def test_each_scrape_keeps_the_known_families_and_the_users_selectors_raw(tmp_path):
    out = tmp_path / "observed.csv"
    with serving(lambda path: EXPOSITION) as port:
        url = f"http://127.0.0.1:{port}/metrics"
        with Observer(out, [url], keep=frozenset({"app_workers_busy"}), interval_s=0.4) as observer:
            time.sleep(1.8)
    found = rows(out)
    assert list(found[0]) == ["time_ms", "source", "metric", "labels", "value"]
    assert {r["metric"] for r in found} == {"process_cpu_seconds_total", "app_workers_busy", "jvm_gc_pause_seconds_sum"}
    busy = [r for r in found if r["metric"] == "app_workers_busy"]
    assert busy[0]["labels"] == 'worker="1"' and busy[0]["value"] == "3" and busy[0]["source"] == url
    assert [r["value"] for r in found if r["metric"] == "jvm_gc_pause_seconds_sum"][0] == "NaN"
    times = sorted({int(r["time_ms"]) for r in found if r["metric"]})
    # ticks at 0, 0.4, ..., 1.6 s and the closing one at stop (6), give or take one; the schedule itself is
    # test_ticks', on a fake clock. A scrape's timeout is its interval (0.4 s), which a stalled host can pass:
    # such a scrape is counted failed, never lost
    counts = observer.summary()[url]
    assert 4 <= counts["scrapes"] <= 7 and counts["scrapes"] - counts["failed"] == len(times) >= 3


def test_a_slow_an_html_and_a_vanishing_source_are_counted_and_never_hold_up_the_good_one(tmp_path):
    out = tmp_path / "observed.csv"
    hang = threading.Event()

    def slow(path):
        hang.wait(3)  # answers after 3 s, far past its second
        return EXPOSITION

    with serving(lambda path: EXPOSITION) as good, serving(slow) as slow_port, \
            serving(lambda path: b"<html><body>login</body></html>") as html:
        vanishing = serving(lambda path: EXPOSITION)
        gone_port = vanishing.__enter__()
        urls = [f"http://127.0.0.1:{p}/metrics" for p in (good, slow_port, html, gone_port)]
        t0 = time.monotonic()
        with Observer(out, urls, interval_s=0.5) as observer:
            time.sleep(1.2)
            vanishing.__exit__(None, None, None)  # connection refused from here on, mid-cell
            time.sleep(1.4)
        took = time.monotonic() - t0
        hang.set()
    counts = observer.summary()
    good_url, slow_url, html_url, gone_url = urls
    assert took < 2.6 + 0.5 + 1.5  # leaving waits at most one scrape's timeout, not for the slow source
    assert counts[good_url]["failed"] == 0 and counts[good_url]["scrapes"] >= 5
    assert counts[slow_url]["failed"] >= 2 and set(counts[slow_url]["errors"]) == {"timed out"}
    assert counts[html_url]["failed"] == counts[html_url]["scrapes"] >= 5
    assert any("HTML" in problem for problem in counts[html_url]["errors"])  # a stalled scrape may time out too
    assert counts[gone_url]["scrapes"] - counts[gone_url]["failed"] >= 2  # answered before it went away...
    assert counts[gone_url]["errors"].get("connection refused", 0) >= 2   # ...refused after, and counted
    answered, failed = {}, {}
    for r in rows(out):
        (answered if r["metric"] else failed).setdefault(r["source"], []).append(r["time_ms"])
    assert len(set(answered[good_url])) >= 5 and slow_url not in answered and html_url not in answered
    # each failed scrape is one row with its time and source and no metric, as the manifest counts them
    assert len(failed[html_url]) == counts[html_url]["failed"] and good_url not in failed


def test_an_observer_of_nothing_writes_the_header_only(tmp_path):
    with Observer(tmp_path / "observed.csv", []) as observer:
        pass
    assert (tmp_path / "observed.csv").read_text().strip() == "time_ms,source,metric,labels,value"
    assert observer.summary() == {}


def test_a_source_that_answers_prometheus_text_passes_the_check():
    with serving(lambda path: EXPOSITION) as port:
        check_source(f"http://127.0.0.1:{port}/metrics", "g.toml:9: [observe] prometheus")


@pytest.mark.parametrize("body,problem", [
    (b"<!doctype html><title>Grafana</title>", "answers HTML, not Prometheus text"),
    (b'{"status":"UP"}', "answers JSON, not Prometheus text"),
    (b"OK\n", "answers no Prometheus sample line"),
])
def test_a_source_that_answers_something_else_is_refused_in_one_line_naming_the_grid_line(body, problem):
    with serving(lambda path: body) as port:
        url = f"http://127.0.0.1:{port}/"
        with pytest.raises(UserError) as e:
            check_source(url, "g.toml:9: [observe] prometheus")
    assert str(e.value).startswith(f"g.toml:9: [observe] prometheus: {url}: {problem}") and "\n" not in str(e.value)


def test_a_source_that_does_not_answer_is_refused():
    url = f"http://127.0.0.1:{refused_port()}/metrics"
    with pytest.raises(UserError, match=r"^g.toml:3: \[observe\] prometheus: .*: connection refused$"):
        check_source(url, "g.toml:3: [observe] prometheus")


def test_a_source_that_answers_too_late_is_refused_as_timed_out():
    release = threading.Event()
    with serving(lambda path: (release.wait(5), EXPOSITION)[1]) as port:
        with pytest.raises(UserError, match="timed out"):
            check_source(f"http://127.0.0.1:{port}/metrics", "g.toml:3: [observe] prometheus", timeout_s=0.3)
        release.set()
