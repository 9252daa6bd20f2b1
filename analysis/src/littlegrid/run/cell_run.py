"""One cell: JMeter non-GUI once, in its own process group, with the generator's host sampled and the [observe]
sources scraped beside it; the outcome as data."""

from __future__ import annotations

import queue
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from littlegrid.run import run_folder as rf
from littlegrid.run.jmeter import JMeter
from littlegrid.run.metrics_sampler import MetricsSampler
from littlegrid.run.observe import Observer
from littlegrid.run.processes import spawn, stop_group
from littlegrid.run.progress import Live
from littlegrid.run.stopping import Stop, Stopper, Watcher, fixed_stop

# Beyond its duration a cell gets this long (JVM start, ramp-down, remote engines) before it is declared hung.
HANG_GRACE_S = 120.0
# The longest the cell's loop waits for a console line before it looks at the clock, the server and the watcher
# again; a watcher asked more often (Watcher.check_s) shortens it, never below POLL_FLOOR_S (no busy loop).
POLL_S = 0.5
POLL_FLOOR_S = 0.02


@dataclass(frozen=True)
class CellOutcome:
    status: str            # complete | failed | incomplete
    reason: str | None
    exit_code: int | None
    samples: int
    started: str
    ended: str
    took_s: float
    errors: int | None = None  # failed samples by JMeter's summariser (None: it printed no summary)
    observed: dict | None = None  # [observe]: per source, scrapes, failed, slow, problems (None: nothing observed)
    stop: Stop | None = None   # why the cell stopped (the manifest's "stop")
    load_s: float | None = None  # seconds of load: the JTL's first start to its last end (a fixed cell: duration_s)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM reached the runner: stop everything, keep what is finished."""

    def __init__(self, signal_name: str = "SIGINT"):
        super().__init__(signal_name)
        self.signal_name = signal_name


def run_cell(
    jmeter: JMeter,
    plan: Path,
    folder: Path,
    properties: dict,
    *,
    duration_s: float,
    remote_hosts: list[str] | None = None,
    heap: str = "1g",
    controller_options: list[str] | None = None,
    on_progress: Callable[[Live, float], None] | None = None,
    server: subprocess.Popen | None = None,
    server_name: str = "sample server",
    cpus: tuple[int, ...] | None = None,
    server_cpus: tuple[int, ...] | None = None,
    observe_sources: list[str] | None = None,
    observe_keep: frozenset[str] = frozenset(),
    command_port: int | None = None,
    watcher: Watcher | None = None,
) -> CellOutcome:
    """Run JMeter for one cell into `folder` (results.jtl, jmeter.log, jmeter.out, host-metrics.csv, observed.csv).

    On Ctrl-C/SIGTERM JMeter's process group is stopped and `Interrupted` propagates after the metrics files
    are closed; the caller records the cell as incomplete. `server`: the sample server's process, watched through
    the cell: when it exits, JMeter is stopped (every request from then on would fail at once and read as
    throughput) and the cell fails, saying when the server died and how, by `server_name` (the sample server, or the
    grid's part that is the system under test: "[processes.db]"). `cpus`: the CPUs JMeter runs on, and
    `server_cpus` those the sample server was pinned to (grid `[server] cpus`), whose busy share the host metrics
    add (None: both run anywhere). `observe_sources`: the Prometheus endpoints scraped once a second into
    observed.csv, each on its own thread (run/observe.py), keeping the known families and `observe_keep`: the
    sample server's actuator is one of them when the runner started it. `command_port`: JMeter's UDP command port
    (its -J properties pin it there; run/stopping.py). `watcher`: a precise cell's stopping conditions, asked as
    the JTL grows; when one answers, JMeter is told to stop through `command_port`, and the outcome's `stop` says
    why the cell ended (a fixed cell's: it ran its duration).
    """
    started, t0 = rf.utc_now(), time.monotonic()
    # absolute: JMeter runs in the cell's folder, where a relative run folder (--out reports) would nest again
    folder = folder.resolve()
    jtl, out = folder / rf.RESULTS, folder / rf.JMETER_OUT
    cmd = jmeter.command(plan, jtl=jtl, log=folder / rf.JMETER_LOG, properties=properties,
                         remote_hosts=remote_hosts or None, heap=heap, remote_exit=False,
                         extra=controller_options)
    live = Live()
    tail: deque[str] = deque(maxlen=20)
    observer = Observer(folder / rf.OBSERVED, observe_sources or [], keep=observe_keep)
    with MetricsSampler(folder / rf.HOST_METRICS, server_cpus=server_cpus), \
            observer, out.open("w", encoding="utf-8") as console:
        # cwd = the cell's folder: anything JMeter writes relative to its working directory stays in the run folder.
        process = spawn(cmd, cpus=cpus, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        stdin=subprocess.DEVNULL, text=True, errors="replace", bufsize=1)
        lines: queue.Queue = queue.Queue()
        reader = threading.Thread(target=_pump, args=(process, lines), name="littlegrid-jmeter-out", daemon=True)
        reader.start()
        deadline = t0 + duration_s + HANG_GRACE_S
        hung = False
        died = None  # (seconds into the cell, exit code) of the sample server
        stopper = Stopper(command_port) if watcher is not None and command_port is not None else None
        answered = False
        # without this a watcher's check_s under POLL_S was not kept: it was asked only when the loop woke
        poll_s = max(POLL_FLOOR_S, min(POLL_S, watcher.check_s)) if stopper is not None else POLL_S
        try:
            while True:
                try:
                    line = lines.get(timeout=poll_s)
                except queue.Empty:
                    line = ""
                if line is None:  # JMeter closed its output: it is exiting
                    break
                if line:
                    console.write(line)
                    console.flush()
                    if line.strip():
                        tail.append(line.rstrip())
                    live.feed(line)
                if on_progress:
                    on_progress(live, time.monotonic() - t0)
                now = time.monotonic()
                if stopper is not None and (answered or watcher.check(now)):
                    answered = True
                    stopper.tick(now)
                    if stopper.overdue(now):
                        hung = True
                        break
                if now > deadline:
                    hung = True
                    break
                if server is not None and died is None and server.poll() is not None:
                    died = (time.monotonic() - t0, server.returncode)
                    break
            code = stop_group(process) if hung or died else process.wait()
        except BaseException:
            stop_group(process)
            raise
        finally:
            reader.join(timeout=5)
    samples = rf.count_samples(jtl)
    stopped_by = f" (after {', '.join(dict.fromkeys(stopper.sent))} to its port {command_port})" \
        if stopper is not None and stopper.sent else ""
    if died is not None:
        status, reason = "failed", f"{server_name} died {died[0]:.0f} s into the cell (exit {died[1]}); JMeter stopped"
    elif hung:
        status, reason = "failed", (f"JMeter still running {HANG_GRACE_S:.0f} s after the cell's duration; stopped"
                                    if not stopped_by else f"JMeter did not exit{stopped_by}; its process group stopped")
    elif code != 0:
        status, reason = "failed", f"JMeter exited with code {code}: {_last_error(tail)}"
    elif samples == 0:
        status, reason = "failed", f"JMeter wrote no samples to {rf.RESULTS}: {_last_error(tail)}"
    else:
        status, reason = "complete", None
    count, errors = live.totals
    stop = watcher.stop(status) if watcher is not None else fixed_stop(duration_s)
    return CellOutcome(status=status, reason=reason, exit_code=code, samples=samples, started=started,
                       ended=rf.utc_now(), took_s=time.monotonic() - t0, errors=errors if count else None,
                       observed=observer.summary() if observe_sources else None, stop=stop,
                       load_s=watcher.load_s if watcher is not None else duration_s)


def _pump(process: subprocess.Popen, lines: queue.Queue) -> None:
    for line in process.stdout:
        lines.put(line)
    lines.put(None)


def _last_error(tail: deque) -> str:
    """The most telling console line: the last one naming an error, else the last one (see jmeter.log)."""
    for line in reversed(tail):
        low = line.lower()
        if "error" in low or "exception" in low or "refused" in low:
            return line.strip()[:300]
    return (tail[-1].strip()[:300] if tail else "no console output") + f" (see {rf.JMETER_LOG})"
