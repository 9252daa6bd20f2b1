"""Start, health-check and stop the sample server (server/target/littlegrid-server.jar) with given knobs."""

from __future__ import annotations

import json
import os
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

from littlegrid.run.jmeter import repo_root
from littlegrid.run.parts import Part, PartSpec, port_is_busy
from littlegrid.run.ports import free_ports
from littlegrid.usererror import UserError

JAR_RELATIVE = Path("server/target/littlegrid-server.jar")
# Knobs that are ports: the runner chooses them (free unless given) and keeps them for the whole run.
PORT_KNOBS = ("server.port", "management.server.port")


def find_server_jar(root: Path | None = None) -> Path:
    """LITTLEGRID_SERVER_JAR if set, else server/target/littlegrid-server.jar in the checkout."""
    env = os.environ.get("LITTLEGRID_SERVER_JAR")
    if env:
        jar = Path(env)
    else:
        root = root or repo_root() or repo_root(Path(__file__).parent)
        jar = (root / JAR_RELATIVE) if root else JAR_RELATIVE
    if not jar.is_file():
        raise UserError(f"{jar}: sample server jar not found; build it with `./mvnw -pl server package`")
    return jar


def cpu_split(cpus: tuple[int, ...], available: set[int] | None = None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """([server] cpus, the CPUs left for JMeter): the server pinned to its own CPUs and the generator to the rest,
    so that the two never share a core. Refused in one line when a CPU is not available to this process, or when
    none is left for JMeter."""
    available = set(os.sched_getaffinity(0)) if available is None else set(available)
    shown = ", ".join(str(c) for c in sorted(available))
    missing = [c for c in cpus if c not in available]
    if missing:
        raise UserError(f"[server] cpus = {list(cpus)}: CPU {missing[0]} is not one this process may use "
                        f"(available: {shown})")
    rest = tuple(sorted(available - set(cpus)))
    if not rest:
        raise UserError(f"[server] cpus = {list(cpus)}: leaves no CPU for JMeter (available: {shown}); "
                        f"pin the server to fewer")
    return tuple(cpus), rest


class SampleServer:
    """The sample server as a child process: `with SampleServer(knobs) as s: ... s.port`.

    Knobs are Spring properties (`server.tomcat.threads.max`, `littlegrid.throttle.max-concurrent`, ...),
    passed as `--name=value`. The server is stopped (SIGTERM, then SIGKILL) when the block exits.
    `cpus`: the CPUs it runs on (grid `[server] cpus`); None: wherever the OS puts it.

    The actuator (health, metrics) answers on its own port, `management_port`: Spring Boot then serves it from
    a second Tomcat with its own connector and threads, so a health check or a 1 Hz scrape never queues
    behind the load in the pool under test (with 10 threads and 100 users it would time out).
    """

    def __init__(
        self,
        knobs: dict | None = None,
        *,
        port: int | None = None,
        management_port: int | None = None,
        jar: Path | None = None,
        log: Path | None = None,
        heap: str = "512m",
        ready_timeout_s: float = 60.0,
        cpus: tuple[int, ...] | None = None,
    ):
        knobs = knobs or {}
        self.knobs = {k: v for k, v in knobs.items() if k not in PORT_KNOBS}
        picked = iter(free_ports(2))  # two different ones, for whichever of the two is not given
        self.port = int(port or knobs.get("server.port") or next(picked))
        self.management_port = int(management_port or knobs.get("management.server.port") or next(picked))
        self.jar = jar or find_server_jar()
        self.log = log
        self.heap = heap
        self.ready_timeout_s = ready_timeout_s
        self.cpus = cpus
        self.process: subprocess.Popen | None = None
        self._part: Part | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def management_url(self) -> str:
        return f"http://127.0.0.1:{self.management_port}"

    @property
    def metrics_url(self) -> str:
        return f"{self.management_url}/actuator/prometheus"

    def command(self) -> list[str]:
        cmd = ["java", f"-Xmx{self.heap}", "-jar", str(self.jar), f"--server.port={self.port}",
               "--server.address=127.0.0.1", f"--management.server.port={self.management_port}",
               "--management.server.address=127.0.0.1"]
        return cmd + [f"--{k}={_spring_value(v)}" for k, v in self.knobs.items()]

    def part(self) -> Part:
        """The server as one of the run's parts (run/parts.py): its command, ports, CPUs, and its health check as
        the readiness check; its log is `log` (none: its output is dropped)."""
        spec = PartSpec(name="server", command=tuple(self.command()), ready=None,
                        ports=(self.port, self.management_port), cpus=self.cpus, ready_timeout_s=self.ready_timeout_s)
        return Part(spec, self.log.parent if self.log else Path("."), ready_check=lambda: self.health() == "UP",
                    what="sample server", log=self.log)

    def start(self) -> "SampleServer":
        for what, port in (("port", self.port), ("management port", self.management_port)):
            if port_is_busy(port):
                raise UserError(f"sample server: {what} {port} on 127.0.0.1 is already in use")
        self._part = self.part()
        # its own process group, so that stopping it never signals the caller's group; it dies with its starter
        self._part.start()
        self.process = self._part.process
        return self

    def health(self) -> str | None:
        try:
            with urllib.request.urlopen(f"{self.management_url}/actuator/health", timeout=2) as r:
                return json.loads(r.read().decode("utf-8")).get("status")
        except (urllib.error.URLError, OSError, ValueError):
            return None

    def metrics_text(self, timeout: float = 2.0) -> str:
        with urllib.request.urlopen(self.metrics_url, timeout=timeout) as r:
            return r.read().decode("utf-8")

    def stop(self, grace_s: float = 10.0) -> None:
        part, self._part, self.process = self._part, None, None
        if part is not None:
            part.stop(grace_s)

    def __enter__(self) -> "SampleServer":
        return self.start() if self.process is None else self

    def __exit__(self, *exc) -> None:
        self.stop()


def _spring_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
