"""Fixtures for the report tests: a committed summary (golden input), synthetic grids, a rendered report."""

import copy
import json
from pathlib import Path

import pytest

from littlegrid.render.report import build_report
from synthetic_summary import HOSTILE, synthetic_summary

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
FIXED_CLOCK = "2026-01-01 00:00:00 UTC"


@pytest.fixture(scope="session")
def firefox():
    """One headless Debian Firefox ESR, driven over WebDriver BiDi (skips, saying why, when it is not installed)."""
    from firefox import Firefox, require_firefox

    require_firefox()
    browser = Firefox()
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def golden_summary_dict() -> dict:
    """A 3 × 2 grid with hostile labels and messages, committed so the golden pages never drift with numpy."""
    return json.loads((GOLDEN / "summary.json").read_text(encoding="utf-8"))


@pytest.fixture
def golden_summary(golden_summary_dict) -> dict:
    return copy.deepcopy(golden_summary_dict)


@pytest.fixture(scope="session")
def hostile_summary() -> dict:
    """Hostile labels, messages, knobs and an axis value, so hostile text also reaches chart legends and cell ids."""
    return synthetic_summary(users=(1, 4, 16), think_ms=(0, 20), samples_total=3000, seed=3, hostile=True,
                             extra_axes={"variant": HOSTILE[1]})


@pytest.fixture(scope="session")
def hostile_report(tmp_path_factory, hostile_summary) -> Path:
    out = tmp_path_factory.mktemp("hostile-report")
    build_report(hostile_summary, out, generated=FIXED_CLOCK)
    return out
