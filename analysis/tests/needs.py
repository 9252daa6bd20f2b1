"""What a test needs from outside the package (a browser, the shared corpus, JMeter, the server jar): when it is
missing, skip on a developer's machine, saying why, but fail under CI=true, where it is meant to be there and a
skip would hide a test that never ran."""

import os
from typing import NoReturn

import pytest

CI_VALUES = ("true", "1", "yes")  # GitHub, GitLab and most CI services export CI=true; some CI=1


def on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in CI_VALUES


def missing(what: str, reason: str) -> NoReturn:
    """Call where a test finds `what` absent: skips (also at module level), or fails under CI, naming it."""
    __tracebackhide__ = True  # the skip summary then points at the caller's line, not at this one
    if on_ci():
        pytest.fail(f"CI=true but {what} is missing: {reason}", pytrace=False)
    pytest.skip(f"{what} is missing: {reason}", allow_module_level=True)
