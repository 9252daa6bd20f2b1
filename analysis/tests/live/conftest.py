"""Fixtures for the live view's tests: the report tests' run-folder writer and Chromium, the runner's JMeter."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "render"))  # runs.py (tiny run folders), browser.py


@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium (skips, saying why, when it is not installed; fails under CI)."""
    from browser import ARGS, CHROMIUM, require_chromium

    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()
