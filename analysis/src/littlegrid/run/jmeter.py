"""Find the JMeter that Maven provisioned (or JMETER_HOME) and build non-GUI command lines for it."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from littlegrid.usererror import UserError

JMETER_VERSION = "5.6.3"
# StandardJMeterEngine calls System.exit(0) at the end of a non-GUI run, after its test listeners' testEnded.
FORCE_EXIT = "jmeterengine.force.system.exit"


@dataclass(frozen=True)
class JMeter:
    """One JMeter installation: its home folder and the runtime jar launched with `java -jar`."""

    home: Path
    jar: Path

    @property
    def version(self) -> str:
        m = re.search(r"ApacheJMeter-(.+)\.jar$", self.jar.name)
        return m.group(1) if m else "unknown"

    def command(
        self,
        plan: Path,
        *,
        jtl: Path | None = None,
        log: Path | None = None,
        properties: dict | None = None,
        remote_hosts: list[str] | None = None,
        heap: str = "1g",
        extra: list[str] | None = None,
        remote_exit: bool = True,
    ) -> list[str]:
        """A non-GUI run of `plan`: `-J` properties, results to `jtl` with `-l`, JMeter's own log to `log`.

        `remote_exit=False` leaves the remote engines running at the end (a grid runs JMeter once per cell).
        """
        cmd = ["java", f"-Xms{heap}", f"-Xmx{heap}", "-XX:+UseG1GC", "-jar", str(self.jar), "-n", "-t", str(plan)]
        # JMeter exits once its listeners have closed the JTL and printed "... end of run", instead of waiting ~1.1 s
        # for its engine's idle non-daemon threads (or for ever, for a plan whose code left one running). Local
        # only (-J, never -G): a remote engine serves cell after cell. Before the properties: a grid can say false.
        cmd.append(f"-J{FORCE_EXIT}=true")
        if jtl is not None:
            cmd += ["-l", str(jtl)]
        if log is not None:
            cmd += ["-j", str(log)]
        for name, value in (properties or {}).items():
            # -J sets a local property; with remote engines -G sends it to them as well.
            cmd.append(f"-J{name}={value}")
            if remote_hosts:
                cmd.append(f"-G{name}={value}")
        if remote_hosts:
            cmd += ["-R", ",".join(remote_hosts)] + (["-X"] if remote_exit else [])
        return cmd + list(extra or [])


def repo_root(start: Path | None = None) -> Path | None:
    """The littlegrid checkout containing `start` (the folder holding pom.xml and plans/), if any."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "pom.xml").is_file() and (folder / "plans").is_dir():
            return folder
    return None


def _from_home(home: Path, origin: str) -> JMeter:
    jars = sorted((home / "bin").glob("ApacheJMeter*.jar"))
    jars = [j for j in jars if re.fullmatch(r"ApacheJMeter(-[\d.]+)?\.jar", j.name)]
    if not jars:
        raise UserError(f"{origin}: no bin/ApacheJMeter*.jar under {home}")
    return JMeter(home=home, jar=jars[-1])


def find_jmeter(root: Path | None = None) -> JMeter:
    """JMETER_HOME if set, else the installation recorded in <repo>/target/config.json by `./mvnw initialize`."""
    env_home = os.environ.get("JMETER_HOME")
    if env_home:
        return _from_home(Path(env_home), "JMETER_HOME")
    root = root or repo_root() or repo_root(Path(__file__).parent)
    config = root / "target" / "config.json" if root else None
    if config is None or not config.is_file():
        raise UserError(
            "JMeter not found: set JMETER_HOME or run `./mvnw initialize` in the littlegrid checkout "
            "(it provisions JMeter and writes target/config.json)"
        )
    try:
        configurations = json.loads(config.read_text(encoding="utf-8"))["configurations"]
        home = Path(configurations[0]["jmeterDirectoryPath"])
    except (ValueError, KeyError, IndexError, TypeError) as e:
        raise UserError(f"{config}: not a jmeter-maven-plugin configuration ({e.__class__.__name__}: {e})")
    if not home.is_dir():
        raise UserError(f"{config}: JMeter folder {home} is gone; run `./mvnw initialize` again")
    return _from_home(home, str(config))


def java_version() -> str:
    """`java -version`'s first line, e.g. 'openjdk version "17.0.15" 2025-04-15'."""
    try:
        out = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise UserError(f"java: cannot run it ({e})")
    lines = (out.stderr or out.stdout).strip().splitlines()
    return lines[0] if lines else "unknown"
