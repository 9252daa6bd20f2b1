"""The fuzz tests' budget and their one assertion about a refusal (docs/reliability.md, "Bad inputs").

A fast profile runs in the normal suite; LITTLEGRID_EXAMPLES=N gives every fuzz test N inputs instead, e.g.
`LITTLEGRID_EXAMPLES=5000 target/venv/bin/python -m pytest -q -m fuzz --hypothesis-show-statistics tests/`.
"""

import os
import re

import pytest
from hypothesis import HealthCheck, event, settings


def accepted() -> None:
    """An input the reader took: counted in --hypothesis-show-statistics beside the refusals."""
    event("accepted")


def budget(fast: int):
    """Hypothesis settings: `fast` inputs in the normal suite, LITTLEGRID_EXAMPLES when set; no deadline (a
    busy host must not fail a test by its speed)."""
    n = int(os.environ.get("LITTLEGRID_EXAMPLES") or 0)
    return settings(max_examples=n or fast, deadline=None, derandomize=not n,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                           HealthCheck.filter_too_much, HealthCheck.data_too_large])


fuzz = pytest.mark.fuzz


def assert_one_line_refusal(error: Exception, path, line: int | None = None) -> None:
    """A refusal: one line, beginning with the file (and `:line:` when the problem sits on one line). Counted by
    kind in --hypothesis-show-statistics."""
    message = str(error)
    event("refused" + (" at a line" if re.match(r"^:\d+:", message[len(str(path)):]) else ""))
    assert "\n" not in message and "\r" not in message, message
    assert message.startswith(str(path)), message
    rest = message[len(str(path)):]
    assert re.match(r"^(:\d+)?: \S", rest), message
    if line is not None:
        assert rest.startswith(f":{line}:"), message
