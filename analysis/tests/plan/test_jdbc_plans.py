"""A JDBC plan of the user's own (a JDBC Connection Configuration with a production URL and a JDBC Request):
inspected with the URL its pool reaches, derived with that URL retargeted to the grid's JDBC [target] (parameters
kept, the database the grid's or the plan's), or kept as written only when [plan_options] jdbc = "keep" says so;
never silently: an HTTP target, another subprotocol, a missing pool or a missing driver is refused."""

import textwrap
from pathlib import Path

import pytest

from littlegrid.plan import inspect as facts
from littlegrid.plan.derive import CellLoad, PlanOptions, derive
from littlegrid.plan.jmx import PlanError, from_bytes, load
from littlegrid.run.grid_file import load_grid
from littlegrid.usererror import UserError

FIXTURES = Path(__file__).parent / "fixtures"
ORDERS = FIXTURES / "jdbc_orders.jmx"
TIMER_PLAN = Path(__file__).parents[3] / "plans" / "closed.jmx"
URL = "jdbc:postgresql://db.prod.example.com:5433/orders?sslmode=disable&connectTimeout=5"


def cell(**kw) -> CellLoad:
    values = dict(users=4, rate_per_s=None, think_ms=0.0, think_dist="constant", rampup_s=1.0, duration_s=10.0,
                  protocol="jdbc:postgresql", host="127.0.0.1", port=15432, label="users=4")
    return CellLoad(**(values | kw))


def pool_url(xml: bytes) -> str:
    plan = from_bytes(xml, "derived")
    return next(n.prop("dbUrl") for n in plan.nodes() if n.tag == "JDBCDataSource")


def test_inspect_states_the_url_the_jdbc_request_reaches_through_its_pool():
    result = facts.inspect(load(ORDERS))
    [target] = result.targets
    assert (target.protocol, target.host, target.port, target.database) == ("jdbc:postgresql", "db.prod.example.com",
                                                                           5433, "orders")
    assert target.url == URL and 'JDBC Connection Configuration "orders db" (pool orders)' in target.via
    assert result.runnable
    assert any('[plan_options] jdbc = "keep"' in n for n in result.notes)


def test_derive_retargets_the_pool_to_the_grids_jdbc_target_keeping_the_parameters():
    derived = derive(ORDERS, PlanOptions(), cell(), TIMER_PLAN)
    assert pool_url(derived.xml) == "jdbc:postgresql://127.0.0.1:15432/orders?sslmode=disable&connectTimeout=5"
    assert any(f"{URL} -> jdbc:postgresql://127.0.0.1:15432/orders" in c for c in derived.changes)
    assert derived.group_threads == {"Readers": 4}
    renamed = derive(ORDERS, PlanOptions(), cell(database="littlegrid"), TIMER_PLAN)
    assert pool_url(renamed.xml).startswith("jdbc:postgresql://127.0.0.1:15432/littlegrid?sslmode=disable")


def test_keep_leaves_the_url_as_written_and_says_so():
    derived = derive(ORDERS, PlanOptions(jdbc="keep"), cell(protocol="http", port=8080), TIMER_PLAN)
    assert pool_url(derived.xml) == URL
    assert any('kept as written' in c and '[plan_options] jdbc = "keep"' in c for c in derived.changes)


@pytest.mark.parametrize("kw, problem", [
    ({"protocol": "http", "port": 8080}, 'give [target] protocol = "jdbc:postgresql"'),
    ({"protocol": "jdbc:mysql"}, "speaks jdbc:postgresql and the grid's target is jdbc:mysql"),
])
def test_a_jdbc_plan_is_never_retargeted_or_kept_silently(kw, problem):
    with pytest.raises(PlanError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        derive(ORDERS, PlanOptions(), cell(**kw), TIMER_PLAN)


def test_a_request_naming_no_pool_and_a_driver_jmeter_lacks_are_blockers(tmp_path):
    text = ORDERS.read_text(encoding="utf-8")
    broken = tmp_path / "broken.jmx"
    broken.write_text(text.replace('<stringProp name="dataSource">orders</stringProp>\n          <stringProp name="query">',
                                   '<stringProp name="dataSource">order</stringProp>\n          <stringProp name="query">')
                      .replace("org.postgresql.Driver", "com.example.NoSuchDriver"), encoding="utf-8")
    home = tmp_path / "jmeter"
    (home / "lib" / "ext").mkdir(parents=True)
    blockers = facts.inspect(load(broken), jmeter_home=home).blockers
    assert any("no enabled JDBC Connection Configuration defines the pool 'order'" in b for b in blockers), blockers
    assert any("its driver com.example.NoSuchDriver is not in JMeter's lib/" in b and "testPlanLibraries" in b
               for b in blockers), blockers


def test_a_grid_names_a_jdbc_target_by_protocol_host_port_and_database(tmp_path):
    grid = tmp_path / "orders.toml"
    grid.write_text(textwrap.dedent(f"""
        name = "orders"
        plan = "{ORDERS}"
        [target]
        protocol = "jdbc:postgresql"
        host = "127.0.0.1"
        port = 15432
        database = "littlegrid"
        [axes]
        users = [1, 4]
        """))
    g = load_grid(grid)
    assert (g.target.protocol, g.target.database) == ("jdbc:postgresql", "littlegrid")
    assert g.target.properties() == {"host": "127.0.0.1", "port": 15432, "protocol": "jdbc:postgresql",
                                     "database": "littlegrid"}
    grid.write_text(grid.read_text().replace('database = "littlegrid"', 'path = "/x"'))
    with pytest.raises(UserError, match=r"\[target\] path: a plan of your own sends its own requests"):
        load_grid(grid)
    grid.write_text(grid.read_text().replace('path = "/x"', "").replace("[axes]", '[plan_options]\njdbc = "hold"\n[axes]'))
    with pytest.raises(UserError, match=r"\[plan_options\] jdbc: must be one of retarget, keep"):
        load_grid(grid)
