"""JMeter's remote engines (`jmeter-server`): the total N split across them, RMI over SSL with one keystore shared
by the controller and the engines, and the command lines that start an engine.

How JMeter does it (read from its source, 5.6.3):
- The controller sends each engine the plan and then the `-G` properties; before that, each engine sets the JMeter
  property `__jm.D_TG` to its name exactly as the controller wrote it in `-R` ("10.0.0.5:1099"). A thread group
  whose count reads `users.<that name>` therefore gets its own engine's share, and the suite's plans do.
- RMI over SSL (JMeter's default) uses `server.rmi.ssl.keystore.file` (type JKS, alias `rmi`, password `changeit`
  by default) as key store and trust store, with client authentication: only holders of the same keystore can talk
  to an engine. The socket factories travel inside RMI stubs with the keystore *path*, so the file must sit at the
  same absolute path on the controller and on every engine.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from littlegrid.plan.derive import spread_over_engines
from littlegrid.plan.elements import ENGINE_NAME_PROPERTY
from littlegrid.run.ports import free_ports
from littlegrid.usererror import UserError

# JMeter's RMI keystore settings (RmiUtils): create-rmi-keystore.sh writes exactly these.
KEYSTORE_TYPE = "JKS"
KEYSTORE_ALIAS = "rmi"
KEYSTORE_PASSWORD = "changeit"
DEFAULT_KEYSTORE_DAYS = 30  # JMeter's script says 7, and a week later every engine refuses the controller
DEFAULT_REGISTRY_PORT = 1099
DEFAULT_LOCAL_PORT = 50000

# The suite's plans read `users.<engine name>`, falling back to `users` on a single host.
PER_ENGINE_USERS_MARK = "users.${__P(" + ENGINE_NAME_PROPERTY
REMOTE_HOST_NAME = re.compile(r"^(?:[0-9A-Fa-f:.]+|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)$")


def split_users(total: int, engines: list[str]) -> dict[str, int]:
    """N threads split across the engines as evenly as whole threads allow: each gets N // k, and the first
    N mod k engines, in the order the grid lists them, one more (a derived plan's groups are dealt out by the
    same rule, so their engines' totals are these)."""
    return spread_over_engines([int(total)], engines)[0]


def users_properties(split: dict[str, int]) -> dict[str, int]:
    """The `-G` properties that give each engine its share: `users.<engine name>` = its threads."""
    return {f"users.{engine}": n for engine, n in split.items()}


def split_text(split: dict[str, int]) -> str:
    """'7 on 127.0.0.1:21001 + 6 on 127.0.0.1:21002' for the printed plan and the messages."""
    return " + ".join(f"{n} on {engine}" for engine, n in split.items())


def plan_splits_users(plan_texts: list[str]) -> bool:
    """Whether a plan's thread count reads its engine's share (`users.${__P(__jm.D_TG,)}`)."""
    return any(PER_ENGINE_USERS_MARK in text for text in plan_texts)


def host_and_port(engine: str) -> tuple[str, int]:
    """("10.0.0.5", 1099) from "10.0.0.5:1099", "[::1]:1099" or "engine1" (JMeter's default registry port)."""
    m = re.fullmatch(r"\[([^\]]+)\](?::(\d+))?|([^:]+)(?::(\d+))?", engine)
    if not m:
        raise UserError(f"{engine!r}: not host or host:port")
    host = m.group(1) or m.group(3)
    port = m.group(2) or m.group(4)
    return host, int(port) if port else DEFAULT_REGISTRY_PORT


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# -- RMI over SSL ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rmi:
    """How the controller and the engines talk: over SSL with this keystore, or (said explicitly) in the clear.
    controller_host: the address the engines call the controller back on (java.rmi.server.hostname), if given."""

    keystore: Path | None
    ssl: bool = True
    controller_host: str | None = None

    def properties(self) -> dict[str, str]:
        """JMeter properties for either side (controller `-J`, engine `-J`)."""
        if not self.ssl:
            return {"server.rmi.ssl.disable": "true"}
        return {"server.rmi.ssl.keystore.file": str(self.keystore), "server.rmi.ssl.keystore.type": KEYSTORE_TYPE,
                "server.rmi.ssl.keystore.alias": KEYSTORE_ALIAS,
                "server.rmi.ssl.keystore.password": KEYSTORE_PASSWORD}


SSL_OFF_WARNING = ("warning: RMI SSL is off ([engines] ssl = false): anyone who reaches an engine's port can send it "
                   "a test plan, which runs code on that host. Use it only on a network you trust; "
                   "`littlegrid engines keystore --out FILE` makes the keystore that turns SSL back on.")


def create_keystore(out: Path, days: int = DEFAULT_KEYSTORE_DAYS, name: str = "littlegrid-rmi") -> Path:
    """The RMI keystore, as JMeter's create-rmi-keystore does (RSA 2048, alias rmi, JKS), valid `days` days,
    readable by its owner only (whoever holds it can drive the engines)."""
    out = Path(out)
    if days < 1:
        raise UserError(f"--days {days}: must be at least 1")
    if out.exists():
        raise UserError(f"{out}: exists already; remove it or choose another --out (its engines may still use it)")
    if not out.parent.is_dir():
        raise UserError(f"{out.parent}: no such folder")
    cmd = ["keytool", "-genkeypair", "-keyalg", "RSA", "-keysize", "2048", "-alias", KEYSTORE_ALIAS,
           "-keystore", str(out), "-storetype", KEYSTORE_TYPE, "-storepass", KEYSTORE_PASSWORD,
           "-keypass", KEYSTORE_PASSWORD, "-validity", str(int(days)), "-dname", f"CN={name}, OU=littlegrid"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise UserError("keytool not found: it comes with the JDK that runs JMeter (put its bin/ on PATH)")
    except subprocess.TimeoutExpired:
        raise UserError("keytool took more than 120 s")
    if done.returncode != 0:
        raise UserError(f"keytool failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    out.chmod(0o600)
    return out


def keystore_expiry(path: Path) -> datetime:
    """When the keystore's `rmi` certificate stops being valid (keytool -list -v, read in English and UTC)."""
    cmd = ["keytool", "-J-Duser.language=en", "-J-Duser.country=US", "-J-Duser.timezone=UTC", "-list", "-v",
           "-keystore", str(path), "-storepass", KEYSTORE_PASSWORD, "-alias", KEYSTORE_ALIAS]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise UserError("keytool not found: it comes with the JDK that runs JMeter (put its bin/ on PATH)")
    m = re.search(r"until: \w{3} (\w{3} \d{2} \d{2}:\d{2}:\d{2}) \w+ (\d{4})", done.stdout)
    if done.returncode != 0 or not m:
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise UserError(f"{path}: not an RMI keystore with alias {KEYSTORE_ALIAS!r} and JMeter's password "
                        f"({last[0]}); make one with `littlegrid engines keystore --out FILE`")
    return datetime.strptime(f"{m.group(1)} {m.group(2)}", "%b %d %H:%M:%S %Y").replace(tzinfo=timezone.utc)


def check_keystore(path: Path, where: str) -> Path:
    """The keystore as an absolute path, refused in one line when missing, unreadable as one, or expired."""
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise UserError(f"{where}: keystore {path} not found; make one with "
                        f"`littlegrid engines keystore --out {path}` and give the engines the same file")
    until = keystore_expiry(path)
    if until <= datetime.now(timezone.utc):
        raise UserError(f"{where}: keystore {path} expired on {until:%Y-%m-%d %H:%M} UTC; make a new one "
                        "(`littlegrid engines keystore --out FILE --days D`) and restart the engines with it")
    return path


# -- an engine's command line --------------------------------------------------------------------------------------
def engine_command(jar: Path, rmi: Rmi, hostname: str, port: int, local_port: int, log: Path | str,
                   heap: str = "512m") -> list[str]:
    """`jmeter-server` as a plain java command: advertising `hostname` (never its loopback name on a real network),
    its registry on `port` and its remote object on `local_port` (the two ports to open)."""
    cmd = ["java", f"-Xms{heap}", f"-Xmx{heap}", f"-Djava.rmi.server.hostname={hostname}", "-jar", str(jar), "-s",
           "-j", str(log), f"-Jserver_port={port}", f"-Jserver.rmi.localport={local_port}"]
    return cmd + [f"-J{k}={v}" for k, v in rmi.properties().items()]


# -- engines on this host, started and stopped for the user -------------------------------------------------------
STATE_FILE = Path("~/.local/state/littlegrid/engines.json")  # what `engines up --local` started, for `engines down`
LISTEN_TIMEOUT_S = 90.0


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def start_local(jar: Path, count: int, rmi: Rmi, state: Path, folder: Path, heap: str = "512m") -> list[dict]:
    """Start `count` engines on 127.0.0.1, each with its own registry and remote-object ports, over `rmi`; record
    their PIDs in `state` as each starts (so that `stop_local` finds them even after a failure) and wait until
    every one listens. Returns the records: name (host:port, as remote_hosts lists it), pid, log."""
    if count < 1:
        raise UserError(f"--local {count}: start at least one engine")
    state = Path(state).expanduser()
    if running(state):
        raise UserError(f"{state}: engines started earlier still run; `littlegrid engines down` stops them first")
    folder.mkdir(parents=True, exist_ok=True)
    state.parent.mkdir(parents=True, exist_ok=True)
    records: list[dict] = []
    ports = iter(free_ports(2 * count))  # all at once: an engine started binds its own ports only later
    try:
        for i in range(1, count + 1):
            port, local = next(ports), next(ports)
            log = folder / f"engine{i}.log"
            cmd = engine_command(jar, rmi, "127.0.0.1", port, local, log, heap)
            with (folder / f"engine{i}.out").open("w") as out:
                process = subprocess.Popen(cmd, cwd=folder, stdin=subprocess.DEVNULL, stdout=out,
                                           stderr=subprocess.STDOUT, start_new_session=True)  # outlives this command
            records.append({"name": f"127.0.0.1:{port}", "pid": process.pid, "port": port, "local_port": local,
                            "log": str(log)})
            _write_state(state, records, rmi)
        deadline = time.monotonic() + LISTEN_TIMEOUT_S
        waiting = list(records)
        while waiting:
            for r in list(waiting):
                if not _alive(r["pid"]):
                    raise UserError(f"engine {r['name']} exited at start: {_tail(Path(r['log']).with_suffix('.out'))}")
                if _listening(r["port"]):
                    waiting.remove(r)
            if waiting and time.monotonic() > deadline:
                raise UserError(f"engines {', '.join(r['name'] for r in waiting)} not listening after "
                                f"{LISTEN_TIMEOUT_S:.0f} s (see {folder})")
            time.sleep(0.3)
    except BaseException:
        stop_local(state)
        raise
    return records


def running(state: Path) -> list[dict]:
    """The engines recorded in `state` whose process still runs as that engine."""
    data = _read_state(Path(state).expanduser())
    return [r for r in data.get("engines", []) if _is_engine(r)]


def stop_local(state: Path, grace_s: float = 15.0) -> list[dict]:
    """Stop the engines recorded in `state` (SIGTERM to each one's process group, SIGKILL after grace_s), only
    those whose PID still runs that engine's command line; then forget them. Returns the ones stopped."""
    state = Path(state).expanduser()
    records = _read_state(state).get("engines", [])
    stopped = [r for r in records if _is_engine(r)]
    for r in stopped:
        _signal(r["pid"], signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    for r in stopped:
        while _alive(r["pid"]) and time.monotonic() < deadline:
            time.sleep(0.2)
        if _alive(r["pid"]):
            _signal(r["pid"], signal.SIGKILL)
            while _alive(r["pid"]):
                time.sleep(0.1)
    state.unlink(missing_ok=True)
    return stopped


def _signal(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)  # its own session: the JVM and anything it started
    except ProcessLookupError:
        pass


def _alive(pid: int) -> bool:
    """Running and not a zombie (a zombie of ours is reaped here)."""
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _is_engine(record: dict) -> bool:
    """The PID still runs the engine recorded (a PID reused by another process is left alone)."""
    try:
        cmdline = Path(f"/proc/{record['pid']}/cmdline").read_bytes().split(b"\0")
    except (OSError, KeyError, TypeError):
        return False
    return _alive(record["pid"]) and b"-s" in cmdline and f"-Jserver_port={record.get('port')}".encode() in cmdline


def _write_state(state: Path, records: list[dict], rmi: Rmi) -> None:
    data = {"engines": records, "keystore": str(rmi.keystore) if rmi.keystore else None, "ssl": rmi.ssl}
    tmp = state.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
    tmp.replace(state)


def _read_state(state: Path) -> dict:
    try:
        data = json.loads(state.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise UserError(f"{state}: not the state `littlegrid engines up` writes ({e})")
    return data if isinstance(data, dict) else {}


def _tail(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return f"no output (see {path})"
    return (lines[-1][:300] if lines else "no output") + f" (see {path})"
