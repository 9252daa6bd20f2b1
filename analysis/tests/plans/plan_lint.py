"""Lint for the plans: GUI-friendly, data-free (no hosts, enabled listeners, absolute paths), knobs documented."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from littlegrid.run.plan_properties import declared_properties, plan_strings

# Elements that receive every sample: in a plan they slow a run down (GUI listeners) or write files nobody
# asked for; results are written by whoever runs JMeter, with -l.
LISTENER_CLASSES = {
    "ResultCollector", "ResultSaver", "BackendListener", "Summariser", "JSR223Listener", "BeanShellListener",
    "BSFListener", "MailerResultCollector", "ResultAction",
}
FILE_PROPERTIES = re.compile(r"(^|\.)(filename|file|includepath|user_define_classpath|scriptFile)$", re.I)
HOST_PROPERTIES = re.compile(r"(^|\.)(domain|server|host|hostname|proxyHost)$", re.I)
ABSOLUTE = re.compile(r"(^|[\s\"'=,;])(/(home|Users|tmp|opt|var|etc|usr|root|work|mnt|srv)/|[A-Za-z]:[\\/]|\\\\)")
HOST_LITERAL = re.compile(
    r"(\b\d{1,3}(\.\d{1,3}){3}\b|\blocalhost\b|\[[0-9a-fA-F]*:[0-9a-fA-F:]*\]|[a-zA-Z][a-zA-Z0-9+.-]*://[^/$\s\"'<>]+)")
PROPERTY_CALL = re.compile(r"\$\{__P\(")
README_NAME = re.compile(r"^\|\s*`([^`]+)`\s*\|")


def without_property_calls(text: str) -> str:
    """text with every `${__P(...)}` call (nested ones included) removed: defaults may name the sample server."""
    out, i = [], 0
    while (j := text.find("${__P(", i)) >= 0:
        out.append(text[i:j])
        depth, k = 0, j + 2
        while k < len(text):
            if text[k] == "(":
                depth += 1
            elif text[k] == ")":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 2  # past ")}"
    out.append(text[i:])
    return "".join(out)


def _elements(plan: Path):
    """(element, enabled) for every test element of the plan, enabled = itself and all its ancestors enabled."""
    root = ET.parse(plan).getroot()

    def walk(tree: ET.Element, parent_enabled: bool):
        children = list(tree)
        for element, subtree in zip(children[0::2], children[1::2]):
            enabled = parent_enabled and element.get("enabled", "true") != "false"
            yield element, enabled
            yield from walk(subtree, enabled)

    yield from walk(root.find("hashTree"), True)


def _readme_names(readme: Path, plan_name: str) -> set[str]:
    """Property names in the first column of the tables under the README heading that names the plan."""
    names, inside = set(), False
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            inside = plan_name in line
        elif inside and (m := README_NAME.match(line)):
            names.add(m.group(1))
    return names


def lint(plan: Path, readme: Path) -> list[str]:
    """Problems of one plan, one line each ('plan: where: problem'); empty when the plan is clean."""
    plan = Path(plan)
    problems = []
    for element, enabled in _elements(plan):
        test_class = element.get("testclass") or element.tag
        name = element.get("testname", test_class)
        if test_class in LISTENER_CLASSES:
            filename = (element.findtext("stringProp[@name='filename']") or "").strip()
            if enabled:
                problems.append(f"{plan.name}: {name}: enabled listener ({element.get('guiclass')}); "
                                "results are written by the runner with -l")
            if filename:
                problems.append(f"{plan.name}: {name}: listener writes the file {filename!r}")
    for where, text in plan_strings(plan):
        prop = where.rsplit("/", 1)[-1]
        bare = without_property_calls(text)
        if HOST_PROPERTIES.search(prop) and bare.strip():
            problems.append(f"{plan.name}: {where}: hard-coded host {bare.strip()!r}; use ${{__P(host,...)}}")
        elif m := HOST_LITERAL.search(bare):
            problems.append(f"{plan.name}: {where}: hard-coded host {m.group(0)!r}")
        if (FILE_PROPERTIES.search(prop) and bare.strip().startswith(("/", "~"))) or ABSOLUTE.search(bare):
            problems.append(f"{plan.name}: {where}: absolute path in {text.strip()[:60]!r}")
    declared = declared_properties(plan)
    for name, default in declared.items():
        if default is None:
            problems.append(f"{plan.name}: ${{__P({name})}} has no default")
    documented = _readme_names(readme, plan.name)
    for name in sorted(set(declared) - documented):
        problems.append(f"{plan.name}: property {name!r} is missing from {readme.name}'s table for {plan.name}")
    return problems
