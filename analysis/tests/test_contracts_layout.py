"""docs/contracts.md §1 lists every module of the package with its job, grouped by pipeline stage: the list and the
code hold the same modules (a module added, moved or removed without the docs fails here), and the imports follow
the stages: no cycles anywhere, the JTL reader stands alone, nothing before the run or the renderer reaches
back into them, and the renderer is handed what it draws. Imports inside functions count: they wire modules together just the same."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "analysis" / "src" / "littlegrid"
# Stages that compute what a run showed: they must not depend on how a run is made or drawn.
PURE_STAGES = ("read", "analysis", "checks and findings", "comparison")
OUTER_STAGES = ("run", "render")
# What the renderer may use beside its own modules: the summary contract, the atomic writer, the error type, the version.
RENDER_NEEDS = {"littlegrid", "littlegrid.summary", "littlegrid.atomic", "littlegrid.usererror"}


def section_1() -> list[str]:
    text = (ROOT / "docs" / "contracts.md").read_text(encoding="utf-8")
    section = text[text.index("## 1. "):text.index("## 2. ")]
    block = section[section.index("```") + 3:]
    return block[:block.index("```")].splitlines()


def listed() -> list[str]:
    # The package's entries sit two spaces in; stage headings one.
    return [m.group(1) for line in section_1() if (m := re.match(r"^  (\S+)", line))]


def stage_of_entry() -> dict[str, str]:
    """Each listed entry (as written: `cells.py`, `jtl/`) -> its stage heading; "package" before the first one."""
    stage, stages = "package", {}
    for line in section_1():
        if (m := re.match(r"^ (\w[^(]*?)\s*(\(|$)", line)):
            stage = m.group(1)
        elif (m := re.match(r"^  (\S+)", line)):
            stages[m.group(1)] = stage
    return stages


def modules(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module under `package` (a package is its __init__.py)."""
    root = package.parent
    found = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def import_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, at any depth of its code. `from pkg import name` counts as
    importing pkg.name when that is a module, else pkg itself."""
    known = modules(package)
    top = package.name
    graph = {}
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                wanted = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: from the module's own package upwards
                    base = name.split(".")[: None if is_package else -1]
                    base = base[: len(base) - (node.level - 1)]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                wanted = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in known else origin for a in node.names]
            else:
                continue
            for target in wanted:
                if target != top and not target.startswith(top + "."):
                    continue
                while target not in known:  # a name inside a module: the module
                    target = target.rsplit(".", 1)[0]
                if target != name:
                    targets.add(target)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative), each sorted."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def stage_of_module(graph: dict[str, set[str]]) -> dict[str, str]:
    """Every module -> the stage of the §1 entry it belongs to (a subpackage's modules share its entry)."""
    entries = stage_of_entry()
    stages = {}
    for name in graph:
        parts = name.split(".")[1:]
        entry = "__init__.py" if not parts else (f"{parts[0]}/" if f"{parts[0]}/" in entries else f"{parts[0]}.py")
        stages[name] = entries[entry]
    return stages


def test_section_1_lists_every_module_once_and_nothing_else():
    names = listed()
    in_code = sorted([p.name for p in PACKAGE.glob("*.py")]
                     + [f"{p.name}/" for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()])
    assert sorted(names) == in_code
    assert len(names) == len(set(names))


def test_no_module_imports_itself_back_through_others():
    assert cycles(import_graph(PACKAGE)) == []


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import(tmp_path):
    # Known answer: a -> b at module level, b -> a inside a function, c -> a outside the cycle.
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from .. import a\n    return a\n")
    (pkg / "c.py").write_text("import pkg.a\nimport json\n")
    graph = import_graph(pkg)
    assert graph["pkg.c"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.sub.b"]]


def test_the_jtl_reader_imports_nothing_of_littlegrid_but_the_error_type():
    graph = import_graph(PACKAGE)
    outside = {t for m, ts in graph.items() if m.startswith("littlegrid.jtl") for t in ts
               if not t.startswith("littlegrid.jtl")}
    assert outside == {"littlegrid.usererror"}


def test_reading_analysis_checks_and_comparison_never_reach_the_run_the_renderer_or_the_cli():
    graph = import_graph(PACKAGE)
    stages = stage_of_module(graph)
    assert {stages["littlegrid.jtl.csv_reader"], stages["littlegrid.analyze"], stages["littlegrid.runner"],
            stages["littlegrid.render.report"], stages["littlegrid.findings.base"]} \
        == {"read", "analysis", "run", "render", "checks and findings"}  # the headings this test relies on
    reaching_out = sorted(f"{m} -> {t}" for m, ts in graph.items() if stages[m] in PURE_STAGES for t in ts
                          if stages[t] in OUTER_STAGES or t == "littlegrid.cli")
    assert reaching_out == []


def test_the_renderer_imports_only_the_summary_contract_and_its_own_modules():
    graph = import_graph(PACKAGE)
    stages = stage_of_module(graph)
    assert stages["littlegrid.render.compare"] == "render" and stages["littlegrid.compare"] != "render"
    beyond = sorted(f"{m} -> {t}" for m, ts in graph.items() if stages[m] == "render" for t in ts
                    if stages[t] != "render" and t not in RENDER_NEEDS)
    assert beyond == []
