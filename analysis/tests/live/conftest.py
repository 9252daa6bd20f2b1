"""Fixtures for the live view's tests: the report tests' run-folder writer (Chromium is tests/conftest.py's)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "render"))  # runs.py (tiny run folders), browser.py
