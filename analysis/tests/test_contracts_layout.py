"""docs/contracts.md §1 lists every module of the package with its job, package by package: the list and the code hold
the same modules (a module added, moved or removed without the docs fails here), and the imports follow the stages
the packages are: no cycles between modules or between packages, each stage imports only the stages before it and
the shared modules, the JTL reader stands alone, no stage reaches a command or the CLI, and the renderer is handed
what it draws and computes no model of its own. Inside the analysis, its sub-packages are the steps of a cell's
analysis in order, each importing only the steps before it. Imports inside functions count: they wire modules together just the
same."""

import ast
import re
from pathlib import Path
from types import MappingProxyType

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "analysis" / "src" / "littlegrid"
# The stages in pipeline order: each may import the ones before it (and the shared modules), never one after it.
# `summarize` (a module, not a package) composes the pure stages into the summary; the run and the search, which make
# runs and analyse them, come after it.
STAGES = ("jtl", "criteria", "analysis", "findings", "comparison", "history", "render", "summarize", "plan", "run",
          "search")
PACKAGES = tuple(s for s in STAGES if s != "summarize")
# What every stage may use: the version, the error type, the atomic writer, the summary contract (a package: the
# reader and writer, the typed model, the schema generator).
CONTRACT = {"littlegrid.summary", "littlegrid.summary.model", "littlegrid.summary.schema",
            "littlegrid.summary.comparison", "littlegrid.summary.trends", "littlegrid.summary.baseline"} | {
    f"littlegrid.summary.model.{p.stem}" for p in (PACKAGE / "summary" / "model").glob("*.py") if p.stem != "__init__"}
SHARED = {"littlegrid", "littlegrid.usererror", "littlegrid.atomic"} | CONTRACT
# The commands composing stages, all in one package (and the CLI dispatching to them); no stage imports them.
COMMANDS = {"littlegrid.cli"} | {f"littlegrid.commands.{name}" for name in (
    "analyze", "summary_source", "check", "explain", "report", "compare", "plan", "engines", "report_read_ahead",
    "history")}
# What the renderer may use beside its own modules: no stage at all, only what is shared.
RENDER_NEEDS = SHARED
# The analysis' steps, its sub-packages, in the order a cell's figures are made: each step imports only the steps
# before it. cell.py and cells.py, which compose the steps into a cell's analysis, stand above them all.
ANALYSIS = "littlegrid.analysis"
ANALYSIS_STEPS = ("reading", "steady", "queueing", "observed", "statistics", "workload", "modelling")
ANALYSIS_COMPOSERS = {"cell", "cells"}


def section_1() -> list[str]:
    text = (ROOT / "docs" / "contracts.md").read_text(encoding="utf-8")
    section = text[text.index("## 1. "):text.index("## 2. ")]
    block = section[section.index("```") + 3:]
    return block[:block.index("```")].splitlines()


def listed() -> list[str]:
    """The package's entries as paths under analysis/src/littlegrid/ (`run/live/view.py`): two spaces of indent per
    level of nesting, a package's entry ending in `/`."""
    paths, parents = [], []
    for line in section_1():
        m = re.match(r"^((?:  )+)(\S+)", line)
        if not m:
            continue
        depth = len(m.group(1)) // 2 - 1
        parents[depth:] = []
        paths.append("".join(parents) + m.group(2))
        if m.group(2).endswith("/"):
            parents.append(m.group(2))
    return paths


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


@pytest.fixture(scope="module")
def graph():
    """The package's import graph, parsed once for the tests that read it (each parse reads every module, a second
    a time): read-only, so no test can change what the next one sees."""
    return MappingProxyType({module: frozenset(targets) for module, targets in import_graph(PACKAGE).items()})


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


def stage_of(module: str) -> str:
    """littlegrid.run.live.view -> "run"; a top-level module is its own name."""
    return module.split(".")[1] if "." in module else module


def test_section_1_lists_every_module_once_and_nothing_else():
    names = listed()
    in_code = sorted([str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")]
                     + [f"{p.relative_to(PACKAGE)}/" for p in PACKAGE.rglob("*") if (p / "__init__.py").is_file()])
    assert sorted(names) == in_code
    assert len(names) == len(set(names))


def test_the_list_parser_reads_nesting_from_the_indent():
    assert {"jtl/", "jtl/sniff.py", "run/live/", "run/live/view.py", "search/runner.py", "commands/check.py"} <= set(listed())


def test_no_module_imports_itself_back_through_others(graph):
    assert cycles(graph) == []


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


def test_the_jtl_reader_imports_nothing_of_littlegrid_but_the_error_type(graph):
    outside = {t for m, ts in graph.items() if m.startswith("littlegrid.jtl") for t in ts
               if not t.startswith("littlegrid.jtl")}
    assert outside == {"littlegrid.usererror"}


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Stage -> the other stages and top-level modules its modules import."""
    packages = {}
    for module, targets in graph.items():
        packages.setdefault(stage_of(module), set()).update(stage_of(t) for t in targets)
    return {p: ts - {p} for p, ts in packages.items()}


def test_every_subpackage_is_a_stage_and_the_packages_import_no_cycle(graph):
    assert {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()} == set(PACKAGES) | {"summary", "commands"}
    assert cycles(package_graph(graph)) == []


def test_each_stage_imports_only_the_stages_before_it_and_the_shared_modules(graph):
    wrong = sorted(f"{m} -> {t}" for m, ts in graph.items() if stage_of(m) in STAGES for t in ts
                   if stage_of(t) != stage_of(m) and t not in SHARED
                   and not (stage_of(t) in STAGES and STAGES.index(stage_of(t)) < STAGES.index(stage_of(m))))
    assert wrong == []


def test_no_stage_imports_a_command_or_the_cli(graph):
    assert COMMANDS <= set(graph)  # the names this test relies on
    reaching_out = sorted(f"{m} -> {t}" for m, ts in graph.items() if stage_of(m) in PACKAGES for t in ts
                          if t in COMMANDS)
    assert reaching_out == []


def test_the_summary_contract_imports_only_what_every_stage_shares(graph):
    assert CONTRACT <= set(graph)  # the names this test relies on
    assert sorted(f"{m} -> {t}" for m in CONTRACT for t in graph[m] if t not in SHARED) == []


def test_the_renderer_imports_only_the_summary_contract_and_its_own_modules(graph):
    beyond = sorted(f"{m} -> {t}" for m, ts in graph.items() if stage_of(m) == "render" for t in ts
                    if stage_of(t) != "render" and t not in RENDER_NEEDS)
    assert beyond == []


# What the renderer may take from math: rounding to significant digits, bucketing, finiteness (charts.py, fmt.py).
# Everything else math offers (exp, log, sqrt, factorial, lgamma, erf, pow, comb…) is a distribution's or a model's
# formula, and so are the numerical libraries.
RENDER_MATH = {"isfinite", "floor", "ceil", "log10"}
NUMERICAL = {"numpy", "scipy", "statistics", "pandas"}
# The parameters of the models the summary stores (USL σ, κ, λ; the Poisson timer's λ and offset; the exponential's
# mean; the bounds' D and D_max; M/M/c//N's c and S): the renderer prints them, it never computes with them.
MODEL_PARAMETERS = {"sigma", "kappa", "lambda_", "lambda_ms", "offset_ms", "think_offset_ms", "mean_ms", "d_ms",
                    "d_max_ms", "service_ms", "servers"}
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def _operands(node: ast.BinOp):
    """The expressions an arithmetic operation computes with: not what a call or an f-string inside it is handed."""
    stack = [node.left, node.right]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Call, ast.JoinedStr, ast.Compare, ast.Lambda)):
            continue
        yield n
        stack.extend(ast.iter_child_nodes(n))


def model_computations(source: str) -> list[str]:
    """Where `source` computes a model instead of reading it: a numerical library imported, a math function beyond
    RENDER_MATH, arithmetic on a model's parameter, or the cells' axes filtered into a grouping of its own (which
    cells share a facet or a curve is the analysis's: Cell.facet, Summary.curves)."""
    found = []
    tree = ast.parse(source)
    # an arithmetic expression is reported once, at its outermost operation
    inner = {id(n) for op in ast.walk(tree) if isinstance(op, ast.BinOp) for n in _operands(op)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if a.name.split(".")[0] in NUMERICAL]
        elif isinstance(node, ast.ImportFrom) and node.module:
            top = node.module.split(".")[0]
            if top in NUMERICAL or (top == "math" and {a.name for a in node.names} - RENDER_MATH):
                found.append(f"{node.lineno}: from {node.module} import {', '.join(a.name for a in node.names)}")
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "math"
              and node.attr not in RENDER_MATH):
            found.append(f"{node.lineno}: math.{node.attr}")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC) and id(node) not in inner:
            used = sorted({n.attr for n in _operands(node) if isinstance(n, ast.Attribute) and n.attr in MODEL_PARAMETERS})
            if used:
                found.append(f"{node.lineno}: arithmetic on {', '.join(used)}")
        elif isinstance(node, ast.comprehension) and node.ifs and any(
                isinstance(n, ast.Attribute) and n.attr == "axes" for n in ast.walk(node.iter)):
            found.append(f"{node.iter.lineno}: the axes filtered into a grouping")
    return found


def test_the_renderer_computes_no_model():
    offences = {path.name: found for path in sorted((PACKAGE / "render").glob("*.py"))
                if (found := model_computations(path.read_text(encoding="utf-8")))}
    assert offences == {}


def test_the_model_check_catches_the_formulas_and_the_grouping_the_renderer_once_had():
    # known answers: the renderer's own USL, its expected counts and its facet rule (before issue 49) are caught
    usl = ("def _usl(n, fit):\n"
           "    return fit.lambda_ * n / (1 + fit.sigma * (n - 1) + fit.kappa * n * (n - 1))\n")
    assert model_computations(usl) == ["2: arithmetic on kappa, lambda_, sigma"]
    counts = ("import math\n"
              "def expected(edges, gaps, mean_ms, offset_ms):\n"
              "    from scipy.stats import poisson\n"
              "    expo = [gaps * (math.exp(-a / mean_ms) - math.exp(-b / mean_ms)) for a, b in edges]\n"
              "    return poisson.cdf([math.ceil(e - offset_ms) - 1 for e in edges], mean_ms - offset_ms)\n")
    assert model_computations(counts) == ["3: from scipy.stats import poisson", "4: math.exp", "4: math.exp"]
    facet = ("def facet_of(cell):\n"
             "    return ','.join(f'{k}={v}' for k, v in cell.axes.items() if k not in ('users', 'think_ms'))\n")
    assert model_computations(facet) == ["2: the axes filtered into a grouping"]
    assert model_computations("from math import lgamma\nimport numpy as np\n") == [
        "1: from math import lgamma", "2: import numpy"]
    # what the renderer does do passes: figures printed, rounding, all the axes shown, a stored line drawn
    drawn = ("import math\n"
             "def f(fit, cell, b):\n"
             "    text = f'USL σ={fmt.num(fit.sigma)}' + ', '.join(f'{k} = {v}' for k, v in cell.axes.items())\n"
             "    r = round(x, 3 - int(math.floor(math.log10(abs(x)))))\n"
             "    return [p.x for p in fit.points], [p.x_upper for p in b.points], fmt.ms(b.d_ms)\n")
    assert model_computations(drawn) == []


def step_of(module: str) -> str | None:
    """littlegrid.analysis.steady.window -> "steady"; a module of analysis/ itself (cell.py) is its own name; None
    outside the analysis and for the package itself."""
    if not module.startswith(ANALYSIS + "."):
        return None
    return module.split(".")[2]


def analysis_steps_out_of_order(graph: dict[str, set[str]]) -> list[str]:
    """Each import by a module of an analysis step of another part of the analysis that is not a step before it."""
    wrong = []
    for module, targets in graph.items():
        step = step_of(module)
        if step not in ANALYSIS_STEPS:
            continue
        for target in targets:
            other = step_of(target) if target != ANALYSIS else ANALYSIS
            if other is None or other == step:
                continue
            if other not in ANALYSIS_STEPS or ANALYSIS_STEPS.index(other) > ANALYSIS_STEPS.index(step):
                wrong.append(f"{module} -> {target}")
    return sorted(wrong)


def test_the_analysis_is_its_steps_and_the_modules_that_compose_them():
    analysis = PACKAGE / "analysis"
    assert {p.name for p in analysis.iterdir() if (p / "__init__.py").is_file()} == set(ANALYSIS_STEPS)
    assert {p.stem for p in analysis.glob("*.py")} == {"__init__"} | ANALYSIS_COMPOSERS
    # each step says what it owns, in its own words
    assert all(ast.get_docstring(ast.parse((analysis / step / "__init__.py").read_text(encoding="utf-8")))
               for step in ANALYSIS_STEPS)


def test_each_analysis_step_imports_only_the_steps_before_it(graph):
    assert analysis_steps_out_of_order(graph) == []


def test_the_step_order_catches_a_later_step_and_a_composer(tmp_path):
    # Known answer on a toy analysis: a step importing a later step (inside a function) or the cell that composes
    # the steps is reported; a later step importing an earlier one, and the cell importing any step, are not.
    pkg = tmp_path / "littlegrid"
    for step in ("reading", "steady"):
        (pkg / "analysis" / step).mkdir(parents=True)
        (pkg / "analysis" / step / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "analysis" / "__init__.py").write_text("")
    (pkg / "analysis" / "reading" / "histogram.py").write_text(
        "def f():\n    from littlegrid.analysis.steady import window\n")
    (pkg / "analysis" / "reading" / "tail.py").write_text("from littlegrid.analysis import cell\n")
    (pkg / "analysis" / "steady" / "window.py").write_text("from littlegrid.analysis.reading import histogram\n")
    (pkg / "analysis" / "cell.py").write_text("from littlegrid.analysis.steady import window\n")
    assert analysis_steps_out_of_order(import_graph(pkg)) == [
        "littlegrid.analysis.reading.histogram -> littlegrid.analysis.steady.window",
        "littlegrid.analysis.reading.tail -> littlegrid.analysis.cell"]


def test_the_stage_order_catches_an_import_of_a_later_stage(tmp_path):
    # Known answer on a toy package: an earlier stage importing a later one is reported, the reverse is not.
    pkg = tmp_path / "littlegrid"
    for stage in ("jtl", "analysis"):
        (pkg / stage).mkdir(parents=True)
        (pkg / stage / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "jtl" / "reader.py").write_text("def f():\n    from littlegrid.analysis import stats\n")
    (pkg / "analysis" / "stats.py").write_text("from littlegrid.jtl import reader\n")
    graph = import_graph(pkg)
    assert package_graph(graph) == {"littlegrid": set(), "jtl": {"analysis"}, "analysis": {"jtl"}}
    assert cycles(package_graph(graph)) == [["analysis", "jtl"]]
