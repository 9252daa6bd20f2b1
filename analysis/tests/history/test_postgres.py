"""The history on a real PostgreSQL (started by the test): the same runs give the same history and the same trends
as on SQLite, an older store is migrated forward, and writers in parallel processes all land."""

from dataclasses import replace

import pytest

from littlegrid import summary as summary_file
from littlegrid.history import trends
from littlegrid.history.record import record
from littlegrid.history.store import SCHEMA_VERSION, open_store
from history_pg import postgres
from history_runs import a_record, add_in_parallel, run_folder


@pytest.fixture(scope="module")
def pg_url():
    with postgres() as url:
        yield url


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    out = []
    for i, (name, service) in enumerate((("r1", 50.0), ("r2", 50.0), ("r3", 50.0), ("r4", 50.0), ("r5", 60.0))):
        path = run_folder(root, name, seed=i + 1, service_ms=service, rates=(20.0,)) / "summary.json"
        out.append(record(summary_file.read(path), path))
    return out


def fill(url, records):
    store = open_store(url)
    for rec in records:
        store.add(rec)
        first = rec.run_id == "r1"
        store.set_gate(rec.key, "unjudged" if first else "failed" if rec.run_id == "r5" else "passed",
                       "start" if first else None)
    runs = store.runs(figures=True)
    store.close()
    return runs


def test_sqlite_and_postgresql_hold_the_same_history_and_trends(pg_url, records, tmp_path):
    on_sqlite = fill(str(tmp_path / "h.sqlite"), records)
    on_postgres = fill(pg_url, records)
    assert [(r.record, r.gate, r.accepted) for r in on_postgres] == [(r.record, r.gate, r.accepted) for r in on_sqlite]
    assert on_postgres[0].record.figures == records[0].figures  # every float back bit for bit

    def same_clock(runs):  # the one field that differs: when each store recorded the run
        return [replace(r, recorded_at="t") for r in runs]

    assert trends.build(same_clock(on_postgres), "h") == trends.build(same_clock(on_sqlite), "h")
    p90 = next(m for m in trends.build(on_postgres, "h").grids[0].cells[0].metrics if m.key == "p90_ms")
    assert p90.regressed[-1] is not None and p90.band_lo[3] is not None


def test_an_older_postgresql_store_is_migrated_forward(pg_url):
    from sqlalchemy import create_engine, text

    url = pg_url.replace("/postgres", "/migrated").replace("postgresql://", "postgresql+psycopg://")
    admin = create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text("CREATE DATABASE migrated"))
    admin.dispose()
    plain = pg_url.replace("/postgres", "/migrated")
    store = open_store(plain)
    store.add(a_record())
    store.close()
    engine = create_engine(url)
    with engine.begin() as conn:  # back to schema 1: runs without the gate's verdict
        conn.execute(text("ALTER TABLE runs DROP COLUMN accepted"))
        conn.execute(text("ALTER TABLE runs DROP COLUMN gate"))
        conn.execute(text("UPDATE littlegrid_meta SET value = '1'"))
    store = open_store(plain)
    assert store.set_gate("r1@t", "passed") and store.accept("r1@t")
    assert [(r.record, r.gate, r.accepted) for r in store.runs(figures=True)] == [(a_record(), "passed", "pinned")]
    store.close()
    with engine.connect() as conn:
        assert conn.execute(text("SELECT value FROM littlegrid_meta")).scalar() == str(SCHEMA_VERSION)
    engine.dispose()


def test_writers_in_parallel_processes_all_land_on_postgresql(pg_url):
    from sqlalchemy import create_engine, text

    admin = create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text("CREATE DATABASE parallel"))
    admin.dispose()
    url = pg_url.replace("/postgres", "/parallel")
    runs = add_in_parallel(url, 3, 10)
    assert sorted(r.record.run_id for r in runs) == sorted(f"w{w}-{i}" for w in range(3) for i in range(10))
