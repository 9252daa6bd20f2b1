"""Shared paths for the JTL reader tests: tiny fixtures here (the real corpus: tests/conftest.py)."""

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixture():
    return lambda name: FIXTURES / name
