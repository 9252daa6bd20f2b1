"""The real parts a grid starts beside JMeter ([processes.<name>]: a proxy with its config, a database with its data,
an exporter), and the sample server as one of them: each checked before anything starts (its commands exist, its
ports are free), set up, started, checked ready, its log kept in the run folder, and stopped, also when a step fails.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from littlegrid.run.processes import spawn, stop_group
from littlegrid.usererror import UserError

PARTS_DIR = "processes"  # <run folder>/processes/<name>/: each part's log and the files it was given
# What a part's command, setup and files may name: its folder in the run folder (kept), a scratch folder removed
# when it stops (a database's data), the grid file's folder (files beside the grid), the checkout.
PLACEHOLDERS = ("dir", "tmp", "grid_dir")
PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
SETUP_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class Ready:
    """How a part says it is ready: a TCP port accepting ("tcp://host:port"), an HTTP URL answering 2xx, or a
    command exiting 0 (a list), checked every quarter second until ready_timeout_s."""

    kind: str            # tcp | http | command
    target: str | tuple  # "host:port", the URL, or the command

    def words(self) -> str:
        return {"tcp": f"{self.target} accepting connections", "http": f"{self.target} answering 2xx",
                "command": f"`{' '.join(self.target)}` exiting 0"}[self.kind]


@dataclass(frozen=True)
class PartSpec:
    """One [processes.<name>] table: what to run, before and after it, where, as whom, and how it is ready."""

    name: str
    command: tuple[str, ...]
    ready: Ready | None
    setup: tuple[tuple[str, ...], ...] = ()   # run one after another before `command`, each must exit 0
    after: tuple[tuple[str, ...], ...] = ()   # run once it is ready (load the data), each must exit 0
    ports: tuple[int, ...] = ()               # on 127.0.0.1: refused before anything starts when one is busy
    cpus: tuple[int, ...] | None = None
    user: str | None = None                   # run as this user when littlegrid runs as root (PostgreSQL refuses root)
    env: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)  # name in its folder -> template file (placeholders filled)
    ready_timeout_s: float = 30.0
    role: str | None = None                   # "server": the system under test (its CPUs measured apart)
    line: int | None = None                   # the table's line in the grid file, for refusals

    def commands(self) -> list[tuple[str, ...]]:
        return [*self.setup, self.command, *self.after] + ([self.ready.target] if self.ready and
                                                            self.ready.kind == "command" else [])


def where(spec: PartSpec, grid_path: Path | None) -> str:
    loc = f"{grid_path}:{spec.line}: " if grid_path and spec.line else (f"{grid_path}: " if grid_path else "")
    return f"{loc}[processes.{spec.name}]"


def port_is_busy(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def executable(program: str, env_path: str | None = None) -> str | None:
    """The program as it would run: a path that is an executable file, or found on PATH."""
    if "/" in program:
        return program if os.path.isfile(program) and os.access(program, os.X_OK) else None
    return shutil.which(program, path=env_path)


def check(spec: PartSpec, grid_path: Path | None = None) -> None:
    """Refuse, in one line, a part that cannot start: a program that is not there, a port already in use, a user
    that does not exist, a template file missing. Nothing is started."""
    head = where(spec, grid_path)
    for command in spec.commands():
        program = command[0]
        if PLACEHOLDER.search(program) is None and executable(program, spec.env.get("PATH")) is None:
            raise UserError(f"{head} command: {program} not found (not an executable file, nor on PATH)")
    for port in spec.ports:
        if port_is_busy(port):
            raise UserError(f"{head} ports: {port} on 127.0.0.1 is already in use")
    if spec.user is not None and os.geteuid() == 0:
        try:
            pwd.getpwnam(spec.user)
        except KeyError:
            raise UserError(f"{head} user: no user {spec.user!r} on this host") from None
    for name, template in spec.files.items():
        if not Path(template).is_file():
            raise UserError(f"{head} files: {name} = {template}: no such file")


class Part:
    """One started part: `with Part(spec, folder) as p: ...`, or start() / stop(). Its log is folder/<name>.log
    (setup, command and after, in order); `tmp` is a scratch folder removed when it stops."""

    def __init__(self, spec: PartSpec, folder: Path, grid_dir: Path | None = None,
                 ready_check: Callable[[], bool] | None = None, what: str | None = None, log: Path | None = ...):
        self.spec, self.folder = spec, Path(folder)
        self.grid_dir = grid_dir
        self.ready_check = ready_check  # the sample server's health check, instead of spec.ready
        self.what = what or f"[processes.{spec.name}]"
        # its log: <folder>/<name>.log unless given; None: its output is dropped
        self.log = self.folder / f"{spec.name}.log" if log is ... else log
        self.process: subprocess.Popen | None = None
        self.tmp: Path | None = None
        self._log_file = None

    # -- placeholders and files -----------------------------------------------------------------
    def fill(self, text: str) -> str:
        values = {"dir": str(self.folder.resolve()), "tmp": str(self.tmp) if self.tmp else "",
                  "grid_dir": str(self.grid_dir.resolve()) if self.grid_dir else ""}
        return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)

    def argv(self, command) -> list[str]:
        return [self.fill(a) for a in command]

    def _env(self) -> dict:
        return {**os.environ, **{k: self.fill(str(v)) for k, v in self.spec.env.items()}}

    def _as_user(self) -> tuple[int, int] | None:
        if self.spec.user is None or os.geteuid() != 0:
            return None
        entry = pwd.getpwnam(self.spec.user)
        return entry.pw_uid, entry.pw_gid

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> "Part":
        """Set up, start and wait until ready; on any failure everything it started is stopped and a UserError says
        what failed in one line (naming the log)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=f"littlegrid-{self.spec.name}-"))
        owner = self._as_user()
        if owner is not None:  # the user it runs as owns its folders (its log stays root's: opened here)
            for path in (self.folder, self.tmp):
                os.chown(path, *owner)
        for name, template in self.spec.files.items():
            target = self.folder / name
            target.write_text(self.fill(Path(template).read_text(encoding="utf-8")), encoding="utf-8")
        self._log_file = open(self.log if self.log is not None else os.devnull, "ab")
        try:
            for command in self.spec.setup:
                self._run_step(command, "setup")
            self.process = spawn(self.argv(self.spec.command), cpus=self.spec.cpus, user=owner, env=self._env(),
                                 cwd=self.folder, stdout=self._log_file, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL)
            self._wait_ready()
            for command in self.spec.after:
                self._run_step(command, "after")
        except BaseException:
            self.stop()
            raise
        return self

    def _run_step(self, command, stage: str) -> None:
        argv = self.argv(command)
        self._log_file.write(f"$ {' '.join(argv)}\n".encode())
        self._log_file.flush()
        step = spawn(argv, cpus=self.spec.cpus, user=self._as_user(), env=self._env(), cwd=self.folder,
                     stdout=self._log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            code = step.wait(timeout=SETUP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            stop_group(step)
            raise UserError(f"{self.what} {stage}: `{' '.join(argv)}` still running after {SETUP_TIMEOUT_S:.0f} s; "
                            f"stopped{self._see()}") from None
        if code != 0:
            raise UserError(f"{self.what} {stage}: `{' '.join(argv)}` exited with code {code}{self._see()}")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.spec.ready_timeout_s
        while True:
            if self.process.poll() is not None:
                raise UserError(f"{self.what} exited with code {self.process.returncode} before it was ready"
                                f"{self._see()}")
            if self.is_ready():
                return
            if time.monotonic() > deadline:
                what = self.spec.ready.words() if self.spec.ready else "its health check"
                raise UserError(f"{self.what}: not ready within {self.spec.ready_timeout_s:g} s (waited for "
                                f"{self.fill(what)}){self._see()}")
            time.sleep(0.25)

    def _see(self) -> str:
        return f" (see {self.log})" if self.log is not None else ""

    def is_ready(self) -> bool:
        if self.ready_check is not None:
            return self.ready_check()
        ready = self.spec.ready
        if ready is None:
            return True
        if ready.kind == "tcp":
            host, _, port = self.fill(ready.target).rpartition(":")
            return port_is_busy(int(port), host or "127.0.0.1")
        if ready.kind == "http":
            try:
                with urllib.request.urlopen(self.fill(ready.target), timeout=2) as r:
                    return 200 <= r.status < 300
            except (urllib.error.URLError, OSError, ValueError):
                return False
        probe = subprocess.run(self.argv(ready.target), env=self._env(), cwd=self.folder, timeout=10,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return probe.returncode == 0

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, grace_s: float = 10.0) -> int | None:
        """SIGTERM to its process group, SIGKILL after grace_s; its scratch folder removed, its log closed."""
        process, self.process = self.process, None
        code = stop_group(process, grace_s) if process is not None else None
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None
        return code

    def __enter__(self) -> "Part":
        return self.start() if self.process is None else self

    def __exit__(self, *exc) -> None:
        self.stop()


class Parts:
    """A grid's parts, started in the order the grid lists them and stopped in reverse, all of them, also when one
    fails to start (those before it are stopped before the refusal goes up)."""

    def __init__(self, specs, run_root: Path, grid_path: Path | None = None):
        self.specs, self.run_root, self.grid_path = list(specs), Path(run_root), grid_path
        self.started: list[Part] = []

    def start(self, announce: Callable[[str], None] = print) -> "Parts":
        try:
            for spec in self.specs:
                t = time.monotonic()
                part = Part(spec, self.run_root / PARTS_DIR / spec.name,
                            self.grid_path.resolve().parent if self.grid_path else None,
                            what=where(spec, self.grid_path))
                self.started.append(part)  # before start(): a Ctrl-C while it boots must still stop it
                part.start()
                announce(f"{spec.name}: started and ready in {time.monotonic() - t:.1f} s (log {part.log})")
        except BaseException:
            self.stop()
            raise
        return self

    def dead(self) -> list[tuple[str, int]]:
        """(name, exit code) of the parts that exited on their own."""
        return [(p.spec.name, p.process.returncode) for p in self.started
                if p.process is not None and p.process.poll() is not None]

    def stop(self) -> None:
        while self.started:
            self.started.pop().stop()
