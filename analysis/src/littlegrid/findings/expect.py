"""Expected findings of a grid (`expect = ["bottleneck thread_pool where server.tomcat.threads.max = 10"]`):
the grammar, and whether a run's findings meet them.

    expectation := ["no"] kind [word] [where condition ("and" condition)*]

kind is a finding kind (saturation, bottleneck, waiting, service, arms, ...); the word after it is the finding's
`resource` where the kind has one (QUALIFIERS: a bottleneck's resource, where requests wait, flat or stretched
time in service, the timer's realised shape, arms with the same or a different throughput); the where
scope is the criteria grammar's (littlegrid.criteria.grammar.parse_where). A positive expectation is met by a finding
of that kind about a cell in scope that holds; a finding that only suggests it leaves it undecided. "no X" is
met when no finding of that kind holds or suggests anything about a cell in scope ("cannot tell" claims nothing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from littlegrid.criteria.evaluate import in_where
from littlegrid.criteria.grammar import Scope, parse_where
from littlegrid.findings.base import KIND_ORDER
from littlegrid.summary.model import Summary
from littlegrid.usererror import UserError

KINDS = KIND_ORDER
RESOURCES = ("thread_pool", "throttle", "cpu", "connections", "generator", "unknown")
# The word a kind may take after it (the finding's `resource`): a bottleneck's resource, where requests wait, the
# shape of time in service, the timer's realised shape or the capacity it buys, whether two arms' throughput is equal.
QUALIFIERS = {"bottleneck": RESOURCES, "waiting": ("in_front", "throttle", "waves"), "service": ("flat", "stretched"),
              "think_time": ("poisson", "exponential", "constant", "capacity"), "arms": ("same", "different")}
CLAIMS = ("holds", "suggests")


@dataclass(frozen=True)
class Expectation:
    negated: bool
    kind: str
    resource: str | None
    scope: Scope
    text: str


def parse(text: str) -> Expectation:
    """One expectation; a one-line `UserError` naming it and the problem when it is malformed."""
    if not isinstance(text, str) or not text.strip():
        raise UserError(f"expectation {text!r}: write e.g. \"bottleneck thread_pool where users = 100\"")
    shown = " ".join(text.split())

    def fail(problem: str) -> UserError:
        return UserError(f"expectation '{shown}': {problem}")

    head, sep, rest = _split_where(text)
    words = head.split()
    negated = bool(words) and words[0].lower() == "no"
    words = words[1:] if negated else words
    if not words:
        raise fail(f"missing the finding kind; kinds: {', '.join(KINDS)}")
    kind = words[0].lower()
    if kind not in KINDS:
        raise fail(f"unknown finding kind {words[0]!r}; kinds: {', '.join(KINDS)}")
    resource = None
    if len(words) > 1:
        if kind not in QUALIFIERS:
            named = ", ".join(QUALIFIERS)
            raise fail(f"unexpected {words[1]!r} after {kind}: only {named} take a word after them, and a scope "
                       f"starts with where")
        resource = words[1].lower()
        if resource not in QUALIFIERS[kind]:
            noun = "resource" if kind == "bottleneck" else f"word after {kind}"
            raise fail(f"unknown {noun} {words[1]!r}; {noun}s: {', '.join(QUALIFIERS[kind])}")
    if len(words) > 2:
        raise fail(f"unexpected {words[2]!r}; the scope starts with where")
    return Expectation(negated, kind, resource, Scope(where=parse_where(sep + rest, fail)), shown)


def _split_where(text: str) -> tuple[str, str, str]:
    m = re.search(r"(?i)(?<![\w.\-])where(?![\w.\-])", text)
    return (text, "", "") if m is None else (text[:m.start()], text[m.start():m.end()], text[m.end():])


def check_axes(expectation: Expectation, axes) -> None:
    """Refuse a scope naming an axis the grid does not have (a typo would make the expectation vacuous)."""
    for cond in expectation.scope.where:
        if cond.axis not in axes:
            raise UserError(f"expectation '{expectation.text}': the grid has no axis {cond.axis!r} "
                            f"(axes: {', '.join(sorted(axes)) or 'none'})")


def evaluate(texts: list[str], summary: Summary, found: list[dict]) -> list[dict]:
    """One entry per expectation: passed (True, False, or None when undecided), and an explanation that quotes
    the findings it rests on, in their own words (`found`: the findings as summary.json holds them, as_json)."""
    cells = summary.cells
    axes = set(summary.axes) | {a for c in cells for a in c.axes}
    out = []
    for text in texts:
        e = parse(text)
        check_axes(e, axes)
        in_scope = {c.id for c in cells if in_where(e.scope, c, e.text)}
        named = f"{e.kind}{' ' + e.resource if e.resource else ''}"
        if not in_scope:
            out.append(_entry(e, None, f"no cell matches {e.scope}", []))
            continue
        about = [f for f in found if f.get("kind") == e.kind and set(f.get("cells") or ()) & in_scope]
        matching = [f for f in about if e.resource is None or f.get("resource") == e.resource]
        claims = [f for f in matching if f.get("standing") in CLAIMS]
        if e.negated:
            passed = not claims
            why = (f"no {named} finding about {e.scope}" if passed
                   else f"found: {claims[0]['statement']}")
            out.append(_entry(e, passed, why, claims))
            continue
        held = [f for f in matching if f.get("standing") == "holds"]
        if held:
            out.append(_entry(e, True, held[0]["statement"], held))
        elif claims:
            out.append(_entry(e, None, f"only suggested ({claims[0]['why']}): {claims[0]['statement']}", claims))
        else:
            others = "; ".join(f"{f['kind']}{' ' + f['resource'] if f.get('resource') else ''} "
                               f"({f['standing']}): {f['statement']}" for f in about[:2])
            out.append(_entry(e, False, f"no {named} finding about {e.scope}" + (f"; instead: {others}"
                                                                                  if others else ""), about))
    return out


def _entry(e: Expectation, passed, explanation: str, based_on: list[dict]) -> dict:
    return {"expectation": e.text, "passed": passed, "explanation": explanation,
            "findings": [f.get("statement") for f in based_on]}
