"""A grid as littlegrid runs it: target, server, timing, axes and the cells they expand into (grid_file.py
reads and validates the TOML file)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from littlegrid.analysis.observed.mapping import PoolSpec
from littlegrid.plan.derive import PlanOptions
from littlegrid.run.engines import Rmi
from littlegrid.run.parts import PartSpec
from littlegrid.usererror import UserError

if TYPE_CHECKING:
    from littlegrid.analysis.steady.steady_state import Rule

UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9._=,+-]")


@dataclass(frozen=True)
class Target:
    """Where the load goes: an HTTP service (the plan's host/port/path/method/body properties) or a database over
    JDBC (protocol "jdbc:<subprotocol>", host, port and database: the JDBC plans' connection URL)."""

    host: str
    port: int
    path: str = "/"
    method: str = "GET"
    body: str | None = None
    protocol: str = "http"
    database: str | None = None  # a JDBC target's database (None: the plan's own)

    @property
    def jdbc(self) -> bool:
        return is_jdbc(self.protocol)

    def jdbc_url(self, database: str | None = None, query: str = "") -> str:
        """jdbc:<subprotocol>://host:port/database[?query]: the database the grid names, else `database`."""
        name = self.database if self.database is not None else (database or "")
        return f"{self.protocol}://{self.host}:{self.port}/{name}" + (f"?{query}" if query else "")

    def properties(self) -> dict:
        props = {"host": self.host, "port": self.port, "protocol": self.protocol}
        if self.jdbc:
            return props | ({"database": self.database} if self.database is not None else {})
        props |= {"path": self.path, "method": self.method}
        if self.body is not None:
            props["body"] = self.body
        return props


def is_jdbc(protocol: str) -> bool:
    """A JDBC subprotocol as a JDBC URL starts ("jdbc:postgresql"), not an HTTP scheme."""
    return bool(re.fullmatch(r"jdbc:[a-z][a-z0-9]*", protocol or ""))


@dataclass(frozen=True)
class ServerSpec:
    """The sample server the runner starts: base knobs (Spring properties), port (None = a free one), heap."""

    knobs: dict
    port: int | None = None
    heap: str = "512m"
    ready_timeout_s: float = 60.0
    # [server] cpus: the CPUs the server is pinned to; JMeter then runs on the others (None: both anywhere)
    cpus: tuple[int, ...] | None = None
    # [server] warmup_s: requests to the target after each start, before the first cell (run/server_warmup.py)
    warmup_s: float = 0.0


@dataclass(frozen=True)
class ObserveSpec:
    """[observe]: the Prometheus endpoints scraped once a second through every cell, and the pools the user names."""

    sources: tuple[str, ...] = ()
    lines: tuple[int | None, ...] = ()  # each source's line in the grid file, for a refusal to name
    pools: tuple[PoolSpec, ...] = ()

    @property
    def keep(self) -> frozenset[str]:
        """The sample names the user's pools read, kept beside the known families."""
        return frozenset(n for p in self.pools for n in (p.busy.metric, getattr(p.size, "metric", None)) if n)


@dataclass(frozen=True)
class Timing:
    """Per-cell timing in seconds; warm-up and cool-down are trimmed by the analysis, not by JMeter.

    `until`: "duration" runs every cell for `duration_s`; "precise" runs it until its X and mean R are known to
    `precision` (steady_state.judge), with a steady window of at least `min_s`, and never longer than `max_s`.
    `duration_s` is the plan's run time in both (ramp-up included): a precise cell's is its bound, `max_s`, so
    its thread groups end there by themselves if the runner never stops them earlier."""

    duration_s: float
    warmup_s: float
    cooldown_s: float
    rampup_s: float
    repetitions: int
    # Knob axes vary fastest: cells that differ only in the server's settings (an experiment's arms) run back to
    # back, each with its own server start, so the host's drift over minutes falls alike on every arm.
    interleave: bool = False
    until: str = "duration"             # "duration" | "precise"
    precision: float | None = None      # precise: relative half-width at 95% of X and of mean R, e.g. 0.02
    min_s: float | None = None          # precise: the steady window's fewest seconds before a cell may stop
    max_s: float | None = None          # precise: the cell's most seconds (= duration_s)

    @property
    def precise(self) -> bool:
        return self.until == "precise"

    def rule(self) -> "Rule | None":
        """The stopping rule the runner and the analysis apply (None: a fixed-duration cell)."""
        if not self.precise:
            return None
        from littlegrid.analysis.steady.steady_state import Rule  # noqa: PLC0415 (numpy and scipy only when precise)
        return Rule(precision=self.precision, min_s=self.min_s, max_s=self.max_s,
                    warmup_floor_s=self.warmup_s, cooldown_s=self.cooldown_s)


@dataclass(frozen=True)
class SearchRange:
    """A range axis, `users = { min = 1, max = 400 }`: the interval `littlegrid search` explores."""

    low: float
    high: float
    resolution: float | None = None  # None: the search's default (1 user, 2 % of the rate)


@dataclass(frozen=True)
class Cell:
    """One point of the grid = one JMeter run."""

    index: int          # 1-based position in run order
    id: str             # "users=20,think_ms=50" (+ ",rep=2"): readable and filesystem-safe
    axes: dict          # axis name -> value, in the grid's axis order
    repetition: int
    plan_properties: dict  # the plan's -J properties for this cell: fixed [properties] + plan axes
    knobs: dict | None     # the sample server's knobs for this cell (None: no server started)


@dataclass(frozen=True)
class Grid:
    """A validated grid file."""

    path: Path
    name: str
    description: str
    plan: Path
    target: Target | None      # None when the runner starts the sample server
    server: ServerSpec | None
    timing: Timing
    properties: dict           # fixed plan properties
    jmeter_properties: dict    # JMeter's own properties (not the plan's), passed as-is
    axes: dict                 # name -> list of values, in declared order
    knob_axes: tuple           # axis names that are server knobs
    tolerances: dict
    criteria: tuple
    remote_hosts: tuple
    arms: str | None = None    # "AXIS=A,B": the experiment's two arms, compared by `littlegrid report`
    ranges: dict = field(default_factory=dict)  # the searched axis: name -> SearchRange (`littlegrid search`)
    plan_defaults: dict = field(repr=False, default_factory=dict)  # the plan's __P name -> default text
    # A plan of the user's own (not one of plans/*.jmx): each cell runs a plan derived from it with these options.
    own_plan: "PlanOptions | None" = None
    # How the controller and remote_hosts talk ([engines]): over SSL with a keystore unless the grid says ssl = false.
    rmi: Rmi = field(default_factory=lambda: Rmi(keystore=None))
    # [observe]: what is scraped beside every cell (the sample server's actuator is added when the runner starts it)
    observe: ObserveSpec = field(default_factory=ObserveSpec)
    # [processes.<name>]: the parts the runner starts beside JMeter before the first cell (run/parts.py)
    processes: tuple[PartSpec, ...] = ()
    raw: dict = field(repr=False, default_factory=dict)

    @property
    def engines(self) -> int:
        return max(1, len(self.remote_hosts))

    def cells(self) -> list[Cell]:
        """Cartesian product of the axes. Knob axes vary slowest, so the server restarts only when a knob changes;
        with [cell] interleave they vary fastest instead, so paired cells of the arms run one after the other."""
        if self.ranges:  # a range has no cells of its own: the search picks its points one by one
            name = next(iter(self.ranges))
            raise UserError(f"{self.path}: [axes] {name} is a range (min, max): run it with `littlegrid search`, "
                            f"or give {name} as a list of values")
        names = list(self.axes)
        knobs = [n for n in names if n in self.knob_axes]
        rest = [n for n in names if n not in self.knob_axes]
        order = rest + knobs if self.timing.interleave else knobs + rest  # the last axis varies fastest
        reps = self.timing.repetitions
        cells, seen = [], {}
        for values in itertools.product(*(self.axes[n] for n in order)):
            point = dict(zip(order, values))
            axes = {n: point[n] for n in names}
            for rep in range(1, reps + 1):
                cid = cell_id(axes, rep if reps > 1 else None)
                if cid in seen:
                    raise UserError(f"{self.path}: [axes] values {seen[cid]} and {axes} give the same cell id {cid!r}")
                seen[cid] = axes
                knobs = None
                if self.server is not None:
                    knobs = {**self.server.knobs, **{n: axes[n] for n in self.knob_axes}}
                plan_props = {**self.properties, **{n: v for n, v in axes.items() if n not in self.knob_axes}}
                cells.append(Cell(index=len(cells) + 1, id=cid, axes=axes, repetition=rep,
                                  plan_properties=plan_props, knobs=knobs))
        return cells


def cell_id(axes: dict, repetition: int | None = None) -> str:
    """`k=v` pairs joined by ','; characters a filesystem or shell may mangle become '_'."""
    parts = [f"{k}={format_value(v)}" for k, v in axes.items()]
    if repetition is not None:
        parts.append(f"rep={repetition}")
    text = UNSAFE_ID_CHARS.sub("_", ",".join(parts)) or "cell"
    return text[:200]


def format_value(v) -> str:
    """A value as JMeter and a cell id should see it: 30.0 -> "30" (JMeter parses durations as integers)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
