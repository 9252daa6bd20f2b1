"""Waiting for something a real run does (a file to fill, a process to start), with a deadline that names it."""

import time


def wait_for(condition, timeout_s: float, what: str, every_s: float = 0.2):
    """condition()'s first truthy value, polled every `every_s`; an AssertionError naming `what` after timeout_s."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every_s)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")
