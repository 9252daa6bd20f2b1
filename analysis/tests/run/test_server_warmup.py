"""The sample server's warm-up: requests to the target for the seconds asked, counted, never recorded."""

import time

import pytest

from http_stub import serving
from littlegrid.run.ports import free_port
from littlegrid.run.server_warmup import warm


def test_a_server_is_asked_for_the_seconds_given_from_keep_alive_connections():
    paths = []
    with serving(lambda path: paths.append(path) or b"ok") as port:
        started = time.monotonic()
        done = warm("127.0.0.1", port, "/cpu?us=10", 0.5)
        took = time.monotonic() - started
    assert 0.5 <= took < 2.5 and done.seconds == pytest.approx(took, abs=0.1)
    assert done.failures == 0 and done.requests == len(paths) > 10
    assert set(paths) == {"/cpu?us=10"}


def test_a_server_that_refuses_is_counted_as_failures_and_the_warm_up_still_ends():
    done = warm("127.0.0.1", free_port(), "/", 0.3)
    assert done.requests == 0 and done.failures > 0 and done.seconds < 2.0
