"""Shared by every test folder: the real JTL corpus, which lives beside the checkout (../shared/corpus/jtl), as in CI."""

from pathlib import Path

import pytest

from needs import missing

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "jtl"


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The corpus folder; a test that needs it skips (fails under CI), saying where it looked, when the checkout stands alone."""
    if not CORPUS.is_dir():
        missing("the real JTL corpus", f"not at {CORPUS} (checkout/../shared/corpus/jtl)")
    return CORPUS
