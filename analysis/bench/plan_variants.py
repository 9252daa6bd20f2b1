"""closed.jmx less one per-request element at a time, for bench_generator.py and bench_elements.py: what each costs.

Each `no-*` variant is closed.jmx less one thing that runs for every request and that the bare plan (bench/bare.jmx)
does not have; `bare-like` takes all of them away at once, so what it still costs beyond the bare plan is what the
list misses. The finer variants take away the `${__P()}` functions of one element, or read the properties once at
the start into variables. The variants are written into the bench's temporary folder, never into plans/.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import xml.etree.ElementTree as ET

from littlegrid.plan.jmx import PROPERTY_CALL, Node, Plan, evaluate, load, remove
from littlegrid.run.plan_properties import THINK_DRAWN_VARIABLE

SAMPLER = "HTTPSamplerProxy"
HEADERS = "HeaderManager"
TIMER = "io.littlegrid.jmeter.ThinkTimeTimer"
LISTENER = "ResultCollector"
PER_REQUEST = (SAMPLER, HEADERS, TIMER)  # the elements JMeter runs, or merges into the sampler, for every request


@dataclass(frozen=True)
class Variant:
    """closed.jmx less `drops`: `edit` changes the plan (given the run's properties), `run` the run's properties."""

    name: str
    drops: str
    edit: Callable[[Plan, dict], None] = lambda plan, properties: None
    run: Callable[[dict], dict] = lambda properties: properties


def _nodes(plan: Plan, tag: str) -> list[Node]:
    found = [n for n in plan.nodes() if n.tag == tag]
    if not found:
        raise SystemExit(f"{plan.path}: no {tag} element to take away: plan_variants.py needs updating")
    return found


def _drop_elements(tag: str) -> Callable[[Plan, dict], None]:
    def edit(plan: Plan, properties: dict) -> None:
        for node in _nodes(plan, tag):
            remove(node)
    return edit


def _drop_props(tag: str, *names: str) -> Callable[[Plan, dict], None]:
    """Take properties out of the element, wherever they sit in it; a name is a property's name, or the elementType
    of an elementProp (HTTPArgument: the sampler's body)."""
    def edit(plan: Plan, properties: dict) -> None:
        for node in _nodes(plan, tag):
            for name in names:
                found = [(parent, p) for parent in node.element.iter() for p in parent
                         if name in (p.get("name"), p.get("elementType"))]
                if not found:
                    raise SystemExit(f"{plan.path}: {tag} has no {name}: plan_variants.py needs updating")
                for parent, p in found:
                    parent.remove(p)
    return edit


def _literal_properties(tags=PER_REQUEST) -> Callable[[Plan, dict], None]:
    """Every `${__P(name,default)}` of the elements with these tags written as the value this run gives it: no
    function is left to evaluate for each request."""
    def edit(plan: Plan, properties: dict) -> None:
        for node in (n for n in plan.nodes() if n.tag in tags):
            for p in node.element.iter():
                if p.text and "${" in p.text:
                    value = evaluate(p.text, {}, properties)
                    if value.resolved is None:
                        raise SystemExit(f"{plan.path}: {node.tag} {p.get('name')}: cannot resolve {p.text!r}")
                    p.text = value.resolved
    return edit


def _as_variables(plan: Plan, properties: dict) -> None:
    """Every field of the per-request elements that is one `${__P(name,default)}` becomes `${name}`, a variable
    the test plan's User Defined Variables set once at the start to that same `${__P(name,default)}`."""
    arguments = plan.root.element.find("elementProp[@name='TestPlan.user_defined_variables']/collectionProp")
    for node in (n for n in plan.nodes() if n.tag in PER_REQUEST):
        for p in node.element.iter():
            if p.text and (m := PROPERTY_CALL.fullmatch(p.text)):
                name = m.group(1)
                if not any(a.get("name") == name for a in arguments):
                    argument = ET.SubElement(arguments, "elementProp", {"name": name, "elementType": "Argument"})
                    for key, value in (("Argument.name", name), ("Argument.value", p.text),
                                       ("Argument.metadata", "=")):
                        ET.SubElement(argument, "stringProp", {"name": key}).text = value
                p.text = "${" + name + "}"


def _without_sample_variables(properties: dict) -> dict:
    return {k: v for k, v in properties.items() if k != "sample_variables"}


ONE_AT_A_TIME = (
    Variant("no-header", "the HTTP Header Manager (Content-Type: ${__P(content_type,...)})", _drop_elements(HEADERS)),
    Variant("no-timer", "the think-time timer (ThinkTimeTimer at think 0)",
            _drop_elements(TIMER)),
    Variant("no-functions", "every per-request ${__P()} (sampler, header, timer fields written as literals)",
            _literal_properties()),
    Variant("no-body", "the sampler's raw-body argument ${__P(body,)}",
            _drop_props(SAMPLER, "HTTPArgument", "HTTPSampler.postBodyRaw")),
    Variant("no-timeouts", "the sampler's connect and response timeouts",
            _drop_props(SAMPLER, "HTTPSampler.connect_timeout", "HTTPSampler.response_timeout")),
    Variant("no-encoding", "the sampler's content encoding (UTF-8)",
            _drop_props(SAMPLER, "HTTPSampler.contentEncoding")),
    Variant("no-listener", "the disabled Summary Report", _drop_elements(LISTENER)),
    Variant("no-sample-variables", f"the recorded sample variable (sample_variables={THINK_DRAWN_VARIABLE}, a run "
            "property: the bare runs keep it)", run=_without_sample_variables),
)
# Finer: the functions of one element at a time, and the properties read once at the start into variables.
FINER = (
    Variant("sampler-literals", "the sampler's ${__P()} (its fields written as literals)",
            _literal_properties([SAMPLER])),
    Variant("header-literal", "the header's ${__P(content_type,...)} (written as a literal)",
            _literal_properties([HEADERS])),
    Variant("timer-literals", "the timer's ${__P()} (its fields written as literals)", _literal_properties([TIMER])),
    Variant("variables", "per-request ${__P()}: each field that is one ${__P(name,default)} reads ${name}, set once "
            "at the start by the test plan's User Defined Variables", _as_variables),
)


def _all_at_once(plan: Plan, properties: dict) -> None:
    for variant in ONE_AT_A_TIME:
        variant.edit(plan, properties)


BARE_LIKE = Variant("bare-like", "every no-* element at once (what is left is closed.jmx's thread group and test "
                    "plan, which run once per test)", _all_at_once, _without_sample_variables)
VARIANTS = (*ONE_AT_A_TIME, *FINER, BARE_LIKE)
BY_NAME = {v.name: v for v in VARIANTS}


def write_variant(closed: Path, variant: Variant, properties: dict, folder: Path) -> Path:
    """closed.jmx less the variant's element, written to `folder` as `closed-<variant>.jmx`."""
    plan = load(closed)
    variant.edit(plan, properties)
    path = Path(folder) / f"closed-{variant.name}.jmx"
    path.write_bytes(ET.tostring(plan.document.getroot(), encoding="UTF-8", xml_declaration=True))
    return path
