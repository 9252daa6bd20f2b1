"""The history store: one schema for SQLite and PostgreSQL (SQLAlchemy Core), versioned and migrated forward when
opened, every write one transaction (SQLite in WAL mode with a busy timeout, so two CI jobs writing at once wait
for each other instead of failing or corrupting the file)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from littlegrid.usererror import UserError

DEFAULT = "reports/history.sqlite"
# 1: runs and their figures; 2: the gate's verdict of each run (runs.gate), which `history:last-pass` reads; 3: a
# run accepted as its series' reference (runs.accepted: the series' first run, or pinned by `history accept`) and the
# verdict `unjudged`
SCHEMA_VERSION = 3
BUSY_TIMEOUT_MS = 60_000  # a CI job waits this long for another's write before giving up, in one line
METRIC_KEYS = ("throughput_per_s", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "error_rate")
GATE_VERDICTS = ("passed", "failed", "unjudged")  # unjudged: nothing to judge against, or a figure missing
ACCEPTED = ("start", "pinned")  # the series' first run (its reference until others pass), or `history accept`


@dataclass(frozen=True)
class Figure:
    """One metric of one cell of one run: the figure, its within-run 95% interval and standard error, and the
    samples it was measured from."""
    cell: str
    axes: dict
    metric: str  # METRIC_KEYS
    value: float | None
    lo: float | None
    hi: float | None
    se: float | None
    samples: int


@dataclass(frozen=True)
class RunRecord:
    """What the history keeps of a run: what makes it comparable (grid, plan, server configuration, kind of host),
    where it came from (commit, report) and its figures."""
    key: str  # the run's identity in the store: its id and start, so a run added twice replaces itself
    run_id: str
    grid_name: str | None
    grid_hash: str
    plan_hash: str | None
    config: dict  # the server configuration: knobs, pinned CPUs, where the target ran
    config_hash: str
    host: dict  # cpus, memory_gib, os, arch, kernel, hostname
    host_kind: str  # what makes hosts comparable: cpus, memory, os, arch
    commit: str | None
    started: str | None
    report: str | None  # the run's report folder, as given when it was added
    figures: tuple[Figure, ...]

    @property
    def series(self) -> str:
        """The series the run belongs to: runs of one grid that measure the same thing (grid as measured, plan,
        server configuration, kind of host; history/series.py)."""
        return digest([self.grid_name, self.grid_hash, self.plan_hash, self.config_hash, self.host_kind])


@dataclass(frozen=True)
class StoredRun:
    """A run as the store holds it: its record (figures left out unless asked for), its order, the gate's verdict
    (None: not gated) and whether it was accepted as its series' reference (None, "start" or "pinned")."""
    pk: int
    record: RunRecord
    recorded_at: str
    gate: str | None
    accepted: str | None = None


def digest(value) -> str:
    """A short hash of a value's canonical JSON (sorted keys): equal values, equal hashes on any machine."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def by_cell(figures) -> dict[str, dict[str, Figure]]:
    """A run's figures by cell, then by metric."""
    out: dict[str, dict[str, Figure]] = {}
    for f in figures:
        out.setdefault(f.cell, {})[f.metric] = f
    return out


def url_of(given: str | None) -> str:
    """A database URL from what the user typed: a URL as is, a path (or nothing: the default file) as SQLite."""
    given = given or DEFAULT
    if "://" in given:
        return given
    return f"sqlite:///{Path(given).resolve()}"


def _one_line(method):
    """A store operation whose database fails underneath it (the server went away, the disk is full, a lock held
    past the busy timeout) says so in one line naming the database instead of a traceback."""
    import functools

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        from sqlalchemy.exc import DBAPIError

        try:
            return method(self, *args, **kwargs)
        except DBAPIError as e:
            first = str(e.orig).strip().splitlines()[0] if e.orig is not None else str(e)
            raise UserError(f"{self.shown}: the history failed: {first}") from None
    return guarded


class Store:
    """An opened history (open_store): its engine and the tables, at SCHEMA_VERSION."""

    def __init__(self, engine, tables, shown: str = DEFAULT):
        self.engine, self.t, self.shown = engine, tables, shown

    def close(self) -> None:
        self.engine.dispose()

    @_one_line
    def add(self, record: RunRecord) -> int:
        """Record a run with its figures in one transaction; a run recorded before (same key) is replaced."""
        from sqlalchemy import delete, insert, select

        runs, figures = self.t["runs"], self.t["figures"]
        with self.engine.begin() as conn:
            _lock(conn)
            old = conn.execute(select(runs.c.id, runs.c.gate, runs.c.accepted).where(runs.c.key == record.key)).first()
            gate = accepted = None
            if old is not None:
                gate, accepted = old.gate, old.accepted
                conn.execute(delete(figures).where(figures.c.run == old.id))
                conn.execute(delete(runs).where(runs.c.id == old.id))
            pk = conn.execute(insert(runs).values(
                key=record.key, run_id=record.run_id, grid_name=record.grid_name, grid_hash=record.grid_hash,
                plan_hash=record.plan_hash, config=_json(record.config), config_hash=record.config_hash,
                host=_json(record.host), host_kind=record.host_kind, commit=record.commit, started=record.started,
                report=record.report, recorded_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                gate=gate, accepted=accepted)).inserted_primary_key[0]
            if record.figures:
                conn.execute(insert(figures), [
                    {"run": pk, "cell": f.cell, "axes": _json(f.axes), "metric": f.metric, "value": f.value,
                     "lo": f.lo, "hi": f.hi, "se": f.se, "samples": f.samples} for f in record.figures])
        return pk

    @_one_line
    def set_gate(self, key: str, verdict: str, accepted: str | None = None) -> bool:
        """The gate's verdict of the run recorded under `key`, and whether it starts its series as the reference
        (accepted "start"); False when the store does not hold it. A pinned run stays pinned."""
        from sqlalchemy import update

        assert verdict in GATE_VERDICTS and accepted in (None, "start")
        runs = self.t["runs"]
        with self.engine.begin() as conn:
            _lock(conn)
            held = conn.execute(update(runs).where(runs.c.key == key).values(gate=verdict)).rowcount > 0
            if held and accepted:
                conn.execute(update(runs).where(runs.c.key == key, runs.c.accepted.is_(None)).values(accepted=accepted))
            return held

    @_one_line
    def accept(self, key: str) -> bool:
        """Pin the run recorded under `key` as its series' reference (`history accept`): from it on, the series'
        reference set and noise start again (a deliberate change of performance); False when it is not held."""
        from sqlalchemy import update

        runs = self.t["runs"]
        with self.engine.begin() as conn:
            _lock(conn)
            return conn.execute(update(runs).where(runs.c.key == key).values(accepted="pinned")).rowcount > 0

    @_one_line
    def runs(self, *, figures: bool = False) -> list[StoredRun]:
        """Every run in the order it was recorded, with its figures when asked for."""
        from sqlalchemy import select

        runs, fig = self.t["runs"], self.t["figures"]
        with self.engine.connect() as conn:
            rows = conn.execute(select(runs).order_by(runs.c.id)).all()
            held: dict[int, list[Figure]] = {}
            if figures:
                for f in conn.execute(select(fig).order_by(fig.c.run, fig.c.id)).all():
                    held.setdefault(f.run, []).append(Figure(f.cell, json.loads(f.axes), f.metric, f.value, f.lo,
                                                             f.hi, f.se, f.samples))
        return [StoredRun(r.id, RunRecord(
            r.key, r.run_id, r.grid_name, r.grid_hash, r.plan_hash, json.loads(r.config), r.config_hash,
            json.loads(r.host), r.host_kind, r.commit, r.started, r.report, tuple(held.get(r.id, ()))),
            r.recorded_at, r.gate, r.accepted) for r in rows]


def open_store(given: str | None, *, create: bool = True) -> Store:
    """The history at `given` (a URL or a path; None: DEFAULT), created or migrated forward to SCHEMA_VERSION. A
    store written by a newer littlegrid, an unknown kind of database or one that cannot be reached is refused in one
    line naming it. create=False: a store that does not exist yet is refused instead of created."""
    from sqlalchemy import create_engine, event
    from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

    url = url_of(given)
    if url.startswith("sqlite:///") and not create and not Path(url[len("sqlite:///"):]).is_file():
        raise UserError(f"{given or DEFAULT}: no history here yet; `littlegrid history add RUN` records a first run")
    if url.startswith("sqlite:///"):
        Path(url[len("sqlite:///"):]).parent.mkdir(parents=True, exist_ok=True)
    scheme = url.split("://", 1)[0]
    if scheme.split("+")[0] not in ("sqlite", "postgresql", "postgres"):
        raise UserError(f"--db {given}: a {scheme} URL; the history lives in SQLite (a file path or sqlite:///FILE) "
                        f"or PostgreSQL (postgresql://USER@HOST/DB)")
    if scheme in ("postgresql", "postgres"):  # psycopg 3, the driver littlegrid installs, not SQLAlchemy's default
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    try:
        engine = create_engine(url)
    except (ArgumentError, NoSuchModuleError, ImportError) as e:
        raise UserError(f"--db {given}: not a database URL littlegrid can open ({e}); give a file path, "
                        f"sqlite:///FILE or postgresql://USER@HOST/DB") from None
    if engine.dialect.name == "sqlite":
        @event.listens_for(engine, "connect")
        def _sqlite(dbapi, _record):
            dbapi.isolation_level = None  # SQLAlchemy's BEGIN below, not the driver's deferred one
            dbapi.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            dbapi.execute("PRAGMA journal_mode = WAL")  # readers never block the writer, one writer at a time
            dbapi.execute("PRAGMA foreign_keys = ON")

        @event.listens_for(engine, "begin")
        def _immediate(conn):
            # IMMEDIATE takes the write lock at BEGIN: two writers queue on the busy timeout instead of one failing
            # when it upgrades a read lock (SQLITE_BUSY without waiting)
            conn.exec_driver_sql("BEGIN IMMEDIATE")
    tables = _tables()
    try:
        _migrate(engine, tables, given or DEFAULT)
    except DBAPIError as e:
        engine.dispose()
        first = str(e.orig).strip().splitlines()[0] if e.orig is not None else str(e)
        raise UserError(f"--db {given or DEFAULT}: cannot open the history: {first}") from None
    return Store(engine, tables, given or DEFAULT)


def _tables() -> dict:
    from sqlalchemy import (Column, Float, ForeignKey, Index, Integer, MetaData, String, Table, Text)

    meta = MetaData()
    info = Table("littlegrid_meta", meta, Column("name", String(64), primary_key=True), Column("value", Text))
    runs = Table(
        "runs", meta,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("key", String(400), nullable=False, unique=True),
        Column("run_id", Text, nullable=False),
        Column("grid_name", Text), Column("grid_hash", String(64), nullable=False), Column("plan_hash", String(64)),
        Column("config", Text, nullable=False), Column("config_hash", String(64), nullable=False),
        Column("host", Text, nullable=False), Column("host_kind", String(64), nullable=False),
        Column("commit", String(64)), Column("started", String(40)), Column("report", Text),
        Column("recorded_at", String(40), nullable=False),
        Column("gate", String(16)),  # schema 2
        Column("accepted", String(16)),  # schema 3
    )
    figures = Table(
        "figures", meta,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("run", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
        Column("cell", Text, nullable=False), Column("axes", Text, nullable=False),
        Column("metric", String(32), nullable=False),
        Column("value", Float), Column("lo", Float), Column("hi", Float), Column("se", Float),
        Column("samples", Integer, nullable=False),
        Index("figures_by_run", "run"),
    )
    return {"meta": meta, "info": info, "runs": runs, "figures": figures}


# version -> what moves a store of that version to the next, in plain SQL both backends take
MIGRATIONS = {1: ["ALTER TABLE runs ADD COLUMN gate VARCHAR(16)"],
              2: ["ALTER TABLE runs ADD COLUMN accepted VARCHAR(16)"]}


def _migrate(engine, tables, shown: str) -> None:
    """Create the tables in an empty store, or bring an older one forward step by step, in one transaction that
    holds the write lock, so two processes opening a new store at once create it once."""
    from sqlalchemy import insert, inspect, select, update

    info = tables["info"]
    with engine.begin() as conn:
        _lock(conn)
        if not inspect(conn).has_table("littlegrid_meta"):
            if inspect(conn).has_table("runs"):
                raise UserError(f"{shown}: has a table `runs` but no littlegrid_meta: not a littlegrid history")
            tables["meta"].create_all(conn)
            conn.execute(insert(info).values(name="schema_version", value=str(SCHEMA_VERSION)))
            return
        found = conn.execute(select(info.c.value).where(info.c.name == "schema_version")).scalar()
        version = int(found) if found and str(found).isdigit() else None
        if version is None:
            raise UserError(f"{shown}: its schema version is unreadable ({found!r}): not a littlegrid history")
        if version > SCHEMA_VERSION:
            raise UserError(f"{shown}: history schema {version}, written by a newer littlegrid (this one reads up to "
                            f"{SCHEMA_VERSION}); upgrade littlegrid")
        while version < SCHEMA_VERSION:
            for statement in MIGRATIONS[version]:
                conn.exec_driver_sql(statement)
            version += 1
            conn.execute(update(info).where(info.c.name == "schema_version").values(value=str(version)))


def _lock(conn) -> None:
    """PostgreSQL: one writer of the history at a time (a transaction-scoped advisory lock), as SQLite's
    BEGIN IMMEDIATE gives: two first runs never both create the tables, and a replaced run is never seen half."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("SELECT pg_advisory_xact_lock(5252)")


def _json(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
