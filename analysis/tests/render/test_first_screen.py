"""The report's first screen is the answer and its proof (issue 51): the headline, the verdict in one line and the
chart the headline rests on (render/proof.py): X and R against the load per curve, each curve's bounds, its knee or
capacity marked, the cells the headline cites ringed. The page, summary.png and summary.md draw the same reading,
and in Chromium and Firefox, at 1366×768 and 1920×1080, the headline, the verdict and the charts' plot areas lie
inside the first screen with no console error; each first screen's screenshot is kept in the test's tmp_path."""

import json
import re

import pytest

from littlegrid import findings
from littlegrid.render import markdown, proof
from littlegrid.render.report import build_report
from littlegrid.summary import plain
from littlegrid.summary.model import Finding, Headline, Summary
from synthetic_summary import synthetic_summary

SCREENS = [(1366, 768), (1920, 1080)]
# Where the first screen's parts lie, as the browser laid them out (CSS pixels from the viewport's top left).
BOXES_JS = """(() => {
  const box = e => { const b = e.getBoundingClientRect();
                     return {top: b.top, left: b.left, bottom: b.bottom, right: b.right}; };
  const one = s => { const e = document.querySelector(s); return e ? box(e) : null; };
  return {headline: one('#headline'), verdict: one('#verdict'), scrolled: window.scrollY,
          plots: [...document.querySelectorAll('#glance [data-chart]')].map(h => ({
            chart: h.dataset.chart, over: h.querySelector('.u-over') ? box(h.querySelector('.u-over')) : null}))};
})()"""


def analysed(data: dict) -> Summary:
    """The summary with the findings and the headline the findings stage composes from it."""
    s = Summary.model_validate(data)
    found = findings.findings(s)
    s = s.model_copy(update={"findings": [Finding.model_validate(plain(f)) for f in findings.as_json(found)],
                             "headline": Headline.model_validate(findings.headline(s, found))})
    return Summary.model_validate(s.model_dump(by_alias=True))


@pytest.fixture(scope="module")
def answered(tmp_path_factory, golden_summary_dict):
    s = analysed(golden_summary_dict)
    out = tmp_path_factory.mktemp("first-screen")
    build_report(s, out, generated="2026-01-01 00:00:00 UTC")
    return s, out


def chart_data(out) -> dict:
    page = (out / "index.html").read_text(encoding="utf-8")
    data = re.search(r'<script type="application/json" id="chart-data">(.*?)</script>', page, re.S).group(1)
    return {c["id"]: c for c in json.loads(data)}


def test_the_headline_records_the_cells_its_findings_cite(answered):
    s, _ = answered
    # the golden grid's think_ms = 0 curve levels off at 348/s from N = 5 on: its saturation finding names N = 5
    # and 20, and the headline's first sentence is that finding's
    assert s.findings[s.headline.findings[0]].kind == "saturation"
    assert {"users=5,think_ms=0", "users=20,think_ms=0"} <= set(s.headline.cells)
    order = [c.id for c in s.cells]
    assert s.headline.cells == [c for c in order if any(c in s.findings[i].cells for i in s.headline.findings)]


def test_the_chart_rings_exactly_the_cited_cells_and_marks_each_curves_knee(answered):
    s, out = answered
    charts = chart_data(out)
    for chart_id, figure in (("glance-x", "throughput_per_s"), ("glance-r", "mean_ms")):
        c = charts[chart_id]
        for i, k in enumerate(s.curves):
            measured = next(x for x in c["series"] if x["group"] == i and x["style"] == "points")
            # a curve none of whose cells the headline cites has no ring series at all
            rings = next((x for x in c["series"] if x["group"] == i and x["style"] == "ring"), None)
            assert (rings is None) == (not set(k.cells) & set(s.headline.cells)), (chart_id, i)
            by_id = {cell.id: cell for cell in s.cells}
            for cell_id, load in zip(k.cells, k.x):
                at = c["x"].index(load)
                assert measured["values"][at] == pytest.approx(getattr(by_id[cell_id].overall, figure), rel=1e-3)
                ringed = rings is not None and rings["values"][at] is not None
                assert ringed == (cell_id in s.headline.cells), (chart_id, cell_id)
        assert [(m["at"], m["group"]) for m in c["marks"]] == [(k.models.knee.load, i) for i, k in enumerate(s.curves)]


def test_without_a_knee_a_closed_curve_marks_its_capacity_on_x_and_an_open_one_on_the_load():
    closed = Summary.model_validate(synthetic_summary(users=(1, 5, 20), think_ms=(0,), samples_total=2000))
    k = closed.curves[0]
    no_knee = closed.model_copy(update={"curves": [k.model_copy(update={"models": k.models.model_copy(
        update={"knee": None})})]})
    p = proof.proof(no_knee)
    capacity = k.models.bounds.capacity_per_s  # 1/Dmax = c/S = 4 / 10 ms = 400/s
    assert capacity == pytest.approx(400) and p.workload == "closed"
    assert p.curves[0].mark == proof.Mark("y", capacity, "capacity 1/Dmax = 400/s")
    x_chart, r_chart = proof.page_charts(p)
    assert x_chart["marks"] and not r_chart["marks"]  # a level of X has no place on the R chart
    opened = no_knee.model_copy(update={"curves": [no_knee.curves[0].model_copy(update={"workload": "open"})]})
    p = proof.proof(opened)
    assert p.load_name == "offered rate λ (req/s)" and p.curves[0].mark == proof.Mark("x", capacity,
                                                                                       "capacity λ = 400/s")
    assert all(c["marks"] for c in proof.page_charts(p))


def test_a_single_point_has_no_proof_chart_and_the_page_still_opens_with_headline_and_verdict(tmp_path):
    s = Summary.model_validate(synthetic_summary(users=(5,), think_ms=(0,), samples_total=2000))
    assert proof.proof(s) is None
    page = build_report(s, tmp_path).read_text(encoding="utf-8")
    assert 'id="glance"' in page and 'id="verdict"' in page and 'data-chart="glance-x"' not in page


def test_summary_md_carries_the_headline_the_image_the_marks_and_the_cited_cells_in_bold(answered):
    s, _ = answered
    md = markdown.summary_markdown(s, "index.html", image="summary.png")
    assert md.index("Verdict") < md.index("](summary.png)") < md.index("### Findings")
    assert "knee N = 4" in md and "In bold: the cells the headline cites." in md
    assert "| **N = 5** |" in md and "| **N = 20** |" in md


@pytest.mark.browser
@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_chromium_shows_headline_verdict_and_both_charts_in_the_first_screen(browser, answered, tmp_path, size):
    from browser import assert_clean, open_page
    _, out = answered
    shot = tmp_path / f"chromium-first-screen-{size[0]}x{size[1]}.png"
    visit, page = open_page(browser, out / "index.html", viewport=size, screenshot=shot, first_screen=True)
    assert_clean(visit, f"chromium {size}")
    in_first_screen(page.evaluate(BOXES_JS), size)
    print(f"first screen: {shot}")
    assert shot.stat().st_size > 10_000
    page.close()


@pytest.mark.browser
@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_firefox_shows_headline_verdict_and_both_charts_in_the_first_screen(firefox, answered, tmp_path, size):
    from browser import assert_clean
    from firefox import open_page
    _, out = answered
    shot = tmp_path / f"firefox-first-screen-{size[0]}x{size[1]}.png"
    visit = open_page(firefox, out / "index.html", viewport=size, screenshot=shot, probe=BOXES_JS, first_screen=True)
    assert_clean(visit, f"firefox {size}")
    in_first_screen(visit.probe, size)
    print(f"first screen: {shot}")
    assert shot.stat().st_size > 10_000


def in_first_screen(boxes: dict, size: tuple[int, int]) -> None:
    """The headline, the verdict and each chart's plot area inside the viewport, unscrolled."""
    width, height = size
    assert boxes["scrolled"] == 0, boxes
    assert [p["chart"] for p in boxes["plots"]] == ["glance-x", "glance-r"], boxes
    for name, box in [("headline", boxes["headline"]), ("verdict", boxes["verdict"])] + \
            [(p["chart"], p["over"]) for p in boxes["plots"]]:
        assert box is not None, (name, boxes)
        assert 0 <= box["top"] < box["bottom"] <= height and 0 <= box["left"] < box["right"] <= width, (name, box, size)
    assert boxes["plots"][0]["over"]["bottom"] - boxes["plots"][0]["over"]["top"] >= 150  # a plot, not a strip
