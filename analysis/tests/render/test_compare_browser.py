"""The comparison in headless Chromium, opened from disk: every chart draws, nothing is fetched, hostile ids stay text."""

import pytest

from browser import assert_clean, open_page
from littlegrid.commands.compare import build_comparison
from littlegrid.summary import plain
from littlegrid.summary.model import Summary
from synthetic_summary import HOSTILE, synthetic_summary

pytestmark = pytest.mark.browser


def test_comparison_draws_curves_and_one_pdf_per_pair_with_hostile_ids_as_text(browser, hostile_summary, tmp_path):
    other = synthetic_summary(users=(1, 4, 16), think_ms=(0, 20), samples_total=3000, seed=4, service_ms=12, hostile=True,
                              extra_axes={"variant": HOSTILE[1]})  # the same grid, hostile axis value included
    index = build_comparison(*(Summary.model_validate(plain(s)) for s in (hostile_summary, other)), tmp_path / "cmp",
                             samples=False)
    visit, page = open_page(browser, index, screenshot=tmp_path / "compare.png")
    assert_clean(visit, "compare")
    assert len(visit.charts) == 3 + len(hostile_summary["cells"])
    assert page.evaluate("document.querySelectorAll('img, [onerror]').length") == 0
    assert HOSTILE[1] in page.evaluate("document.body.innerText")
    page.close()
