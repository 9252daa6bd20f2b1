"""Report pages: complete content, working links, hostile text kept as text, and a CSP that admits only our assets."""

import base64
import copy
import hashlib
import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

from littlegrid.render.report import build_report
from synthetic_summary import HOSTILE


class Page(HTMLParser):
    """The parts of a page the assertions need: tags with attributes, inline script/style bodies, text."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripts, self.styles, self.text, self._in = [], [], [], [], None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in ("script", "style") else None
        if self._in:
            (self.scripts if tag == "script" else self.styles).append([dict(attrs), ""])

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts[-1][1] += data
        elif self._in == "style":
            self.styles[-1][1] += data
        else:
            self.text.append(data)


def _json_block(page: Page, block_id: str) -> str:
    (body,) = [body for attrs, body in page.scripts if attrs.get("id") == block_id]
    return body


def _pages(root: Path):
    return sorted(root.rglob("*.html"))


def _sha(text):
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_report_has_an_overview_a_distribution_page_and_one_page_per_cell(hostile_report, hostile_summary):
    assert (hostile_report / "index.html").is_file() and (hostile_report / "distributions.html").is_file()
    assert len(list((hostile_report / "cells").glob("*.html"))) == len(hostile_summary["cells"])


def test_every_link_points_to_a_page_of_the_report(hostile_report):
    for page in _pages(hostile_report):
        p = Page(page.read_text())
        ids = {a["id"] for _, a in p.tags if "id" in a}
        for tag, attrs in p.tags:
            if tag == "a" and attrs["href"].startswith("#label="):  # the page script opens the label's section
                label = unquote(attrs["href"].removeprefix("#label="))
                assert label in {r[0] for r in json.loads(_json_block(p, "label-data"))["rows"]}, attrs["href"]
            elif tag == "a" and attrs["href"].startswith("#"):
                assert attrs["href"][1:] in ids, f"{page.name}: no target for {attrs['href']}"
            elif tag == "a":
                path, _, fragment = attrs["href"].partition("#")
                target = (page.parent / path).resolve()
                assert target.is_file(), f"{page.name}: broken link {attrs['href']}"
                if fragment:
                    assert f'id="{fragment}"' in target.read_text(), f"{page.name}: no target for {attrs['href']}"


def test_nothing_is_loaded_from_anywhere_and_the_csp_admits_exactly_the_inline_assets(hostile_report):
    for page in _pages(hostile_report):
        p = Page(page.read_text())
        assert not [t for t, a in p.tags if t in ("link", "img", "iframe", "object", "embed")]
        assert not [a for t, a in p.tags if t == "script" and "src" in a]
        (csp,) = [a["content"] for t, a in p.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
        assert csp.startswith("default-src 'none';") and "unsafe-inline" not in csp and "http" not in csp
        code = [body for attrs, body in p.scripts if attrs.get("type") != "application/json"]
        assert len(code) == 2 and all(_sha(body) in csp for body in code)
        assert p.styles and all(_sha(body) in csp for _, body in p.styles)
        assert not [a for t, a in p.tags if "style" in a or any(k.startswith("on") for k in a)]


def test_hostile_labels_and_messages_appear_as_text_never_as_markup(hostile_report):
    for page in _pages(hostile_report):
        raw = page.read_text()
        assert "<script>alert(1)" not in raw and "<img src=x" not in raw
        assert not re.search(r"""(href|src)\s*=\s*["']?\s*javascript:""", raw, re.I)
        p = Page(raw)
        # chart data (+ label data where the page has the label table) + uPlot + littlegrid.js, nothing injected
        labels = 1 if any(a.get("id") == "label-data" for t, a in p.tags) else 0
        assert [t for t, _ in p.tags].count("script") == 3 + labels
        assert [a.get("type") for a, _ in p.scripts].count("application/json") == 1 + labels
        assert not [t for t, _ in p.tags if t == "img"]
    overview = Page((hostile_report / "index.html").read_text())
    assert any(HOSTILE[0] in t for t in overview.text) and any(HOSTILE[1] in t for t in overview.text)


def test_hostile_labels_reach_the_chart_data_as_json_strings(hostile_report):
    cell = next((hostile_report / "cells").glob("*.html"))
    page = Page(cell.read_text())
    data = _json_block(page, "chart-data")
    assert "<" not in data  # tojson escapes <, > and & so the block cannot be closed from inside
    assert json.loads(data)[0]["series"]
    labels = _json_block(page, "label-data")
    assert "<" not in labels and {r[0] for r in json.loads(labels)["rows"]} >= set(HOSTILE)


def test_overview_lists_every_criterion_and_check_with_failures_first(golden_summary, tmp_path):
    build_report(golden_summary, tmp_path, generated="x")
    text = (tmp_path / "index.html").read_text()
    n_checks = len(golden_summary["checks"]) + sum(len(c["checks"]) for c in golden_summary["cells"])
    assert text.count('<td class="outcome">') == len(golden_summary["criteria"]) + n_checks
    failed = sum(1 for c in golden_summary["criteria"] if c["passed"] is False)
    assert f"{failed} of {len(golden_summary['criteria'])} criteria FAIL" in text
    criteria = text[text.index('id="criteria"'):text.index('id="checks"')]
    outcomes = re.findall(r'<td class="outcome">(\w+)', criteria)
    assert outcomes == sorted(outcomes, key=lambda o: o != "FAIL")


def test_overview_says_what_was_trimmed_and_what_every_number_means(golden_summary, tmp_path):
    build_report(golden_summary, tmp_path, generated="x")
    text = (tmp_path / "index.html").read_text()
    assert "warm-up 5 s and cool-down 2 s of every cell, counted from the first sample" in text
    precise = copy.deepcopy(golden_summary)  # precise cells each end with the seconds their rule judged
    precise["trim"]["cooldown_s"] = None
    build_report(precise, tmp_path / "precise", generated="x")
    assert ("warm-up 5 s and each cell's own cool-down (a precise cell's is the file's tail after the seconds its "
            "rule judged, see the cells), counted from the first sample") in \
        html.unescape((tmp_path / "precise" / "index.html").read_text())
    for word in ["steady window", "closed-system law", "Little's law at the server", "nearest-rank", "USL",
                 "asymptotic bounds", "Poisson Random Timer"]:
        assert word in text


def test_a_cell_without_series_models_or_think_time_still_renders(golden_summary, tmp_path):
    for c in golden_summary["cells"]:
        c.update(series=None, think_time=None, server=None, host=None, labels={}, checks=[])
    golden_summary["curves"] = []
    golden_summary["criteria"] = []
    build_report(golden_summary, tmp_path, generated="x")
    assert "no criteria were given" in (tmp_path / "index.html").read_text()
    assert "no time series" in next((tmp_path / "cells").glob("*.html")).read_text()


def test_a_failed_cell_without_statistics_is_marked_and_still_has_its_page(golden_summary, tmp_path):
    failed = golden_summary["cells"][0]
    failed.update(status="failed", reason="JMeter exited 1", overall=None, labels={}, window=None, series=None,
                  think_time=None, checks=[])
    build_report(golden_summary, tmp_path, generated="x")
    index = (tmp_path / "index.html").read_text()
    assert "failed: JMeter exited 1" in index and "✗" in index
    page = (tmp_path / "cells" / "users=1,think_ms=0.html").read_text()
    assert "failed: JMeter exited 1" in page


def test_criteria_values_read_in_their_metric_units(golden_summary, tmp_path):
    build_report(golden_summary, tmp_path, generated="x")
    criteria = (tmp_path / "index.html").read_text().split('id="criteria"')[1].split('id="checks"')[0]
    assert "100 ms</td>" in criteria and "1 %</td>" in criteria


def test_criterion_units_come_from_the_entry_or_the_metric_name():
    from littlegrid.render import fmt

    assert fmt.metric(137, "p90") == "137 ms" and fmt.metric(0.5, "p99.9") == "0.5 ms"
    assert fmt.metric(0.0123, "closed_law_error") == "1.23 %" and fmt.metric(0.01, "error_rate") == "1 %"
    assert fmt.metric(96.5, "throughput") == "96.5/s"
    assert fmt.metric(3, "errors", "count") == "3" and fmt.metric(250, "whatever", "ms") == "250 ms"


def test_a_criterion_that_could_not_be_evaluated_keeps_the_verdict_from_reading_pass(golden_summary, tmp_path):
    for c in golden_summary["criteria"]:
        c["passed"] = True
    golden_summary["criteria"][0]["passed"] = None
    build_report(golden_summary, tmp_path, generated="x")
    text = (tmp_path / "index.html").read_text()
    assert f"no criterion fails, but 1 of {len(golden_summary['criteria'])} could not be evaluated" in text
    assert "not made" in text
