"""`littlegrid engines`: the RMI keystore, JMeter engines started on this host or the commands for other hosts,
and stopping what was started (docs/distributed.md)."""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path

from littlegrid.run import engines as eng
from littlegrid.usererror import UserError

HELP = "JMeter remote engines: make the RMI keystore, start engines here or print their commands, stop them"
EXAMPLES = [
    "littlegrid engines keystore --out rmi_keystore.jks --days 30",
    "littlegrid engines up --local 2 --keystore rmi_keystore.jks",
    "littlegrid engines up 10.0.0.11 10.0.0.12:1199 --keystore /opt/littlegrid/rmi_keystore.jks",
    "littlegrid engines down",
]


JAR_ON_HOST = '"$JMETER_HOME"/bin/ApacheJMeter-5.6.3.jar'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="engines_command", metavar="ACTION", required=True)
    k = sub.add_parser("keystore", help="create the RMI keystore the controller and every engine share")
    k.add_argument("--out", type=Path, required=True, metavar="FILE", help="the keystore to write (JKS)")
    k.add_argument("--days", type=int, default=eng.DEFAULT_KEYSTORE_DAYS, metavar="D",
                   help=f"how long it stays valid (default {eng.DEFAULT_KEYSTORE_DAYS}; JMeter's own script says 7)")
    u = sub.add_parser("up", help="start N engines on this host (--local N), or print the commands for HOST...")
    u.add_argument("hosts", nargs="*", metavar="HOST[:PORT]", help="engine hosts: print each one's command")
    u.add_argument("--local", type=int, metavar="N", help="start N engines on 127.0.0.1 over SSL, distinct ports")
    u.add_argument("--keystore", type=Path, metavar="FILE", help="the RMI keystore (--local without it: one is "
                   "made beside the state file)")
    u.add_argument("--heap", default="512m", metavar="SIZE", help="each engine's -Xmx (default 512m)")
    u.add_argument("--state", type=Path, default=eng.STATE_FILE, metavar="FILE",
                   help=f"where the started engines are recorded (default {eng.STATE_FILE})")
    d = sub.add_parser("down", help="stop the engines `up --local` started (by the PIDs it recorded)")
    d.add_argument("--state", type=Path, default=eng.STATE_FILE, metavar="FILE", help="as given to up")


def main(args: argparse.Namespace) -> int:
    if args.engines_command == "keystore":
        out = eng.create_keystore(args.out, args.days)
        print(f"{out}: RMI keystore valid {args.days} days (until {eng.keystore_expiry(out):%Y-%m-%d %H:%M} UTC)")
        print("copy it to the same absolute path on the controller and on every engine; the grid names it:")
        print(f'[engines]\nkeystore = {json.dumps(str(out.resolve()))}')
        return 0
    if args.engines_command == "down":
        stopped = eng.stop_local(args.state)
        print(f"stopped {len(stopped)} engine(s)" + (": " + ", ".join(r["name"] for r in stopped) if stopped else ""))
        return 0
    if (args.local is None) == (not args.hosts):
        raise UserError("engines up: give --local N, or the engine hosts (HOST[:PORT] ...), not both")
    if args.local is not None:
        return _up_local(args)
    return _print_host_commands(args.hosts, args.keystore, args.heap)


def _up_local(args: argparse.Namespace) -> int:
    from littlegrid.run.jmeter import find_jmeter
    state = args.state.expanduser()
    keystore = args.keystore
    if keystore is None:
        keystore = state.parent / "rmi_keystore.jks"
        if not keystore.exists():
            state.parent.mkdir(parents=True, exist_ok=True)
            eng.create_keystore(keystore)
            print(f"made the RMI keystore {keystore} ({eng.DEFAULT_KEYSTORE_DAYS} days)")
    rmi = eng.Rmi(keystore=eng.check_keystore(keystore, "--keystore"))
    records = eng.start_local(find_jmeter().jar, args.local, rmi, state, state.parent / "engines", args.heap)
    for r in records:
        print(f"engine {r['name']}: pid {r['pid']}, remote object on port {r['local_port']}, log {r['log']}")
    print("paste into the grid (top level, then the table):")
    print(f"remote_hosts = {json.dumps([r['name'] for r in records])}")
    print(f'[engines]\nkeystore = {json.dumps(str(rmi.keystore))}')
    print("stop them with: littlegrid engines down" + (f" --state {args.state}" if args.state != eng.STATE_FILE else ""))
    return 0


def _print_host_commands(hosts: list[str], keystore: Path | None, heap: str) -> int:
    if keystore is None:
        raise UserError("engines up HOST...: give --keystore FILE, the path the keystore will have on every host "
                        "(`littlegrid engines keystore --out FILE` makes it)")
    keystore = Path(keystore).expanduser().absolute()
    rmi = eng.Rmi(keystore=keystore)
    for engine in hosts:
        if eng.is_loopback(eng.host_and_port(engine)[0]):
            raise UserError(f"{engine}: a loopback address; give each engine's address on the network the "
                            "controller reaches it by (or use --local N for engines on this host)")
    names = []
    print(f"copy {keystore} to that same path on the controller and on each engine host, then run on each host:")
    for engine in hosts:
        host, port = eng.host_and_port(engine)
        jar = JAR_ON_HOST
        cmd = eng.engine_command(Path(jar), rmi, host, port, eng.DEFAULT_LOCAL_PORT, "jmeter-server.log", heap)
        text = " ".join(c if c == jar else shlex.quote(c) for c in cmd)  # $JMETER_HOME left to the host's shell
        print(f"\n# on {host}: open TCP {port} (registry) and {eng.DEFAULT_LOCAL_PORT} (remote object) to the controller")
        print(text)
        names.append(f"{host}:{port}")
    print("\n# on the controller: the engines call it back; give its address and open client.rmi.localport")
    print("paste into the grid (top level, then the table):")
    print(f"remote_hosts = {json.dumps(names)}")
    print(f'[engines]\nkeystore = {json.dumps(str(keystore))}\ncontroller_host = "<the controller\'s address>"')
    return 0
