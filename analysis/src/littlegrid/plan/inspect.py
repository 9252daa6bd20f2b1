"""`littlegrid plan inspect`: what littlegrid can control in a plan (thread groups, think time, hosts, data files,
listeners, plugins) and what stops it from running as a grid."""
# Over 450 lines as one job: the facts `plan inspect` reports, one reader per kind of element.

from __future__ import annotations

import ntpath
import re
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from littlegrid.plan import elements as el
from littlegrid.plan.jmx import Node, Plan, Value, evaluate, user_variables


@dataclass(frozen=True)
class Setting:
    """A thread group's setting: as written, where its value comes from, the number when it can be told."""

    written: str
    source: str
    value: float | None

    @classmethod
    def of(cls, value: Value) -> "Setting":
        return cls(written=value.written, source=value.source, value=value.number())

    def text(self) -> str:
        shown = self.written if self.written else "(empty)"
        return shown if self.source == "hard-coded" else f"{shown} ({self.source})"


@dataclass(frozen=True)
class ThreadGroupFacts:
    name: str
    kind: str            # what the GUI calls it
    role: str            # load | setUp | tearDown
    threads: Setting | None
    rampup: Setting | None
    loops: Setting | None
    duration: Setting | None
    control: str         # what a derived plan does with it
    schedule: Setting | None = None  # an Open Model Thread Group's schedule


@dataclass(frozen=True)
class TimerFacts:
    name: str
    kind: str
    path: str
    mean_ms: float | None  # None: scripted, or a value only known at run time
    think: bool            # counts as think time (False: pacing to a throughput or a rendezvous)


@dataclass(frozen=True)
class TargetFacts:
    sampler: str
    path: str
    protocol: str
    host: str | None       # None: only known at run time
    port: int | None
    via: str               # where host and port come from
    database: str | None = None  # a JDBC sampler's database (the URL's path)
    url: str | None = None       # a JDBC sampler's connection URL, as resolved (None: not resolved)


@dataclass(frozen=True)
class DataFileFacts:
    name: str
    path: str
    written: str
    resolved: str | None
    found: bool


@dataclass(frozen=True)
class ListenerFacts:
    name: str
    kind: str
    path: str
    file: str | None


@dataclass(frozen=True)
class PluginFacts:
    name: str
    element: str           # the class JMeter needs
    plugin_id: str | None  # the plugins-manager id, when known
    installed: bool | None  # None: no JMeter found to look in


@dataclass(frozen=True)
class Inspection:
    plan: str
    thread_groups: list[ThreadGroupFacts]
    timers: list[TimerFacts]
    targets: list[TargetFacts]
    data_files: list[DataFileFacts]
    listeners: list[ListenerFacts]
    plugins: list[PluginFacts]
    transactions: list[str]
    notes: list[str] = field(default_factory=list)
    blockers: list[str] = field(default_factory=list)

    @property
    def runnable(self) -> bool:
        return not self.blockers

    def as_json(self) -> dict:
        return {**asdict(self), "runnable": self.runnable}


# -- thread groups -------------------------------------------------------------------------------------
def thread_groups(plan: Plan) -> list[Node]:
    """The enabled thread groups, in plan order (JMeter starts only those directly under the test plan)."""
    return [n for n in plan.top_level() if el.is_thread_group(n.tag) and n.own_enabled]


def role(node: Node) -> str:
    return {el.SETUP_GROUP: "setUp", el.TEARDOWN_GROUP: "tearDown"}.get(node.tag, "load")


def load_groups(plan: Plan) -> list[Node]:
    """The thread groups that carry the load (setUp and tearDown groups run as written)."""
    return [n for n in thread_groups(plan) if role(n) == "load"]


def is_controllable(node: Node) -> bool:
    return node.tag in (el.STANDARD_GROUP, el.SETUP_GROUP, el.TEARDOWN_GROUP, el.OPEN_MODEL_GROUP) \
        or node.tag in el.PLUGIN_GROUPS


def group_kind(node: Node) -> str:
    return {el.STANDARD_GROUP: "Thread Group", el.SETUP_GROUP: "setUp Thread Group",
            el.TEARDOWN_GROUP: "tearDown Thread Group", el.OPEN_MODEL_GROUP: "Open Model Thread Group"}.get(
        node.tag, el.PLUGIN_GROUPS.get(node.tag, node.tag))


def own_threads(node: Node, variables: dict, properties: dict | None = None) -> Setting | None:
    """The threads a group starts as the plan is written (the sum of an Ultimate Thread Group's rows)."""
    if node.tag == "kg.apc.jmeter.threads.UltimateThreadGroup":
        rows = node.element.find("collectionProp[@name='ultimatethreadgroupdata']")
        counts = [evaluate((row.findtext("stringProp") or ""), variables, properties).number()
                  for row in (rows if rows is not None else [])]
        known = [c for c in counts if c is not None]
        total = sum(known) if known and len(known) == len(counts) else None
        return Setting(written=f"{total:g} in {len(counts)} rows" if total is not None else f"{len(counts)} rows",
                       source="hard-coded" if total is not None else "expression", value=total)
    name = {"com.blazemeter.jmeter.threads.concurrency.ConcurrencyThreadGroup": "TargetLevel"}.get(
        node.tag, "ThreadGroup.num_threads")
    if node.tag in (el.OPEN_MODEL_GROUP, "com.blazemeter.jmeter.threads.arrivals.ArrivalsThreadGroup",
                    "com.blazemeter.jmeter.threads.arrivals.FreeFormArrivalsThreadGroup"):
        return None  # an arrival rate, not a number of threads
    text = node.prop(name)
    return None if text is None else Setting.of(evaluate(text, variables, properties))


def _group_facts(node: Node, variables: dict) -> ThreadGroupFacts:
    def setting(name):
        text = node.prop(name)
        return None if text is None else Setting.of(evaluate(text, variables))

    if node.tag in (el.STANDARD_GROUP, el.SETUP_GROUP, el.TEARDOWN_GROUP):
        rampup, loops = setting("ThreadGroup.ramp_time"), setting("LoopController.loops")
        if node.prop("LoopController.continue_forever") == "true" and loops is None:
            loops = Setting(written="forever", source="hard-coded", value=-1.0)
        scheduler = node.prop("ThreadGroup.scheduler") == "true"
        duration = setting("ThreadGroup.duration") if scheduler else None
    elif node.tag == el.OPEN_MODEL_GROUP:
        rampup, loops, duration = None, None, None
    else:  # jpgc groups name their settings alike
        rampup, loops, duration = setting("RampUp"), setting("Iterations"), setting("Hold")
    r = role(node)
    if r != "load":
        control = "runs as written (setUp and tearDown groups are not the load)"
    elif node.tag == el.STANDARD_GROUP:
        control = "controlled in place: the cell's users, ramp-up and duration, loops until the duration ends"
    elif is_controllable(node):
        control = ("replaced by a standard Thread Group carrying the cell's load (or an Open Model Thread Group "
                   "when the grid gives rate_per_s): the grid, not the plan, defines the load schedule")
    else:
        control = "unknown thread group: littlegrid cannot control it"
    return ThreadGroupFacts(name=node.name, kind=group_kind(node), role=r, threads=own_threads(node, variables),
                            rampup=rampup, loops=loops, duration=duration, control=control,
                            schedule=setting("OpenModelThreadGroup.schedule"))


# -- timers and pauses ---------------------------------------------------------------------------------
def think_elements(plan: Plan) -> list[Node]:
    """Enabled timers anywhere, and Flow Control Action pauses (TestAction, action = pause)."""
    return [n for n in plan.nodes() if n.enabled and (el.is_timer(n.tag) or is_pause(n))]


def is_pause(node: Node) -> bool:
    return node.tag == el.FLOW_CONTROL and (node.prop("ActionProcessor.action") or "1") == el.FLOW_CONTROL_PAUSE


def timer_mean(node: Node, variables: dict) -> float | None:
    """The mean pause in ms, when the element says it without running (scripted timers and run-time values: None)."""
    if is_pause(node):
        return evaluate(node.prop("ActionProcessor.duration"), variables).number()
    rule = el.THINK_TIMERS.get(node.tag)
    if rule is None:
        return None
    delay = evaluate(node.prop("ConstantTimer.delay") or "0", variables).number()
    rng = evaluate(node.prop("RandomTimer.range") or "0", variables).number()
    return None if delay is None or rng is None else rule(delay, rng)


def _timer_facts(node: Node, variables: dict) -> TimerFacts:
    kind = "Flow Control Action (pause)" if is_pause(node) else node.tag.rsplit(".", 1)[-1]
    think = node.tag not in el.PACING_TIMERS
    return TimerFacts(name=node.name, kind=kind, path=node.path, mean_ms=timer_mean(node, variables), think=think)


# -- hosts -----------------------------------------------------------------------------------------------
def samplers(plan: Plan) -> list[Node]:
    return [n for n in plan.nodes() if n.enabled and (n.tag in el.SAMPLERS or n.tag.endswith("Sampler"))
            and n.tag != el.FLOW_CONTROL]


def http_defaults_in_scope(node: Node) -> list[Node]:
    """HTTP Request Defaults that apply to a sampler, nearest first: those beside it or beside any parent."""
    found, level = [], node
    while level is not None:
        holder = level.parent
        siblings = holder.children if holder is not None else []
        found += [s for s in siblings if s.tag == "ConfigTestElement" and s.own_enabled and s.enabled
                  and s.element.get("guiclass") == el.HTTP_DEFAULTS_GUI]
        level = holder
    return found


DEFAULT_PORTS = {"http": 80, "https": 443}


def http_target(node: Node, variables: dict, properties: dict | None = None) -> TargetFacts:
    """Where an HTTP sampler goes: its own fields, else the nearest HTTP Request Defaults; a full URL in its path
    wins, as in JMeter."""
    def field_of(name: str) -> tuple[str, str]:
        own = node.prop(name)
        if own:
            return own, "the sampler"
        for defaults in http_defaults_in_scope(node):
            value = defaults.prop(name)
            if value:
                return value, f"HTTP Request Defaults \"{defaults.name}\""
        return "", ""

    path = evaluate(node.prop("HTTPSampler.path") or "", variables, properties)
    if path.resolved and re.match(r"(?i)https?://", path.resolved):
        url = urlsplit(path.resolved)
        protocol = url.scheme.lower()
        return TargetFacts(sampler=node.name, path=node.path, protocol=protocol, host=url.hostname,
                           port=url.port or DEFAULT_PORTS[protocol], via="the full URL in its path")
    (domain, via), (port_text, port_via) = field_of("HTTPSampler.domain"), field_of("HTTPSampler.port")
    protocol_text = field_of("HTTPSampler.protocol")[0]
    protocol = (evaluate(protocol_text, variables, properties).resolved or "http").lower() or "http"
    host = evaluate(domain, variables, properties).resolved
    port_value = evaluate(port_text, variables, properties).resolved
    port = None
    if port_value == "":
        port, port_via = DEFAULT_PORTS.get(protocol), f"the {protocol} default"
    elif port_value is not None and port_value.isdigit():
        port = int(port_value)
    via = via or "nothing (no host)"
    if path.resolved is None and path.written.startswith("${"):
        via += "; its path starts with a value known only at run time, which may be a full URL"
    return TargetFacts(sampler=node.name, path=node.path, protocol=protocol, host=host or None, port=port,
                       via=via if via == port_via else f"host from {via}, port from {port_via}")


# -- JDBC ------------------------------------------------------------------------------------------------
JDBC_URL = re.compile(r"(?i)^(jdbc:[a-z][a-z0-9]*)://(\[[^\]]+\]|[^/:?;]+)(?::(\d+))?(?:/([^?;]*))?([?;].*)?$")


@dataclass(frozen=True)
class JdbcUrl:
    """jdbc:<subprotocol>://host[:port][/database][?params]: the shape littlegrid reads and retargets."""

    protocol: str
    host: str
    port: int | None
    database: str | None
    params: str  # "?sslmode=disable" or ";databaseName=x" as written, "" when none


def parse_jdbc_url(url: str | None) -> JdbcUrl | None:
    m = JDBC_URL.match(url or "")
    if m is None:
        return None
    protocol = m.group(1).lower()
    port = int(m.group(3)) if m.group(3) else el.JDBC_DEFAULT_PORTS.get(protocol)
    return JdbcUrl(protocol, m.group(2).strip("[]"), port, m.group(4) or None, m.group(5) or "")


def jdbc_pools(plan: Plan, variables: dict) -> dict[str, Node]:
    """The enabled JDBC Connection Configurations by the pool name they define (dataSource)."""
    return {evaluate(n.prop("dataSource"), variables).resolved or n.prop("dataSource") or "": n
            for n in plan.nodes() if n.tag == el.JDBC_POOL and n.enabled}


def jdbc_target(node: Node, pools: dict[str, Node], variables: dict, properties: dict | None = None) -> TargetFacts:
    """Where a JDBC Request goes: the URL of the JDBC Connection Configuration whose pool it names."""
    name = evaluate(node.prop("dataSource"), variables, properties).resolved or node.prop("dataSource") or ""
    pool = pools.get(name)
    if pool is None:
        return TargetFacts(sampler=node.name, path=node.path, protocol="jdbc", host=None, port=None,
                           via=f"no enabled JDBC Connection Configuration defines the pool {name!r}")
    url = evaluate(pool.prop("dbUrl"), variables, properties).resolved
    parsed = parse_jdbc_url(url)
    via = f"JDBC Connection Configuration \"{pool.path}\" (pool {name})"
    if parsed is None:
        return TargetFacts(sampler=node.name, path=node.path, protocol=(url or "jdbc").split("://")[0], host=None,
                           port=None, via=via + (f"; its URL {url} is not jdbc:<name>://host:port/database" if url
                                                 else "; its URL is known only at run time"), url=url)
    return TargetFacts(sampler=node.name, path=node.path, protocol=parsed.protocol, host=parsed.host,
                       port=parsed.port, via=via, database=parsed.database, url=url)


def _driver_classes(jmeter_home: Path | None) -> set[str] | None:
    """The JDBC driver classes in JMeter's lib/ (where testPlanLibraries puts them), or None when no JMeter."""
    if jmeter_home is None:
        return None
    found = set()
    for jar in sorted((jmeter_home / "lib").glob("*.jar")):
        try:
            with zipfile.ZipFile(jar) as z:
                if "META-INF/services/java.sql.Driver" in z.namelist():
                    text = z.read("META-INF/services/java.sql.Driver").decode("utf-8", "replace")
                    found.update(line.strip() for line in text.splitlines() if line.strip() and line[0] != "#")
                found.update(n[:-6].replace("/", ".") for n in z.namelist() if n.endswith("Driver.class"))
        except (OSError, zipfile.BadZipFile):
            continue
    return found


# -- data files ------------------------------------------------------------------------------------------
def csv_path(written: str, plan_folder: Path, files: dict[str, str] | None = None,
             resolved: str | None = None) -> Path | None:
    """Where a CSV Data Set's file is on this machine: mapped by [plan_options] files (keyed by the path as
    written in the plan), as written (variables resolved) when absolute here, else relative to the plan's folder,
    as JMeter resolves it. None: a Windows path, or one known only at run time, with no mapping."""
    files = files or {}
    if written in files:
        return Path(files[written]).expanduser().resolve()
    written = resolved if resolved is not None else written
    if "${" in written:
        return None
    if ntpath.isabs(written) and not written.startswith("/") or re.match(r"^[A-Za-z]:", written):
        return None  # C:\data\users.csv means nothing here
    path = Path(PurePosixPath(written.replace("\\", "/")))
    return path if path.is_absolute() else (plan_folder / path).resolve()


def data_sets(plan: Plan) -> list[Node]:
    return [n for n in plan.nodes() if n.tag == el.CSV_DATA_SET and n.enabled]


def _data_file_facts(node: Node, variables: dict, files: dict | None, folder: Path) -> DataFileFacts:
    value = evaluate(node.prop("filename") or "", variables)
    resolved = csv_path(value.written, folder, files, value.resolved or value.written) if value.written else None
    return DataFileFacts(name=node.name, path=node.path, written=value.written,
                         resolved=str(resolved) if resolved else None, found=bool(resolved and resolved.is_file()))


# -- listeners and plugins --------------------------------------------------------------------------------
def is_listener(node: Node) -> bool:
    return node.tag in el.LISTENERS or node.tag.endswith(("ResultCollector", "Listener"))


def listeners(plan: Plan) -> list[Node]:
    return [n for n in plan.nodes() if is_listener(n)]


def _plugin_classes(jmeter_home: Path | None) -> set[str] | None:
    """The classes in JMeter's lib/ext jars (where plugins go), or None when no JMeter is known."""
    if jmeter_home is None:
        return None
    classes = set()
    for jar in sorted((jmeter_home / "lib" / "ext").glob("*.jar")):
        try:
            with zipfile.ZipFile(jar) as z:
                classes.update(n[:-6].replace("/", ".") for n in z.namelist() if n.endswith(".class"))
        except (OSError, zipfile.BadZipFile):
            continue
    return classes


def known_aliases(jmeter_home: Path | None) -> set[str] | None:
    """The element names JMeter's saveservice.properties knows (what a JMX may use for its own elements)."""
    if jmeter_home is None:
        return None
    try:
        text = (jmeter_home / "bin" / "saveservice.properties").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    names = set()
    for line in text.splitlines():
        if "=" in line and not line.startswith("#"):
            names.update(n.strip() for n in line.split("=", 1)[0].split(","))  # "HTTPSamplerProxy,HTTPSampler=..."
    return names


STRUCTURE_TAGS = {"TestPlan"}


# -- the whole inspection ----------------------------------------------------------------------------------
def inspect(plan: Plan, jmeter_home: Path | None = None, files: dict[str, str] | None = None,
            think: str = "replace") -> Inspection:
    """Every fact `plan inspect` states, and the blockers, each naming its element. `think` is the grid's think
    mode: with "replace" (the default) the plan's timers leave the derived plan, so their plugins are not needed."""
    variables = user_variables(plan)
    groups = thread_groups(plan)
    blockers, notes = [], []
    if not any(role(g) == "load" for g in groups):
        blockers.append("no enabled thread group carries load (only setUp/tearDown groups, or none): "
                        "nothing for the grid's users to control")
    for g in groups:
        if not is_controllable(g):
            blockers.append(f"{g.label}: a thread group littlegrid does not know; it cannot set its load "
                            "(replace it with a standard Thread Group)")
    timer_nodes = think_elements(plan)
    timers = [_timer_facts(n, variables) for n in timer_nodes]
    targets = []
    pools = jdbc_pools(plan, variables)
    for s in samplers(plan):
        if s.tag in el.HTTP_SAMPLERS:
            targets.append(http_target(s, variables))
        elif s.tag in el.JDBC_SAMPLERS:
            t = jdbc_target(s, pools, variables)
            targets.append(t)
            if t.via.startswith("no enabled JDBC"):
                blockers.append(f"{s.label}: {t.via}; JMeter would fail every request")
            elif t.host is None:
                notes.append(f"{s.label}: {t.via}; a grid can run it only with [plan_options] jdbc = \"keep\"")
            else:
                notes.append(f"{s.label}: reaches {t.url} ({t.via}); a grid retargets it with [target] protocol = "
                             f"\"{t.protocol}\", host, port (and database), or keeps it with [plan_options] jdbc = "
                             "\"keep\"")
        elif s.tag in el.OTHER_HOST_SAMPLERS:
            prop_name = el.OTHER_HOST_SAMPLERS[s.tag]
            host = evaluate(s.prop(prop_name), variables).resolved if prop_name else None
            blockers.append(f"{s.label}: a {s.tag} reaches {host or 'a host of its own'}, which littlegrid cannot "
                            "retarget to the grid's host; disable it or move it to a setUp group you run elsewhere")
        elif s.tag in el.SCRIPT_SAMPLERS:
            notes.append(f"{s.label}: a script sampler; littlegrid cannot tell which hosts it reaches")
    drivers = _driver_classes(jmeter_home)
    for pool in pools.values():
        driver = evaluate(pool.prop("driver"), variables).resolved
        if drivers is not None and driver and driver not in drivers:
            blockers.append(f"{pool.label}: its driver {driver} is not in JMeter's lib/ ({jmeter_home}); declare the "
                            "driver's Maven coordinates in the root pom's testPlanLibraries (docs/own-plans.md)")
    for t in targets:
        if t.host is None and not t.protocol.startswith("jdbc"):
            notes.append(f"sampler \"{t.path}\": host known only at run time ({t.via}); a derived plan sets "
                         "the grid's host on it")
    data = [_data_file_facts(n, variables, files, plan.path.resolve().parent) for n in data_sets(plan)]
    for d in data:
        if d.resolved is None:
            blockers.append(f"CSV Data Set \"{d.path}\": file {d.written} cannot be found on this machine; map it "
                            f"with [plan_options] files = {{ '{d.written}' = '<path here>' }}")
        elif not d.found:
            blockers.append(f"CSV Data Set \"{d.path}\": file {d.written} is missing (looked for {d.resolved}); "
                            f"map it with [plan_options] files = {{ '{d.written}' = '<path here>' }}")
    heard = [n for n in listeners(plan) if n.enabled]
    listener_facts = [ListenerFacts(name=n.name, kind=n.tag.rsplit(".", 1)[-1], path=n.path,
                                    file=(n.prop("filename") or None)) for n in heard]
    available = _plugin_classes(jmeter_home)
    plugins = []
    for n in plan.nodes():
        if not el.is_plugin(n.tag):
            continue
        installed = None if available is None else n.tag in available
        plugins.append(PluginFacts(name=n.path, element=n.tag, plugin_id=el.PLUGIN_IDS.get(n.tag),
                                   installed=installed))
        # What a derived plan takes out needs no plugin: thread groups replaced, listeners, replaced timers.
        dropped = (n.tag in el.PLUGIN_GROUPS and n.parent is plan.root) or is_listener(n) \
            or (think == "replace" and el.is_timer(n.tag) and n in timer_nodes)
        if installed is False and not dropped:
            blockers.append(f"{n.label}: needs the plugin {el.PLUGIN_IDS.get(n.tag) or n.tag} "
                            f"(class {n.tag}), not installed in {jmeter_home}")
    aliases = known_aliases(jmeter_home)
    if aliases:
        for n in plan.nodes():
            if not el.is_plugin(n.tag) and "." not in n.tag and n.tag not in aliases | STRUCTURE_TAGS:
                blockers.append(f"element <{n.tag}> \"{n.path}\": JMeter (at {jmeter_home}) does not know "
                                "this element and cannot load the plan")
    transactions = [n.path for n in plan.nodes() if n.tag == el.TRANSACTION and n.enabled]
    return Inspection(plan=str(plan.path), thread_groups=[_group_facts(g, variables) for g in groups],
                      timers=timers, targets=targets, data_files=data, listeners=listener_facts, plugins=plugins,
                      transactions=transactions, notes=notes, blockers=blockers)

