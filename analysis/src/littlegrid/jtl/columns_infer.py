"""Infers the save configuration of a header-less CSV JTL from its values, or gives up when ambiguous."""

from __future__ import annotations

import re
from dataclasses import dataclass

from littlegrid.jtl import save_config, timeformat
from littlegrid.jtl.schema import JMETER_CSV_ORDER

_INT = re.compile(r"^\d+$")
_BOOL = {"true", "false"}
_THREAD = re.compile(r".*\d+-\d+$")
_URL = re.compile(r"^(|null|[A-Za-z][\w+.-]*:.*)$")
_CODE = re.compile(r"^(\S*|Non HTTP response code:.*)$")
_ENCODING = re.compile(r"^([A-Za-z][\w.:-]*)?$")
_PAIRS = {"grpThreads": "allThreads", "SampleCount": "ErrorCount"}  # one save flag writes both
# A layout that only ranks first by closeness to a JMeter default is taken when it is at most this many
# save flags away from one (a default with a column or two switched off or on); further is a guess.
MAX_TOGGLES = 2
SHOWN = 4  # candidates named in a refusal
# Text columns a sampler may leave empty on every row: a Java Request sampler sets no response code, message or
# data type unless its code does. Nothing then tells them apart, so they are taken empty only in a JMeter default.
_MAY_BE_EMPTY = frozenset({"responseCode", "responseMessage", "dataType", "failureMessage", "URL", "Filename",
                           "Encoding", "Hostname"})


def _ints(values):
    return all(_INT.match(v) for v in values)


def _free(values):
    """A free-text column: not every value is a number, a boolean or a thread name."""
    return (not _ints(values) and not all(v.lower() in _BOOL for v in values)
            and not all(_THREAD.match(v) for v in values if v))


def _text(values):
    return _free(values) and any(values)


def _mostly(value):
    """Integers, most of them `value` (SampleCount is 1 and IdleTime 0 but for transaction parents)."""
    return lambda v: _ints(v) and sum(x == value for x in v) * 2 > len(v)


_PREDICATES = {
    "timeStamp": lambda v: _ints(v) or timeformat.detect(v[:50]) is not None,
    "elapsed": _ints,
    "label": _text,
    "responseCode": lambda v: all(_CODE.match(x) for x in v) and not all(_THREAD.match(x) for x in v if x),
    "responseMessage": _free,
    "threadName": lambda v: all(x and _THREAD.match(x) for x in v),
    "dataType": lambda v: all(x in ("text", "bin", "") for x in v),
    "success": lambda v: all(x.lower() in _BOOL for x in v),
    "failureMessage": _free,
    "bytes": _ints,
    "sentBytes": _ints,
    "grpThreads": _ints,
    "allThreads": _ints,
    "URL": lambda v: all(_URL.match(x) for x in v) and not _ints(v),
    "Filename": _free,
    "Latency": _ints,
    "Encoding": lambda v: all(_ENCODING.match(x) for x in v) and not _ints(v),
    "SampleCount": lambda v: _mostly("1")(v) and all(int(x) >= 1 for x in v),
    "ErrorCount": _ints,
    "Hostname": lambda v: _free(v) and "null" not in v,
    "IdleTime": _mostly("0"),
    "Connect": _ints,
}


@dataclass(frozen=True)
class Inferred:
    """The outcome of inference: `names` when one layout wins (`why` says how), else the `candidates`, closest
    to a JMeter default first (`tied`: equally close and close enough; else none is close enough)."""

    names: list[str] | None
    why: str = ""
    candidates: tuple[tuple[str, ...], ...] = ()
    tied: bool = False


def infer(rows: list[list[str]]) -> list[str] | None:
    """Column names for rows of equal width when one layout wins (see infer_layout); None otherwise."""
    return infer_layout(rows).names


def infer_layout(rows: list[list[str]]) -> Inferred:
    """The save configuration of header-less rows of equal width.

    A JMeter version's default layout (save_config.VERSION_DEFAULTS) that fits every value, text columns empty on
    every row allowed, wins. Otherwise the candidates are JMeter's column order with each save flag on or off
    (pairs together), then sample variables; each must fit every value (epoch or date timestamps, integer
    elapsed, booleans where success goes, thread names, URLs, ...) and the relations JMeter's values satisfy.
    Fewest sample variables first;
    if several remain, the one fewest flags away from a JMeter version's defaults (at most MAX_TOGGLES) wins;
    a tie, or nothing close to a default, is refused with the candidates."""
    if not rows:
        return Inferred(None)
    width = len(rows[0])
    fields = [[row[i].strip() for row in rows] for i in range(width)]
    fits = {(i, name): _PREDICATES[name](fields[i]) for i in range(width) for name in JMETER_CSV_ORDER}
    solutions = [names for names in _assign(fields, fits, 0, 0, []) if _consistent(names, fields)]
    defaults = _fitting_defaults(fields)
    if len(defaults) == 1:  # one JMeter version's own layout fits every value: ranked before every other layout
        (version, names, empty), = defaults
        others = sum(1 for s in solutions if s != names and not _variables(s))  # as many columns named
        return Inferred(names, _default_why(version, empty, others))
    if not solutions:
        return Inferred(None)
    fewest = min(_variables(s) for s in solutions)
    best = [s for s in solutions if _variables(s) == fewest]
    ranked = sorted((save_config.nearest_default(save_config.flags_of(s)), i) for i, s in enumerate(best))
    (distance, version), first = ranked[0]
    if len(best) == 1:
        why = f"the only layout in JMeter's column order that fits the values ({_closeness(distance, version)})"
        return Inferred(best[0], why)
    tied = [best[i] for (d, _), i in ranked if d == distance]
    if len(tied) == 1 and distance <= MAX_TOGGLES:
        why = (f"{_closeness(distance, version)}; {len(best) - 1} other layout(s) fit the values but are further "
               "from every JMeter default")
        return Inferred(best[first], why)
    if distance <= MAX_TOGGLES:
        return Inferred(None, candidates=tuple(tuple(s) for s in tied), tied=True)
    return Inferred(None, candidates=tuple(tuple(best[i]) for _, i in ranked))


def _fitting_defaults(fields) -> list[tuple[str, list[str], list[str]]]:
    """(version, columns, columns empty on every row) of each JMeter version's default layout that fits the values,
    a text column empty on every row allowed (_MAY_BE_EMPTY)."""
    found = []
    for version, flags in save_config.VERSION_DEFAULTS.items():
        names = save_config.columns_of(flags)
        if len(names) != len(fields):
            continue
        empty = [n for n, values in zip(names, fields) if n in _MAY_BE_EMPTY and not any(values)]
        if all(n in empty or _PREDICATES[n](values) for n, values in zip(names, fields)) and _consistent(names, fields):
            found.append((version, names, empty))
    return found


def _default_why(version: str, empty: list[str], others: int) -> str:
    why = f"{version}'s default save configuration"
    if empty:
        why += f", {', '.join(empty)} empty on every row"
    if others:
        why += f"; {others} other layout(s) fit the values but are further from every JMeter default"
    return why


def _variables(names) -> int:
    return sum(n.startswith("var") for n in names)


def _closeness(distance: int, version: str) -> str:
    if distance == 0:
        return f"{version}'s default save configuration"
    return f"{version}'s default save configuration with {distance} save flag(s) changed"


def _assign(fields, fits, i, j, names):
    """Every way to give fields[i:] the columns JMETER_CSV_ORDER[j:] in order (pairs together), then variables."""
    width = len(fields)
    if i == width:
        yield list(names)
        return
    if i >= 2:  # after timeStamp and elapsed, the rest may be sample_variables
        yield names + [f"var{k}" for k in range(1, width - i + 1)]
    for k in range(j, len(JMETER_CSV_ORDER)):
        name = JMETER_CSV_ORDER[k]
        if name in ("allThreads", "ErrorCount"):
            continue  # placed with its pair
        if i < 2 and name != ("timeStamp", "elapsed")[i]:
            return  # a file we can read starts with timeStamp, elapsed
        if not fits[(i, name)]:
            continue
        if name in _PAIRS:
            if i + 1 >= width or not fits[(i + 1, _PAIRS[name])]:
                continue
            yield from _assign(fields, fits, i + 2, k + 2, names + [name, _PAIRS[name]])
        else:
            yield from _assign(fields, fits, i + 1, k + 1, names + [name])


def _consistent(names: list[str], fields) -> bool:
    """Relations JMeter's own values always satisfy, row by row."""
    column = {name: fields[i] for i, name in enumerate(names)}
    if "sentBytes" in column and "bytes" not in column:
        return False  # sent without received bytes: a configuration nobody writes (both default on)
    if "elapsed" not in column:
        return False  # a row of one value: no sample can be read without its elapsed time

    def nums(name):
        return [int(x) for x in column[name]]

    elapsed = nums("elapsed")
    for name in ("Latency", "Connect"):
        if name in column and any(v > e for v, e in zip(nums(name), elapsed)):
            return False
    if "grpThreads" in column:
        grp, alls = nums("grpThreads"), nums("allThreads")
        if any(g > a for g, a in zip(grp, alls)):
            return False
        if "threadName" in column and max(alls) > len(set(column["threadName"])):
            return False  # more threads alive than ever wrote a sample: not a thread count
    if "SampleCount" in column:
        if any(e > s for e, s in zip(nums("ErrorCount"), nums("SampleCount"))):
            return False
        if "success" in column and any((e == 0) != (s.lower() == "true")
                                       for e, s in zip(nums("ErrorCount"), column["success"])):
            return False
    return True
