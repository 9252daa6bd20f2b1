"""Relative criteria: how much worse than a baseline run a cell may be (`p90 regress < 10%`, `throughput regress <
5%`, `error_rate increase < 0.5 points`), their grammar and the one rule that judges them. The figures, their
intervals and the run-to-run noise come from the history (littlegrid.history.gate), which hands the interval of the
regression here.

Grammar (docs/criteria.md and docs/history.md are the user-facing versions)::

    relative  := metric change op margin unit scope?
    metric    := throughput | mean | p50 | p90 | p99 | error_rate      (the figures the history keeps per cell)
    change    := "regress" (worse: a time or the error rate up, throughput down) | "increase" (up; not throughput)
    op        := "<" | "<="
    unit      := "%" (a change relative to the baseline; times and throughput)
               | "points" (percentage points of the error rate, whose baseline is often 0)
    scope     := "where" condition ("and" condition)*              (as in criteria; no label: the history keeps
                                                                      each cell's overall figures)

The rule: a criterion fails only when the whole interval of the regression lies past the margin (its lower end
above it). An interval that reaches below the margin does not show the regression, however large its point."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from littlegrid.criteria.grammar import Scope, _parse_conditions, _Stream, _tokens
from littlegrid.usererror import UserError

# name -> (the summary's STATS key the history keeps, higher is better, unit the margin is written in)
METRICS = {"throughput": ("throughput_per_s", True, "%"), "mean": ("mean_ms", False, "%"),
           "p50": ("p50_ms", False, "%"), "p90": ("p90_ms", False, "%"), "p99": ("p99_ms", False, "%"),
           "error_rate": ("error_rate", False, "points")}
CHANGES = ("regress", "increase")
LAST_PASS = "history:last-pass"  # the reference `check --baseline` reads from the history: its series' reference set
# What `check --baseline` judges when no relative criterion is given: the three, one per kind of figure
DEFAULTS = ("p90 regress < 10%", "throughput regress < 5%", "error_rate increase < 0.5 points")


@dataclass(frozen=True)
class RelativeCriterion:
    metric: str  # METRICS
    change: str  # CHANGES
    op: str  # "<" | "<="
    margin: float  # a fraction: of the baseline for "%", of all samples for "points" (0.5 points = 0.005)
    unit: str  # "%" | "points"
    scope: Scope
    text: str

    @property
    def key(self) -> str:
        return METRICS[self.metric][0]

    @property
    def higher_is_better(self) -> bool:
        return METRICS[self.metric][1]

    def fails(self, regression_lo: float | None) -> bool | None:
        """Whether the regression's interval, whose lower end is `regression_lo`, lies wholly past the margin
        (`<`: at or above it; `<=`: above it). None: no interval, not judged."""
        if regression_lo is None:
            return None
        return regression_lo > self.margin if self.op == "<=" else regression_lo >= self.margin


def is_relative(text) -> bool:
    """Whether a criterion's text is a relative one (its second word says a change), to be judged against a baseline."""
    return isinstance(text, str) and len(words := text.split()) > 1 and words[1].lower() in CHANGES


def split(texts) -> tuple[list[str], list[str]]:
    """A grid's criteria as (absolute, relative): analyze judges the first, `check --baseline` the second."""
    texts = list(texts or ())
    return [t for t in texts if not is_relative(t)], [t for t in texts if is_relative(t)]


def parse(text: str) -> RelativeCriterion:
    """One relative criterion; a `UserError` naming it and the problem when it is malformed."""
    shown = " ".join(str(text).split())

    def fail(problem: str) -> UserError:
        return UserError(f"criterion '{shown}': {problem}")

    if not isinstance(text, str):
        raise fail('a criterion is a string such as "p90 regress < 10%"')
    stream = _Stream(_tokens(text, fail), fail)
    example = 'e.g. "p90 regress < 10%" or "error_rate increase < 0.5 points"'
    first = stream.take(f"empty criterion; {example}")
    metric = first.text.lower()
    if first.kind != "word" or metric not in METRICS:
        raise fail(f"a relative criterion needs one of {', '.join(METRICS)} first, got {first.text!r}")
    change_tok = stream.take(f"missing 'regress' or 'increase' after {metric}")
    change = change_tok.text.lower()
    if change not in CHANGES:
        raise fail(f"expected 'regress' or 'increase' after {metric}, got {change_tok.text!r}")
    if change == "increase" and METRICS[metric][1]:
        raise fail(f"{metric} worsens when it falls: write '{metric} regress < …'")
    op_tok = stream.take("missing '<' or '<=' before the margin")
    if op_tok.kind != "op" or op_tok.text not in ("<", "<="):
        raise fail(f"a relative criterion bounds the regression from above: use < or <=, got {op_tok.text!r}")
    num = stream.take(f"missing the margin; {example}")
    if num.kind != "number" or Fraction(num.text) < 0:
        raise fail(f"expected a margin such as 10% after {op_tok.text}, got {num.text!r}")
    wanted = METRICS[metric][2]
    unit_tok = stream.peek()
    unit = stream.take().text.lower() if unit_tok is not None and unit_tok.kind in ("percent", "word") and \
        unit_tok.text.lower() != "where" else ""
    if unit == "point":
        unit = "points"
    if unit != wanted:
        why = ("the error rate's change is in percentage points (its baseline is often 0, where a relative change "
               "has no meaning)" if wanted == "points" else f"{metric}'s change is relative to the baseline, in %")
        written = f"{num.text}%" if wanted == "%" else f"{num.text} points"
        raise fail(f"{why}: write '{metric} {change} {op_tok.text} {written}', got {unit or 'no unit'}")
    margin = float(Fraction(num.text) / 100)
    where = ()
    if (tok := stream.peek()) is not None:
        stream.take()
        if tok.kind != "word" or tok.text.lower() != "where":
            label = tok.kind == "word" and tok.text.lower() == "label"
            raise fail("the history keeps each cell's overall figures: a relative criterion takes no label scope"
                       if label else f"unexpected {tok.text!r} after the margin; a scope is where <axis> <op> <value>")
        where = _parse_conditions(stream, fail)
        if (extra := stream.peek()) is not None:
            raise fail(f"unexpected {extra.text!r} after the conditions; join them with 'and'")
    return RelativeCriterion(metric, change, op_tok.text, margin, unit, Scope(None, where), shown)
