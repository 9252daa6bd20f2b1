"""Distributed JMeter across a real (virtual) network: the sample server and two engines each in a network namespace
of their own, joined by veth pairs to a bridge in the root namespace, where the controller (`littlegrid run`) stays.
RMI over SSL; every RMI name is a namespace address, none a loopback one (a loopback name cannot work across
namespaces: the run would fail). A closed grid over it must give the figures one host gives: the closed law, and
X = min(N/(S+Z), c/S). A plan of one's own (plans/examples/shop.jmx, run through its derived plan) over the same
engines runs each engine's share of N = 5 (3 + 2), and its active threads add up to 5.

Needs root and `ip netns` (CI runs as root); everything made here is removed at the end, also on failure. Traffic
goes only to the addresses of the namespaces made here (10.231.0.0/24 on our own bridge). Under the load lock:
    flock "$HOME/.littlegrid-load.lock" pytest tests/run/test_distributed_netns.py
"""

import json
import os
from contextlib import ExitStack
from pathlib import Path

import pytest

from littlegrid.summarize import analyze
from littlegrid.findings.engines import engine_shares
from littlegrid.run import engines
from littlegrid.run.jmeter import repo_root
from littlegrid.run.runner import run_grid
from netns import namespaces, netns_available, start_in, wait_listening  # noqa: F401 (netns_available: a fixture)

pytestmark = pytest.mark.integration

NET = "10.231.0"                  # a private range used only on the bridge made here
CONTROLLER = f"{NET}.1"           # the bridge's address in the root namespace
SERVER = f"{NET}.2"
ENGINES = (f"{NET}.3", f"{NET}.4")
THREADS, SERVICE_S, THINK_MS = 4, 0.1, 50  # c, S (the sample server holds GET / for 100 ms), Z
USERS = (4, 16)                   # one cell under the knee (N/(S+Z) = 26.7/s), one past it (c/S = 40/s)
SHOP_USERS = 5                    # the example shop's flow: 150 ms of service a flow, about 2 of the 4 threads busy
DURATION_S, WARMUP_S, COOLDOWN_S = 20, 4, 2

RMI_IN_THE_CLEAR = "Disabling SSL for RMI"


def grid_over_namespaces(path: Path, plan: Path, keystore: Path, users, target_path: str | None = None) -> Path:
    """A closed grid of `plan` against the namespaced server, over both namespaced engines, RMI over SSL."""
    path.write_text(f"""
name = "{path.stem}"
plan = "{plan}"
remote_hosts = {json.dumps([f"{a}:1099" for a in ENGINES])}
[engines]
keystore = "{keystore}"
controller_host = "{CONTROLLER}"
[target]
host = "{SERVER}"
port = 8080
{f'path = "{target_path}"' if target_path else ""}
[cell]
duration_s = {DURATION_S}
warmup_s = {WARMUP_S}
cooldown_s = {COOLDOWN_S}
rampup_s = 1
[properties]
think_dist = "constant"
[axes]
users = {list(users)}
think_ms = [{THINK_MS}]
""")
    return path


def test_a_closed_grid_over_two_engines_in_their_own_namespaces_matches_the_laws_over_rmi_ssl(
        tmp_path, jmeter, server_jar, runnable, netns_available):
    tag = str(os.getpid() % 1000)
    keystore = engines.create_keystore(tmp_path / "rmi.jks", days=1)
    rmi = engines.Rmi(keystore=keystore, controller_host=CONTROLLER)
    roles = {"server": SERVER, "engine1": ENGINES[0], "engine2": ENGINES[1]}
    with namespaces(tag, NET, roles) as ns, ExitStack() as stack:
        server_log = tmp_path / "server.log"
        server = start_in(ns["server"], ["java", "-Xmx256m", "-jar", str(server_jar), "--server.port=8080",
                                         f"--server.address={SERVER}", "--management.server.port=8081",
                                         f"--management.server.address={SERVER}",
                                         f"--server.tomcat.threads.max={THREADS}"], server_log, stack)
        names = []
        for i, address in enumerate(ENGINES, 1):
            log = tmp_path / f"engine{i}.log"
            cmd = engines.engine_command(jmeter.jar, rmi, address, 1099, 50000, log, heap="256m")
            process = start_in(ns[f"engine{i}"], cmd, tmp_path / f"engine{i}.out", stack)
            names.append((address, process, tmp_path / f"engine{i}.out"))
        wait_listening(SERVER, 8080, server, server_log)
        for address, process, out in names:
            wait_listening(address, 1099, process, out)

        root = repo_root(Path(__file__).parent)
        grid = grid_over_namespaces(tmp_path / "netns.toml", root / "plans" / "closed.jmx", keystore, USERS,
                                    target_path="/")
        run = run_grid(grid, out=tmp_path / "reports", run_id="netns", jmeter_heap="256m")
        # A plan of one's own over the same engines: the example shop (recorded, hard-coded threads, a CSV of users,
        # four requests in three transactions), N = 5 dealt out 3 + 2
        shop = grid_over_namespaces(tmp_path / "shop.toml", root / "plans" / "examples" / "shop.jmx", keystore,
                                    (SHOP_USERS,))
        own = run_grid(shop, out=tmp_path / "reports", run_id="netns-shop", jmeter_heap="256m")

    # every RMI name was a namespace address: the engines' own and the controller's callback address
    for i, address in enumerate(ENGINES, 1):
        text = (tmp_path / f"engine{i}.log").read_text()
        assert f"Local IP address={address}" in text and "Local IP address=127." not in text
        assert RMI_IN_THE_CLEAR not in text  # the engine's RMI sockets were SSL ones
    for cell_dir in (run / "cells").iterdir():
        log = (cell_dir / "jmeter.log").read_text()
        assert f"Local IP address={CONTROLLER}" in log and "Local IP address=127." not in log
        # JMeter's RmiUtils logs this line whenever server.rmi.ssl.disable is set, and nothing when SSL is on ("SSL"
        # alone also matched this very line)
        assert RMI_IN_THE_CLEAR not in log

    summary = analyze([run])
    assert engine_shares(summary) == []  # both engines on their share: no generator finding
    assert [c.status for c in summary.cells] == ["complete"] * len(USERS)
    for cell in summary.cells:
        n = cell.axes["users"]
        checks = {c.name: c for c in cell.checks}
        assert cell.users.n == n, cell.id  # users is the total, split across the two engines
        assert checks["users"].passed, checks["users"]
        assert checks["closed_law"].passed, checks["closed_law"]
        assert checks["engine_clocks"].passed, checks["engine_clocks"]  # one host's clock: the engines agree
        shares = {s.engine: s.threads for s in cell.engine_shares}
        assert shares == dict(zip([f"{a}:1099" for a in ENGINES], [n // 2, n // 2])), shares
        assert cell.overall.error_rate < 0.01, cell.id
        # What the laws guarantee, each with its tolerance from the window. The asymptotic bound X <= N/(S+Z) and
        # c/S caps from above (up to N requests straddle each edge of the window); R cannot fall below S. Below the
        # bound X sits at N/(R+Z): the closed law above with the realised R and Z, and the workload check with the
        # intended Z (the generator delivered the load asked). How far R rises above S on the veth path (108 ms for
        # S = 100 ms on a quiet host, 0.93 of the bound at N = 4) is the path's own time, which no law bounds: a
        # fixed allowance for it failed on quiet fresh-clone runs (0.925 and 0.930 of the bound).
        bound = min(n / (SERVICE_S + THINK_MS / 1000), THREADS / SERVICE_S)
        x = cell.overall.throughput_per_s
        edges = 2 * n / (bound * cell.window.length_s)
        assert x <= bound * (1 + edges), (cell.id, x, bound, edges)
        assert cell.overall.mean_ms >= 1000 * SERVICE_S, (cell.id, cell.overall.mean_ms)
        assert checks["workload"].passed, checks["workload"]
        if n >= 2 * THREADS:  # well past the knee the pool is never idle: X = c/S by the utilisation law, 5% kept
            assert x >= THREADS / SERVICE_S * (1 - 0.05 - edges), (cell.id, x, THREADS / SERVICE_S)  # for its overhead

    (cell,) = analyze([own]).cells
    names = [f"{a}:1099" for a in ENGINES]
    manifest = json.loads((own / "cells" / cell.id / "manifest.json").read_text())
    assert manifest["threads_by_engine"] == {names[0]: 3, names[1]: 2} and manifest["load_groups"] == {"Shoppers": 5}
    assert cell.status == "complete" and cell.users.n == SHOP_USERS and cell.overall.error_rate < 0.01, cell.id
    assert {s.engine: (s.threads, s.threads_seen) for s in cell.engine_shares} == {names[0]: (3, 3), names[1]: (2, 2)}
    checks = {c.name: c for c in cell.checks}
    assert checks["users"].passed, checks["users"]  # allThreads peaks at 3, the larger share
    assert checks["closed_law"].passed, checks["closed_law"]
    series = cell.series
    steady = [v for t, v in zip(series.t_s, series.active_threads)
              if series.window_start_s <= t and t + series.bucket_s <= series.window_end_s]
    assert steady and set(steady) == {float(SHOP_USERS)}, steady  # 3 + 2 each second, not the larger share × 2
