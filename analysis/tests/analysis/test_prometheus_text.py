"""The Prometheus text format and OpenMetrics read into samples; series selectors parsed and matched."""

import math
from pathlib import Path

import pytest

from littlegrid.analysis.observed.prometheus_text import (exposition_problem, label_text, parse_label_text,
                                                          parse_prometheus, parse_selector)
from littlegrid.usererror import UserError
from sample_server_text import SAMPLE_SERVER

FIXTURES = Path(__file__).parent / "fixtures" / "observed"


def test_real_openmetrics_from_client_python_reads_counters_histograms_nan_and_stops_at_eof():
    text = (FIXTURES / "client_python-openmetrics.txt").read_text() + "after_eof_total 5\n"
    samples = parse_prometheus(text)
    names = {n for n, _, _ in samples}
    assert ("process_cpu_seconds_total", {}, 0.11) in samples
    assert ("request_latency_seconds_bucket", {"le": "+Inf", "path": "/a"}, 1.0) in samples
    assert ("request_latency_seconds_sum", {"path": "/a"}, 0.025) in samples
    assert ("request_latency_seconds_count", {"path": "/a"}, 1.0) in samples
    assert any(n == "weird" and math.isnan(v) for n, _, v in samples)
    assert "after_eof_total" not in names  # `# EOF` ends an OpenMetrics exposition


def test_exemplars_timestamps_and_escapes_are_read_as_the_format_writes_them():
    text = ('http_requests_total{path="/a\\\\b",q="say \\"hi\\"\\n"} 7 1700000000.5\n'
            'latency_seconds_bucket{le="0.1"} 3 # {trace_id="abc"} 0.05 1700000000\n'
            "x_total +Inf\n")
    assert parse_prometheus(text) == [("http_requests_total", {"path": "/a\\b", "q": 'say "hi"\n'}, 7.0),
                                      ("latency_seconds_bucket", {"le": "0.1"}, 3.0), ("x_total", {}, math.inf)]


def test_label_text_is_one_canonical_text_per_series_and_reads_back():
    labels = {"z": 'a "q"', "a": "x\\y"}
    assert label_text(labels) == 'a="x\\\\y",z="a \\"q\\""'
    assert parse_label_text(label_text(labels)) == labels


@pytest.mark.parametrize("text,ctype,problem", [
    ("<!doctype html><html><body>Grafana</body></html>", "text/html; charset=utf-8", "HTML"),
    ("<html>", "", "HTML"),
    ('{"status": "UP"}', "application/json", "JSON"),
    ("hello world\n", "text/plain", "no Prometheus sample line"),
    ("", "text/plain", "no Prometheus sample line"),
])
def test_what_is_not_an_exposition_is_named(text, ctype, problem):
    assert problem in exposition_problem(text, ctype)


def test_a_real_exposition_is_one():
    assert exposition_problem((FIXTURES / "node_exporter-1.5.0.txt").read_text(), "text/plain; version=0.0.4") is None


def test_a_selector_reads_name_and_each_matcher_kind_and_matches_as_promql_does():
    s = parse_selector('executor_active_threads{name="workers", pool!="x",host=~"web-[0-9]+",env!~"test.*"}')
    assert s.metric == "executor_active_threads" and [m.op for m in s.matchers] == ["=", "!=", "=~", "!~"]
    assert s.matches("executor_active_threads", {"name": "workers", "host": "web-12", "env": "prod"})
    assert not s.matches("executor_active_threads", {"name": "workers", "host": "web-12x", "env": "prod"})  # anchored
    assert not s.matches("executor_active_threads", {"name": "workers", "host": "web-1", "env": "testing"})
    assert not s.matches("other", {"name": "workers", "host": "web-1"})
    assert parse_selector("up").matches("up", {"job": "a"})
    assert str(parse_selector('a{b="c"}')) == 'a{b="c"}'


@pytest.mark.parametrize("text", ["", "9metric", "metric{name}", 'metric{name="a"', 'metric{name=~"("}',
                                  'metric{name="a" x="b"}', "two words"])
def test_what_is_not_a_selector_is_refused_saying_so(text):
    with pytest.raises(UserError):
        parse_selector(text)


def test_the_text_format_gives_names_labels_and_values_and_skips_what_it_cannot_read():
    samples = parse_prometheus("# HELP tomcat_threads_busy_threads\n# TYPE tomcat_threads_busy_threads gauge\n"
                               + SAMPLE_SERVER + 'jvm_weird{label="a \\"quoted\\" } brace"} 1.5e3 1700000000000\n'
                               "broken line without value\nprocess_start_time_seconds NaN\n")
    assert ("littlegrid_in_flight_requests", {}, 2.0) in samples
    assert ("jvm_weird", {"label": 'a "quoted" } brace'}, 1500.0) in samples  # escaped quote, brace, timestamp
    assert not any(name == "broken" for name, _, _ in samples)
