"""Golden pages: the report of the committed summary must not change unnoticed.

Update the gold after an intended change with
    LITTLEGRID_UPDATE_GOLDEN=1 pytest analysis/tests/render/test_report_golden.py
then review `git diff analysis/tests/render/golden/` before committing it.
"""

import os
import re
from pathlib import Path

import pytest

from littlegrid.render.report import build_report

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("LITTLEGRID_UPDATE_GOLDEN") == "1"


def scrub(html: str) -> str:
    """Remove what may change without the page changing: vendored asset bodies, their CSP hashes, version stamps."""
    html = re.sub(r"(<!-- asset:([\w.-]+) -->\n<(script|style)>).*?(</\3>)", r"\1[asset \2]\4", html, flags=re.S)
    html = re.sub(r"sha256-[A-Za-z0-9+/=]+(?=&#39;|')", "sha256-…", html)  # the CSP attribute escapes its quotes
    return re.sub(r"littlegrid \d+\.\d+\.\d+\S*", "littlegrid X.Y.Z", html)


def check_golden(actual_html: str, name: str) -> None:
    path = GOLDEN / name
    actual = scrub(actual_html)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"{path} missing: run LITTLEGRID_UPDATE_GOLDEN=1 pytest {Path(__file__).name}")
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        line = next(i for i, (a, b) in enumerate(zip(actual.splitlines() + [""], expected.splitlines() + [""])) if a != b)
        pytest.fail(f"{name} differs from the gold at line {line + 1}; if intended, update with "
                    f"LITTLEGRID_UPDATE_GOLDEN=1 (see this module's docstring)\n"
                    f"expected: {expected.splitlines()[line] if line < len(expected.splitlines()) else '<end>'}\n"
                    f"actual:   {actual.splitlines()[line] if line < len(actual.splitlines()) else '<end>'}")


@pytest.fixture(scope="module")
def golden_report(tmp_path_factory, golden_summary_dict):
    out = tmp_path_factory.mktemp("golden-report")
    build_report(golden_summary_dict, out, generated="2026-01-01 00:00:00 UTC")
    return out


@pytest.mark.parametrize("page", ["index.html", "distributions.html", "cells/users=5,think_ms=50.html"])
def test_report_pages_match_the_gold(golden_report, page):
    check_golden((golden_report / page).read_text(encoding="utf-8"), "report/" + page.replace("/", "__"))


def test_scrub_removes_asset_bodies_hashes_and_versions_only():
    page = ("<!-- asset:uPlot.min.css -->\n<style>.u{}</style>\n<p>littlegrid 0.1.0 on x</p>"
            "<meta content=\"script-src 'sha256-AbC+/=' &#39;sha256-x&#39;\">")
    assert scrub(page) == ("<!-- asset:uPlot.min.css -->\n<style>[asset uPlot.min.css]</style>\n<p>littlegrid X.Y.Z on x</p>"
                           "<meta content=\"script-src 'sha256-…' &#39;sha256-…&#39;\">")


def test_comparison_page_matches_the_gold(golden_summary_dict, tmp_path):
    import copy

    from littlegrid.commands.compare import build_comparison
    from littlegrid.summary.model import Summary

    slower = copy.deepcopy(golden_summary_dict)
    slower["run"]["id"] = "golden-2"
    for c in slower["cells"]:
        for key in ("mean_ms", "p50_ms", "p90_ms", "p99_ms"):
            c["overall"][key] *= 1.25
        c["overall"]["throughput_per_s"] *= 0.8
    index = build_comparison(Summary.model_validate(golden_summary_dict), Summary.model_validate(slower), tmp_path,
                             samples=False, generated="2026-01-01 00:00:00 UTC")
    check_golden(index.read_text(encoding="utf-8"), "compare/index.html")
