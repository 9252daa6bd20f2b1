"""Pass/fail criteria: the grammar (`p90 < 300ms where users <= 40`), written once, and its parser
(evaluate.py applies parsed criteria to a summary).

Grammar (docs/criteria.md is the user-facing version)::

    criterion  := metric op threshold scope*
    metric     := p<q> (0 < q <= 100, one the summary carries) | mean | min | max | latency_mean
                | connect_mean | error_rate | errors | throughput | goodput
                | closed_law_error | workload_error | server_little_error
    op         := "<" | "<=" | ">" | ">=" | "=="
    threshold  := number unit        (unit by metric kind: time us ms s min; fraction %; rate /s /min /h;
                                      count: none)
    scope      := "label" quoted-string | "where" condition ("and" condition)*
    condition  := axis cmp value      (cmp adds "!="; value: number, quoted string or bare word)

Thresholds are stored in canonical units: ms for times, a fraction for %, per second for rates.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from littlegrid.usererror import UserError

# The percentiles summary.json carries per STATS (contract section 5): exact nearest-rank, so one
# the summary lacks cannot be derived from the others; p100 is the maximum.
PERCENTILE_KEYS = {Fraction(q): key for q, key in (
    ("50", "p50_ms"), ("90", "p90_ms"), ("95", "p95_ms"), ("99", "p99_ms"), ("99.9", "p999_ms"), ("100", "max_ms"))}

# kind -> unit as written (lower case) -> factor to the canonical unit
UNITS = {
    "time": {"us": Fraction(1, 1000), "µs": Fraction(1, 1000), "ms": Fraction(1), "s": Fraction(1000),
             "min": Fraction(60_000)},
    "fraction": {"%": Fraction(1, 100)},
    "rate": {"/s": Fraction(1), "/min": Fraction(1, 60), "/h": Fraction(1, 3600)},
    "count": {"": Fraction(1)},
}
CANONICAL_UNIT = {"time": "ms", "fraction": "%", "rate": "/s", "count": ""}  # for messages
ENTRY_UNIT = {"time": "ms", "fraction": "fraction", "rate": "per_s", "count": "count"}  # summary.json "unit"


@dataclass(frozen=True)
class Metric:
    name: str
    kind: str  # "time" | "fraction" | "rate" | "count"
    key: str  # STATS key, or the name of the cell's check (laws.py) for a check's relative error
    per_label: bool  # False: a whole-cell check's figure, which no label has
    meaning: str


METRICS = {
    m.name: m
    for m in (
        Metric("mean", "time", "mean_ms", True, "mean elapsed time (R) in the steady window"),
        Metric("min", "time", "min_ms", True, "smallest elapsed time"),
        Metric("max", "time", "max_ms", True, "largest elapsed time"),
        Metric("latency_mean", "time", "latency_mean_ms", True, "mean time to first byte"),
        Metric("connect_mean", "time", "connect_mean_ms", True, "mean connection set-up time"),
        Metric("error_rate", "fraction", "error_rate", True, "failed samples / all samples"),
        Metric("errors", "count", "errors", True, "number of failed samples"),
        Metric("throughput", "rate", "throughput_per_s", True, "samples completed per second, errors included (X)"),
        Metric("goodput", "rate", "successes_per_s", True, "successful samples completed per second"),
        Metric("closed_law_error", "fraction", "closed_law", False,
               "|relative error| of the closed-system law N = X(R+Z), realised think time"),
        Metric("workload_error", "fraction", "workload", False,
               "|relative error| of N = X(R+Z) with the intended think time: did the generator deliver the load?"),
        Metric("server_little_error", "fraction", "server_little", False,
               "|relative error| of Little's law at the server, L = X R"),
    )
}

OPERATORS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq}
SCOPE_OPERATORS = {**OPERATORS, "!=": operator.ne}
KEYWORDS = {"where", "label", "and", "or"}


@dataclass(frozen=True)
class Condition:
    axis: str
    op: str
    value: float | str | bool

    def __str__(self) -> str:
        axis = self.axis if re.fullmatch(r"[A-Za-z_][\w.\-]*", self.axis) else quote(self.axis)
        value = quote(self.value) if isinstance(self.value, str) else _number(self.value)
        return f"{axis} {self.op} {value}"


@dataclass(frozen=True)
class Scope:
    label: str | None = None
    where: tuple[Condition, ...] = ()

    def __str__(self) -> str:
        parts = []
        if self.label is not None:
            parts.append(f"label {quote(self.label)}")
        if self.where:
            parts.append("where " + " and ".join(map(str, self.where)))
        return " ".join(parts) or "all cells"


@dataclass(frozen=True)
class Criterion:
    metric: str  # canonical name: "p90", "p99.9", "mean", "error_rate", ...
    op: str
    threshold: float  # canonical units: ms, fraction, per second, count
    scope: Scope = field(default_factory=Scope)
    text: str = ""  # as written, whitespace collapsed
    unit: str = ""  # as written ("ms", "s", "%", "/min"), for messages in the user's own unit

    @property
    def spec(self) -> Metric:
        return _metric(self.metric)

    def holds(self, value: float) -> bool:
        return OPERATORS[self.op](value, self.threshold)


# ---------------------------------------------------------------- parsing

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<number>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)
    | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    | (?P<op><=|>=|==|!=|=<|=>|<|>|=)
    | (?P<rate>/\s*[A-Za-z]+)
    | (?P<percent>%)
    | (?P<word>[A-Za-zµ_][\w.\-µ]*)
    )""",
    re.X,
)


class _Tok(NamedTuple):
    kind: str  # a group name of _TOKEN
    text: str


def _tokens(text: str, fail) -> list[_Tok]:
    out, pos = [], 0
    while text[pos:].strip():
        m = _TOKEN.match(text, pos)
        if not m:
            rest = text[pos:].lstrip()
            if rest[0] in "\"'":
                raise fail(f"unterminated quoted string {rest}")
            raise fail(f"unexpected {rest[0]!r} at column {len(text) - len(rest) + 1}")
        kind, tok = m.lastgroup, m.group(m.lastgroup)
        if kind == "string":
            tok = re.sub(r"\\(.)", r"\1", tok[1:-1])
        elif kind == "rate":
            tok = "/" + tok[1:].strip()
        out.append(_Tok(kind, tok))
        pos = m.end()
    return out


def parse(text: str) -> Criterion:
    """One criterion from its text; a `UserError` naming the criterion and the problem if it is malformed."""
    if not isinstance(text, str):
        raise UserError(f"criterion {text!r}: a criterion is a string such as \"p90 < 300ms\"")
    # whitespace collapsed for messages and entries, except inside quotes: a label "a  b" stays itself
    shown = re.sub(r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|\s+""", lambda m: m.group(1) or " ", text.strip())

    def fail(problem: str) -> UserError:
        return UserError(f"criterion '{shown}': {problem}")

    toks = _tokens(text, fail)
    if not toks:
        raise fail('empty criterion; write e.g. "p90 < 300ms"')
    stream = _Stream(toks, fail)

    first = stream.take()
    if first.kind != "word" or first.text.lower() in KEYWORDS:
        raise fail(f"expected a metric first, got {first.text!r}; metrics: {_metric_list()}")
    metric = _resolve_metric(first.text, fail)
    spec = _metric(metric)

    op_tok = stream.take(f"missing operator after {metric}; use one of {' '.join(OPERATORS)}")
    op = _operator(op_tok, OPERATORS, fail)

    num = stream.peek()
    if num is None or num.kind != "number":
        got = "nothing" if num is None else repr(num.text)
        raise fail(f"missing threshold after {op!r} (got {got}); e.g. {_example(spec)}")
    stream.take()
    unit_tok = stream.peek()
    unit = ""
    if unit_tok is not None and (
        unit_tok.kind in ("rate", "percent") or (unit_tok.kind == "word" and unit_tok.text.lower() not in KEYWORDS)
    ):
        unit = stream.take().text
    factor = UNITS[spec.kind].get(unit.lower())
    if factor is None:
        raise fail(_unit_problem(metric, spec, unit))
    threshold = float(Fraction(num.text) * factor)

    scope = _parse_scope(stream, spec, fail)
    return Criterion(metric, op, threshold, scope, shown, unit)


class _Stream:
    def __init__(self, toks, fail):
        self.toks, self.i, self.fail = toks, 0, fail

    def peek(self) -> _Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, missing: str = "unexpected end") -> _Tok:
        tok = self.peek()
        if tok is None:
            raise self.fail(missing)
        self.i += 1
        return tok


def _parse_scope(stream: _Stream, spec: Metric, fail) -> Scope:
    label, where = None, ()
    while (tok := stream.peek()) is not None:
        stream.take()
        word = tok.text.lower() if tok.kind == "word" else None
        if word == "label":
            if label is not None:
                raise fail("label given twice")
            if not spec.per_label:
                raise fail(f"{spec.name} is a whole-cell figure; it takes no label scope")
            name = stream.peek()
            if name is None or name.kind != "string":
                raise fail('label needs a quoted name, e.g. label "Login"')
            label = stream.take().text
        elif word == "where":
            if where:
                raise fail("where given twice; join conditions with 'and'")
            where = _parse_conditions(stream, fail)
        else:
            raise fail(f"unexpected {tok.text!r} after the threshold; a scope is where <axis> <op> <value> "
                       f'or label "<name>"')
    return Scope(label, where)


def parse_where(text: str, fail) -> tuple[Condition, ...]:
    """The scope `where <axis> <op> <value> (and ...)*` on its own (expectations reuse it); "" gives no
    condition. `fail(problem)` builds the UserError that names what is being parsed."""
    stream = _Stream(_tokens(text, fail), fail)
    if stream.peek() is None:
        return ()
    first = stream.take()
    if first.kind != "word" or first.text.lower() != "where":
        raise fail(f"expected 'where <axis> <op> <value>', got {first.text!r}")
    conditions = _parse_conditions(stream, fail)
    if (extra := stream.peek()) is not None:
        raise fail(f"unexpected {extra.text!r} after the conditions; join them with 'and'")
    return conditions


def _parse_conditions(stream: _Stream, fail) -> tuple[Condition, ...]:
    conditions = []
    while True:
        axis = stream.take("where needs a condition, e.g. where users <= 40")
        if axis.kind not in ("word", "string") or (axis.kind == "word" and axis.text.lower() in KEYWORDS):
            raise fail(f"expected an axis name after where/and, got {axis.text!r}")
        op = _operator(stream.take(f"missing comparison after axis {axis.text!r}"), SCOPE_OPERATORS, fail)
        value_tok = stream.take(f"missing value after {axis.text} {op}")
        if value_tok.kind == "number":
            value: float | str | bool = float(value_tok.text)
        elif value_tok.kind == "string":
            value = value_tok.text
        elif value_tok.kind == "word" and value_tok.text.lower() not in KEYWORDS:
            value = {"true": True, "false": False}.get(value_tok.text.lower(), value_tok.text)
        else:
            raise fail(f"expected a value after {axis.text} {op}, got {value_tok.text!r}")
        if op not in ("==", "!=") and not isinstance(value, float):
            raise fail(f"{axis.text} {op} needs a number, got {value_tok.text!r}")
        conditions.append(Condition(axis.text, op, value))
        nxt = stream.peek()
        if nxt is None or nxt.kind != "word" or nxt.text.lower() not in ("and", "or"):
            return tuple(conditions)
        if nxt.text.lower() == "or":
            raise fail("only 'and' joins conditions (write a second criterion for 'or')")
        stream.take()


def _operator(tok: _Tok, allowed: dict, fail) -> str:
    if tok.kind == "op" and tok.text in allowed:
        return tok.text
    if tok.kind != "op":
        raise fail(f"expected an operator ({' '.join(allowed)}), got {tok.text!r}")
    hint = {"=": " (use ==)", "=<": " (use <=)", "=>": " (use >=)"}.get(tok.text, "")
    raise fail(f"bad operator {tok.text!r}{hint}; use one of {' '.join(allowed)}")


def _resolve_metric(word: str, fail) -> str:
    name = word.lower()
    if name in METRICS:
        return name
    m = re.fullmatch(r"p(\d+(?:\.\d+)?)", name)
    if not m:
        raise fail(f"unknown metric {word!r}; metrics: {_metric_list()}")
    q = Fraction(m.group(1))
    if q > 100:
        hint = f" (did you mean p{_number(float(q / 10))}?)" if q / 10 in PERCENTILE_KEYS else ""
        raise fail(f"percentile {word} is over 100{hint}")
    if q <= 0:
        raise fail(f"percentile {word} must be over 0")
    if q not in PERCENTILE_KEYS:
        raise fail(f"the summary carries no {word} (exact percentiles are not interpolated); "
                   f"available: {', '.join(_percentile_names())}")
    return f"p{_number(float(q))}"


def _metric(name: str) -> Metric:
    if name in METRICS:
        return METRICS[name]
    q = Fraction(name[1:])
    return Metric(name, "time", PERCENTILE_KEYS[q], True, f"exact nearest-rank {name} of elapsed time")


def _unit_problem(metric: str, spec: Metric, unit: str) -> str:
    allowed = [u for u in UNITS[spec.kind] if u != "µs"]
    if spec.kind == "count":
        return f"{metric} is a count; write the threshold without a unit (got {unit!r})"
    what = {"time": "a time unit", "fraction": "a percentage", "rate": "a rate unit"}[spec.kind]
    got = f"got {unit!r}" if unit else "got none"
    return f"{metric} needs {what} ({', '.join(allowed)}), {got}; e.g. {_example(spec)}"


def _example(spec: Metric) -> str:
    sample = {"time": "300ms", "fraction": "1%", "rate": "50/s", "count": "0"}[spec.kind]
    op = "==" if spec.kind == "count" else (">" if spec.kind == "rate" else "<")
    return f'"{spec.name} {op} {sample}"'


def _percentile_names() -> list[str]:
    return [f"p{_number(float(q))}" for q in PERCENTILE_KEYS]


def _metric_list() -> str:
    return ", ".join([*_percentile_names(), *METRICS])


def _number(x: float) -> str:
    return f"{x:g}" if abs(x) < 1e15 else repr(x)


def quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
