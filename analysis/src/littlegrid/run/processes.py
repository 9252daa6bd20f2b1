"""Child processes that never outlive the runner: own process group, parent-death signal, group stop."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """preexec_fn: the kernel sends SIGTERM to the child when the runner dies, even by SIGKILL (Linux only).

    Without it a killed runner would leave JMeter loading the server and the server holding its port.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the runner's own signal handlers still stop its children
        pass


def spawn(cmd: list[str], cpus: tuple[int, ...] | None = None, user: tuple[int, int] | None = None,
          **kwargs) -> subprocess.Popen:
    """Start `cmd` in its own process group (a Ctrl-C at the terminal reaches only the runner, which stops it).
    cpus: the CPUs it may run on (set before exec, so every thread it starts inherits them); None: the runner's.
    user: (uid, gid) to run as (a root runner starting a program that refuses root, such as PostgreSQL)."""
    def prepare() -> None:
        die_with_parent()
        if cpus:
            os.sched_setaffinity(0, cpus)
        if user is not None:
            os.setgroups([])
            os.setgid(user[1])
            os.setuid(user[0])
            die_with_parent()  # a changed uid clears the parent-death signal: set it again
    return subprocess.Popen(cmd, start_new_session=True, preexec_fn=prepare, **kwargs)


def stop_group(process: subprocess.Popen, grace_s: float = 10.0) -> int | None:
    """SIGTERM to the process's whole group, SIGKILL after `grace_s`; returns the exit code."""
    if process.poll() is not None:
        return process.returncode
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        return process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return process.wait(timeout=grace_s)
