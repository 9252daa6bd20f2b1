"""When a running cell is answered, and how JMeter is told to stop: the watcher that reads the cell's JTL as it
grows and asks its stopping conditions every CHECK_S, JMeter's own shutdown port, and the record of why the cell
stopped (the cell manifest's "stop", docs/contracts.md).

JMeter in non-GUI mode listens on a UDP port (`jmeterengine.nongui.port` up to `jmeterengine.nongui.maxport`,
4445..4455 unless told) for commands from the loopback address (JMeter.java, waitForSignals): "Shutdown" stops every
engine gracefully (StandardJMeterEngine.stopTest(false): each thread ends after the sample it is in, the listeners
then close the JTL) and "StopTestNow" interrupts the samples in flight. The listener holds the controller's engines,
remote ones included (ClientJMeterEngine.stopTest reaches each engine over RMI). Each cell is given a port of its
own, free when it starts, as both ends of the range, so two JMeters on one host never take each other's commands.
The listener opens only once the test has started, and UDP drops what nobody receives, so Shutdown is sent again
every second until JMeter exits; StopTestNow follows after SHUTDOWN_GRACE_S, and the process group's stop
(processes.stop_group, the hang path) only after STOP_NOW_GRACE_S more.
"""

from __future__ import annotations

import math
import shutil
import socket
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Callable

from littlegrid.analysis.queueing import laws
from littlegrid.analysis.steady.steady_state import Rule, Verdict, judge
from littlegrid.run.answered import RunningSeconds, Seconds
from littlegrid.run.live.status import CellRows
from littlegrid.summary.model import Stop  # the manifest's "stop" record: the runner writes the summary's own

CHECK_S = 1.0            # how often the conditions are asked (a judgement reads every second of the cell so far)
SHUTDOWN_GRACE_S = 30.0  # after Shutdown, for the samples in flight to end (a slow answer, a response timeout)
STOP_NOW_GRACE_S = 10.0  # after StopTestNow, for the interrupted samples to be written and the JTL closed
RESEND_S = 1.0           # Shutdown again this often while JMeter runs: a datagram sent before it listens is lost
SHUTDOWN, STOP_NOW = "Shutdown", "StopTestNow"

# A stopping condition reads the complete seconds so far (answered requests and their elapsed sums per second, the
# failures, the answers above the cuts it names in an `above_ms` attribute) and says whether the cell is answered;
# steady_state.judge under the grid's rule is one, a search's SLO verdict another (search/early_stop.py).
Condition = Callable[[Seconds], Verdict]


def free_udp_port() -> int:
    """A UDP port nothing holds now, from the kernel's ephemeral range (always above JMeter's floor of 1000)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("", 0))  # JMeter binds the wildcard address (new DatagramSocket(port)), so this checks the same
        return s.getsockname()[1]


def port_properties(port: int) -> dict:
    """JMeter's properties that pin its command port to `port` (both ends of the range it would scan)."""
    return {"jmeterengine.nongui.port": port, "jmeterengine.nongui.maxport": port}


def send(port: int, command: str) -> None:
    """One command datagram to JMeter's port on the loopback address (it accepts commands from nowhere else)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(command.encode("ascii"), ("127.0.0.1", port))


def fixed_stop(duration_s: float) -> Stop:
    """The record of a fixed-duration cell: it ran for its duration_s, nothing judged."""
    return Stop(rule="duration", reason="duration", why=f"ran duration_s ({duration_s:g} s)")


def cell_rule(rule: Rule, manifest: dict, tolerances: dict) -> Rule:
    """The grid's rule for one cell: with a closed workload's N and the grid's closed-law tolerance, so the cell
    also runs until that law's window error is within its tolerance (steady_state.closed_law_edge) and X's interval
    holds its window's edges (steady_state.precision). N is the cell manifest's `users`, the one the analysis
    reads: the suite's plans' users property, or the threads of a user's own plan's load groups (own_plan); an
    open or spike workload, or N not a number (an expression the plan evaluates), gives none."""
    users = manifest.get("users")
    closed = manifest.get("workload", "closed") == "closed"
    n = float(users) if closed and isinstance(users, (int, float)) and not isinstance(users, bool) else None
    return replace(rule, users=n if n and n > 0 else None, law_tolerance=laws.tolerances(tolerances)["closed_law"])


def precise_conditions(rule: Rule) -> list[tuple[str, Condition]]:
    """The conditions of `[cell] until = "precise"`: steady_state.judge under the grid's rule, alone."""
    return [("precise", lambda seconds: judge(seconds.counts, seconds.sums_ms, rule, running=not seconds.final))]


class Watcher:
    """Reads a running cell's JTL through the live view's incremental reader (CellRows, the rows counted per
    second by RunningSeconds) and asks each condition, in order, every CHECK_S; the first to answer stops the
    cell, and its name is the stop's reason. `rule`: the precision asked and its bound, for the record."""

    def __init__(self, jtl: Path, rule: Rule, conditions: list[tuple[str, Condition]], check_s: float | None = None):
        self.rule, self.conditions = rule, list(conditions)
        self.check_s = CHECK_S if check_s is None else check_s
        self._scratch = Path(tempfile.mkdtemp(prefix="littlegrid-watch-"))  # never inside the run folder
        cuts = tuple(sorted({c for _, condition in self.conditions for c in getattr(condition, "above_ms", ())}))
        self.rows = CellRows(Path(jtl), self._scratch / "batch.jtl",
                             counter=lambda first_start_ms: RunningSeconds(first_start_ms, above_ms=cuts))
        self._next = 0.0
        self.verdict: Verdict | None = None  # the last judgement
        self.reason: str | None = None       # set when a condition answered
        self.at_s: float | None = None

    def check(self, now: float) -> bool:
        """Whether the cell is answered; reads and asks at most every check_s (`now`: a monotonic clock)."""
        if self.reason is not None:
            return True
        if now < self._next:
            return False
        self._next = now + self.check_s
        self.rows.update()
        seconds = self.rows.counts.seconds()
        if len(seconds.counts) == 0:
            return False
        for name, condition in self.conditions:
            verdict = condition(seconds)
            if name == self.conditions[0][0] or verdict.answered:
                self.verdict = verdict  # the first condition's figures stand until another answers
            if verdict.answered:
                self.reason, self.at_s = name, float(len(seconds.counts))
                return True
        return False

    def stop(self, outcome: str) -> Stop:
        """The record once JMeter has exited. `outcome`: "complete", "failed" or "interrupted". A cell no condition
        answered ran to max_s (its plan's end): its precision is judged once more over every whole second."""
        if self.reason is None and outcome == "complete":
            self.rows.update()
            seconds = self.rows.counts.seconds(final=True)
            self.at_s = float(len(seconds.counts))
            if len(seconds.counts):
                self.verdict = self.conditions[0][1](seconds)
        reason = self.reason or ("max_s" if outcome == "complete" else outcome)
        v = self.verdict
        p = v.precision if v is not None else None
        warmup = v.warmup.seconds if v is not None and v.warmup.settled else None
        return Stop(rule="precise", reason=reason, at_s=self.at_s, precision_asked=self.rule.precision,
                    x_rel=_finite(p.throughput_rel) if p else None, r_rel=_finite(p.mean_rel) if p else None,
                    warmup_s=warmup, why=v.why if v is not None else "no answered request to judge",
                    slo=v.decision if v is not None and reason == "slo" else None)

    @property
    def load_s(self) -> float | None:
        """Seconds from the first sample's start to the last end read: how long the cell loaded the target."""
        c = self.rows.counts
        return None if c.last_end_ms is None else (c.last_end_ms - c.first_start_ms) / 1000

    def close(self) -> None:
        shutil.rmtree(self._scratch, ignore_errors=True)


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


class Stopper:
    """Tells JMeter to stop through its port, escalating with time: Shutdown (again every RESEND_S), StopTestNow
    after SHUTDOWN_GRACE_S, and then `overdue` says the process group must be stopped."""

    def __init__(self, port: int, send_command: Callable[[int, str], None] = send):
        self.port, self._send = port, send_command
        self.asked_at: float | None = None
        self.sent: list[str] = []
        self._last = 0.0

    def tick(self, now: float) -> None:
        if self.asked_at is None:
            self.asked_at = now
        waited = now - self.asked_at
        command = SHUTDOWN if waited < SHUTDOWN_GRACE_S else STOP_NOW
        if command == STOP_NOW and STOP_NOW in self.sent:
            return  # once: StopTestNow interrupts; what it cannot stop, the group stop will
        if command != (self.sent[-1] if self.sent else None) or now - self._last >= RESEND_S:
            self._send(self.port, command)
            self.sent.append(command)
            self._last = now

    def overdue(self, now: float) -> bool:
        return self.asked_at is not None and now - self.asked_at > SHUTDOWN_GRACE_S + STOP_NOW_GRACE_S
