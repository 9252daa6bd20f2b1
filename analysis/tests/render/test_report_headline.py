"""The report's first screen answers the question: the headline at the top (in Chromium and Firefox at 1366×768),
the findings grouped with their evidence, whose links land on the chart of the curve they name; and the same answer
as Markdown and as a PNG for places that show no HTML."""

import json
import re
import struct

import pytest
from markdown_it import MarkdownIt

from littlegrid import findings
from littlegrid.render import markdown, summary_png
from littlegrid.render.charts import PALETTE
from littlegrid.render.report import build_report
from synthetic_summary import HOSTILE
from littlegrid.summary import plain
from littlegrid.summary.model import Finding, Headline, Summary

FIRST_SCREEN = (1366, 768)
GFM = MarkdownIt("commonmark").enable("table")  # GitHub-flavoured enough: tables


def with_findings(data: dict) -> Summary:
    """The summary with the findings and headline the findings stage composes from it."""
    s = Summary.model_validate(data)
    found = findings.findings(s)
    return s.model_copy(update={"findings": [Finding.model_validate(plain(f)) for f in findings.as_json(found)],
                                "headline": Headline.model_validate(findings.headline(s, found))})


@pytest.fixture(scope="module")
def answered(tmp_path_factory, golden_summary_dict):
    s = Summary.model_validate(with_findings(golden_summary_dict).model_dump(by_alias=True))
    out = tmp_path_factory.mktemp("answered")
    build_report(s, out, generated="2026-01-01 00:00:00 UTC")
    return s, out


def test_the_headline_is_first_and_the_findings_are_grouped_with_their_evidence(answered):
    s, out = answered
    page = (out / "index.html").read_text(encoding="utf-8")
    assert s.headline is not None and 1 <= len(s.headline.sentences) <= 3
    # issue 51: the verdict in one line and the chart the headline rests on come before the findings
    assert page.index('id="headline"') < page.index('id="verdict"') < page.index('data-chart="glance-x"') \
        < page.index('id="findings"') < page.index('id="criteria"')
    assert s.headline.sentences[0].replace("'", "&#39;") in page
    groups = [g for g in ("answer", "trust", "action") if f'id="findings-{g}"' in page]
    assert groups and groups[0] == "answer"
    assert "How sure: measured" in page and "Standing:" not in page
    links = [f for f in s.findings if f.curve is not None]
    assert links and page.count('class="evidence"') >= len([f for f in links if not f.minor and f.kind in
                                                            ("saturation", "scaling", "knee", "bottleneck")])


def test_the_palette_is_one_list_for_the_png_the_charts_and_the_table_swatches():
    from pathlib import Path
    static = Path(__import__("littlegrid.render", fromlist=["x"]).__file__).parent / "static"
    js = (static / "littlegrid.js").read_text()
    css = (static / "littlegrid.css").read_text()
    assert json.loads(re.search(r"var PALETTE = (\[[^\]]*\])", js).group(1)) == list(PALETTE)
    for i, colour in enumerate(PALETTE):
        assert f".swatch.c{i} {{ background: {colour}; }}" in css


def test_the_markdown_carries_the_headline_the_verdict_and_a_table_and_keeps_hostile_text_as_text(answered):
    s, _ = answered
    hostile = s.model_copy(update={"curves": [k.model_copy(update={"label": HOSTILE[1]}) for k in s.curves]})
    for summary in (s, hostile):
        text = markdown.summary_markdown(summary)
        tokens = GFM.parse(text)
        html = GFM.render(text)
        inline = " ".join(t.content for t in tokens if t.type == "inline")
        assert " ".join(summary.headline.sentences)[:60] in inline.replace("\\", "")
        assert "Verdict:" in inline
        assert [t.type for t in tokens].count("tr_open") == 1 + sum(len(k.cells) for k in summary.curves)
        assert "<script" not in html and "<img" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in GFM.render(markdown.summary_markdown(hostile))  # shown as text


def test_summary_png_is_a_real_chart(answered, tmp_path):
    s, _ = answered
    path = summary_png.write(s, tmp_path / "summary.png", "golden")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    # two panels of lines, not a blank image, 420 px high, under the title and the headline's lines (issue 51)
    lines = len(__import__("textwrap").wrap(" ".join(s.headline.sentences), summary_png.HEADLINE_WIDTH))
    assert lines >= 2 and (width, height) == (1100, round(100 * (4.2 + 0.4 + 0.19 * lines))) and len(data) > 20_000
    empty = s.model_copy(update={"curves": [], "cells": [c.model_copy(update={"series": None}) for c in s.cells]})
    assert summary_png.write(empty, tmp_path / "none.png", "x") is None and not (tmp_path / "none.png").exists()


def test_a_child_process_draws_the_same_png_byte_for_byte(answered, tmp_path):
    s, _ = answered
    here = summary_png.write(s, tmp_path / "here.png", "golden").read_bytes()
    image = summary_png.Background()
    try:
        image.draw(s, tmp_path / "there.png", "golden")
        assert image.result() == tmp_path / "there.png"
    finally:
        image.close()
    assert (tmp_path / "there.png").read_bytes() == here


def test_a_child_that_cannot_draw_leaves_the_drawing_here_which_raises_the_real_error(answered, tmp_path):
    s, _ = answered
    image = summary_png.Background()
    try:
        image.draw(s, tmp_path / "no-such-folder" / "summary.png", "golden")  # the child fails to save it
        with pytest.raises(FileNotFoundError):
            image.result()
    finally:
        image.close()


def test_a_child_never_handed_a_summary_is_stopped(tmp_path):
    image = summary_png.Background()
    child = image._child
    image.close()
    assert child.poll() is not None  # gone: a report whose analysis failed leaves no process behind


@pytest.mark.browser
def test_chromium_shows_the_headline_in_the_first_screen_and_evidence_links_land_on_their_curve(browser, answered):
    from browser import assert_clean, open_page
    s, out = answered
    visit, page = open_page(browser, out / "index.html", viewport=FIRST_SCREEN)
    assert_clean(visit, "headline")
    box = page.locator("#headline").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= FIRST_SCREEN[1], box
    links = page.locator("a.evidence")
    assert links.count() >= 2
    for i in range(links.count()):
        link = links.nth(i)
        if not link.is_visible():
            continue  # folded under "more": the same link, one click further
        chart, curve = link.get_attribute("data-evidence-chart"), int(link.get_attribute("data-curve"))
        link.click()
        host = page.locator(f"[data-chart='{chart}']")
        assert host.get_attribute("data-highlighted") == str(curve)
        assert host.is_visible()
        labels = host.locator(".u-legend .u-label").all_text_contents()
        assert s.curves[curve].label in labels  # the chart shows the curve the finding names
    page.close()


@pytest.mark.browser
def test_firefox_shows_the_headline_in_the_first_screen(firefox, answered):
    from browser import assert_clean
    from firefox import open_page
    _, out = answered
    visit = open_page(firefox, out / "index.html", viewport=FIRST_SCREEN,
                      probe="(() => { const r = document.getElementById('headline').getBoundingClientRect(); "
                            "return {top: r.top, bottom: r.bottom}; })()")
    assert_clean(visit, "firefox headline")
    assert 0 <= visit.probe["top"] and visit.probe["bottom"] <= FIRST_SCREEN[1], visit.probe
