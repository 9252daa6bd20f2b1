"""The label table in headless Chromium: paged, sorted by p90, filtered by text and errors, sticky header, a label's
own section, and the ticked labels drawn over time."""

import json
import time

import pytest

from browser import assert_clean, open_page
from littlegrid import cli

pytestmark = pytest.mark.browser
ROWS = "Array.from(document.querySelectorAll('#lt-rows tr')).map(tr => Array.from(tr.cells).map(td => td.textContent))"


@pytest.fixture(scope="module")
def insta(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("insta")
    assert cli.main(["report", str(corpus / "insta-rzd-errors-large.jtl"), "-o", str(out)]) == 0
    return out, json.loads((out / "summary.json").read_text(encoding="utf-8"))["cells"][0]["labels"]


def _until(page, expression, timeout_s=10.0):
    """Poll an expression with evaluate (the page's CSP forbids the eval that wait_for_function uses)."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"not true after {timeout_s} s: {expression}"
        page.wait_for_timeout(50)


def _header(page, key):
    return page.query_selector(f"#label-table thead th[data-key='{key}'] button")


def test_the_table_pages_fifty_rows_and_sorting_by_p90_shows_the_slowest_labels_first(browser, insta, tmp_path):
    out, labels = insta
    visit, page = open_page(browser, out / "index.html", screenshot=tmp_path / "labels.png")
    assert_clean(visit, "labels overview")
    rows = page.evaluate(ROWS)
    assert len(rows) == 50 and [r[1] for r in rows] == sorted(labels)[:50]  # label order until sorted
    assert page.text_content("#lt-status") == f"rows 1–50 of {len(labels)} · page 1 of 3"
    _header(page, "p90_ms").click()
    rows = page.evaluate(ROWS)
    # largest first; ties keep label order (a stable sort of the label-ordered rows)
    expected = sorted(sorted(labels), key=lambda k: -labels[k]["p90_ms"])[:50]
    assert [r[1] for r in rows] == expected
    p90 = [float(r[9].replace(",", "")) for r in rows]  # plot, label, samples, errors, error %, X, mean, min, p50, p90
    assert p90 == sorted(p90, reverse=True) and p90[0] == max(st["p90_ms"] for st in labels.values())
    assert page.get_attribute("#label-table thead th[data-key='p90_ms']", "aria-sort") == "descending"
    _header(page, "p90_ms").click()
    rows = page.evaluate(ROWS)
    assert [r[1] for r in rows] == sorted(sorted(labels), key=lambda k: labels[k]["p90_ms"])[:50]
    page.click("#lt-next")
    assert page.text_content("#lt-status").startswith(f"rows 51–100 of {len(labels)}")
    page.close()


def test_filtering_by_text_and_errors_shows_exactly_the_matching_labels(browser, insta):
    out, labels = insta
    visit, page = open_page(browser, out / "index.html")
    page.fill("#lt-filter", "YANDEX.RU [")  # case does not matter; "[" is text, not a pattern
    _until(page, "document.getElementById('lt-status').textContent.includes('(of')")
    matching = sorted(k for k in labels if "yandex.ru [" in k.lower())
    assert 50 < len(matching) < len(labels)
    rows = page.evaluate(ROWS)
    assert [r[1] for r in rows] == matching[:50]
    assert page.text_content("#lt-status").startswith(f"rows 1–50 of {len(matching)} (of {len(labels)} labels)")
    page.check("#lt-errors")
    failing = [k for k in matching if labels[k]["errors"]]
    rows = page.evaluate(ROWS)
    assert [r[1] for r in rows] == failing[:50]
    page.fill("#lt-filter", "")
    _until(page, f"document.querySelectorAll('#lt-rows tr').length === "
                           f"{min(50, sum(1 for st in labels.values() if st['errors']))}")
    assert {r[1] for r in page.evaluate(ROWS)} == {k for k, st in labels.items() if st["errors"]}
    page.fill("#lt-filter", "no such label anywhere")
    _until(page, "document.getElementById('lt-status').textContent === 'no label matches'")
    assert page.evaluate(ROWS) == []
    assert_clean(visit, "filtered")
    page.close()


def test_the_header_stays_in_view_long_labels_are_cut_and_a_label_opens_its_own_section(browser, insta):
    out, labels = insta
    visit, page = open_page(browser, out / "index.html")
    page.evaluate("document.querySelector('.lt-scroll').scrollTop = 900")
    box = page.evaluate("document.querySelector('.lt-scroll').getBoundingClientRect().top")
    head = page.evaluate("document.querySelector('#label-table thead').getBoundingClientRect().top")
    assert abs(head - box) <= 2  # sticky: the header sits at the top of the scrolled box
    longest = max(labels, key=len)
    page.fill("#lt-filter", longest)
    _until(page, "document.querySelectorAll('#lt-rows tr').length === 1")
    link = page.query_selector("#lt-rows td.lt-label a")
    assert link.get_attribute("title") == longest and link.text_content() == longest
    cut = page.evaluate("(a => a.parentElement.scrollWidth > a.parentElement.clientWidth)", link)
    height = page.evaluate("document.querySelector('#lt-rows tr').getBoundingClientRect().height")
    assert cut and height < 40  # one line, cut with an ellipsis, not one word per line
    link.click()
    _until(page, "!document.getElementById('label-detail').hidden")
    assert page.text_content("#ld-name") == longest
    figures = dict(page.evaluate("Array.from(document.querySelectorAll('#ld-figures tr'))"
                                 ".map(tr => [tr.cells[0].textContent, tr.cells[1].textContent])"))
    assert figures["samples"] == f"{labels[longest]['count']:,}"
    page.close()


def test_a_top_error_links_to_its_label_and_ticked_labels_are_drawn_over_time(browser, insta):
    out, labels = insta
    visit, page = open_page(browser, out / "index.html")
    page.click("#errors .top-errors a[href='#label=HTTP%20Request%206']")
    _until(page, "!document.getElementById('label-detail').hidden")
    assert page.text_content("#ld-name") == "HTTP Request 6"
    assert page.query_selector("#lt-rows tr.lt-current").get_attribute("data-label") == "HTTP Request 6"
    assert "Read timed out" in page.text_content("#ld-errors")
    series = "+document.querySelector(\"[data-label-chart='latency']\").getAttribute('data-series')"
    before = page.evaluate(series)
    assert before == 5  # the five busiest labels with series are ticked at first
    box = page.query_selector("#lt-rows input[type=checkbox]:not(:checked):not(:disabled)")
    box.check()
    assert page.evaluate(series) == before + 1
    assert page.evaluate("document.querySelectorAll(\"[data-label-chart='latency'] .u-legend .u-series\").length") \
        == before + 2  # x and each label
    assert_clean(visit, "ticked")
    page.close()
