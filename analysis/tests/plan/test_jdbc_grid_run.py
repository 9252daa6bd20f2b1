"""A JDBC plan written by a user (a JDBC Connection Configuration naming a production database, a JDBC Request, its
own threads, timer and listener) run as a grid: PostgreSQL started by the grid ([processes]: initdb, a free port),
the plan derived per cell with its pool retargeted there, the driver from Maven Central in the provisioned JMeter's
lib/ (the root pom's testPlanLibraries), and its JTL analysed and reported. Two cells of 6 s: run under the load lock."""

import glob
import os
import textwrap
from pathlib import Path

import pytest

from littlegrid.commands import report
from littlegrid.run.runner import run_grid
from littlegrid.run.ports import free_port
from littlegrid.summarize import analyze
from needs import missing

ORDERS = Path(__file__).parent / "fixtures" / "jdbc_orders.jmx"


def postgres_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        missing("PostgreSQL", "no /usr/lib/postgresql/*/bin/initdb (apt-get install postgresql)")
    return Path(found[-1]).parent


def test_a_users_jdbc_plan_runs_as_a_grid_against_a_database_the_grid_starts(jmeter, tmp_path):
    if not any(p.name.startswith("postgresql-") for p in (jmeter.home / "lib").glob("*.jar")):
        missing("the PostgreSQL JDBC driver", f"not in {jmeter.home / 'lib'} (./mvnw -N initialize provisions it)")
    pg, port = postgres_bin(), free_port()
    user = 'user = "postgres"' if os.geteuid() == 0 else ""
    grid = tmp_path / "orders.toml"
    grid.write_text(textwrap.dedent(f"""
        name = "orders"
        plan = "{ORDERS}"
        criteria = ["error_rate == 0%"]

        [processes.postgres]
        {user}
        setup = [["{pg}/initdb", "-D", "${{tmp}}/data", "-U", "postgres", "--auth=trust", "--no-sync"]]
        command = ["{pg}/postgres", "-D", "${{tmp}}/data", "-p", "{port}", "-k", "${{tmp}}",
                   "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]
        ports = [{port}]
        ready = ["{pg}/pg_isready", "-h", "127.0.0.1", "-p", "{port}", "-q"]

        [target]
        protocol = "jdbc:postgresql"
        host = "127.0.0.1"
        port = {port}
        database = "postgres"

        [cell]
        duration_s = 6
        warmup_s = 1
        cooldown_s = 1
        rampup_s = 0

        [properties]
        think_ms = 20
        think_dist = "constant"

        [axes]
        users = [1, 3]
        """))
    run = run_grid(grid, out=tmp_path / "reports", run_id="orders")
    derived = (run / "cells" / "users=3" / "plan.jmx").read_text()
    assert f"jdbc:postgresql://127.0.0.1:{port}/postgres?sslmode=disable&amp;connectTimeout=5" in derived
    jtl = (run / "cells" / "users=3" / "results.jtl").read_text().splitlines()
    assert jtl[1].split(",")[2:5] == ["count open orders", "200", "OK"]  # a JDBC sample: 200 OK, no HTTP
    summary = analyze([run])
    for cell in summary.cells:
        assert cell.status == "complete" and cell.overall.count > 20 and cell.overall.errors == 0, cell.id
    assert all(c.passed for c in summary.criteria), summary.criteria
    index, _ = report.write_pages(summary, run / "report", run)
    assert Path(index).is_file() and "users=3" in Path(index).read_text(encoding="utf-8")
    assert (run / "processes" / "postgres" / "postgres.log").stat().st_size > 0
