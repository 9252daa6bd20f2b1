"""A JMX file as a tree of test elements (each element with the hashTree of its children), and its properties."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from littlegrid.usererror import UserError

PROP_TAGS = ("stringProp", "boolProp", "intProp", "longProp", "doubleProp", "floatProp")


class PlanError(UserError):
    """A plan JMeter could not load, or that littlegrid cannot read: one line naming the file and the element."""


@dataclass(eq=False)
class Node:
    """One test element: its XML, the hashTree holding its children, and where it sits in the plan."""

    element: ET.Element
    tree: ET.Element            # the hashTree right after the element (its children)
    parent: "Node | None"
    container: ET.Element       # the hashTree that holds element and tree
    children: list["Node"] = field(default_factory=list)

    @property
    def tag(self) -> str:
        return self.element.tag

    @property
    def name(self) -> str:
        return self.element.get("testname") or self.tag.rsplit(".", 1)[-1]

    @property
    def own_enabled(self) -> bool:
        return self.element.get("enabled", "true") != "false"

    @property
    def enabled(self) -> bool:
        """Enabled itself and under enabled parents: JMeter skips a disabled element's whole subtree."""
        node = self
        while node is not None:
            if not node.own_enabled:
                return False
            node = node.parent
        return True

    @property
    def path(self) -> str:
        """The names from the thread group (or plan-wide element) down, as the GUI's tree shows them."""
        names, node = [], self
        while node is not None and node.parent is not None:  # the test plan itself is every path's root
            names.append(node.name)
            node = node.parent
        return " / ".join(reversed(names)) or self.name

    @property
    def label(self) -> str:
        """How messages name the element: its kind and its path in the tree."""
        return f"{self.tag.rsplit('.', 1)[-1]} \"{self.path}\""

    def prop(self, name: str) -> str | None:
        return prop(self.element, name)

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()

    def ancestors(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


@dataclass(eq=False)
class Plan:
    """A parsed JMX: the document (kept for writing derived copies) and the test plan's node."""

    path: Path
    document: ET.ElementTree
    root: Node                  # the TestPlan element

    def nodes(self):
        return self.root.walk()

    def top_level(self) -> list[Node]:
        """The elements directly under the test plan: thread groups, plan-wide config, timers, listeners."""
        return self.root.children


def load(path: Path | str) -> Plan:
    """Parse a JMX; anything JMeter could not load is refused in one line naming the file and the element."""
    path = Path(path)
    try:
        document = ET.parse(path)
    except ET.ParseError as e:
        line, column = e.position
        raise PlanError(f"{path}:{line}: not well-formed XML at column {column + 1}; JMeter cannot load it")
    except (OSError, UnicodeDecodeError) as e:
        raise PlanError(f"{path}: cannot read the plan ({getattr(e, 'strerror', None) or e})")
    except (LookupError, ValueError) as e:  # <?xml encoding="U-F-8"?> and the like
        raise PlanError(f"{path}:1: the XML declaration is unusable ({e}); JMeter cannot load it")
    return _plan(path, document)


def from_bytes(data: bytes, path: Path | str) -> Plan:
    """A plan held in memory (a derived plan before it is written); `path` names it in messages."""
    path = Path(path)
    try:
        document = ET.ElementTree(ET.fromstring(data))
    except (LookupError, ValueError) as e:
        raise PlanError(f"{path}:1: the XML declaration is unusable ({e})")
    except ET.ParseError as e:
        raise PlanError(f"{path}:{e.position[0]}: not well-formed XML at column {e.position[1] + 1}")
    return _plan(path, document)


def _plan(path: Path, document: ET.ElementTree) -> Plan:
    top = document.getroot()
    if top.tag != "jmeterTestPlan":
        raise PlanError(f"{path}: not a JMeter test plan (the root element is <{top.tag}>, not <jmeterTestPlan>)")
    outer = top.find("hashTree")
    if outer is None or not len(outer):
        raise PlanError(f"{path}: <jmeterTestPlan> holds no test plan (no hashTree with a TestPlan)")
    roots = _pairs(path, outer, None)
    plans = [n for n in roots if n.tag == "TestPlan"]
    if len(roots) != 1 or not plans:
        raise PlanError(f"{path}: expected exactly one TestPlan element at the top, found "
                        f"{', '.join(n.tag for n in roots) or 'none'}")
    return Plan(path=path, document=document, root=plans[0])


def _pairs(path: Path, tree: ET.Element, parent: Node | None) -> list[Node]:
    """The (element, hashTree) pairs of one hashTree, recursively; a missing hashTree is a broken plan."""
    nodes, items = [], list(tree)
    i = 0
    while i < len(items):
        element = items[i]
        if element.tag == "hashTree":
            where = f"after {nodes[-1].label}" if nodes else f"in {parent.label if parent else 'the plan'}"
            raise PlanError(f"{path}: a hashTree with no element before it ({where}); JMeter cannot load it")
        if i + 1 >= len(items) or items[i + 1].tag != "hashTree":
            name = element.get("testname") or element.tag
            raise PlanError(f"{path}: element <{element.tag}> \"{name}\" has no hashTree after it; "
                            "JMeter cannot load it")
        node = Node(element=element, tree=items[i + 1], parent=parent, container=tree)
        node.children = _pairs(path, items[i + 1], node)
        nodes.append(node)
        i += 2
    return nodes


# -- properties ------------------------------------------------------------------------------------
def prop_element(element: ET.Element, name: str) -> ET.Element | None:
    """The property element called `name`: a direct child, or inside a nested elementProp (loop controller)."""
    for child in element:
        if child.get("name") == name and (child.tag in PROP_TAGS or child.tag == "elementProp"
                                          or child.tag == "collectionProp"):
            return child
    for child in element:
        if child.tag == "elementProp":
            found = prop_element(child, name)
            if found is not None:
                return found
    return None


def prop(element: ET.Element, name: str) -> str | None:
    found = prop_element(element, name)
    if found is None or found.tag not in PROP_TAGS:
        return None
    return found.text or ""


def set_prop(element: ET.Element, name: str, value: str, tag: str = "stringProp") -> None:
    """Set a property as JMeter stores it, replacing a property of that name wherever it sits in the element."""
    found = prop_element(element, name)
    if found is not None and found.tag in PROP_TAGS:
        found.tag = tag
        found.text = value
        return
    new = ET.SubElement(element, tag, {"name": name})
    new.text = value


def remove(node: Node) -> None:
    """Take an element and its children out of the tree."""
    node.container.remove(node.element)
    node.container.remove(node.tree)
    if node.parent is not None:
        node.parent.children.remove(node)


def insert_first(parent: Node, element: ET.Element) -> None:
    """Put an element (with an empty hashTree) first among a node's children."""
    tree = ET.Element("hashTree")
    parent.tree.insert(0, tree)
    parent.tree.insert(0, element)


# -- values ------------------------------------------------------------------------------------------
PROPERTY_CALL = re.compile(r"\$\{__(?:P|property)\(\s*([^,()}]+?)\s*(?:,([^()}]*?))?(?:,([^()}]*?))?\)\}")
VARIABLE = re.compile(r"\$\{([A-Za-z_][\w.-]*)\}")


@dataclass(frozen=True)
class Value:
    """A setting as written and what littlegrid makes of it: `source` is hard-coded, property NAME, variable NAME
    or expression; `resolved` is the text after variables and property defaults (None when something is left)."""

    written: str
    source: str
    resolved: str | None

    def number(self) -> float | None:
        try:
            return float(self.resolved) if self.resolved not in (None, "") else None
        except ValueError:
            return None


def user_variables(plan: Plan) -> dict[str, str]:
    """The plan's User Defined Variables (the test plan's own and enabled Arguments elements), name -> value."""
    found: dict[str, str] = {}
    sources = [plan.root.element.find("elementProp[@name='TestPlan.user_defined_variables']")]
    sources += [n.element for n in plan.nodes() if n.tag == "Arguments" and n.enabled]
    for source in sources:
        if source is None:
            continue
        for argument in source.iter("elementProp"):
            name, value = prop(argument, "Argument.name"), prop(argument, "Argument.value")
            if name:
                found[name] = value or ""
    return found


def evaluate(text: str | None, variables: dict[str, str], properties: dict | None = None) -> Value:
    """What JMeter would make of a setting, as far as it can be told beforehand: `${__P(name,default)}` takes the
    given property else its default, `${name}` a user defined variable; anything else is left unresolved."""
    written = text or ""
    properties = properties or {}
    calls = PROPERTY_CALL.findall(written)
    names = VARIABLE.findall(written)
    if "${" not in written:
        source = "hard-coded"
    elif len(calls) == 1 and PROPERTY_CALL.fullmatch(written):
        source = f"property {calls[0][0]}"
    elif len(names) == 1 and VARIABLE.fullmatch(written):
        source = f"variable {names[0]}"
    else:
        source = "expression"

    def prop_value(m: re.Match) -> str:
        name = m.group(1)
        default = m.group(2) if m.group(3) is None else m.group(3)  # __property(name,variable,default)
        if name in properties:
            return str(properties[name])
        return default if default is not None else m.group(0)

    resolved = written
    for _ in range(5):  # variables holding variables, a few levels deep
        before = resolved
        resolved = PROPERTY_CALL.sub(prop_value, resolved)
        resolved = VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), resolved)
        if resolved == before:
            break
    return Value(written=written, source=source, resolved=None if "${" in resolved else resolved)
