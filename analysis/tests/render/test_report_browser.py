"""The report in headless Chromium, opened from disk: charts draw, nothing is fetched, hostile text stays text."""

import pytest

from browser import assert_clean, open_page
from synthetic_summary import HOSTILE

pytestmark = pytest.mark.browser
RUNNING_SCRIPTS = "document.querySelectorAll('script:not([type=\"application/json\"])').length"


def test_every_report_page_draws_all_its_charts_without_errors_or_network(browser, hostile_report, tmp_path):
    cells = sorted((hostile_report / "cells").glob("*.html"))
    pages = [hostile_report / "index.html", hostile_report / "distributions.html", cells[0], cells[-1]]
    charts = 0
    for i, path in enumerate(pages):
        visit, page = open_page(browser, path, screenshot=tmp_path / f"report-{i:02d}.png")
        assert_clean(visit, path.name)
        charts += len(visit.charts)
        page.close()
    assert charts >= 5 + 4 * (len(pages) - 2)  # overview curves, and four time-series charts per cell
    assert (tmp_path / "report-00.png").stat().st_size > 10_000


def test_hostile_text_in_legends_tables_and_titles_runs_nothing_and_injects_nothing(browser, hostile_report, tmp_path):
    for path in [hostile_report / "index.html", hostile_report / "distributions.html",
                 next((hostile_report / "cells").glob("*.html"))]:
        visit, page = open_page(browser, path, screenshot=tmp_path / f"xss-{path.stem[:20]}.png")
        assert not visit.dialogs
        assert page.evaluate("document.querySelectorAll('img, iframe, object, embed, [onerror], [onload]').length") == 0
        assert page.evaluate(RUNNING_SCRIPTS) == 2  # uPlot and littlegrid.js; the rest is JSON data
        body = page.evaluate("document.body.innerText")
        assert HOSTILE[1] in body  # shown, as text
        page.close()
    visit, page = open_page(browser, hostile_report / "index.html")
    legends = page.evaluate("Array.from(document.querySelectorAll('.u-legend .u-label')).map(e => e.textContent)")
    assert any(HOSTILE[1] in t for t in legends), legends  # uPlot set the hostile label as text
    page.close()


def test_legend_click_hides_a_series_and_hovering_shows_values(browser, hostile_report):
    visit, page = open_page(browser, hostile_report / "index.html")
    first = page.query_selector("[data-chart='throughput-vs-users'] .u-legend .u-series:nth-child(2)")
    first.click()
    assert "u-off" in first.get_attribute("class")
    over = page.query_selector("[data-chart='throughput-vs-users'] .u-over")
    box = over.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5)
    values = page.evaluate("Array.from(document.querySelectorAll(\"[data-chart='throughput-vs-users'] .u-legend .u-value\")).map(e => e.textContent)")
    assert any(v not in ("—", "--", "") for v in values), values
    page.close()


def test_a_report_of_a_real_jtl_with_hostile_labels_and_messages_runs_nothing(browser, tmp_path):
    from littlegrid import cli
    from runs import write_jtl

    jtl = tmp_path / "hostile.jtl"
    write_jtl(jtl, users=4, think_ms=5, service_ms=5, seconds=6, seed=2, labels=HOSTILE, error_message=HOSTILE[1])
    assert cli.main(["report", str(jtl), "--by-label", "-o", str(tmp_path / "out")]) == 0
    for path in [tmp_path / "out" / "index.html", next((tmp_path / "out" / "cells").glob("*.html"))]:
        visit, page = open_page(browser, path, screenshot=tmp_path / f"jtl-{path.stem}.png")
        assert_clean(visit, path.name)
        assert page.evaluate("document.querySelectorAll('img, iframe, [onerror], [onload]').length") == 0
        assert page.evaluate(RUNNING_SCRIPTS) == 2  # uPlot and littlegrid.js; the rest is JSON data
        if "cells" in path.parts:
            body = page.evaluate("document.body.innerText")
            assert HOSTILE[0] in body and HOSTILE[1] in body and HOSTILE[2] in body  # shown as text
        page.close()


def test_the_csp_would_stop_injected_markup_even_if_escaping_failed(browser, hostile_report, tmp_path):
    page_text = (hostile_report / "index.html").read_text()
    injected = page_text.replace("<main>", '<main><script>window.pwned = 1</script>'
                                 '<img src="http://127.0.0.1:9/beacon.png" onerror="window.pwned = 2">'
                                 '<div style="background:url(http://127.0.0.1:9/bg.png)">x</div>', 1)
    path = tmp_path / "injected.html"
    path.write_text(injected)
    failed = []
    visit, page = open_page(browser, path, on_request_failed=lambda r: failed.append((r.url, r.failure)))
    assert page.evaluate("window.pwned === undefined")
    remote = [u for u in visit.requests if not u.startswith("file:")]
    assert remote and sorted(remote) == sorted(u for u, why in failed if "csp" in (why or "").lower()), failed  # Chromium: failure "csp"
    assert any("Content Security Policy" in m for m in visit.console_errors)  # and the browser says why
    # our own scripts still drew every chart: the first screen's two, the overview's five
    assert page.evaluate("window.littlegrid.charts.length") == 7 == page_text.count('class="plot" data-chart=')
    page.close()
