"""Shared paths for the JTL reader tests: tiny fixtures here, the real corpus beside the repository."""

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
REPO_ROOT = Path(__file__).resolve().parents[3]
CORPUS = REPO_ROOT.parent / "shared" / "corpus" / "jtl"


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"the real JTL corpus is not at {CORPUS} (repo_root/../shared/corpus/jtl)")
    return CORPUS


@pytest.fixture
def fixture():
    return lambda name: FIXTURES / name
