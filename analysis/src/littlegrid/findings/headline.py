"""The headline: the run's answer in at most three sentences, composed from its findings and their figures.

1. what limits throughput and where, with the number (the first saturated curve's bottleneck and level);
2. what the other curves do (saturated at their own level, or still growing);
3. whether the test can be trusted (the trust group's findings, or that every check held).
A single JTL gets its own: the throughput and the slowest transaction, where the errors are, a shift or burst.
"""

from __future__ import annotations

from littlegrid.findings.base import Finding, ms, num, pct, rate
from littlegrid.findings.single_test import outage_share
from littlegrid.findings.validity import OVERLOAD_CONSEQUENCES
from littlegrid.summary.comparison import interval_text
from littlegrid.summary.model import Curve, Summary

TRUST_KINDS = ("outage", "validity")


def _figure(f: Finding, name: str) -> float | str | None:
    return dict(f.figures).get(name)


def _first(found: list[Finding], kind: str, curve: str | None = None) -> int | None:
    return next((i for i, f in enumerate(found) if f.kind == kind and (curve is None or f.curve == curve)
                 and f.standing != "cannot tell"), None)


def _limiter(f: Finding | None) -> str:
    """Who caps throughput, in words, from a bottleneck finding."""
    if f is None:
        return "Something not measured"
    if f.resource == "thread_pool":
        threads = num(_figure(f, "threads_max"))
        return f"{threads:g} Tomcat threads" if threads else "Tomcat's thread pool"
    return {"cpu": "The host's CPU", "throttle": "The throttle", "connections": "Connection limits",
            "generator": "The generator (not the server)"}.get(f.resource or "", "Something not measured")


def _capped(curve: Curve, sat: Finding, bottleneck: Finding | None) -> str:
    level, bound = num(_figure(sat, "throughput_per_s")), num(_figure(sat, "bound_per_s"))
    who = _limiter(bottleneck)
    verb = "caps" if who.endswith(("CPU", "pool", "throttle", "server)", "measured")) else "cap"
    cap = (f"{'c/S = ' if bottleneck is not None and bottleneck.resource == 'thread_pool' else ''}{rate(bound)} "
           f"({rate(level)} measured)" if bound else rate(level))
    text = (f"With {curve.label}, {who[0].lower() + who[1:] if not who[0].isdigit() else who}" if curve.fixed
            else who) + f" {verb} throughput at {cap}"
    if curve.workload == "open":
        return text + f"; past it the queue grows for as long as the load lasts"
    if level:
        return text + f"; response time grows as N/{level:.3g} s"
    return text


def _other(curve: Curve, found: list[Finding]) -> str | None:
    i = _first(found, "scaling", curve.key)
    if i is None:
        return None
    f = found[i]
    x, line = num(_figure(f, "throughput_per_s")), num(_figure(f, "line_per_s"))
    n = num(_figure(f, "users"))
    lead = f"With {curve.label}, throughput" if curve.fixed else "Throughput"
    if curve.workload == "open":
        return f"{lead} follows the offered rate up to {rate(line)}"
    lifted = f"to {rate(x)} at N = {n:g}" if x is not None and n is not None else "with N"
    share = f" ({x / line:.0%} of N/(D+Z))" if x and line else ""
    return f"{lead} keeps growing with N, {lifted}{share}"


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
        sat = _first(found, "saturation", curve.key)
        if sat is not None:
            bottleneck = _first(found, "bottleneck", curve.key)
            saturated.append((curve, sat, bottleneck))
        else:
            others.append(curve)
    if saturated:
        curve, sat, bottleneck = saturated[0]
        sentences.append(_capped(curve, found[sat], found[bottleneck] if bottleneck is not None else None) + ".")
        used += [i for i in (sat, bottleneck) if i is not None]
    rest = [_capped(c, found[s], found[b] if b is not None else None) for c, s, b in saturated[1:2]]
    rest += [t for t in (_other(c, found) for c in others[:2]) if t]
    # a grid with two arms exists to compare them: that is the second sentence, from the first group's finding
    arms = next((i for i, f in enumerate(found) if f.kind == "arms" and f.standing != "cannot tell"
                 and _arms(f) is not None), None)
    if arms is not None:
        sentences.append(_arms(found[arms]))
        used.append(arms)
    elif rest:
        sentences.append("; ".join(rest) + ".")
        used += [i for c in others[:2] if (i := _first(found, "scaling", c.key)) is not None]
    if not sentences:
        sentences.append("No curve saturated or grew over the load measured: see the cells below.")
    text, idx = _trust(found, summary)
    return sentences[:2] + [text], used + idx


def _most_in(f: Finding, label, errors: float | None) -> str:
    """Where most errors are, by label: the window's (the file's when the window holds them all)."""
    if not label:
        return ""
    own, window = num(_figure(f, "label_errors")), num(_figure(f, "window_errors"))
    if window is None or window == errors:
        return f", most of them in '{label}' ({own:g} of {errors if window is None else window:g})"
    return f"; of the window's {window:g}, most in '{label}' ({own:g})"


def single(found: list[Finding]) -> tuple[list[str], list[int]]:
    sentences, used = [], []
    tp, slow = _first(found, "throughput"), _first(found, "slowest")
    if tp is not None:
        f = found[tp]
        text = (f"The test ran at {rate(num(_figure(f, 'throughput_per_s')))} with p90 "
                f"{ms(num(_figure(f, 'p90_ms')))}")
        if slow is not None:
            s = found[slow]
            text += f"; the slowest is '{_figure(s, 'label')}' (p90 {ms(num(_figure(s, 'p90_ms'))) })"
        sentences.append(text + ".")
        used += [i for i in (tp, slow) if i is not None]
    err = _first(found, "errors")
    if err is not None:
        f = found[err]
        label = _figure(f, "label")
        errors, requests = num(_figure(f, "errors")), num(_figure(f, "requests"))
        in_outage = num(_figure(f, "outage_errors"))
        counted = f" ({errors:,.0f} of {requests:,.0f})" if errors is not None and requests is not None else ""
        outage = (outage_share(in_outage, errors, num(_figure(f, "outage_lasted_s")),
                               num(_figure(f, "outage_began_s"))) if in_outage else "")
        sentences.append(f"{pct(num(_figure(f, 'error_rate')))} of requests failed{counted}{outage}"
                         + (_most_in(f, label, errors) if not outage else "") + ".")
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
