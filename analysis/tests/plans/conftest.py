"""Fixtures for the plan tests: the checkout's plans, JMeter, the sample server, and one-call plan runs."""

from __future__ import annotations

import os
import subprocess
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from littlegrid.jtl import read_jtl
from littlegrid.run.jmeter import JMeter, find_jmeter
from littlegrid.run.plan_properties import save_service_properties
from littlegrid.run.sample_server import SampleServer, find_server_jar
from littlegrid.run.stopping import Stopper, free_udp_port, port_properties
from littlegrid.usererror import UserError
from needs import missing
from plan_files import PLANS, ROOT



@pytest.fixture(scope="session")
def jmeter() -> JMeter:
    try:
        return find_jmeter(ROOT)
    except UserError as e:
        missing("JMeter", f"not provisioned ({e})")


@pytest.fixture(scope="session")
def sample_server(tmp_path_factory):
    try:
        find_server_jar(ROOT)
    except UserError as e:
        missing("the sample server jar", str(e))
    log = tmp_path_factory.mktemp("server") / "server.log"
    with SampleServer(log=log) as server:
        _warm_up(server)
        yield server


def _warm_up(server: SampleServer, requests: int = 1000, concurrency: int = 50) -> None:
    """A fresh JVM serves its first requests slowly (class loading, JIT, Tomcat growing its thread pool);
    the plan tests measure JMeter, not that."""
    def get(_):
        with urllib.request.urlopen(f"{server.base_url}/io?ms=0", timeout=30) as response:
            response.read()

    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(get, range(requests)))


@dataclass(frozen=True)
class PlanRun:
    """One finished non-GUI run of a plan: its files, the properties it got, and the samples read back."""

    plan: Path
    jtl: Path
    log: Path
    properties: dict
    wall_s: float
    exit_code: int
    samples: pd.DataFrame
    load1_after: float  # the host's 1-minute load average when the run ended: a starved generator shows here

    def context(self) -> str:
        """For assertion messages: JMeter's realised overhead grows when the host is oversubscribed."""
        return f"{self.plan.name}, host load average {self.load1_after:.1f} on {os.cpu_count()} CPUs"

    def header(self) -> list[str]:
        with open(self.jtl, encoding="utf-8") as f:
            return f.readline().rstrip("\r\n").split(",")


@pytest.fixture(scope="session")
def run_plan(jmeter, sample_server, tmp_path_factory):
    """run_plan(plan name, **properties) -> PlanRun: JMeter non-GUI against the sample server, save-service
    properties as the runner passes them, killed if it outlives its duration by a minute."""

    def run(name: str | Path, *, stop_at_rows: int | None = None, **properties) -> PlanRun:
        """name: a plan of plans/, or the path of a plan of the test's own. stop_at_rows: once the JTL holds that
        many samples JMeter is told to stop through its command port (the runner's Shutdown, run/stopping.py), so
        a run is as long as the samples its test needs, on a quiet host and a busy one alike; duration_s stays
        its ceiling."""
        folder = tmp_path_factory.mktemp(Path(name).stem)
        jtl, log = folder / "results.jtl", folder / "jmeter.log"
        port = free_udp_port()
        props = (save_service_properties() | {"host": "127.0.0.1", "port": sample_server.port}
                 | port_properties(port) | properties)
        command = jmeter.command(PLANS / name, jtl=jtl, log=log, properties=props)
        ceiling_s = float(properties.get("duration_s", 30)) + 60
        started = time.monotonic()
        with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as jmeter_process:
            try:
                _stop_at_rows(jmeter_process, jtl, stop_at_rows, Stopper(port), started + ceiling_s)
                jmeter_process.wait(timeout=max(1.0, started + ceiling_s - time.monotonic()))
            finally:
                if jmeter_process.poll() is None:
                    jmeter_process.kill()
        wall = time.monotonic() - started
        try:
            samples = read_jtl(jtl).samples
        except UserError:  # no file, or a header and no samples: the tests say what they expected
            samples = pd.DataFrame({"start_ms": [], "end_ms": [], "success": []})
        return PlanRun(PLANS / name, jtl, log, props, wall, jmeter_process.returncode, samples, os.getloadavg()[0])

    return run


def _stop_at_rows(process: subprocess.Popen, jtl: Path, rows: int | None, stopper: Stopper, deadline: float) -> None:
    """Counts the JTL's samples as JMeter writes them (its header line aside) and, once `rows` are in, asks JMeter to
    stop (Shutdown, again every second, as the runner does) until it exits; returns when it has exited, when no
    row count was asked, or at the deadline."""
    if rows is None:
        return
    seen, offset = -1, 0  # the header is a line too
    while process.poll() is None and time.monotonic() < deadline:
        if seen < rows:
            try:
                with jtl.open("rb") as f:
                    f.seek(offset)
                    chunk = f.read()
                seen += chunk.count(b"\n")
                offset += len(chunk)
            except FileNotFoundError:
                pass
        if seen >= rows:
            stopper.tick(time.monotonic())
        time.sleep(0.2)
