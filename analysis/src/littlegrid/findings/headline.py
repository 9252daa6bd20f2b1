"""The headline: the run's answer in at most three sentences, composed from its findings and their figures.

1. what limits throughput and where, with the number (the first saturated curve's bottleneck and level);
2. what the other curves do (saturated at their own level, or still growing);
3. whether the test can be trusted (the trust group's findings, or that every check held).
A single JTL gets its own: the throughput and the slowest transaction, where the errors are, a shift or burst.
"""

from __future__ import annotations

from littlegrid.findings.base import Finding, load_words, ms, num, pct, rate, response_law_words
from littlegrid.findings.single_test import outage_share
from littlegrid.findings.validity import OVERLOAD_CONSEQUENCES
from littlegrid.summary.comparison import interval_text
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


def _arms(f: Finding) -> str | None:
    """"Arms K = 0 against 2: at N = 8 throughput is equivalent within ±10% (+1.1%, 95% interval …); choose …", in
    the finding's own words for X's verdict (two_arms.Arms._said); None for an arms finding that is not a group's
    (a crossed one names no arms, or one without a verdict: it says nothing the headline could shorten)."""
    arms, said = _figure(f, "arms"), _figure(f, "verdict")
    if not arms or not said:
        return None
    rel, lo, hi = (num(_figure(f, k)) for k in ("rel", "rel_lo", "rel_hi"))
    at = _figure(f, "at")  # "N = 8" or "λ = 100/s": the load of the heaviest pair, as the finding names it
    interval = f" ({interval_text(rel, lo, hi)})" if None not in (rel, lo, hi) else ""
    choice = str(_figure(f, "choice") or "")
    return (f"Arms {arms}: {f'at {at} ' if at else ''}throughput is {said}{interval}"
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


def _failed(f: Finding) -> str:
    """"15% of requests failed (1,994 of 12,992), 1,981 of them in the 10 s outage at 60.1 s": the file's counts,
    the outage's share named apart, else the label most of them are in."""
    errors, requests = _figure(f, "errors"), _figure(f, "requests")
    counted = f" ({errors:,.0f} of {requests:,.0f})" if errors is not None and requests is not None else ""
    in_outage = _figure(f, "outage_errors")
    lasted, began = _figure(f, "outage_lasted_s"), _figure(f, "outage_began_s")
    outage = ("" if not in_outage else outage_share(in_outage, errors, lasted, began)
              if errors is not None and lasted is not None and began is not None else f", {in_outage:,.0f} of them in an outage")
    most = "" if outage else _most_in(f, _figure(f, "label"), errors)
    return f"{pct(_value(f, 'error_rate'))} of requests failed{counted}{outage}{most}."


def _most_in(f: Finding, label, errors: float | None) -> str:
    """Where most errors are, by label: the window's (the file's when the window holds them all)."""
    own, window = _figure(f, "label_errors"), _figure(f, "window_errors")
    if not label or own is None:
        return ""
    total = errors if window is None else window
    if total is None:
        return f", most of them in '{label}' ({own:g})"
    if window is None or window == errors:
        return f", most of them in '{label}' ({own:g} of {total:g})"
    return f"; of the window's {window:g}, most in '{label}' ({own:g})"


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
    failed = _said(_failed, found[err]) if err is not None else None
    if failed:
        sentences.append(failed)
        used.append(err)
    elif tp is not None:  # the errors finding counts every sample of the file: none failed
        sentences.append("No request failed.")
    shift = _first(found, "latency_shift")
    burst = _first(found, "error_burst")
    doubt = next((i for i, f in enumerate(found) if f.kind == "outage"
                  or (f.kind == "validity" and _figure(f, "grade") == "Do not trust")), None)
    stall = _first(found, "stall")
    for i in (doubt, stall, shift, burst):
        if i is not None and len(sentences) < 3:
            sentences.append(found[i].statement.split(". ")[0].rstrip(".") + "." if i in (doubt, stall)
                             else found[i].statement.split(": ")[0] + ".")
            used.append(i)
    return sentences[:3], used


def headline(summary: Summary, found: list[Finding], single_test: bool) -> dict | None:
    """{"sentences", "findings"} for the summary (None when there are no findings to compose it from)."""
    if not found:
        return None
    sentences, used = single(found) if single_test else grid(summary, found)
    return {"sentences": sentences, "findings": sorted(set(used))}
