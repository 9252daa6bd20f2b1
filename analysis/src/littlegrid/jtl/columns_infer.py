"""Infers the save configuration of a header-less CSV JTL from its values, or gives up when ambiguous."""

from __future__ import annotations

import re

from littlegrid.jtl.schema import JMETER_CSV_ORDER

_INT = re.compile(r"^\d+$")
_BOOL = {"true", "false"}
_THREAD = re.compile(r".*\d+-\d+$")
_URL = re.compile(r"^(|null|[A-Za-z][\w+.-]*:.*)$")
_CODE = re.compile(r"^(\S*|Non HTTP response code:.*)$")
_ENCODING = re.compile(r"^([A-Za-z][\w.:-]*)?$")
_PAIRS = {"grpThreads": "allThreads", "SampleCount": "ErrorCount"}  # one save flag writes both


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
    "timeStamp": _ints,
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


def infer(rows: list[list[str]]) -> list[str] | None:
    """Column names for rows of equal width, if exactly one save configuration fits with the fewest
    sample_variables columns; None otherwise. Fields must appear in JMeter's fixed CSV order."""
    if not rows:
        return None
    width = len(rows[0])
    fields = [[row[i].strip() for row in rows] for i in range(width)]
    fits = {(i, name): _PREDICATES[name](fields[i]) for i in range(width) for name in JMETER_CSV_ORDER}
    solutions = [names for names in _assign(fields, fits, 0, 0, []) if _consistent(names, fields)]
    if not solutions:
        return None
    fewest = min(sum(n.startswith("var") for n in s) for s in solutions)
    best = [s for s in solutions if sum(n.startswith("var") for n in s) == fewest]
    return best[0] if len(best) == 1 else None


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
    elapsed = [int(x) for x in column["elapsed"]]

    def nums(name):
        return [int(x) for x in column[name]]

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
