"""The headline: the run's answer in at most two sentences, composed from its findings and their figures, each
figure at the precision its interval supports (findings.precision).

1. the main answer: what limits throughput and at what rate, how many requests are in service and where the rest
   wait (the first saturated curve's bottleneck, level and waiting finding), "likely" where a finding it is
   composed from only suggests; with no saturated curve, a connection limit the failures measured (a spike against
   max-connections + accept-count) and the share of requests it refused;
2. the one thing that changes or completes it, the first of: a finding that says not to trust the figures (an
   outage, a "Do not trust" cell); the grid's two arms, which to choose and by how much, as a ratio with its
   interval; what the other curves do; whether every check held. A "read with care" note stays in the findings:
   it qualifies the answer without changing it.
A single JTL gets its own: the throughput and the slowest transaction, then a reason not to trust it, the errors,
or a shift or burst.
"""

from __future__ import annotations

from littlegrid.analysis.observed import server_cpu
from littlegrid.findings import precision
from littlegrid.findings.base import POOL_NAMES, Finding, load_words, ms, num, pct, rate, response_law_words, users
from littlegrid.findings.single_test import outage_share
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


def _threads(f: Finding) -> tuple[str, bool]:
    """"10 Tomcat threads", "4 threads of the pool 'workers'": the pool as the bottleneck named it, and whether the
    words are one thing (a pool) or many (its threads)."""
    threads, kind, pool = _figure(f, "threads_max"), _figure(f, "pool_kind"), _figure(f, "pool")
    if kind in (None, "tomcat"):  # the sample server's (a bottleneck of an older littlegrid names no kind)
        return (f"{threads:g} Tomcat threads", False) if threads else ("Tomcat's thread pool", True)
    named = str(pool) if pool else POOL_NAMES.get(str(kind), "the service's worker pool")
    return (f"{threads:g} threads of {named}", False) if threads else (named[0].upper() + named[1:], True)


# Who caps throughput, by a bottleneck's resource, when no figure of its own names it: the words, and whether they
# are one thing (its verb "caps") or many ("cap")
LIMITERS = {"throttle": ("The throttle", True), "connections": ("Connection limits", False),
            "generator": ("The generator (not the server)", True)}
NOT_MEASURED = ("Something not measured", True)


def _limiter(f: Finding | None) -> tuple[str, bool]:
    """Who caps throughput, in words, from a bottleneck finding, and whether they are one thing or many."""
    if f is None:
        return NOT_MEASURED
    if f.resource == "thread_pool":
        return _threads(f)
    if f.resource == "concurrency":
        held = _figure(f, "held")
        if not isinstance(held, str):
            raise _Missing("held")
        # the candidates the finding left (cores only when the server's CPU was full or not measured)
        kinds = _figure(f, "kinds")
        # an upper bound (the lightest cell not shown below the knee) is said as one: "at most 8 … (a limit of 8 or
        # fewer …)"
        size = (f"{held.removeprefix('at most ')} or fewer" if held.startswith("at most ")
                else held.removeprefix('about '))
        return (f"{held[0].upper() + held[1:]} requests in service at once (a limit of {size}: "
                f"{kinds if isinstance(kinds, str) else 'worker threads or processes, connections, or cores'})", False)
    if f.resource == "cpu":  # whose cores, as the finding measured them: never a bare "host" for a server elsewhere
        basis = _figure(f, "cpu_basis")
        return (f"{server_cpu.owner_of(str(basis)).capitalize()} CPU" if basis else "The host's CPU"), True
    if f.resource == "proxy":  # a proxy's maxconn (findings/proxy.py); a summary without its kind says "the proxy"
        kind, limit = _figure(f, "proxy_kind"), _figure(f, "proxy_limit")
        named = f"{kind}'s" if isinstance(kind, str) and kind else "the proxy's"
        return f"{named[0].upper()}{named[1:]} maxconn" + (f" {limit:g}" if isinstance(limit, float) else ""), True
    return LIMITERS.get(f.resource or "", NOT_MEASURED)


def _waiting(curve: Curve, bottleneck: Finding | None, waiting: Finding | None) -> str | None:
    """Where the rest wait, at the heaviest cell that says: "at N = 100, 90 requests wait in front of the server"
    (the waiting finding, from the server's own figures), or with only the laws, "at N = 16 the other 12 wait
    where no figure shows" (the concurrency bottleneck's X·(R − D)); None when neither says."""
    if waiting is not None:
        # the load of the cell the figure comes from, as the curve names it (N, or the offered λ of an open cell);
        # `users` only in findings of an older littlegrid, which had no `load`
        n = _value(waiting, "waiting_in_front")
        at = _figure(waiting, "load") if _figure(waiting, "load") is not None else _value(waiting, "users")
        said = precision.count(n, None, None)  # no interval: two significant figures (findings/bottleneck.py, waiting.py)
        boundary, queue = _figure(waiting, "boundary"), _figure(waiting, "queue")
        where = (f"in {queue}" if isinstance(queue, str)  # a proxy's own queue (findings/proxy.py)
                 else f"outside {boundary}" if isinstance(boundary, str) and boundary != "the server"
                 else "in front of the server")
        one = said == "about 1"
        likely = "likely " if waiting.standing == "suggests" else ""  # the finding's hedge kept
        return (f"at {load_words(curve, at)}, {said} request{'' if one else 's'} {likely}"
                f"{'waits' if one else 'wait'} {where}")
    if bottleneck is not None and bottleneck.resource == "concurrency":
        n, at = _figure(bottleneck, "waiting"), _figure(bottleneck, "waiting_at")
        if isinstance(n, float) and isinstance(at, float):  # D an upper bound makes X·(R − D) a lower one
            least = "at least " if _figure(bottleneck, "upper_bound") else ""
            return (f"at {load_words(curve, at)} {least}the other {precision.significant(n, 2)} wait where no figure "
                    "shows (in front or inside)")
    return None


def _capped(curve: Curve, sat: Finding, bottleneck: Finding | None, waiting: Finding | None = None) -> str:
    """"With threads.max = 10, 10 Tomcat threads cap throughput at c/S = 100/s (98.7/s measured); at N = 100, 90
    requests wait in front of the server": the limit, its rate, and where the rest wait; without a figure of where,
    R past the level by the closed law with the curve's own Z (an open curve has no N/X: past capacity its queue
    grows for as long as the load lasts)."""
    level, bound = _value(sat, "throughput_per_s"), _figure(sat, "bound_per_s")
    from_grid = _figure(sat, "bound_basis") in (None, "grid")  # an older summary's bound: said as it was
    who, one = _limiter(bottleneck)
    verb = "caps" if one else "cap"
    # the finding's hedge kept: a saturation or bottleneck that only suggests is said as likely
    if any(f is not None and f.standing == "suggests" for f in (sat, bottleneck)):
        verb = f"likely {verb}"
    pool = bottleneck is not None and bottleneck.resource == "thread_pool"
    cap = (f"{'c/S = ' if pool else ''}{rate(bound)} ({rate(level)} measured)" if bound and from_grid
           else rate(level))
    text = (f"With {curve.label}, {who[0].lower() + who[1:] if not who[0].isdigit() else who}" if curve.fixed
            else who) + f" {verb} throughput at {cap}"
    where = _said(_waiting, curve, bottleneck, waiting)
    if where:
        return text + f"; {where}"
    if curve.workload == "open":
        return text + "; past it the queue grows for as long as the load lasts"
    if _figure(sat, "successes_only"):  # the closed law's X counts the failures too: R = N/X − Z is not of the level
        return text + "; past it the other requests failed (the level counts the successes)"
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
    """"Arms threads.max = 10 against 100: choose threads.max = 100: at N = 100 it gives about 9.9× the throughput
    (9.1× to 10.7×)" when X decides the choice; else X's verdict in the finding's own words with its change at the
    interval's precision, then the finding's choice. None for an arms finding that is not a group's (a crossed one
    names no arms, or one without a verdict: it says nothing the headline could shorten)."""
    arms, said = _figure(f, "arms"), _figure(f, "verdict")
    if not arms or not said:
        return None
    rel, lo, hi = (num(_figure(f, k)) for k in ("rel", "rel_lo", "rel_hi"))
    at = _figure(f, "at")  # "N = 8" or "λ = 100/s": the load of the heaviest pair, as the finding names it
    chosen, choice = _figure(f, "chosen"), str(_figure(f, "choice") or "")
    known = None not in (rel, lo, hi)
    run = " (within this run)" if known else ""  # each arm its own server start: the interval is this run's
    # the throughput ratio only when throughput decided the choice (shown higher beyond the margin's reach); a
    # choice on p99 or time in service is said in the finding's words, never as "it gives 1.02× the throughput"
    if chosen and known and _figure(f, "chosen_on") == "throughput" and (lo > 0 or hi < 0):
        ratio = precision.ratio(*precision.higher_over_lower(rel, lo, hi), "the throughput")
        return f"Arms {arms}{run}: choose {chosen}: {f'at {at} ' if at else ''}it gives {ratio}."
    interval = f" ({precision.ratio(rel, lo, hi)})" if known else ""
    return (f"Arms {arms}{run}: {f'at {at} ' if at else ''}throughput is {said}{interval}"
            + (f"; {choice[0].lower()}{choice[1:]}" if choice else "."))


def _doubt(found: list[Finding], answered: set = frozenset()) -> tuple[str, list[int]] | None:
    """The first finding that changes the answer, said as its first sentence: an outage, or a cell not to trust
    ("Do not trust"), with how many more on trust follow; None without one. "Read with care" notes qualify the
    answer without changing it: they stay in the findings. `answered`: cells whose failures are the answer (a
    connection limit the headline leads with): their "failed" validity is no doubt about it."""
    worst = [i for i, f in enumerate(found) if f.kind == "outage"
             or (f.kind == "validity" and _figure(f, "grade") == "Do not trust"
                 and not (_figure(f, "reason") == "errors" and f.cells and set(f.cells) <= answered))]
    if not worst:
        return None
    first = found[worst[0]].statement.split(". ")[0].rstrip(".")
    more = len(worst) - 1
    return first + (f"; {more} more finding{'s' if more > 1 else ''} not to trust below" if more else "") + ".", \
        worst[:1]


def _connections(summary: Summary, f: Finding) -> str:
    """"The server takes at most 30 connections at once (max-connections + accept-count = 20 + 10): at N = 40, 10
    of 40 requests (25%) failed to connect or were dropped; at N = 120, 68 of 120 (57%)": the limit the failures
    measured, then the share refused per cell (its evidence), "likely" when the finding only suggests."""
    shares = {}
    for e in f.evidence:
        if e.cell is not None and num(e.value) is not None:
            shares.setdefault(e.cell, {})[e.name] = e.value
    rows = [(cell, v["connection errors"], v["requests"]) for cell, v in shares.items()
            if v.get("requests") and "connection errors" in v]
    if not rows:
        raise _Missing("requests")
    n_of = {c.id: users(c) for c in summary.cells}
    parts = [f"at {f'N = {n_of[cell]:g}' if n_of.get(cell) is not None else cell}, {failed:,.0f} of {total:,.0f}"
             + (" requests" if k == 0 else "") + f" ({failed / total:.0%})"
             + (" failed to connect or were dropped" if k == 0 else "") for k, (cell, failed, total) in enumerate(rows)]
    limit, mc, ac = (_figure(f, k) for k in ("connection_limit", "max_connections", "accept_count"))
    likely = " likely" if f.standing == "suggests" else ""
    if isinstance(limit, float):
        parts_text = "; ".join(parts)
        return (f"The server{likely} takes at most {limit:g} connections at once (max-connections + accept-count = "
                f"{mc:g} + {ac:g}): {parts_text}.")
    return f"Connections are{likely} the limit: " + "; ".join(parts) + "."


def _waves(f: Finding) -> str:
    """"Below it the server serves about 10 at a time: at N = 40, 4 waves of S ≈ 2000 ms" (a waves finding)."""
    size, waves, s, n = (_value(f, k) for k in ("wave_size", "waves", "service_ms", "users"))
    return f"Below it the server serves about {size:g} at a time: at N = {n:g}, {waves:g} waves of S ≈ {ms(s)}."


def _checks(summary: Summary) -> str:
    """Whether the figures passed their checks, when nothing else has a place in the headline."""
    checks = [k for c in summary.cells for k in c.checks if k.passed is not None] + \
        [k for k in summary.checks if k.passed is not None]
    if not checks:
        return "No check of the queueing laws could be made, so how far to trust these figures is not known."
    failed = [k for k in checks if k.passed is False]
    if not failed:
        return (f"The test can be trusted: every cell passed its {len(checks)} checks of the queueing laws and the "
                f"load asked for.")
    overloaded = {o.cell for k in summary.curves for o in k.overload if o.resource is not None}
    consequence = [k for k in failed if k.cell in overloaded and k.name in OVERLOAD_CONSEQUENCES]
    names = ", ".join(dict.fromkeys(k.name for k in failed))
    return (f"No finding puts the figures in doubt, but {len(failed)} of {len(checks)} checks failed ({names})"
            + (f", {len(consequence)} of them the overload's own consequence" if consequence else "")
            + ": read them below.")


def grid(summary: Summary, found: list[Finding]) -> tuple[list[str], list[int]]:
    """The main answer, then the one sentence that changes or completes it (the module's docstring)."""
    answer, used = None, []
    saturated, others = [], []
    for curve in summary.curves:
        sat = _first(found, "saturation", curve.key, having="throughput_per_s")
        if sat is not None:
            saturated.append((curve, sat, _first(found, "bottleneck", curve.key),
                              _first(found, "waiting", curve.key, having="waiting_in_front")))
        else:
            others.append(curve)
    if saturated:
        curve, sat, bottleneck, waiting = saturated[0]
        capped = _said(_capped, curve, *(found[i] if i is not None else None for i in (sat, bottleneck, waiting)))
        if capped:
            answer = capped + "."
            used += [i for i in (sat, bottleneck, waiting) if i is not None]
    doubt = _doubt(found)
    arms = _first(found, "arms", having="arms")  # a crossed finding (two groups' arms) names no arms of its own
    arms_words = _said(_arms, found[arms]) if arms is not None else None
    rest = [_said(_capped, c, found[s], found[b] if b is not None else None) for c, s, b, _ in saturated[1:2]]
    told = [(c, t) for c in others[:2] if (t := _said(_other, c, found))]
    rest = [t for t in rest + [t for _, t in told] if t]
    scaling = [i for c, _ in told if (i := _first(found, "scaling", c.key)) is not None]
    refused = next((i for i, f in enumerate(found) if f.kind == "bottleneck" and f.resource == "connections"
                    and f.standing != "cannot tell"), None)
    limit = _said(_connections, summary, found[refused]) if answer is None and refused is not None else None
    if limit:  # nothing saturated, and the failures measured a limit (a spike past its connections): it leads
        answer, used = limit, used + [refused]
        # the cells whose requests it refused are not "not to trust": their failures are the answer
        doubt = _doubt(found, set(found[refused].cells))
        waves = _first(found, "waiting", having="wave_size")
        told_waves = _said(_waves, found[waves]) if waves is not None else None
        if doubt is None and told_waves:
            rest, scaling = [told_waves.rstrip(".")], [waves]
    elif answer is None:  # nothing saturated: what the curves do is the answer
        answer = "; ".join(rest) + "." if rest else "No curve saturated or grew over the load measured: see the " \
            "cells below."
        used += scaling
        rest = []
    if doubt is not None:
        second, used = doubt[0], used + doubt[1]
    elif arms_words:  # a grid with two arms exists to compare them
        second, used = arms_words, used + [arms]
    elif rest:
        second, used = "; ".join(rest) + ".", used + scaling
    else:
        second = _checks(summary)
    return [answer, second], used


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
    """What the test ran at, then its failures (with an outage's share and where most are), else a reason not to
    trust it; with none failed, that none did, with the first event of the test (an outage, a stall, a shift or
    burst) in the same sentence."""
    sentences, used = [], []
    tp, slow = _first(found, "throughput"), _first(found, "slowest")
    ran = _said(_ran, found[tp]) if tp is not None else None
    if ran:
        slowest = _said(_slowest, found[slow]) if slow is not None else None
        sentences.append(ran + (f"; {slowest}" if slowest else "") + ".")
        used += [tp] + ([slow] if slowest else [])
    err = _first(found, "errors")
    failed = _said(_failed, found[err]) if err is not None else None
    doubt = next((i for i, f in enumerate(found) if f.kind == "validity" and _figure(f, "grade") == "Do not trust"),
                 None)
    events = [i for i in (_first(found, "outage"), _first(found, "stall"), _first(found, "latency_shift"),
                          _first(found, "error_burst")) if i is not None]
    if failed:
        sentences.append(failed)
        used.append(err)
    elif doubt is not None:
        sentences.append(found[doubt].statement.split(". ")[0].rstrip(".") + ".")
        used.append(doubt)
    elif tp is not None or events:  # the errors finding counts every sample of the file: none failed
        event = None
        if events:
            f = found[events[0]]
            event = f.statement.split(". ")[0].rstrip(".") if f.kind in ("outage", "stall") \
                else f.statement.split(": ")[0]
            used.append(events[0])
        sentences.append("No request failed" + (f"; {event[0].lower() + event[1:]}" if event else "") + ".")
    return sentences[:2], used


def headline(summary: Summary, found: list[Finding], single_test: bool) -> dict | None:
    """{"sentences", "findings"} for the summary (None when there are no findings to compose it from)."""
    if not found:
        return None
    sentences, used = single(found) if single_test else grid(summary, found)
    return {"sentences": sentences, "findings": sorted(set(used))}
