"""The plan a cell runs, derived from the user's plan: the cell's load in its thread groups, littlegrid's think
time, the grid's host, listeners off, data files at absolute paths. The user's file is only read."""
# Over 450 lines as one job: the plan a cell runs, one rewrite per kind of element (the load's alone is 50 lines).

from __future__ import annotations

import copy
import hashlib
import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from littlegrid.plan import elements as el
from littlegrid.plan import inspect as facts
from littlegrid.plan.jmx import Node, Plan, PlanError, evaluate, insert_first, load, prop, remove, set_prop, \
    user_variables
THINK_MODES = ("replace", "scale", "keep")
THINK_DISTS = ("exponential", "poisson", "constant")
# [plan_options] jdbc: a JDBC Connection Configuration's URL retargeted to the grid's [target] (a JDBC one), or kept
# as written when the user says so; never kept silently.
JDBC_MODES = ("retarget", "keep")
# littlegrid's think-time timer is the one in the checkout's plans/closed.jmx (it records its draw as
# think_drawn_ms); callers pass that file (littlegrid.run.own_plan.think_timer_plan), so this stage needs no other.
THINK_TIMER_PLAN = Path("plans") / "closed.jmx"


@dataclass(frozen=True)
class PlanOptions:
    """[plan_options] of a grid: how think time is handled, each load group's share, data files mapped here."""

    think: str = "replace"
    shares: dict = field(default_factory=dict)   # thread group name -> weight
    files: dict = field(default_factory=dict)    # path as written in the plan -> path on this machine
    jdbc: str = "retarget"                       # JDBC_MODES


@dataclass(frozen=True)
class CellLoad:
    """What one cell asks of the plan."""

    users: int | None          # None: the plan's own thread counts
    rate_per_s: float | None   # given: an open workload (Open Model Thread Groups)
    think_ms: float | None
    think_dist: str
    rampup_s: float
    duration_s: float
    protocol: str
    host: str
    port: int
    label: str = ""            # the cell's id, written into the derived plan's comments
    database: str | None = None  # a JDBC target's database (None: each URL keeps its own)
    engines: tuple = ()        # remote engines' names as in -R: users is the total, dealt out to them


@dataclass(frozen=True)
class Derived:
    xml: bytes
    changes: list[str]
    group_threads: dict        # load thread group -> threads (closed workloads)
    setup_groups: list[str]    # setUp and tearDown groups, which run as written
    think_ms: float | None     # the intended think time per request (keep: what the plan's timers give, if known)
    # With remote engines (closed workloads): each engine's threads, and the -G properties that give each engine its
    # share of each load group (the group's thread count reads them by the engine's name).
    threads_by_engine: dict = field(default_factory=dict)
    engine_properties: dict = field(default_factory=dict)
    groups_by_engine: dict = field(default_factory=dict)  # engine -> {load group: its threads there}
    data_files: tuple = ()     # (CSV Data Set, the absolute path it reads): remote engines read it on their own hosts


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def blockers(path: Path, options: PlanOptions, jmeter_home: Path | None = None) -> list[str]:
    """Everything that stops this plan from running as a grid with these options (empty: it can)."""
    plan = load(path)
    found = list(facts.inspect(plan, jmeter_home=jmeter_home, files=options.files, think=options.think).blockers)
    names = [g.name for g in facts.load_groups(plan)]
    for name in options.shares:
        if name not in names:
            found.append(f"[plan_options] shares: no enabled load thread group is called {name!r} "
                         f"(the plan's: {', '.join(repr(n) for n in names) or 'none'})")
    if options.think == "scale":
        found += _scale_blockers(plan)
    return found


def derive(path: Path, options: PlanOptions, cell: CellLoad, timer_plan: Path,
           jmeter_home: Path | None = None) -> Derived:
    """The derived plan for one cell; a plan that cannot run as a grid is refused with every blocker named.
    timer_plan: the plan holding littlegrid's think-time timer (plans/closed.jmx)."""
    problems = blockers(path, options, jmeter_home)
    if problems:
        raise PlanError(f"{path}: cannot run as a grid: " + "; ".join(problems))
    if cell.think_dist not in THINK_DISTS:
        raise PlanError(f"think_dist {cell.think_dist!r}: expected one of {', '.join(THINK_DISTS)}")
    plan = load(path)
    variables = user_variables(plan)
    changes: list[str] = []
    threads, groups_by_engine, engine_properties = _load(plan, options, cell, variables, changes)
    think_ms = _think(plan, options, cell, variables, changes, timer_plan)
    _target(plan, cell, variables, changes)
    _jdbc_target(plan, options, cell, variables, changes)
    _listeners(plan, changes)
    data_files = _data_files(plan, options, variables, changes, cell.engines)
    comment = f"Derived by littlegrid from {Path(path).resolve()} for cell {cell.label or '(no axes)'}."
    old = plan.root.prop("TestPlan.comments")
    set_prop(plan.root.element, "TestPlan.comments", comment + (f"\n{old}" if old else ""))
    escaped = check_hosts(plan, cell, keep_jdbc=options.jdbc == "keep")
    if escaped:
        raise PlanError(f"{path}: after retargeting, these samplers would still reach a host the grid does not "
                        f"name ({cell.host}:{cell.port}): " + "; ".join(escaped))
    ET.indent(plan.document, space="  ")
    xml = ET.tostring(plan.document.getroot(), encoding="UTF-8", xml_declaration=True)
    setup = [g.name for g in facts.thread_groups(plan) if facts.role(g) != "load"]
    return Derived(xml=xml, changes=changes, group_threads=threads, setup_groups=setup, think_ms=think_ms,
                   threads_by_engine={e: sum(groups.values()) for e, groups in groups_by_engine.items()},
                   engine_properties=engine_properties, groups_by_engine=groups_by_engine, data_files=data_files)


# -- load ----------------------------------------------------------------------------------------------------
def split_users(users: int, weights: list[float]) -> list[int]:
    """users split in proportion to the weights by largest remainder; each group at least one thread when
    users allows it (taken from the largest groups)."""
    total = sum(weights)
    quotas = [users * w / total for w in weights]
    counts = [math.floor(q) for q in quotas]
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(quotas[i] - counts[i]), i))
    for i in by_remainder[:users - sum(counts)]:
        counts[i] += 1
    if users >= len(weights):
        for i in range(len(counts)):
            if counts[i] == 0:
                largest = max(range(len(counts)), key=lambda j: (counts[j], -j))
                counts[largest] -= 1
                counts[i] = 1
    return counts


def spread_over_engines(counts: list[int], engines: list[str]) -> list[dict[str, int]]:
    """Each group's threads dealt to the engines in turn, group after group, each group going on from the engine
    after the one the last group ended on: every group is spread as evenly as whole threads allow, and each engine
    gets N // k of the N threads in all, the first N mod k engines listed one more. One dict per group."""
    k, start, spread = len(engines), 0, []
    for n in counts:
        # thread j of this group is thread start + j of all, and goes to engine (start + j) mod k
        spread.append({e: len(range((i - start) % k, n, k)) for i, e in enumerate(engines)})
        start += n
    return spread


def engine_share_property(group_index: int, engine: str) -> str:
    """The -G property holding one load group's threads on one engine."""
    return f"littlegrid.group{group_index}.{engine}"


def _threads_text(threads: int, index: int, engines: tuple) -> str:
    """A load group's thread count as the derived plan writes it: the number on one host; with remote engines,
    each engine's share, read by the name JMeter gave that engine (the whole group where no share was sent, so
    the plan opened in the GUI or run on one host runs the group as the cell does)."""
    if not engines:
        return str(threads)
    share = engine_share_property(index, "${__P(" + el.ENGINE_NAME_PROPERTY + ",)}")
    return "${__P(" + share + "," + str(threads) + ")}"


def _load(plan: Plan, options: PlanOptions, cell: CellLoad, variables: dict,
          changes: list) -> tuple[dict, dict, dict]:
    """The cell's load in the load groups: (threads by group, each engine's threads by group, the engines' -G
    properties)."""
    groups = facts.load_groups(plan)
    own = [facts.own_threads(g, variables) for g in groups]
    weights = [float(options.shares.get(g.name, 0) or 0) if options.shares else
               (o.value if o is not None and o.value and o.value > 0 else 1.0) for g, o in zip(groups, own)]
    if options.shares and not all(w > 0 for w in weights):
        missing = [g.name for g, w in zip(groups, weights) if w <= 0]
        raise PlanError(f"{plan.path}: [plan_options] shares gives no share to {', '.join(map(repr, missing))}")
    if cell.rate_per_s is not None:
        total = sum(weights)
        for g, w in zip(groups, weights):
            rate = cell.rate_per_s * w / total
            _replace_group(g, _open_model_group(g, rate, cell))
            changes.append(f"thread group \"{g.name}\" ({facts.group_kind(g)}): now an Open Model Thread Group, "
                           f"{rate:g} arrivals/s (Poisson) for {cell.duration_s:g} s"
                           + (" on each engine" if cell.engines else ""))
        return {}, {}, {}
    if cell.users is None:
        unknown = [g.name for g, o in zip(groups, own) if o is None or o.value is None]
        if unknown:
            raise PlanError(f"{plan.path}: the grid gives no users and the plan's thread count is not a number in "
                            f"{', '.join(map(repr, unknown))}: add users to [axes] or [properties]")
        counts = [int(o.value) for o in own]
    else:
        counts = split_users(cell.users, weights)
    engines = list(cell.engines)
    if engines and sum(counts) < len(engines):
        raise PlanError(f"{plan.path}: {sum(counts)} threads in all on {len(engines)} engines: users is the total N, "
                        "split across the engines, and each engine needs at least one thread")
    spread = spread_over_engines(counts, engines) if engines else [{} for _ in counts]
    threads, by_engine, properties = {}, {e: {} for e in engines}, {}
    for i, (g, o, n, shares) in enumerate(zip(groups, own, counts, spread)):
        before = o.text() if o is not None else "none"
        count = _threads_text(n, i, cell.engines)
        split = f" ({' + '.join(f'{m} on {e}' for e, m in shares.items())})" if shares else ""
        if g.tag == el.STANDARD_GROUP:
            _control_in_place(g, count, cell)
            changes.append(f"thread group \"{g.name}\": {n} threads{split} (was {before}), ramp-up "
                           f"{cell.rampup_s:g} s, loops until {cell.duration_s:g} s")
        else:
            _replace_group(g, _standard_group(g, count, cell))
            changes.append(f"thread group \"{g.name}\" ({facts.group_kind(g)}): replaced by a Thread Group of {n} "
                           f"threads{split}, ramp-up {cell.rampup_s:g} s, for {cell.duration_s:g} s")
        threads[g.name] = n
        for engine, m in shares.items():
            by_engine[engine][g.name] = m
            properties[engine_share_property(i, engine)] = m
    return threads, by_engine, properties


def _seconds(value: float) -> str:
    return str(int(round(value)))  # JMeter reads ramp-up and duration as whole seconds


def _loop_forever() -> ET.Element:
    loop = ET.Element("elementProp", {"name": "ThreadGroup.main_controller", "elementType": "LoopController",
                                      "guiclass": "LoopControlPanel", "testclass": "LoopController",
                                      "testname": "Loop Controller"})
    ET.SubElement(loop, "intProp", {"name": "LoopController.loops"}).text = "-1"
    ET.SubElement(loop, "boolProp", {"name": "LoopController.continue_forever"}).text = "false"
    return loop


def _control_in_place(group: Node, threads: str, cell: CellLoad) -> None:
    e = group.element
    set_prop(e, "ThreadGroup.num_threads", threads)
    set_prop(e, "ThreadGroup.ramp_time", _seconds(cell.rampup_s))
    set_prop(e, "ThreadGroup.scheduler", "true", "boolProp")
    set_prop(e, "ThreadGroup.duration", _seconds(cell.duration_s))
    set_prop(e, "ThreadGroup.delay", "0")
    controller = e.find("elementProp[@name='ThreadGroup.main_controller']")
    if controller is not None:
        e.remove(controller)
    e.append(_loop_forever())


def _standard_group(group: Node, threads: str, cell: CellLoad) -> ET.Element:
    new = ET.Element("ThreadGroup", {"guiclass": "ThreadGroupGui", "testclass": "ThreadGroup",
                                     "testname": group.name})
    set_prop(new, "ThreadGroup.on_sample_error", group.prop("ThreadGroup.on_sample_error") or "continue")
    set_prop(new, "ThreadGroup.same_user_on_next_iteration", "true", "boolProp")
    _control_in_place(Node(element=new, tree=group.tree, parent=None, container=group.container), threads, cell)
    return new


def _open_model_group(group: Node, rate: float, cell: CellLoad) -> ET.Element:
    new = ET.Element("OpenModelThreadGroup", {"guiclass": "OpenModelThreadGroupGui",
                                              "testclass": "OpenModelThreadGroup", "testname": group.name})
    set_prop(new, "OpenModelThreadGroup.schedule", f"rate({rate:g}/sec) random_arrivals({_seconds(cell.duration_s)} sec)")
    set_prop(new, "ThreadGroup.on_sample_error", group.prop("ThreadGroup.on_sample_error") or "continue")
    return new


def _replace_group(group: Node, new: ET.Element) -> None:
    index = list(group.container).index(group.element)
    group.container.remove(group.element)
    group.container.insert(index, new)
    group.element = new


# -- think time ------------------------------------------------------------------------------------------------
def _think_targets(plan: Plan) -> list[Node]:
    """Timers and pauses a think mode acts on: in the load groups and plan-wide (setUp/tearDown run as written)."""
    keep_out = [g for g in facts.thread_groups(plan) if facts.role(g) != "load"]
    return [n for n in facts.think_elements(plan) if not any(a in keep_out for a in n.ancestors())]


def per_request_think(plan: Plan, variables: dict) -> float | None:
    """The plan's think time per request: each sampler's timers in scope plus the pauses, over one iteration of
    each load group, divided by the requests of that iteration. None when a timer's mean is unknown."""
    requests, total = 0, 0.0
    timers = [n for n in _think_targets(plan) if el.is_timer(n.tag) and n.tag not in el.PACING_TIMERS]
    sampled = set(facts.samplers(plan))
    for group in facts.load_groups(plan):
        for node in group.walk():
            pause = node.tag == el.FLOW_CONTROL and node.enabled  # a sampler too: timers run before it
            if node not in sampled and not pause:
                continue
            requests += 0 if pause else 1
            # a timer applies to every sampler under its parent (and to its own parent sampler)
            means = [facts.timer_mean(t, variables) for t in timers
                     if t.parent is node or t.parent in node.ancestors()]
            if facts.is_pause(node):
                means.append(facts.timer_mean(node, variables))
            if any(m is None for m in means):
                return None
            total += sum(means)
    return total / requests if requests else None


def _scale_blockers(plan: Plan) -> list[str]:
    variables = user_variables(plan)
    found = []
    for n in _think_targets(plan):
        if n.tag in el.PACING_TIMERS:
            continue
        if facts.timer_mean(n, variables) is None:
            found.append(f"{n.label}: think = \"scale\" cannot scale it (scripted, or its pause is known only at "
                         "run time); use think = \"replace\" or \"keep\"")
    if not found and not per_request_think(plan, variables):
        found.append("think = \"scale\": the plan has no think time to scale; use think = \"replace\"")
    return found


def _think(plan: Plan, options: PlanOptions, cell: CellLoad, variables: dict, changes: list,
           timer_plan: Path) -> float | None:
    targets = _think_targets(plan)
    if options.think == "keep":
        mean = per_request_think(plan, variables)
        changes.append("think time: the plan's timers and pauses kept" +
                       (f" ({mean:g} ms per request)" if mean is not None else ""))
        return mean
    if options.think == "scale":
        mean = per_request_think(plan, variables)
        factor = (cell.think_ms or 0.0) / mean
        for n in targets:
            if n.tag in el.PACING_TIMERS:
                remove(n)
                changes.append(f"{n.label}: removed (it paces to a throughput, which a closed grid sets by users "
                               "and think time)")
                continue
            for name in ("ConstantTimer.delay", "RandomTimer.range", "ActionProcessor.duration"):
                value = evaluate(n.prop(name), variables).number() if n.prop(name) is not None else None
                if value is not None:
                    set_prop(n.element, name, str(int(round(value * factor))))
        changes.append(f"think time: {len(targets)} timers and pauses scaled by {factor:.4g} so that their mean per "
                       f"request is {cell.think_ms or 0:g} ms (was {mean:g} ms)")
        return cell.think_ms or 0.0
    for n in targets:
        remove(n)
    if targets:
        kinds = sorted({"Flow Control Action" if n.tag == el.FLOW_CONTROL else n.tag.rsplit(".", 1)[-1]
                        for n in targets})
        changes.append(f"think time: removed {len(targets)} timers and pauses of the plan ({', '.join(kinds)})")
    think_ms = cell.think_ms or 0.0
    if cell.rate_per_s is None or cell.think_ms is not None:
        for group in facts.load_groups(plan):
            insert_first(group, think_timer(timer_plan, think_ms, cell.think_dist))
        changes.append(f"think time: littlegrid's think-time timer ({cell.think_dist}, mean {think_ms:g} ms, its draw "
                       "recorded as think_drawn_ms) before each sampler of every load group")
    return think_ms


# The element of littlegrid's think-time timer (timer/ in the checkout; the build puts its jar in lib/ext).
THINK_TIMER_CLASS = "io.littlegrid.jmeter.ThinkTimeTimer"


def think_timer(source: Path, think_ms: float, dist: str) -> ET.Element:
    """littlegrid's think-time timer as plans/closed.jmx holds it (a compiled timer in JMeter's lib/ext), with the
    cell's mean and distribution written literally."""
    if not Path(source).is_file():
        raise PlanError(f"{source}: not found (it holds littlegrid's think-time timer)")
    timer = load(source).document.getroot().find(f".//{THINK_TIMER_CLASS}")
    if timer is None:
        raise PlanError(f"{source}: holds no {THINK_TIMER_CLASS} (the think-time timer)")
    timer = copy.deepcopy(timer)
    timer.set("testname", f"littlegrid think time ({dist}, mean {think_ms:g} ms; the draw is recorded as "
                          "think_drawn_ms)")
    for name, value in (("distribution", dist), ("meanMs", f"{think_ms:g}"), ("offsetMs", "0")):
        set_prop(timer, name, value)
    return timer


# -- hosts, listeners, files --------------------------------------------------------------------------------------
def _target(plan: Plan, cell: CellLoad, variables: dict, changes: list) -> None:
    if cell.protocol.startswith("jdbc:"):
        return  # a JDBC target retargets the JDBC pools (_jdbc_target); HTTP samplers would reach no such host
    retargeted, embedded = 0, 0
    for node in plan.nodes():
        is_defaults = node.tag == "ConfigTestElement" and node.element.get("guiclass") == el.HTTP_DEFAULTS_GUI
        if node.tag not in el.HTTP_SAMPLERS and not is_defaults:
            continue
        e = node.element
        path = evaluate(prop(e, "HTTPSampler.path") or "", variables)
        if path.resolved and path.resolved.lower().startswith(("http://", "https://")):
            url = urlsplit(path.resolved)
            set_prop(e, "HTTPSampler.path", (url.path or "/") + (f"?{url.query}" if url.query else ""))
        set_prop(e, "HTTPSampler.domain", cell.host)
        set_prop(e, "HTTPSampler.port", str(cell.port))
        set_prop(e, "HTTPSampler.protocol", cell.protocol)
        if prop(e, "HTTPSampler.image_parser") == "true":
            set_prop(e, "HTTPSampler.image_parser", "false", "boolProp")
            embedded += 1
        retargeted += 1
    changes.append(f"target: {retargeted} HTTP samplers and HTTP Request Defaults now reach "
                   f"{cell.protocol}://{cell.host}:{cell.port}")
    if embedded:
        changes.append(f"target: embedded resources no longer fetched by {embedded} elements (they would come "
                       "from hosts the grid does not name)")


def _jdbc_target(plan: Plan, options: PlanOptions, cell: CellLoad, variables: dict, changes: list) -> None:
    """Each JDBC Connection Configuration a JDBC Request uses: its URL set to the grid's JDBC target (host, port, the
    grid's database else its own, its parameters kept), or kept as written when [plan_options] jdbc = "keep". A plan
    with JDBC Requests and an HTTP target without "keep" is refused: its database would be reached unsaid."""
    pools = facts.jdbc_pools(plan, variables)
    used = {}
    for s in facts.samplers(plan):
        if s.tag in el.JDBC_SAMPLERS:
            t = facts.jdbc_target(s, pools, variables)
            name = next((n for n, p in pools.items() if t.via.startswith(f"JDBC Connection Configuration \"{p.path}\"")),
                        None)
            if name is not None:
                used.setdefault(name, []).append((s, t))
    if not used:
        return
    if options.jdbc == "keep":
        for name, uses in used.items():
            changes.append(f"JDBC Connection Configuration \"{pools[name].path}\": kept as written "
                           f"({uses[0][1].url or pools[name].prop('dbUrl')}), as [plan_options] jdbc = \"keep\" says")
        return
    if not cell.protocol.startswith("jdbc:"):
        s, t = next(iter(used.values()))[0]
        raise PlanError(f"{plan.path}: {s.label} reaches {t.url or 'a database'} ({t.via}), and the grid's target is "
                        f"{cell.protocol}://{cell.host}:{cell.port}: give [target] protocol = \"{t.protocol}\" with "
                        "host, port (and database) to retarget it, or [plan_options] jdbc = \"keep\" to keep its URL "
                        "as written")
    for name, uses in used.items():
        pool, t = pools[name], uses[0][1]
        parsed = facts.parse_jdbc_url(t.url)
        if parsed is None:
            raise PlanError(f"{plan.path}: {pool.label}: its URL {t.url or pool.prop('dbUrl')!r} is not "
                            "jdbc:<name>://host:port/database, which littlegrid retargets; keep it with "
                            "[plan_options] jdbc = \"keep\"")
        if parsed.protocol != cell.protocol:
            raise PlanError(f"{plan.path}: {pool.label} speaks {parsed.protocol} and the grid's target is "
                            f"{cell.protocol}: its driver cannot reach that database")
        database = cell.database if cell.database is not None else (parsed.database or "")
        url = f"{cell.protocol}://{cell.host}:{cell.port}/{database}{parsed.params}"
        set_prop(pool.element, "dbUrl", url)
        changes.append(f"JDBC Connection Configuration \"{pool.path}\" (pool {name}, used by "
                       f"{len(uses)} JDBC Request{'s' if len(uses) != 1 else ''}): {t.url} -> {url}")


def check_hosts(plan: Plan, cell: CellLoad, keep_jdbc: bool = False) -> list[str]:
    """The samplers of a (derived) plan that would reach another host or port than the cell's (JDBC Requests whose
    URL the user keeps aside)."""
    variables = user_variables(plan)
    pools = facts.jdbc_pools(plan, variables)
    escaped = []
    for s in facts.samplers(plan):
        if s.tag in el.JDBC_SAMPLERS:
            t = facts.jdbc_target(s, pools, variables)
            if not keep_jdbc and (t.host, t.port) != (cell.host, cell.port):
                escaped.append(f"\"{s.path}\" reaches {t.host}:{t.port} ({t.via})")
            continue
        if s.tag in el.HTTP_SAMPLERS:
            t = facts.http_target(s, variables)
            if (t.host, t.port) != (cell.host, cell.port):
                escaped.append(f"\"{s.path}\" reaches {t.host}:{t.port} ({t.via})")
        elif s.tag in el.OTHER_HOST_SAMPLERS:
            escaped.append(f"\"{s.path}\" ({s.tag}) reaches a host of its own")
    return escaped


def _listeners(plan: Plan, changes: list) -> None:
    off, dropped = [], []
    for node in [n for n in plan.nodes() if facts.is_listener(n)]:
        if el.is_plugin(node.tag):
            remove(node)  # a plugin's listener needs its jar even disabled; the run folder's JTL replaces it
            dropped.append(node.name)
        elif node.own_enabled:
            node.element.set("enabled", "false")
            off.append(node.name)
    if off:
        changes.append(f"listeners disabled: {', '.join(off)} (the run folder's JTL is the one result writer)")
    if dropped:
        changes.append(f"plugin listeners removed: {', '.join(dropped)}")


def _data_files(plan: Plan, options: PlanOptions, variables: dict, changes: list, engines: tuple) -> tuple:
    """CSV Data Set paths made absolute (mapped by `files`); returns (element name, path) of each."""
    folder, found = plan.path.resolve().parent, []
    for node in facts.data_sets(plan):
        value = evaluate(node.prop("filename") or "", variables)
        path = facts.csv_path(value.written, folder, options.files, value.resolved or value.written)
        set_prop(node.element, "filename", str(path))
        found.append((node.name, str(path)))
        # JMeter sends the plan to remote engines, never its data files: each engine opens this path itself
        where = "; each remote engine reads it at this path on its own host" if engines else ""
        changes.append(f"CSV Data Set \"{node.name}\": {value.written} -> {path}{where}")
    return tuple(found)
