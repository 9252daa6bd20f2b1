"""The history store on SQLite: a run's record read back as written, a run added twice replaced, an older store
migrated forward on open, a newer one refused, and writers in parallel processes that all land."""

import sqlite3

import pytest

from history_runs import a_record, add_in_parallel
from littlegrid.history import store as history_store
from littlegrid.history.store import open_store
from littlegrid.usererror import UserError


def test_a_run_reads_back_as_it_was_recorded_and_a_second_add_replaces_it(tmp_path):
    db = tmp_path / "h.sqlite"
    store = open_store(str(db))
    rec = a_record()
    store.add(rec)
    assert store.set_gate(rec.key, "passed")
    store.add(a_record(p90=130.0))  # the same run added again: replaced, its gate verdict kept
    store.add(a_record(key="r2@t", run_id="r2"))
    got = store.runs(figures=True)
    store.close()
    assert [r.record.run_id for r in got] == ["r1", "r2"]
    assert got[0].record == a_record(p90=130.0) and got[0].gate == "passed" and got[1].gate is None
    assert got[1].record == a_record(key="r2@t", run_id="r2")


def test_the_verdicts_a_series_start_and_a_pin_are_kept_and_a_pin_outlives_a_later_verdict(tmp_path):
    store = open_store(str(tmp_path / "h.sqlite"))
    for i in (1, 2, 3):
        store.add(a_record(key=f"r{i}@t", run_id=f"r{i}"))
    assert store.set_gate("r1@t", "unjudged", "start") and store.set_gate("r2@t", "failed")
    assert store.accept("r3@t") and store.set_gate("r3@t", "unjudged", "start")  # pinned stays pinned
    assert not store.accept("gone@t") and not store.set_gate("gone@t", "passed")
    store.add(a_record(key="r1@t", run_id="r1", p90=99.0))  # added again: verdict and start kept
    got = [(r.record.run_id, r.gate, r.accepted) for r in store.runs()]
    store.close()
    assert got == [("r2", "failed", None), ("r3", "unjudged", "pinned"), ("r1", "unjudged", "start")]
    with pytest.raises(AssertionError):
        open_store(str(tmp_path / "h.sqlite")).set_gate("r1@t", "maybe")


def test_a_store_of_schema_1_is_migrated_forward_on_open_and_keeps_its_runs(tmp_path):
    db = tmp_path / "old.sqlite"
    store = open_store(str(db))
    store.add(a_record())
    store.close()
    with sqlite3.connect(db) as conn:  # back to schema 1 as it was written: runs without the gate's verdict
        conn.execute("ALTER TABLE runs DROP COLUMN accepted")
        conn.execute("ALTER TABLE runs DROP COLUMN gate")
        conn.execute("UPDATE littlegrid_meta SET value = '1' WHERE name = 'schema_version'")
    store = open_store(str(db))
    assert store.set_gate("r1@t", "failed") and store.accept("r1@t")
    runs = store.runs(figures=True)
    store.close()
    assert [(r.record, r.gate, r.accepted) for r in runs] == [(a_record(), "failed", "pinned")]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM littlegrid_meta").fetchall() == [(str(history_store.SCHEMA_VERSION),)]


def test_a_newer_store_a_foreign_database_and_a_missing_one_are_refused_in_one_line(tmp_path):
    db = tmp_path / "new.sqlite"
    open_store(str(db)).close()
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE littlegrid_meta SET value = '99' WHERE name = 'schema_version'")
    with pytest.raises(UserError, match=r"history schema 99, written by a newer littlegrid \(this one reads up to 3\)"):
        open_store(str(db))
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE runs (x INTEGER)")
    with pytest.raises(UserError, match="has a table `runs` but no littlegrid_meta: not a littlegrid history"):
        open_store(str(foreign))
    with pytest.raises(UserError, match="no history here yet"):
        open_store(str(tmp_path / "absent.sqlite"), create=False)
    with pytest.raises(UserError, match="a mysql URL; the history lives in SQLite"):
        open_store("mysql://localhost/x")
    assert history_store.url_of("h.sqlite").startswith("sqlite:////") and history_store.url_of(None).endswith(
        "reports/history.sqlite")


def test_writers_in_parallel_processes_all_land_and_the_file_stays_whole(tmp_path):
    db = str(tmp_path / "shared.sqlite")
    runs = add_in_parallel(db, 3, 15)
    assert sorted(r.record.run_id for r in runs) == sorted(f"w{w}-{i}" for w in range(3) for i in range(15))
    assert all(len(r.record.figures) == 3 for r in runs)
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_a_database_that_cannot_be_reached_or_read_is_one_line(tmp_path):
    with pytest.raises(UserError, match=r"^--db postgresql://littlegrid@127.0.0.1:1/none: cannot open the history: "):
        open_store("postgresql://littlegrid@127.0.0.1:1/none")
    db = tmp_path / "h.sqlite"
    store = open_store(str(db))
    with sqlite3.connect(db) as conn:  # the table gone under an open store: its next read fails
        conn.execute("DROP TABLE figures")
    with pytest.raises(UserError, match=r"h.sqlite: the history failed: no such table: figures$"):
        store.runs(figures=True)
    store.close()
