"""The headline says the answer in at most two sentences, from the findings' own figures; a JTL from anywhere gets
what a test shows and no advice about cells or closed-law tolerances."""

import re
from dataclasses import replace

import pytest

from littlegrid.findings import findings, headline
from littlegrid.findings.base import Finding
from littlegrid.findings.headline import headline as compose
from test_findings import THREADS, cell, littles_law, summary_of


def test_the_littles_law_headline_names_the_ten_thread_pool_its_cap_and_the_other_arm():
    s = littles_law()
    found = findings(s)
    head = headline(s, found)
    assert 1 <= len(head["sentences"]) <= 2
    first = head["sentences"][0]
    assert first.startswith(f"With {THREADS} = 10, 10 Tomcat threads cap throughput at c/S = 100/s")
    # the main answer says where the rest wait (issue 51): 100 users, 10 in service, 90 in front of the server
    assert first.endswith("measured); at N = 100, about 90 requests wait in front of the server.")
    # without a figure of where they wait, past c/S R = N/X − Z with this curve's Z = 0 and X its measured level
    level = next(dict(f.figures)["throughput_per_s"] for f in found if f.kind == "saturation")
    blind = compose(s, [f for f in found if f.kind != "waiting"], False)["sentences"][0]
    assert blind.endswith(f"measured); past it response time grows as R = N/X − Z = N/{level:.3g} s (Z = 0).")
    assert head["sentences"][1].startswith(f"With {THREADS} = 100, throughput keeps growing with N, to 983/s at N = 100")
    # the sentences come from the findings the indexes point at
    assert {found[i].kind for i in head["findings"]} >= {"saturation", "bottleneck", "scaling"}


def test_the_trust_sentence_names_the_worst_finding_or_says_every_check_held():
    clean = summary_of([cell(n, n / 0.1, 100.0, threads=100, checks=[("closed_law", True, 0.02)]) for n in (1, 2, 4)])
    assert headline(clean, findings(clean))["sentences"][-1].startswith("The test can be trusted: every cell passed")
    broken = summary_of([cell(n, n / 0.1, 100.0, threads=100, checks=[("closed_law", n != 4, 0.02)])
                         for n in (1, 2, 4)])
    last = headline(broken, findings(broken))["sentences"][-1]
    assert last.startswith("Do not trust N = 4") and "closed law" in last


def test_findings_are_grouped_answer_trust_action_and_know_their_curve():
    s = littles_law()
    found = findings(s)
    order = ["answer", "trust", "action"]
    groups = [f.group for f in found]
    assert groups == sorted(groups, key=order.index)
    sat = next(f for f in found if f.kind == "saturation")
    assert sat.curve == next(k.key for k in s.curves if k.fixed[THREADS] == 10)
    broken = summary_of([cell(n, n / 0.1, 100.0, threads=100, checks=[("closed_law", False, 0.02)]) for n in (1, 2)])
    assert {f.group for f in findings(broken) if f.kind == "validity"} == {"trust"}
    assert all(f.group == "action" for f in found if f.kind == "recommendation")


@pytest.mark.parametrize("name", ["insta-rzd-errors-large.jtl", "perfplugin-filewithtransactions.csv"])
def test_a_jtl_from_anywhere_gets_what_a_test_shows_and_no_cell_advice(name, corpus_summary):
    s = corpus_summary(name)
    kinds = [f.kind for f in s.findings]
    assert kinds[0] == "throughput" and "slowest" in kinds
    text = " ".join(f.statement + " " + (f.recommendation or "") for f in s.findings)
    for advice in ("Next cells", "closed-law tolerance", "Run N =", "window is too short", "Limit concurrency"):
        assert advice not in text, advice
    sentences = s.headline.sentences
    assert 1 <= len(sentences) <= 2 and "the slowest is '" in sentences[0]
    if name.startswith("insta"):  # 768 of 2,813 failed, most in one label: the headline says how many and where
        assert "27% of requests failed (768 of 2,813), most of them in 'HTTP Request 6' (228 of 768)" in sentences[1]
    else:  # the transactions' time rose through the test (Kendall's test on its seconds' medians)
        assert any(f.kind == "latency_shift" for f in s.findings)


def saturating_with_think_time(z_ms=1000.0, threads=4, s_ms=100.0, loads=(10, 20, 80, 160, 320)):
    """A closed grid on paper: c = 4 threads of S = 100 ms (c/S = 40/s), Z = 1 s. X = min(N/(S+Z), c/S); past the
    knee N* = (S+Z)/(S/c) = 44, R = N/X − Z (7 s at N = 320) and all c threads are busy."""
    cells = []
    for n in loads:
        x = min(n / ((s_ms + z_ms) / 1000), threads * 1000 / s_ms)
        r = max(s_ms, 1000 * n / x - z_ms)
        cells.append(cell(n, x, r, threads=threads, z=z_ms, busy=x * s_ms / 1000, r_server=s_ms))
    return summary_of(cells, service_ms=s_ms)


def test_every_sentence_on_rs_growth_uses_the_closed_law_with_its_think_time():
    # Z = 1 s: R = N/X − Z, not N/X (which would say 8 s at N = 320 where R is 7 s)
    s = saturating_with_think_time()
    found = findings(s)
    texts = [f.statement for f in found] + headline(s, found)["sentences"]
    # the headline says R's growth when no figure says where the rest wait (then it says that instead)
    texts += compose(s, [f for f in found if f.kind != "waiting"], False)["sentences"]
    growth = [t for t in texts if re.search(r"N/[\d.]+ s|N/X|grows as", t)]
    assert growth, texts  # the headline's first sentence says it at least
    for t in growth:
        law = re.search(r"R = N/X − Z = N/([\d.]+) s − ([\d.]+) s", t)
        assert law, t
        x, z = map(float, law.groups())
        assert z == 1.0 and x == pytest.approx(40.0, rel=0.01)
        heaviest = s.cells[-1]
        assert 320 / x - z == pytest.approx(heaviest.overall.mean_ms / 1000, rel=0.01)  # 7 s, measured
    # the knee's queue line carries Z too
    knee = [f.statement for f in found if "queue's line" in f.statement]
    assert all("N·D_max − Z" in t for t in knee)


def _missing(found, kind, *names, value=None):
    """The findings with the named figures of every finding of a kind set to value (None: absent)."""
    out = []
    for f in found:
        if f.kind == kind:
            figures = {k: v for k, v in f.figures if k not in names or value is not None}
            figures |= {k: value for k in names} if value is not None else {}
            f = replace(f, figures=tuple(figures.items()))
        out.append(f)
    return out


def test_a_headline_never_prints_a_missing_figure():
    s = saturating_with_think_time()
    found = findings(s)
    nan = float("nan")
    crossed = Finding("arms", "With a, K = 1 reaches what b needs K = 2 for.", "holds", "crossed",
                      figures=(("users", 8.0), ("rel", 0.01)), curve=None)
    arms = Finding("arms", "Arms K = 1 against 2: …", "holds", "group",
                   figures=(("arms", "K = 1 against 2"), ("users", nan), ("rel", nan), ("rel_lo", 0.0),
                            ("rel_hi", 0.02), ("choice", "Choose K = 1.")), resource="same")
    variants = {
        "saturation without its level": _missing(found, "saturation", "throughput_per_s"),
        "saturation with a NaN level and bound": _missing(found, "saturation", "throughput_per_s", "bound_per_s",
                                                          value=nan),
        "bottleneck without its threads": _missing(found, "bottleneck", "threads_max"),
        "a crossed arms finding first": found + [crossed, arms],
    }
    for name, variant in variants.items():
        text = " ".join(headline(s, variant)["sentences"])
        assert not re.search(r"\bNone\b|\bnan\b|\binf\b|no figure", text), (name, text)
    # a scaling curve whose figures are missing: no "at N = None"
    light = summary_of([cell(n, n / 0.1, 100.0, threads=100) for n in (1, 2, 4)])
    lit = findings(light)
    for names in (("users",), ("throughput_per_s", "users", "line_per_s")):
        text = " ".join(headline(light, _missing(lit, "scaling", *names))["sentences"])
        assert not re.search(r"\bNone\b|\bnan\b|no figure", text), text
    # a single JTL: the rate NaN, the slowest label and p90 missing
    tp = Finding("throughput", "52/s", "holds", "x", figures=(("throughput_per_s", nan), ("p90_ms", nan)))
    slow = Finding("slowest", "slow", "holds", "x", figures=(("p90_ms", None),))
    for single in ([tp, slow], [replace(tp, figures=(("throughput_per_s", 52.0),)), slow]):
        text = " ".join(compose(s, single, True)["sentences"])
        assert not re.search(r"\bNone\b|\bnan\b|no figure|''", text), text
    told = compose(s, [replace(tp, figures=(("throughput_per_s", 52.0),)), slow], True)["sentences"][0]
    assert told == "The test ran at 52/s."  # the figures it has, and nothing for those it lacks


@pytest.mark.parametrize("think_ms, words", [(1000.0, "R = N/X − Z = N/40 s − 1 s"),
                                             (250.0, "R = N/X − Z = N/40 s − 0.25 s"),
                                             (0.0, "R = N/X − Z = N/40 s (Z = 0)"),
                                             (None, "R = N/X − Z = N/40 s − Z (Z not known)")])
def test_r_past_the_level_is_written_with_the_curves_think_time_never_as_if_it_were_zero(think_ms, words):
    from littlegrid.findings.base import response_law_words
    assert response_law_words(40.0, think_ms) == words


def test_a_proxys_maxconn_is_named_as_the_cap_and_its_queue_as_where_the_rest_wait():
    # The littles-law summary with its pool's findings told as a proxy's (findings/proxy.py's figures): the
    # headline names the proxy's limit and its queue, never "something not measured"
    s = littles_law()
    found = findings(s)
    saturated = next(f.curve for f in found if f.kind == "saturation")

    def as_proxy(f: Finding, kind: str | None) -> Finding:
        figures = dict(f.figures)
        if f.kind == "bottleneck":
            figures = {"proxy_limit": 3.0} | ({"proxy_kind": kind} if kind else {})
            return replace(f, resource="proxy", figures=tuple(figures.items()))
        if f.kind == "waiting" and "waiting_in_front" in figures:
            figures = {k: v for k, v in figures.items() if k != "boundary"} | {"queue": f"{kind or 'the proxy'}'s queue"}
            return replace(f, resource="proxy", figures=tuple(figures.items()))
        return f

    for kind, who in (("haproxy", "haproxy's maxconn 3"), (None, "the proxy's maxconn 3")):
        told = [as_proxy(f, kind) if f.curve == saturated else f for f in found]
        first = headline(s, told)["sentences"][0]
        assert first.startswith(f"With {THREADS} = 10, {who} caps throughput at "), first
        assert first.endswith(f"at N = 100, about 90 requests wait in {kind or 'the proxy'}'s queue."), first
