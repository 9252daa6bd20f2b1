"""Fuzz: the shipped grids with any key removed, added or given any TOML value (criteria and expectations from
the criteria grammar's own pieces among them), and their text cut or spliced anywhere, load as a grid or are
refused in one line naming the file (and the line, where the problem sits on one); never a traceback."""

import json
import math
import tomllib
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from fuzz import accepted, assert_one_line_refusal, budget, fuzz
from littlegrid.run.grid_file import Grid, load_grid
from littlegrid.usererror import UserError

REPO = Path(__file__).resolve().parents[3]
GRIDS = sorted((REPO / "grids").glob("*.toml"))
CRITERIA_PIECES = ["p90", "<", "300ms", "error_rate", "1%", "throughput", ">", "50/s", "label", "'Login'", "where",
                   "users", "<=", "40", "and", "closed_law_error", "mean", "1s", "%", "p99.9", "==", "-1", "ms"]
KEYS = ["name", "plan", "description", "criteria", "expect", "arms", "server", "target", "cell", "axes", "properties",
        "jmeter", "tolerances", "plan_options", "users", "think_ms", "rate_per_s", "duration_s", "warmup_s",
        "cooldown_s", "rampup_s", "repetitions", "start", "knobs", "heap", "host", "port", "path", "method",
        "protocol", "think_dist", "min", "max", "resolution", "closed_law", "server.tomcat.threads.max", "bogus",
        "observe", "prometheus", "pools", "busy", "size", "workers"]

scalars = st.one_of(st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True),
                    st.sampled_from(["", "GET", "/", "poisson", "512m", "plans/closed.jmx", "10,100", "é", "\x00",
                                     "users=1,2", "p90 < 300ms", "http://127.0.0.1:9100/metrics", "http://[::1",
                                     'app_busy{role!="a",h=~"w.*"}', 'a{b=~"("}']),
                    st.text(max_size=12),
                    st.lists(st.sampled_from(CRITERIA_PIECES), min_size=1, max_size=6).map(" ".join))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)),
                      max_leaves=8)


def _value(v) -> str:
    """One TOML value, inline."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v) if abs(v) < 2**63 else json.dumps(str(v))  # TOML integers are 64-bit
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_value(x)}" for k, x in v.items()) + "}"


def _toml(grid: dict) -> str:
    """The grid's text: top-level keys first, then one [table] per table."""
    tables = {k: v for k, v in grid.items() if isinstance(v, dict)}
    lines = [f"{json.dumps(k)} = {_value(v)}" for k, v in grid.items() if k not in tables]
    for name, table in tables.items():
        lines.append(f"[{json.dumps(name)}]")
        lines += [f"{json.dumps(k)} = {_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


@st.composite
def grid_texts(draw) -> str:
    source = draw(st.sampled_from(GRIDS))
    grid = tomllib.loads(source.read_text(encoding="utf-8"))
    plan = grid.get("plan")
    if isinstance(plan, str) and not Path(plan).is_absolute():  # the grid is written elsewhere: the plan stays found
        grid["plan"] = str(REPO / plan)
    for _ in range(draw(st.integers(1, 3))):
        tables = [None] + [k for k, v in grid.items() if isinstance(v, dict)]
        table = draw(st.sampled_from(tables))
        where = grid if table is None else grid[table]
        action = draw(st.sampled_from(["set", "set", "delete", "add"]))
        if action == "delete" and where:
            del where[draw(st.sampled_from(sorted(where)))]
        elif action == "set" and where:
            where[draw(st.sampled_from(sorted(where)))] = draw(values)
        else:
            where[draw(st.sampled_from(KEYS))] = draw(values)
    text = _toml(grid)
    if draw(st.integers(0, 4)) == 0:  # the text itself damaged: cut, or a hostile piece spliced in
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(["", "[", "]", "=", '"', "\n[axes]\n", "\x00", "{", "'''"])) + \
            (text[at:] if draw(st.booleans()) else "")
    return text


@fuzz
@budget(80)
@given(text=grid_texts())
def test_any_grid_loads_or_is_refused_in_one_line_naming_the_file(tmp_path, text):
    path = tmp_path / "fuzzed.toml"
    path.write_text(text, encoding="utf-8")
    try:
        grid = load_grid(path)
    except UserError as error:
        assert_one_line_refusal(error, path)
        return
    assert isinstance(grid, Grid)
    accepted()
