"""The report and the comparison in headless Firefox ESR, opened from disk: the same checks as in Chromium
(every chart draws its data, no console errors, no network, no dialog, hostile text stays text)."""

import json

import pytest

from browser import assert_clean
from firefox import open_page
from littlegrid.commands.compare import build_comparison
from littlegrid.summary import plain
from littlegrid.summary.model import Summary
from synthetic_summary import HOSTILE, synthetic_summary

pytestmark = pytest.mark.browser


def test_every_report_page_draws_all_its_charts_in_firefox_without_errors_network_or_dialogs(firefox, hostile_report,
                                                                                                tmp_path):
    cells = sorted((hostile_report / "cells").glob("*.html"))
    pages = [hostile_report / "index.html", hostile_report / "distributions.html", cells[0], cells[-1]]
    charts = 0
    for i, path in enumerate(pages):
        visit = open_page(firefox, path, screenshot=tmp_path / f"firefox-report-{i:02d}.png")
        assert_clean(visit, f"firefox {path.name}")
        charts += len(visit.charts)
    assert charts >= 5 + 4 * (len(pages) - 2)  # overview curves, and four time-series charts per cell
    assert (tmp_path / "firefox-report-00.png").stat().st_size > 10_000


def test_the_comparison_draws_in_firefox_with_hostile_ids_as_text(firefox, hostile_summary, tmp_path):
    other = synthetic_summary(users=(1, 4, 16), think_ms=(0, 20), samples_total=3000, seed=4, service_ms=12, hostile=True,
                              extra_axes={"variant": HOSTILE[1]})
    index = build_comparison(*(Summary.model_validate(plain(s)) for s in (hostile_summary, other)), tmp_path / "cmp",
                             samples=False)
    visit = open_page(firefox, index, screenshot=tmp_path / "firefox-compare.png")
    assert_clean(visit, "firefox compare")
    assert len(visit.charts) == 3 + len(hostile_summary["cells"])


def test_hostile_text_injects_nothing_in_firefox(firefox, hostile_report):
    probe = ("[document.querySelectorAll('img, iframe, object, embed, [onerror], [onload]').length, "
             "document.querySelectorAll('script:not([type=\"application/json\"])').length, "
             f"document.body.innerText.includes({json.dumps(HOSTILE[1])})]")
    for path in [hostile_report / "index.html", next((hostile_report / "cells").glob("*.html"))]:
        visit = open_page(firefox, path, probe=probe)
        assert not visit.dialogs and visit.probe == [0, 2, True], (path.name, visit.probe)


def test_a_request_injected_into_a_report_is_refused_by_its_csp_and_said_in_firefoxs_console(firefox, hostile_report,
                                                                                              tmp_path):
    page = (hostile_report / "index.html").read_text()
    path = tmp_path / "injected.html"
    path.write_text(page.replace("<main>", '<main><img src="http://127.0.0.1:9/beacon.png">', 1))
    visit = open_page(firefox, path, probe="window.littlegrid.charts.length")
    blocked = [m for m in visit.console_errors if "Content-Security-Policy" in m and "127.0.0.1:9" in m]
    assert blocked, visit.console_errors
    with pytest.raises(AssertionError, match="console errors"):
        assert_clean(visit, "injected")
    # our own scripts still drew every chart: the first screen's two, the overview's five
    assert visit.probe == 7 == page.count('class="plot" data-chart=')
