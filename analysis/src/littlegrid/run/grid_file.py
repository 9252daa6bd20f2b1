"""The grid file (TOML): parse and validate it strictly into a Grid; every refusal names the file, line and key."""
# Over 450 lines as one job: one validator of the grid file, a method per table, all refusing through its fail().

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

from littlegrid.analysis.observed.mapping import PoolSpec
from littlegrid.analysis.observed.prometheus_text import parse_selector
from littlegrid.comparison.arms import parse_arms
from littlegrid.criteria import relative
from littlegrid.criteria.grammar import parse as parse_criterion
from littlegrid.findings import expect
from littlegrid.plan import derive as own
from littlegrid.run import engines as eng
from littlegrid.run.grid import Grid, ObserveSpec, SearchRange, ServerSpec, Target, Timing, is_jdbc
from littlegrid.run.jmeter import repo_root
from littlegrid.run.parts import PLACEHOLDER, PLACEHOLDERS, PartSpec, Ready
from littlegrid.run.plan_properties import declared_properties, plan_strings
from littlegrid.usererror import UserError

TOP_KEYS = {"name", "plan", "description", "arms", "target", "server", "cell", "properties", "jmeter",
            "axes", "tolerances", "criteria", "expect", "remote_hosts", "plan_options", "engines", "observe",
            "processes", "slo"}
PROCESS_KEYS = {"command", "setup", "after", "ready", "ready_timeout_s", "ports", "cpus", "user", "env", "files",
                "role"}
PROCESS_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
OBSERVE_KEYS = {"prometheus", "pools"}
POOL_KEYS = {"busy", "size"}
POOL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
ENGINES_KEYS = {"keystore", "ssl", "controller_host"}
TARGET_KEYS = {"host", "port", "path", "method", "body", "protocol", "database"}
SERVER_KEYS = {"start", "knobs", "port", "heap", "ready_timeout_s", "cpus", "warmup_s"}
CELL_DEFAULTS = {"duration_s": 30.0, "warmup_s": 5.0, "cooldown_s": 2.0, "rampup_s": 1.0, "repetitions": 1}
# [cell] until = "precise": each cell runs until steady_state.judge answers it (docs: grids/README.md)
UNTIL = ("duration", "precise")
PRECISE_KEYS = {"precision", "min_s", "max_s"}
PRECISE_DEFAULTS = {"precision": "2%", "min_s": 10.0, "max_s": 120.0}
# Timing lives in [cell] only: as an axis or a fixed property it would contradict the cell's own timing.
TIMING_NAMES = {"duration_s", "warmup_s", "cooldown_s", "rampup_s", "repetitions", "until", "precision",
                "min_s", "max_s"}
# Axes `littlegrid search` can explore as a range table: the load, closed (users) or open (rate_per_s).
RANGE_AXES = ("users", "rate_per_s")
RANGE_KEYS = {"min", "max", "resolution"}
SCALAR = (str, int, float, bool)
PLAN_OPTION_KEYS = {"think", "shares", "files", "jdbc"}
# A plan whose load reads one of these properties was written for littlegrid and runs as it is; any other plan
# (or one given [plan_options]) is a plan of the user's own, run through a plan derived per cell.
PROPERTY_DRIVEN = ("users", "rate_per_s")
# What a grid controls in a plan of the user's own, whatever properties the plan reads itself.
OWN_PLAN_PROPERTIES = {"users": None, "think_ms": None, "think_dist": "exponential", "rate_per_s": None}
REMOTE_HOST = re.compile(r"^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::(\d{1,5}))?$")

def load_grid(path: Path | str) -> Grid:
    """Parse and validate a grid file (and the plan it names, for the properties the plan declares)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise UserError(f"{path}: cannot read the grid file ({e.strerror or e})")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path}:{_toml_error_line(e, text)}: not valid TOML: {e}")
    return _Validator(path, text, raw).grid()


def _toml_error_line(error: tomllib.TOMLDecodeError, text: str) -> int:
    """The line tomllib names ("at line 3, column 41"; "at end of document": the last line)."""
    m = re.search(r"at line (\d+)", str(error))
    return int(m.group(1)) if m else max(1, len(text.splitlines()))


class _Validator:
    """Checks one parsed grid file; every refusal is one line naming the file, line and key."""

    def __init__(self, path: Path, text: str, raw: dict):
        self.path, self.text, self.raw = path, text, raw

    def fail(self, table: str | None, key: str | None, problem: str, line: int | None = None) -> UserError:
        """line: where the problem sits when known better than the key's line (one item of a list)."""
        if table and key in TOP_KEYS:  # TOML puts every key after a [table] header into that table
            problem += f" ({key} is a top-level key: write it before the first [table])"
        where = f"[{table}] {key}" if table and key else (f"[{table}]" if table else key or "")
        line = line or self._line_of(table, key)
        loc = f"{self.path}:{line}" if line else f"{self.path}"
        return UserError(f"{loc}: {where}: {problem}")

    def _line_of(self, table: str | None, key: str | None) -> int | None:
        """Best effort: the line where `key` is set inside `table` (tomllib keeps no positions)."""
        current = None
        for n, line in enumerate(self.text.splitlines(), 1):
            s = line.strip()
            m = re.match(r"^\[\s*([^\]]+?)\s*\]", s)
            if m:
                current = m.group(1).strip('"')
                if current == (table if key is None else key) and (key is None or table is None):
                    return n  # the table's header; a top-level key written as a table
                continue
            if key is not None and current == table:
                if re.match(r'^"?' + re.escape(key) + r'"?\s*=', s):
                    return n
        return self._line_of(table, None) if table and key else None  # a key missing: its table's header

    def _line_of_item(self, key: str, item: str) -> int | None:
        """The line, from a top-level list's key on, where the string `item` is written in quotes (a list spread
        over lines has one item per line); the key's line when it is not found as written (escapes in it)."""
        start = self._line_of(None, key)
        if start is None:
            return None
        lines, quoted = self.text.splitlines(), (f'"{item}"', f"'{item}'")
        return next((n for n in range(start, len(lines) + 1) if any(q in lines[n - 1] for q in quoted)), start)

    # -- sections --------------------------------------------------------------------------------
    def grid(self) -> Grid:
        raw = self.raw
        for key in raw:
            if key not in TOP_KEYS:
                raise self.fail(None, key, f"unknown key (expected one of: {', '.join(sorted(TOP_KEYS))})")
        name = self.string(None, "name", raw.get("name", self.path.stem))
        description = self.string(None, "description", raw.get("description", ""))
        plan = self.plan()
        server = self.server()
        own_plan = self.plan_options(plan)
        target = self.target(server is not None, own_plan is not None)
        timing = self.timing()
        properties = self.scalars("properties")
        jmeter_properties = self.scalars("jmeter")
        plan_defaults = declared_properties(plan)  # the plan's ${__P(name,default)}: name -> default
        if own_plan is not None:
            plan_defaults = {**OWN_PLAN_PROPERTIES, **plan_defaults}
        declared = set(plan_defaults)
        for key in properties:
            self.check_plan_name("properties", key, declared)
        axes, knob_axes = self.axes(declared, server is not None, properties)
        ranges = self.ranges(declared, properties)
        if "users" in axes or "users" in properties:
            self.check_users(axes.get("users", [properties.get("users")]))
        tolerances = self.scalars("tolerances")
        for key, value in tolerances.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise self.fail("tolerances", key, f"must be a positive number, got {value!r}")
        criteria = raw.get("criteria", [])
        if not isinstance(criteria, list) or not all(isinstance(c, str) and c.strip() for c in criteria):
            raise self.fail(None, "criteria", "must be a list of non-empty strings, e.g. [\"p90 < 300ms\"]")
        for text in criteria:  # a typo in a criterion should stop the run before the load, not after it
            try:  # a relative one ("p90 regress < 10%") is judged by `check --baseline`, but parsed now
                (relative.parse if relative.is_relative(text) else parse_criterion)(text)
            except UserError as e:
                raise self.fail(None, "criteria", str(e), self._line_of_item("criteria", text))
        self.slos()
        self.expectations({**axes, **ranges})
        remote_hosts = self.remote_hosts()
        if remote_hosts and timing.precise:
            # JMeter's shutdown port would stop them (the controller's engines include the remote ones), but their
            # samples reach the controller in batches (StrippedBatch: 100 samples or 60 s), so it cannot tell when
            # a second is complete
            raise self.fail("cell", "until", 'until = "precise" runs on this host\'s JMeter only: remote engines '
                            "send their samples in batches, so no second is known complete while they run; use "
                            "duration_s with remote_hosts")
        rmi = self.engines(remote_hosts, jmeter_properties)
        if remote_hosts:
            self.check_split(plan, own_plan is not None, remote_hosts, axes, properties, ranges, plan_defaults)
        arms = self.arms(axes)
        if own_plan is not None:
            self.check_own_plan(plan, own_plan, axes, properties, ranges)
        observe = self.observe(server is not None)
        processes = self.processes(server is not None)
        return Grid(path=self.path, name=name, description=description, plan=plan, target=target, server=server,
                    timing=timing, properties=properties, jmeter_properties=jmeter_properties, axes=axes,
                    knob_axes=tuple(knob_axes), tolerances=tolerances, criteria=tuple(criteria),
                    remote_hosts=tuple(remote_hosts), arms=arms, ranges=ranges, plan_defaults=dict(plan_defaults),
                    own_plan=own_plan, rmi=rmi, observe=observe, processes=processes, raw=raw)

    def slos(self) -> None:
        """slo = ["p90 < 50ms"]: the latency objectives each curve's capacity is found for (the largest N meeting
        it: the SLO capacity table), which, unlike a criterion, no cell fails: a grid that runs past its capacity
        on purpose states it here and scopes its criteria to the cells it promises."""
        texts = self.raw.get("slo", [])
        if not isinstance(texts, list) or not all(isinstance(t, str) and t.strip() for t in texts):
            raise self.fail(None, "slo", "must be a list of latency objectives, e.g. [\"p90 < 300ms\"]")
        for text in texts:
            try:
                crit = parse_criterion(text)
            except UserError as e:
                raise self.fail(None, "slo", str(e), self._line_of_item("slo", text))
            if not re.fullmatch(r"p\d+(\.\d+)?", crit.metric) or crit.op not in ("<", "<=") or crit.scope.where \
                    or crit.scope.label is not None:
                raise self.fail(None, "slo", f"{text!r}: an objective is a percentile under a threshold over every "
                                "cell, e.g. \"p90 < 300ms\" (no where, no label)", self._line_of_item("slo", text))

    def expectations(self, axes: dict) -> None:
        """The expected findings: each parsed, its scope's axes known, before any load (the runner keeps the raw
        list in the manifest, analyze evaluates it)."""
        texts = self.raw.get("expect", [])
        if not isinstance(texts, list) or not all(isinstance(t, str) and t.strip() for t in texts):
            raise self.fail(None, "expect", "must be a list of non-empty strings, e.g. "
                                            "[\"bottleneck thread_pool where users == 100\"]")
        for text in texts:
            try:
                expect.check_axes(expect.parse(text), set(axes) | {"users"})
            except UserError as e:
                raise self.fail(None, "expect", str(e))
        try:
            expect.arms_margin(texts)  # one margin for the arms, which their finding is worded with
        except UserError as e:
            raise self.fail(None, "expect", str(e))

    def arms(self, axes: dict) -> str | None:
        text = self.raw.get("arms")
        if text is None:
            return None
        try:
            axis, a, b = parse_arms(self.string(None, "arms", text))
        except UserError as e:
            raise self.fail(None, "arms", str(e).removeprefix("arms "))  # the location already names the key
        values = [str(v) for v in axes.get(axis, [])]
        if a not in values or b not in values:
            raise self.fail(None, "arms", f"{axis} must be an axis holding both {a} and {b} "
                                          f"(axes: {', '.join(f'{k} = {v}' for k, v in axes.items())})")
        return text

    def plan(self) -> Path:
        value = self.raw.get("plan")
        if value is None:
            raise self.fail(None, "plan", "missing (the JMX test plan, e.g. plan = \"plans/closed.jmx\")")
        plan = Path(self.string(None, "plan", value))
        if not plan.is_absolute():
            # Relative to the checkout holding the grid (grids/ sits beside plans/), else to the grid's folder.
            base = repo_root(self.path.resolve().parent) or self.path.resolve().parent
            plan = base / plan
        if not plan.is_file():
            raise self.fail(None, "plan", f"plan file not found: {plan}")
        return plan

    def plan_options(self, plan: Path) -> own.PlanOptions | None:
        """[plan_options] of a plan of the user's own; None for the suite's plans (plans/*.jmx), which are
        driven by properties and run as they are."""
        table = self.table("plan_options", PLAN_OPTION_KEYS)
        root = repo_root(plan.parent)
        if root is not None and plan.resolve().parent == (root / "plans").resolve():
            if table is not None:
                raise self.fail("plan_options", None, f"{plan.name} is one of the suite's plans, driven by "
                                "properties; [plan_options] is for a plan of your own")
            return None
        if table is None and set(declared_properties(plan)) & set(PROPERTY_DRIVEN):
            return None  # a plan written for littlegrid (its load is a property): it runs as it is
        table = table or {}
        think = table.get("think", "replace")
        if think not in own.THINK_MODES:
            raise self.fail("plan_options", "think", f"must be one of {', '.join(own.THINK_MODES)}, got {think!r}")
        shares = table.get("shares", {})
        if not isinstance(shares, dict):
            raise self.fail("plan_options", "shares", "must be a table of \"thread group name\" = weight")
        for name, weight in shares.items():
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight <= 0:
                raise self.fail("plan_options", "shares", f"{name!r}: must be a number > 0, got {weight!r}")
        files = table.get("files", {})
        if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
            raise self.fail("plan_options", "files", "must be a table of \"path in the plan\" = \"path here\"")
        base = self.path.resolve().parent
        mapped = {}
        for written, here in files.items():
            path = Path(here).expanduser()
            path = path if path.is_absolute() else (base / path).resolve()
            if not path.is_file():
                raise self.fail("plan_options", "files", f"{written!r} maps to {path}, which is not a file")
            mapped[written] = str(path)
        jdbc = table.get("jdbc", "retarget")
        if jdbc not in own.JDBC_MODES:
            raise self.fail("plan_options", "jdbc", f"must be one of {', '.join(own.JDBC_MODES)} (retarget: the JDBC "
                            f"Connection Configurations' URLs to [target]; keep: as written), got {jdbc!r}")
        return own.PlanOptions(think=think, shares=dict(shares), files=mapped, jdbc=jdbc)

    def check_own_plan(self, plan: Path, options: own.PlanOptions, axes: dict, properties: dict, ranges: dict) -> None:
        """What a grid may ask of a plan of the user's own, and what in the plan stops it, before any load."""
        given = {**properties, **axes, **ranges}
        if "users" in given and "rate_per_s" in given:
            raise self.fail("axes", "rate_per_s", "users or rate_per_s, not both: a closed or an open workload")
        if options.think == "keep":
            for name in ("think_ms", "think_dist"):
                if name in given:
                    raise self.fail("axes" if name in axes else "properties", name,
                                    "think = \"keep\" leaves the plan's timers; think_ms is what they realise")
        if "think_dist" in properties and properties["think_dist"] not in own.THINK_DISTS:
            raise self.fail("properties", "think_dist", f"must be one of {', '.join(own.THINK_DISTS)}")
        for value in axes.get("think_dist", []):
            if value not in own.THINK_DISTS:
                raise self.fail("axes", "think_dist", f"must be one of {', '.join(own.THINK_DISTS)}, got {value!r}")
        problems = own.blockers(plan, options)
        if problems:
            raise self.fail(None, "plan", "cannot run as a grid (`littlegrid plan inspect` says more): "
                            + "; ".join(problems))

    def server(self) -> ServerSpec | None:
        table = self.table("server", SERVER_KEYS)
        if table is None:
            return None
        start = table.get("start", False)
        if not isinstance(start, bool):
            raise self.fail("server", "start", f"must be true or false, got {start!r}")
        if not start:
            return None
        knobs = table.get("knobs", {})
        if not isinstance(knobs, dict):
            raise self.fail("server", "knobs", "must be a table of Spring properties")
        for k, v in knobs.items():
            if not isinstance(v, SCALAR):
                raise self.fail("server", "knobs", f"{k}: must be a number, string or boolean, got {v!r}")
        port = table.get("port")
        if port is not None:
            port = self.port("server", "port", port)
        heap = self.string("server", "heap", table.get("heap", "512m"))
        if not re.fullmatch(r"\d+[kKmMgG]?", heap):
            raise self.fail("server", "heap", f"must look like 512m or 2g, got {heap!r}")
        ready = self.number("server", "ready_timeout_s", table.get("ready_timeout_s", 60.0), positive=True)
        cpus = table.get("cpus")
        # the numbers checked before their set is made: a list of lists ([[]]) has no set
        if cpus is not None and (not isinstance(cpus, list) or not cpus or any(
                isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in cpus) or len(set(cpus)) != len(cpus)):
            raise self.fail("server", "cpus", f"must be a list of distinct CPU numbers counted from 0, e.g. [1], "
                            f"got {cpus!r}")
        warmup = self.number("server", "warmup_s", table.get("warmup_s", 0.0))
        return ServerSpec(knobs=dict(knobs), port=port, heap=heap, ready_timeout_s=ready,
                          cpus=tuple(cpus) if cpus is not None else None, warmup_s=warmup)

    def target(self, server_started: bool, own_plan: bool = False) -> Target | None:
        table = self.table("target", TARGET_KEYS)
        for key in ("path", "method", "body"):
            if own_plan and table and key in table:
                raise self.fail("target", key, "a plan of your own sends its own requests; [target] sets only "
                                "host, port and protocol (and a JDBC target's database)")
        if table is None:
            if not server_started:
                raise self.fail("target", None, "missing: give [target] host and port, or [server] start = true")
            table = {}
        if server_started:
            for key in ("host", "port"):
                if key in table:
                    raise self.fail("target", key, "not allowed with [server] start = true "
                                    "(the runner targets the server it starts; use [server] port)")
        else:
            for key in ("host", "port"):
                if key not in table:
                    raise self.fail("target", key, "missing")
        protocol = self.string("target", "protocol", table.get("protocol", "http"))
        if protocol not in ("http", "https") and not is_jdbc(protocol):
            raise self.fail("target", "protocol", f"must be http, https or a JDBC subprotocol such as "
                            f"\"jdbc:postgresql\", got {protocol!r}")
        host = self.string("target", "host", table.get("host", "127.0.0.1"))
        port = self.port("target", "port", table.get("port", 0)) if not server_started else 0
        if is_jdbc(protocol):
            for key in ("path", "method", "body"):
                if key in table:
                    raise self.fail("target", key, f"a {protocol} target is host, port and database; the query is "
                                    "the plan's (the JDBC plan's query property)")
            database = table.get("database")
            if database is not None and not re.fullmatch(r"[A-Za-z0-9_.$-]+", self.string("target", "database",
                                                                                          database)):
                raise self.fail("target", "database", f"not a database name: {database!r}")
            return Target(host=host, port=port, protocol=protocol, database=database)
        if "database" in table:
            raise self.fail("target", "database", f"a database is named for a JDBC target (protocol = "
                            f"\"jdbc:postgresql\"), not for {protocol}")
        method = self.string("target", "method", table.get("method", "GET")).upper()
        if not re.fullmatch(r"[A-Z]+", method):
            raise self.fail("target", "method", f"not an HTTP method: {method!r}")
        path = self.string("target", "path", table.get("path", "/"))
        if not path.startswith("/"):
            raise self.fail("target", "path", f"must start with '/', got {path!r}")
        body = table.get("body")
        if body is not None:
            body = self.string("target", "body", body)
        return Target(host=host, port=port, path=path, method=method, body=body, protocol=protocol)

    def timing(self) -> Timing:
        table = self.table("cell", set(CELL_DEFAULTS) | {"interleave"} | PRECISE_KEYS | {"until"}) or {}
        until = table.get("until", "duration")
        if until not in UNTIL:
            raise self.fail("cell", "until", f"must be \"duration\" (every cell runs duration_s) or \"precise\" "
                                             f"(each runs until its X and mean R are known to precision), got {until!r}")
        values = {}
        for key, default in CELL_DEFAULTS.items():
            if key == "repetitions":
                reps = table.get(key, default)
                if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
                    raise self.fail("cell", key, f"must be a whole number ≥ 1, got {reps!r}")
                values[key] = reps
            else:
                values[key] = self.number("cell", key, table.get(key, default), positive=(key == "duration_s"))
        interleave = table.get("interleave", False)
        if not isinstance(interleave, bool):
            raise self.fail("cell", "interleave", f"must be true or false, got {interleave!r}")
        if until == "precise":
            values.update(self.precise(table, values["warmup_s"], values["cooldown_s"]))
        else:
            for key in PRECISE_KEYS & set(table):
                raise self.fail("cell", key, 'only with until = "precise" (a fixed cell runs duration_s)')
            if values["warmup_s"] + values["cooldown_s"] >= values["duration_s"]:
                raise self.fail("cell", "warmup_s", f"warmup_s + cooldown_s ({values['warmup_s']:g} + "
                                f"{values['cooldown_s']:g} s) must be less than duration_s ({values['duration_s']:g} s): "
                                "nothing would be left of the steady window")
        return Timing(**values, interleave=interleave, until=until)

    def precise(self, table: dict, warmup_s: float, cooldown_s: float) -> dict:
        """until = "precise": precision (a share, "2%"), min_s and max_s checked against each other and the trims;
        max_s becomes the plan's duration_s (its thread groups' bound)."""
        if "duration_s" in table:
            raise self.fail("cell", "duration_s", 'not with until = "precise": each cell runs until its figures are '
                                                   "precise, at most max_s (give max_s instead)")
        precision = self.share("cell", "precision", table.get("precision", PRECISE_DEFAULTS["precision"]))
        min_s = self.number("cell", "min_s", table.get("min_s", PRECISE_DEFAULTS["min_s"]))
        max_s = self.number("cell", "max_s", table.get("max_s", PRECISE_DEFAULTS["max_s"]), positive=True)
        if min_s > max_s:
            raise self.fail("cell", "min_s", f"min_s ({min_s:g} s) is more than max_s ({max_s:g} s)")
        if max_s <= warmup_s + cooldown_s:
            raise self.fail("cell", "max_s", f"max_s ({max_s:g} s) must be more than warmup_s + cooldown_s "
                                             f"({warmup_s:g} + {cooldown_s:g} s): nothing would be left of the window")
        if min_s + warmup_s + cooldown_s > max_s:
            raise self.fail("cell", "min_s", f"a window of min_s ({min_s:g} s) after warmup_s and before cooldown_s "
                                             f"({warmup_s:g} + {cooldown_s:g} s) does not fit in max_s ({max_s:g} s)")
        return {"duration_s": max_s, "precision": precision, "min_s": min_s, "max_s": max_s}

    def axes(self, declared: set[str], server_started: bool, properties: dict) -> tuple[dict, list]:
        table = self.raw.get("axes", {})
        if not isinstance(table, dict):
            raise self.fail(None, "axes", "must be a table of name = [values]")
        axes, knob_axes = {}, []
        for name, values in table.items():
            if isinstance(values, dict):
                continue  # a range table: self.ranges()
            if not isinstance(values, list):
                raise self.fail("axes", name, f"must be a list of values, got {values!r}")
            if not values:
                raise self.fail("axes", name, "empty axis: give at least one value")
            for v in values:
                if not isinstance(v, SCALAR):
                    raise self.fail("axes", name, f"values must be numbers, strings or booleans, got {v!r}")
            if len(set(map(repr, values))) != len(values):
                raise self.fail("axes", name, f"repeated value in {values} (use [cell] repetitions instead)")
            if name in properties:
                raise self.fail("axes", name, "also set in [properties]: an axis or a fixed property, not both")
            if name not in declared and server_started and "." in name:
                knob_axes.append(name)  # a dotted name the plan does not declare: a Spring knob of the sample server
            else:
                self.check_plan_name("axes", name, declared)
            if name == "think_ms" or name == "rate_per_s":
                for v in values:
                    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                        raise self.fail("axes", name, f"values must be numbers ≥ 0, got {v!r}")
            axes[name] = list(values)
        return axes, knob_axes

    def ranges(self, declared: set[str], properties: dict) -> dict:
        """The range axes (`users = { min = 1, max = 400 }`): at most one, of the load, min ≤ max."""
        table = self.raw.get("axes", {})
        ranges = {}
        for name, spec in table.items():
            if not isinstance(spec, dict):
                continue
            if name not in RANGE_AXES:
                raise self.fail("axes", name, f"only {' or '.join(RANGE_AXES)} can be a range (min, max); "
                                              "give the values of other axes as a list")
            if ranges:
                raise self.fail("axes", name, f"a second range axis (already {next(iter(ranges))}): a search "
                                              "explores one axis; give the others as lists")
            if name in properties:
                raise self.fail("axes", name, "also set in [properties]: an axis or a fixed property, not both")
            self.check_plan_name("axes", name, declared)
            for key in spec:
                if key not in RANGE_KEYS:
                    raise self.fail("axes", name, f"unknown key {key!r} in the range (expected min, max, resolution)")
            bounds = {}
            for key in ("min", "max", "resolution"):
                value = spec.get(key)
                if value is None:
                    if key != "resolution":
                        raise self.fail("axes", name, f"the range needs {key}, e.g. {name} = {{ min = 1, max = 400 }}")
                    continue
                whole = name == "users"
                if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)) or value <= 0:
                    kind = "a whole number ≥ 1" if whole else "a number > 0"
                    raise self.fail("axes", name, f"{key} must be {kind}, got {value!r}")
                bounds[key] = value
            if bounds["min"] > bounds["max"]:
                raise self.fail("axes", name, f"min {bounds['min']} is greater than max {bounds['max']}")
            ranges[name] = SearchRange(low=bounds["min"], high=bounds["max"], resolution=bounds.get("resolution"))
        return ranges

    def check_users(self, values: list) -> None:
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise self.fail("axes", "users", f"users must be whole numbers ≥ 1, got {v!r}")

    def check_plan_name(self, table: str, name: str, declared: set[str]) -> None:
        if name in TIMING_NAMES:
            raise self.fail(table, name, "timing is set in [cell]")
        if name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            hint = " (a server knob needs [server] start = true)" if "." in name else ""
            raise self.fail(table, name, f"the plan {self.raw.get('plan')} does not declare this property{hint}; "
                            f"it declares: {known}")

    def remote_hosts(self) -> list[str]:
        hosts = self.raw.get("remote_hosts", [])
        if not isinstance(hosts, list):
            raise self.fail(None, "remote_hosts", "must be a list of \"host:port\" strings")
        for h in hosts:
            m = REMOTE_HOST.match(h) if isinstance(h, str) else None
            if not m or (m.group(1) and not 0 < int(m.group(1)) < 65536):
                raise self.fail(None, "remote_hosts", f"{h!r} is not host or host:port (e.g. \"10.0.0.5:1099\")")
        if len(set(hosts)) != len(hosts):
            raise self.fail(None, "remote_hosts", "an engine is listed twice")
        return list(hosts)

    def engines(self, remote_hosts: list[str], jmeter_properties: dict) -> eng.Rmi:
        """[engines]: the RMI keystore the controller and the engines share, or ssl = false said outright."""
        for key in jmeter_properties:
            if key.startswith("server.rmi.ssl"):
                raise self.fail("jmeter", key, "RMI SSL is set in [engines]: keystore = \"FILE\" "
                                "(littlegrid engines keystore), or ssl = false on a network you trust")
        table = self.table("engines", ENGINES_KEYS)
        if table is None:
            return eng.Rmi(keystore=None)
        if not remote_hosts:
            raise self.fail("engines", None, "no remote_hosts: [engines] sets how the controller talks to them")
        ssl = table.get("ssl", True)
        if not isinstance(ssl, bool):
            raise self.fail("engines", "ssl", f"must be true or false, got {ssl!r}")
        keystore = table.get("keystore")
        if keystore is not None:
            if not ssl:
                raise self.fail("engines", "keystore", "ssl = false and a keystore: choose one")
            path = Path(self.string("engines", "keystore", keystore)).expanduser()
            keystore = path if path.is_absolute() else self.path.resolve().parent / path
        controller = table.get("controller_host")
        if controller is not None:
            controller = self.string("engines", "controller_host", controller)
            if not eng.REMOTE_HOST_NAME.match(controller):
                raise self.fail("engines", "controller_host", f"{controller!r} is not a host name or address")
        return eng.Rmi(keystore=keystore, ssl=ssl, controller_host=controller)

    def check_split(self, plan: Path, own_plan: bool, remote_hosts: list[str], axes: dict, properties: dict,
                    ranges: dict, plan_defaults: dict) -> None:
        """users is the total N, split across the engines: every engine needs a thread, and the plan must read its
        engine's share (a derived plan of the user's own reads it by construction)."""
        k = len(remote_hosts)
        values = axes.get("users") or ([properties["users"]] if "users" in properties else [])
        if "users" in ranges:
            values = [ranges["users"].low]
        for v in values:
            if isinstance(v, (int, float)) and v < k:
                raise self.fail("axes" if "users" in axes else "properties", "users",
                                f"users = {v} on {k} engines: users is the total N, split across the engines, "
                                "and each engine needs at least one thread")
        if not own_plan and "users" in plan_defaults and not eng.plan_splits_users([text for _, text in plan_strings(plan)]):
            raise self.fail(None, "plan", "its thread count does not read its engine's share, so each engine would "
                            "run all of users: write ThreadGroup.num_threads as "
                            "${__P(users.${__P(__jm.D_TG,)},${__P(users,10)})} (as plans/closed.jmx does)")

    def observe(self, server_started: bool) -> ObserveSpec:
        """[observe] prometheus = ["http://host:port/path", ...] and [observe.pools.<name>] busy/size: URLs and
        selectors checked here; whether each URL answers Prometheus text is checked before any load (runner)."""
        table = self.table("observe", OBSERVE_KEYS)
        if table is None:
            return ObserveSpec()
        urls = table.get("prometheus", [])
        if isinstance(urls, str):
            urls = [urls]
        if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
            raise self.fail("observe", "prometheus", 'must be a list of URLs, e.g. ["http://10.0.0.7:9100/metrics"]')
        for url in urls:
            try:
                parts = urlsplit(url)
                port = parts.port
            except ValueError as e:  # an unclosed [IPv6 address, a port not a number or out of range
                raise self.fail("observe", "prometheus", f"{url!r} is not a URL ({e})")
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise self.fail("observe", "prometheus", f"{url!r} is not an http:// or https:// URL with a host")
            if port == 0:
                raise self.fail("observe", "prometheus", f"{url!r}: port 0 is no port to scrape")
        if len(set(urls)) != len(urls):
            raise self.fail("observe", "prometheus", "a URL is listed twice")
        pools_table = table.get("pools", {})
        if not isinstance(pools_table, dict):
            raise self.fail("observe", "pools", "must be tables: [observe.pools.<name>] busy = \"<metric{labels}>\"")
        pools = []
        for name, spec in pools_table.items():
            where = f"observe.pools.{name}"
            if not isinstance(spec, dict):
                raise self.fail("observe", "pools", f"{name}: must be a table [observe.pools.{name}]")
            self.named_table(where, "a pool's", POOL_NAME, name, spec, POOL_KEYS)
            if "busy" not in spec:
                raise self.fail(where, "busy", 'missing: the selector of its busy workers, e.g. '
                                'busy = "executor_active_threads{name=\\"workers\\"}"')
            busy = self.selector(where, "busy", spec["busy"])
            size = spec.get("size")
            if isinstance(size, str):
                size = self.selector(where, "size", size)
            elif size is not None and (isinstance(size, bool) or not isinstance(size, (int, float)) or size <= 0):
                raise self.fail(where, "size", f"must be a selector or a number > 0, got {size!r}")
            pools.append(PoolSpec(name=name, busy=busy, size=float(size) if isinstance(size, (int, float)) else size))
        if pools and not urls and not server_started:
            raise self.fail(f"observe.pools.{pools[0].name}", None, "a pool is read from the sources scraped, and "
                            "none is named: give them in [observe] prometheus = [...]")
        return ObserveSpec(sources=tuple(urls), lines=tuple(self._line_of_value("observe", "prometheus", u)
                                                              for u in urls), pools=tuple(pools))

    def processes(self, server_started: bool) -> tuple[PartSpec, ...]:
        """[processes.<name>]: the parts the runner starts beside JMeter, in the order written (run/parts.py). Checked
        here for shape; whether each program exists and each port is free, before anything starts (runner)."""
        table = self.raw.get("processes")
        if table is None:
            return ()
        if not isinstance(table, dict) or not all(isinstance(v, dict) for v in table.values()):
            raise self.fail(None, "processes", "must be tables: [processes.<name>] command = [\"program\", ...]")
        specs, servers = [], []
        for name, spec in table.items():
            at = f"processes.{name}"
            self.named_table(at, "a process's", PROCESS_NAME, name, spec, PROCESS_KEYS)
            if "command" not in spec:
                raise self.fail(at, "command", 'missing: the program and its arguments, e.g. ["/usr/sbin/haproxy", '
                                '"-db", "-f", "${dir}/haproxy.cfg"]')
            command = self.argv(at, "command", spec["command"])
            steps = {key: tuple(self.argv(at, key, c) for c in self.argv_list(at, key, spec.get(key, [])))
                     for key in ("setup", "after")}
            ports = spec.get("ports", [])
            if not isinstance(ports, list):
                raise self.fail(at, "ports", "must be a list of TCP ports, e.g. [5432]")
            ports = tuple(self.port(at, "ports", p) for p in ports)
            cpus = spec.get("cpus")
            if cpus is not None and (not isinstance(cpus, list) or not cpus or any(
                    isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in cpus) or len(set(cpus)) != len(cpus)):
                raise self.fail(at, "cpus", f"must be a list of distinct CPU numbers counted from 0, got {cpus!r}")
            user = spec.get("user")
            if user is not None:
                user = self.string(at, "user", user)
            env = spec.get("env", {})
            if not isinstance(env, dict) or not all(isinstance(v, (str, int)) for v in env.values()):
                raise self.fail(at, "env", "must be a table of NAME = \"value\"")
            for value in env.values():
                self.placeholders(at, "env", str(value))
            files = spec.get("files", {})
            if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
                raise self.fail(at, "files", "must be a table of \"name in its folder\" = \"template beside the grid\"")
            base = self.path.resolve().parent
            mapped = {}
            for target, template in files.items():
                if "/" in target or target in ("", ".", ".."):
                    raise self.fail(at, "files", f"{target!r}: a file name in the process's folder, without '/'")
                path = Path(template)
                mapped[target] = str(path if path.is_absolute() else base / path)
            role = spec.get("role")
            if role is not None and role != "server":
                raise self.fail(at, "role", f'must be "server" (the system under test: its CPUs measured apart), '
                                f"got {role!r}")
            if role == "server":
                if not cpus:
                    raise self.fail(at, "role", 'role = "server" measures the CPUs it is pinned to: give cpus too')
                servers.append(name)
            timeout = self.number(at, "ready_timeout_s", spec.get("ready_timeout_s", 30.0), positive=True)
            specs.append(PartSpec(name=name, command=command, ready=self.ready(at, spec.get("ready")),
                                  setup=steps["setup"], after=steps["after"], ports=ports,
                                  cpus=tuple(cpus) if cpus else None, user=user,
                                  env={k: str(v) for k, v in env.items()}, files=mapped, ready_timeout_s=timeout,
                                  role=role, line=self._line_of(at, None)))
        if len(servers) > 1 or (servers and server_started):
            raise self.fail(f"processes.{servers[-1]}", "role", "one system under test: a second role = \"server\""
                            + (" beside [server] start = true" if server_started else ""))
        return tuple(specs)

    def named_table(self, at: str, whose: str, pattern: re.Pattern, name: str, spec: dict, keys: set) -> None:
        """A [<kind>.<name>] table: its name as `pattern` allows, its keys among `keys`."""
        if not pattern.match(name):
            raise self.fail(at, None, f"{whose} name is letters, digits, '_', '.' or '-' (at most 64)")
        for key in spec:
            if key not in keys:
                raise self.fail(at, key, f"unknown key (expected one of: {', '.join(sorted(keys))})")

    def argv(self, table: str, key: str, value) -> tuple[str, ...]:
        if not isinstance(value, list) or not value or not all(isinstance(a, str) for a in value):
            raise self.fail(table, key, f"must be a command as a list of strings, e.g. [\"program\", \"arg\"], "
                            f"got {value!r}")
        for a in value:
            self.placeholders(table, key, a)
        return tuple(value)

    def argv_list(self, table: str, key: str, value) -> list:
        if not isinstance(value, list):
            raise self.fail(table, key, "must be a list of commands, each a list of strings")
        return value

    def placeholders(self, table: str, key: str, text: str) -> None:
        for name in PLACEHOLDER.findall(text):
            if name not in PLACEHOLDERS:
                raise self.fail(table, key, f"${{{name}}} is no placeholder here (known: "
                                + ", ".join(f"${{{p}}}" for p in PLACEHOLDERS) + ")")

    def ready(self, table: str, value) -> Ready | None:
        """ready = "tcp://127.0.0.1:5432" | "http://127.0.0.1:8404/metrics" | ["pg_isready", ...]"""
        if value is None:
            return None
        if isinstance(value, list):
            return Ready("command", self.argv(table, "ready", value))
        text = self.string(table, "ready", value)
        self.placeholders(table, "ready", text)
        m = re.fullmatch(r"tcp://([^:/]+):(\d{1,5})", text)
        if m:
            self.port(table, "ready", int(m.group(2)))
            return Ready("tcp", f"{m.group(1)}:{m.group(2)}")
        if re.match(r"https?://", text):
            return Ready("http", text)
        raise self.fail(table, "ready", f"{text!r}: give \"tcp://HOST:PORT\", an http:// URL answering 2xx, or a "
                        "command (a list) that exits 0 when ready")

    def selector(self, table: str, key: str, text):
        if not isinstance(text, str):
            raise self.fail(table, key, f"must be a selector (metric{{labels}}) or a number, got {text!r}")
        try:
            return parse_selector(text)
        except UserError as e:
            raise self.fail(table, key, str(e))

    def _line_of_value(self, table: str, key: str, value: str) -> int | None:
        """The line holding `value` in `key`'s list (which may span lines), else the key's own line."""
        start = self._line_of(table, key)
        lines = self.text.splitlines()
        if start is not None:
            for n in range(start, len(lines) + 1):
                if f'"{value}"' in lines[n - 1] or f"'{value}'" in lines[n - 1]:
                    return n
                if n > start and re.match(r"^\s*(\[|[A-Za-z_\"]+\s*=)", lines[n - 1]):
                    break  # the next key or table: the list has ended
        return start

    # -- value helpers ---------------------------------------------------------------------------
    def table(self, name: str, allowed: set[str]) -> dict | None:
        table = self.raw.get(name)
        if table is None:
            return None
        if not isinstance(table, dict):
            raise self.fail(None, name, "must be a table")
        for key in table:
            if key not in allowed:
                raise self.fail(name, key, f"unknown key (expected one of: {', '.join(sorted(allowed))})")
        return table

    def scalars(self, name: str) -> dict:
        table = self.raw.get(name, {})
        if not isinstance(table, dict):
            raise self.fail(None, name, "must be a table")
        for key, value in table.items():
            if not isinstance(value, SCALAR):
                raise self.fail(name, key, f"must be a number, string or boolean, got {value!r}")
        return dict(table)

    def string(self, table: str | None, key: str, value) -> str:
        if not isinstance(value, str):
            raise self.fail(table, key, f"must be a string, got {value!r}")
        return value

    def number(self, table: str, key: str, value, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(table, key, f"must be a number of seconds, got {value!r}")
        if value < 0 or (positive and value == 0):
            raise self.fail(table, key, f"must be {'> 0' if positive else '≥ 0'}, got {value!r}")
        return float(value)

    def share(self, table: str, key: str, value) -> float:
        """A relative precision: "2%" or 0.02, strictly between 0 and 50%."""
        text = value.strip() if isinstance(value, str) else None
        if text is not None and re.fullmatch(r"\d+(\.\d+)?\s*%", text):
            share = float(text.rstrip("% ")) / 100
        elif not isinstance(value, bool) and isinstance(value, (int, float)):
            share = float(value)
        else:
            raise self.fail(table, key, f'must be a share such as "2%" (or 0.02), got {value!r}')
        if not 0 < share < 0.5:
            raise self.fail(table, key, f'must be more than 0% and less than 50% (e.g. "2%"), got {value!r}')
        return share

    def port(self, table: str, key: str, value) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 65536:
            raise self.fail(table, key, f"must be a TCP port 1-65535, got {value!r}")
        return value
