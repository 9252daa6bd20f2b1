"""summary.json: the versioned schema's constants, JSON-safe conversion, the one reader (which validates against the
typed model, littlegrid.summary.model), the one writer (atomic: it never loses the old file) and the one rule for
where a run's summary is."""

import json
import math
from pathlib import Path

import numpy as np

from littlegrid.atomic import write_atomic
from littlegrid.usererror import UserError, at

NAME = "summary.json"
SCHEMA = "littlegrid.summary/4"  # 4: curves (Summary.curves, models per curve); 3: the typed model (summary/model.py), every field written; 2: findings


_AS_IS = frozenset((int, str, bool, type(None)))  # what plain returns unchanged: no call for each of them


def plain(value):
    """Plain JSON data: numpy scalars to Python, NaN/±inf to null (JSON has neither), tuples to lists."""
    if isinstance(value, dict):
        return {str(k): v if type(v) in _AS_IS else plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        # a summary's histograms are long lists of ints: a call for each would cost most of the writing
        return [v if type(v) in _AS_IS else plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        x = float(value)
        return x if math.isfinite(x) else None
    if isinstance(value, Path):
        return str(value)
    return value


def dumps(summary) -> str:
    """The summary as summary.json holds it: a Summary (or its plain dict) as indented JSON, ending in a newline."""
    if hasattr(summary, "model_dump_json"):  # pydantic writes it in a fifth of the time plain() and json take (4 MB
        # at 5 M rows: 0.06 s, not 0.27); the same values (NaN and ±inf as null), floats spelt 6e-7 instead of 6e-07
        return summary.model_dump_json(by_alias=True, indent=1) + "\n"
    return json.dumps(plain(summary), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def write(summary, path: Path) -> Path:
    """Write a Summary (or its plain dict) whole or not at all: a failure leaves the previous file intact."""
    return write_atomic(Path(path), dumps(summary))


def read(path: Path):
    """Load a summary.json as the typed model (littlegrid.summary.model.Summary): the one reader. Another schema, a
    broken file or one that does not match the model (a field missing, of the wrong type, or unknown) is refused in
    one line naming the file (and the JSON line)."""
    from littlegrid.summary.model import Summary
    return read_record(path, SCHEMA, Summary, "summary", lambda found: (
        "; written by an older littlegrid: run `littlegrid analyze` again" if older(found) else ""))


def read_record(path: Path, schema: str, record, what: str, hint):
    """A JSON file of one of littlegrid's typed records (summary.json, baseline.json) as `record`: its "schema"
    must be `schema`; a broken file, another schema (`hint(found)` says what to do) or one that does not match the
    record is refused in one line naming the file (and the JSON line), `what` naming the record."""
    from pydantic import ValidationError  # imported here: `littlegrid --help` does not pay for it

    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except json.JSONDecodeError as e:
        raise at(path, e.lineno, f"not valid JSON: {e.msg}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise at(path, None, f"cannot read: {getattr(e, 'strerror', None) or e}") from None
    if not isinstance(data, dict) or data.get("schema") != schema:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise at(path, None, f"not a {schema} file (schema: {found}){hint(found)}")
    try:
        return record.model_validate(data)
    except ValidationError as e:
        raise at(path, None, f"not a valid {schema} {what}: {_first_problem(e)}") from None


def invalid(data: dict) -> str | None:
    """What makes `data` not a summary of this schema, in one line (the first problem and how many more), or None."""
    from pydantic import ValidationError

    from littlegrid.summary.model import Summary
    try:
        Summary.model_validate(data)
    except ValidationError as e:
        return _first_problem(e)
    return None


def _first_problem(e) -> str:
    problems = e.errors(include_url=False)
    first = problems[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".")
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{where or 'top level'}: {first['msg'].lower()}{more}"


def locate(given: str | Path) -> Path:
    """The one rule for where a run's summary is: a .json file named as is, else RUN_DIR/summary.json."""
    given = Path(given)
    if given.suffix == ".json" and given.is_file():
        return given
    if not given.exists():
        raise UserError(f"{given}: no such run folder")
    path = given / NAME
    if not path.is_file():
        raise UserError(f"{path}: not found; run `littlegrid analyze {given}` first")
    return path


def older(schema) -> bool:
    """Whether a schema name is an earlier version of this one (re-analysing the run folder upgrades it)."""
    head, _, version = SCHEMA.rpartition("/")
    name, _, v = str(schema or "").rpartition("/")
    return name == head and v.isdigit() and int(v) < int(version)
