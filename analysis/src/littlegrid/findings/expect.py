"""Expected findings of a grid (`expect = ["bottleneck thread_pool where server.tomcat.threads.max = 10"]`):
the grammar, and whether a run's findings meet them.

    expectation := ["no" | "likely"] kind [word] ["about" size] ["within" margin "%"] [where condition ("and" condition)*]

kind is a finding kind (saturation, bottleneck, waiting, service, arms, ...); the word after it is the finding's
`resource` where the kind has one (QUALIFIERS: a bottleneck's resource, where requests wait, flat or stretched
time in service, the timer's realised shape, arms whose throughput is equivalent or different); the where
scope is the criteria grammar's (littlegrid.criteria.grammar.parse_where). A positive expectation is met by a finding
of that kind about a cell in scope that holds; a finding that only suggests it leaves it undecided, unless the
expectation says "likely" (then a finding that suggests it meets it too: the laws' limit on a service nothing
scraped is never more than likely). "no X" is met when no finding of that kind holds or suggests anything about a
cell in scope ("cannot tell" claims nothing). `bottleneck concurrency about 4` also asks the size of the limit: the
finding's requests in service (its figure in_service, L = X_max·D) within ±0.5 of 4.

The arms' words are judged on the interval an arms finding states (its figures rel_lo, rel_hi), by the rule of
littlegrid.comparison.equivalence: `arms same within 10%` holds when the interval lies inside ±10% (two one-sided
tests); `arms same` alone means within the default margin (equivalence.DEFAULT_MARGIN, 5%), never "not shown
different"; `arms different` holds when the interval excludes zero (a difference smaller than the margin is still
one). A margin goes only after `arms same`, and a grid states at most one (the arms finding is worded with it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from littlegrid.summary import comparison as equivalence
from littlegrid.criteria.evaluate import in_where
from littlegrid.criteria.grammar import Scope, parse_where
from littlegrid.findings.base import KIND_ORDER
from littlegrid.summary.model import Summary
from littlegrid.usererror import UserError

KINDS = KIND_ORDER
RESOURCES = ("thread_pool", "throttle", "cpu", "connections", "generator", "concurrency", "proxy", "unknown")
SAME, DIFFERENT = "same", "different"  # the arms' words: equivalent within the margin; the interval excludes zero
# The word a kind may take after it (the finding's `resource`): a bottleneck's resource, where requests wait, the
# shape of time in service, the timer's realised shape or the capacity it buys; for the arms, what X's interval
# shows (judged on the interval at the expectation's margin, not read from the finding's resource: _arms_claim).
QUALIFIERS = {"bottleneck": RESOURCES, "waiting": ("in_front", "throttle", "waves", "proxy", "proxy_connections"), "service": ("flat", "stretched"),
              "think_time": ("poisson", "exponential", "constant", "capacity"), "arms": (SAME, DIFFERENT)}
CLAIMS = ("holds", "suggests")
SIZE_TOLERANCE = 0.5  # a limit of about k: its requests in service within ±0.5 of k (the nearest whole number)
MARGIN_FORM = "write the margin as a percentage between 0 and 100, e.g. \"arms same within 10%\""


@dataclass(frozen=True)
class Expectation:
    negated: bool
    kind: str
    resource: str | None
    scope: Scope
    text: str
    margin: float | None = None  # `arms same within 10%`: 0.1; None: none stated (equivalence.DEFAULT_MARGIN)
    likely: bool = False  # met by a finding that suggests it, too
    size: float | None = None  # `bottleneck concurrency about 4`: the limit's size, judged within ±SIZE_TOLERANCE

    def named(self) -> str:
        """"arms same within ±10%": the kind and word as judged, with the margin an arms expectation is judged at."""
        word = f"{'likely ' if self.likely else ''}{self.kind}{' ' + self.resource if self.resource else ''}"
        if self.size is not None:
            word += f" about {self.size:g}"
        if self.kind == "arms" and self.resource == SAME:
            word += f" within {equivalence.margin_text(self.margin or equivalence.DEFAULT_MARGIN)}"
        return word


def parse(text: str) -> Expectation:
    """One expectation; a one-line `UserError` naming it and the problem when it is malformed."""
    if not isinstance(text, str) or not text.strip():
        raise UserError(f"expectation {text!r}: write e.g. \"bottleneck thread_pool where users = 100\"")
    shown = " ".join(text.split())

    def fail(problem: str) -> UserError:
        return UserError(f"expectation '{shown}': {problem}")

    head, sep, rest = _split_where(text)
    words, margin = _margin(head.split(), fail)
    negated = bool(words) and words[0].lower() == "no"
    words = words[1:] if negated else words
    likely = bool(words) and words[0].lower() == "likely"
    words = words[1:] if likely else words
    if likely and negated:
        raise fail("\"no\" already counts a finding that only suggests: write \"no\" or \"likely\", not both")
    words, size = _size(words, fail)
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
    if margin is not None and (kind != "arms" or resource != SAME):
        raise fail("a margin (within N%) goes only after \"arms same\"")
    if size is not None and (kind != "bottleneck" or resource != "concurrency" or negated):
        raise fail("a size (about N) goes only after \"bottleneck concurrency\"")
    return Expectation(negated, kind, resource, Scope(where=parse_where(sep + rest, fail)), shown, margin,
                       likely, size)


def _size(words: list[str], fail) -> tuple[list[str], float | None]:
    """The words before "about", and the number after it (None when no "about")."""
    lowered = [w.lower() for w in words]
    if "about" not in lowered:
        return words, None
    at = lowered.index("about")
    after = words[at + 1:]
    if len(after) != 1 or re.fullmatch(r"\d+(?:\.\d+)?", after[0]) is None or float(after[0]) <= 0:
        raise fail(f"after about, write the limit's size as a positive number, e.g. \"bottleneck concurrency about "
                   f"4\", got {' '.join(after) or 'nothing'!r}")
    return words[:at], float(after[0])


def _sized(e: Expectation, f: dict) -> bool:
    """Whether a concurrency finding's requests in service are the size e states, within ±SIZE_TOLERANCE."""
    held = (f.get("figures") or {}).get("in_service")
    return e.size is None or (isinstance(held, (int, float)) and abs(held - e.size) <= SIZE_TOLERANCE)


def _margin(words: list[str], fail) -> tuple[list[str], float | None]:
    """The words before "within", and the margin after it as a fraction (None when no "within")."""
    lowered = [w.lower() for w in words]
    if "within" not in lowered:
        return words, None
    at = lowered.index("within")
    after = words[at + 1:]
    if not after:
        raise fail(f"nothing after within: {MARGIN_FORM}")
    text = "".join(after)
    m = re.fullmatch(r"(\d+(?:\.\d+)?)%", text)
    if m is None:
        raise fail(f"margin {' '.join(after)!r}: {MARGIN_FORM}")
    value = float(m.group(1)) / 100
    if not 0 < value < 1:
        raise fail(f"margin {' '.join(after)!r} is not between 0% and 100%: {MARGIN_FORM}")
    return words[:at], value


def arms_margin(texts: list[str] | tuple[str, ...]) -> float:
    """The equivalence margin the arms are judged and worded at: the one the expectations state
    (`arms same within 10%`), else equivalence.DEFAULT_MARGIN; two different ones are refused in one line."""
    stated = {e.margin: e.text for e in map(parse, texts or []) if e.margin is not None}
    if len(stated) > 1:
        both = " and ".join(f"'{t}'" for t in stated.values())
        raise UserError(f"expectations {both} state two margins for the arms: state one (the arms finding is "
                        f"worded with it)")
    return next(iter(stated), equivalence.DEFAULT_MARGIN)


def _arms_claim(e: Expectation, f: dict) -> bool:
    """Whether an arms finding's interval says what e's word does: same, inside the margin (two one-sided tests);
    different, excluding zero. Without a word any arms finding claims; without an interval none says either."""
    if e.resource is None:
        return True
    figures = f.get("figures") or {}
    v = equivalence.verdict(figures.get("rel_lo"), figures.get("rel_hi"), True,
                            e.margin or equivalence.DEFAULT_MARGIN)
    return v in (equivalence.WITHIN_MARGIN if e.resource == SAME else equivalence.DIFFERENT)


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
        named = e.named()
        if not in_scope:
            out.append(_entry(e, None, f"no cell matches {e.scope}", []))
            continue
        about = [f for f in found if f.get("kind") == e.kind and set(f.get("cells") or ()) & in_scope]
        matching = [f for f in about if _arms_claim(e, f)] if e.kind == "arms" else \
            [f for f in about if (e.resource is None or f.get("resource") == e.resource) and _sized(e, f)]
        claims = [f for f in matching if f.get("standing") in CLAIMS]
        if e.negated:
            passed = not claims
            why = (f"no {named} finding about {e.scope}" if passed
                   else f"found: {claims[0]['statement']}")
            out.append(_entry(e, passed, why, claims))
            continue
        held = [f for f in matching if f.get("standing") in (CLAIMS if e.likely else ("holds",))]
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
