"""The headline: the run's answer in at most three sentences, composed from its findings and their figures.

1. what limits throughput and where, with the number (the first saturated curve's bottleneck and level);
2. what the other curves do (saturated at their own level, or still growing);
3. whether the test can be trusted (the trust group's findings, or that every check held).
A single JTL gets its own: the throughput and the slowest transaction, where the errors are, a shift or burst.
"""

from __future__ import annotations

from littlegrid.findings.base import Finding, load_words, ms, num, pct, rate, response_law_words
from littlegrid.findings.validity import OVERLOAD_CONSEQUENCES
from littlegrid.summary.model import Curve, Summary

TRUST_KINDS = ("outage", "validity")


class _Missing(Exception):
    """A figure a sentence needs is not in its finding (absent, None, NaN): that sentence is not said, since a
    headline never prints a missing value."""


def _figure(f: Finding, name: str) -> float | str | None:
    """A figure of the finding: a finite number or a text; None when absent or not a number (NaN, ±inf)."""
    value = dict(f.figures).get(name)
    return value if isinstance(value, str) else num(value)


def _value(f: Finding, name: str) -> float:
    """A number a sentence cannot go without: the one path every headline figure is read by (_Missing if none)."""
    value = _figure(f, name)
    if not isinstance(value, float):
        raise _Missing(name)
    return value


def _said(compose, *args) -> str | None:
    """The sentence compose(*args) writes, or None when a figure it needs is missing."""
    try:
        return compose(*args)
    except _Missing:
        return None


def _first(found: list[Finding], kind: str, curve: str | None = None, having: str | None = None) -> int | None:
    """The first finding of a kind (on a curve, with a figure) that claims something."""
    return next((i for i, f in enumerate(found) if f.kind == kind and (curve is None or f.curve == curve)
                 and (having is None or _figure(f, having) is not None) and f.standing != "cannot tell"), None)


def _limiter(f: Finding | None) -> str:
    """Who caps throughput, in words, from a bottleneck finding."""
    if f is None:
        return "Something not measured"
    if f.resource == "thread_pool":
        threads = _figure(f, "threads_max")
        return f"{threads:g} Tomcat threads" if threads else "Tomcat's thread pool"
    return {"cpu": "The host's CPU", "throttle": "The throttle", "connections": "Connection limits",
            "generator": "The generator (not the server)"}.get(f.resource or "", "Something not measured")


def _capped(curve: Curve, sat: Finding, bottleneck: Finding | None) -> str:
    """"4 Tomcat threads cap throughput at c/S = 40/s (39.8/s measured); past it response time grows as R = N/X − Z
    = N/39.8 s − 1 s": the level, and past it R by the closed law with the curve's own Z (an open curve has no
    N/X: past capacity its queue grows for as long as the load lasts)."""
    level, bound = _value(sat, "throughput_per_s"), _figure(sat, "bound_per_s")
    who = _limiter(bottleneck)
    verb = "caps" if who.endswith(("CPU", "pool", "throttle", "server)", "measured")) else "cap"
    cap = (f"{'c/S = ' if bottleneck is not None and bottleneck.resource == 'thread_pool' else ''}{rate(bound)} "
           f"({rate(level)} measured)" if bound else rate(level))
    text = (f"With {curve.label}, {who[0].lower() + who[1:] if not who[0].isdigit() else who}" if curve.fixed
            else who) + f" {verb} throughput at {cap}"
    if curve.workload == "open":
        return text + "; past it the queue grows for as long as the load lasts"
    if level > 0:
        return text + f"; past it response time grows as {response_law_words(level, num(curve.think_ms))}"
    return text


def _other(curve: Curve, found: list[Finding]) -> str | None:
    i = _first(found, "scaling", curve.key)
    if i is None:
        return None
    f = found[i]
    lead = f"With {curve.label}, throughput" if curve.fixed else "Throughput"
    if curve.workload == "open":
        return f"{lead} follows the offered rate up to {rate(_value(f, 'line_per_s'))}"
    x, line, n = _figure(f, "throughput_per_s"), _figure(f, "line_per_s"), _figure(f, "users")
    lifted = f", to {rate(x)} at {load_words(curve, n)}" if x is not None and n is not None else ""
    share = f" ({x / line:.0%} of N/(D+Z))" if x and line and lifted else ""
    return f"{lead} keeps growing with N{lifted}{share}"


def _arms(f: Finding) -> str:
    """"Arms K = 0 against 2: throughput equal within its interval at N = 8 (+1.1%, 95% interval …); choose …"."""
    rel, lo, hi = (num(_figure(f, k)) for k in ("rel", "rel_lo", "rel_hi"))
    n = num(_figure(f, "users"))
    verdict = "equal within its interval" if f.resource == "same" else "different"
    interval = f" ({rel:+.1%}, 95% interval {lo:+.1%} to {hi:+.1%})" if None not in (rel, lo, hi) else ""
    choice = str(_figure(f, "choice") or "")
    return (f"Arms {_figure(f, 'arms')}: throughput {verdict}{f' at N = {n:g}' if n is not None else ''}{interval}"
            + (f"; {choice[0].lower()}{choice[1:]}" if choice else "."))


def _trust(found: list[Finding], summary: Summary) -> tuple[str, list[int]]:
    worst = [i for i, f in enumerate(found) if f.kind == "outage"
             or (f.kind == "validity" and _figure(f, "grade") == "Do not trust")]
    care = [i for i, f in enumerate(found) if f.kind == "validity" and _figure(f, "grade") == "Read with care"]
    if worst:
        first = found[worst[0]].statement.split(". ")[0].rstrip(".")
        more = len(worst) - 1 + len(care)
        return first + (f"; {more} more finding{'s' if more > 1 else ''} on trust below" if more else "") + ".", worst
    if care:
        first = found[care[0]].statement.split(". ")[0].rstrip(".")
        return first + (f"; {len(care) - 1} more to read with care below" if len(care) > 1 else "") + ".", care[:1]
    checks = [k for c in summary.cells for k in c.checks if k.passed is not None] + \
        [k for k in summary.checks if k.passed is not None]
    if not checks:
        return "No check of the queueing laws could be made, so how far to trust these figures is not known.", []
    failed = [k for k in checks if k.passed is False]
    if not failed:
        return (f"The test can be trusted: every cell passed its {len(checks)} checks of the queueing laws and the "
                f"load asked for.", [])
    overloaded = {o.cell for k in summary.curves for o in k.overload if o.resource is not None}
    consequence = [k for k in failed if k.cell in overloaded and k.name in OVERLOAD_CONSEQUENCES]
    names = ", ".join(dict.fromkeys(k.name for k in failed))
    return (f"No finding puts the figures in doubt, but {len(failed)} of {len(checks)} checks failed ({names})"
            + (f", {len(consequence)} of them the overload's own consequence" if consequence else "")
            + ": read them below.", [])


def grid(summary: Summary, found: list[Finding]) -> tuple[list[str], list[int]]:
    sentences, used = [], []
    saturated, others = [], []
    for curve in summary.curves:
        sat = _first(found, "saturation", curve.key, having="throughput_per_s")
        if sat is not None:
            bottleneck = _first(found, "bottleneck", curve.key)
            saturated.append((curve, sat, bottleneck))
        else:
            others.append(curve)
    if saturated:
        curve, sat, bottleneck = saturated[0]
        capped = _said(_capped, curve, found[sat], found[bottleneck] if bottleneck is not None else None)
        if capped:
            sentences.append(capped + ".")
            used += [i for i in (sat, bottleneck) if i is not None]
    rest = [_said(_capped, c, found[s], found[b] if b is not None else None) for c, s, b in saturated[1:2]]
    told = [(c, t) for c in others[:2] if (t := _said(_other, c, found))]
    rest = [t for t in rest + [t for _, t in told] if t]
    arms = _first(found, "arms", having="arms")  # a crossed finding (two groups' arms) names no arms of its own
    arms_words = _said(_arms, found[arms]) if arms is not None else None
    if arms_words:  # a grid with two arms exists to compare them: that is the second sentence
        sentences.append(arms_words)
        used.append(arms)
    elif rest:
        sentences.append("; ".join(rest) + ".")
        used += [i for c, _ in told if (i := _first(found, "scaling", c.key)) is not None]
    if not sentences:
        sentences.append("No curve saturated or grew over the load measured: see the cells below.")
    text, idx = _trust(found, summary)
    return sentences[:2] + [text], used + idx


def _ran(tp: Finding) -> str:
    """"The test ran at 52/s with p90 120 ms" (the rate alone when the p90 is missing)."""
    p90 = _figure(tp, "p90_ms")
    return f"The test ran at {rate(_value(tp, 'throughput_per_s'))}" + (f" with p90 {ms(p90)}" if p90 is not None
                                                                          else "")


def _slowest(slow: Finding) -> str:
    """"the slowest is 'login' (p90 300 ms)"."""
    label = _figure(slow, "label")
    if not isinstance(label, str):
        raise _Missing("label")
    return f"the slowest is '{label}' (p90 {ms(_value(slow, 'p90_ms'))})"


def single(found: list[Finding]) -> tuple[list[str], list[int]]:
    sentences, used = [], []
    tp, slow = _first(found, "throughput"), _first(found, "slowest")
    ran = _said(_ran, found[tp]) if tp is not None else None
    if ran:
        slowest = _said(_slowest, found[slow]) if slow is not None else None
        sentences.append(ran + (f"; {slowest}" if slowest else "") + ".")
        used += [tp] + ([slow] if slowest else [])
    err = _first(found, "errors")
    if err is not None:
        f = found[err]
        label = _figure(f, "label")
        sentences.append(f"{pct(num(_figure(f, 'error_rate')))} of requests failed"
                         + (f", most of them in '{label}' ({num(_figure(f, 'label_errors')):g} of "
                            f"{num(_figure(f, 'errors')):g})" if label else "") + ".")
        used.append(err)
    elif tp is not None:
        sentences.append("No request failed.")
    shift = _first(found, "latency_shift")
    burst = _first(found, "error_burst")
    doubt = next((i for i, f in enumerate(found) if f.kind == "outage"
                  or (f.kind == "validity" and _figure(f, "grade") == "Do not trust")), None)
    for i in (doubt, shift, burst):
        if i is not None and len(sentences) < 3:
            sentences.append(found[i].statement.split(". ")[0].rstrip(".") + "." if i == doubt
                             else found[i].statement.split(": ")[0] + ".")
            used.append(i)
    return sentences[:3], used


def headline(summary: Summary, found: list[Finding], single_test: bool) -> dict | None:
    """{"sentences", "findings"} for the summary (None when there are no findings to compose it from)."""
    if not found:
        return None
    sentences, used = single(found) if single_test else grid(summary, found)
    return {"sentences": sentences, "findings": sorted(set(used))}
