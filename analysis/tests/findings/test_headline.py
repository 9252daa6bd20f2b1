"""The headline says the answer in at most three sentences, from the findings' own figures; a JTL from anywhere gets
what a test shows and no advice about cells or closed-law tolerances."""

import pytest

from littlegrid.summarize import analyze
from littlegrid.findings import findings, headline
from test_findings import THREADS, cell, littles_law, summary_of


def test_the_littles_law_headline_names_the_ten_thread_pool_its_cap_and_the_other_arm():
    s = littles_law()
    found = findings(s)
    head = headline(s, found)
    assert 1 <= len(head["sentences"]) <= 3
    first = head["sentences"][0]
    assert first.startswith(f"With {THREADS} = 10, 10 Tomcat threads cap throughput at c/S = 100/s")
    # past c/S, R = N/X − Z with this curve's Z = 0 and X its measured level
    level = next(dict(f.figures)["throughput_per_s"] for f in found if f.kind == "saturation")
    assert first.endswith(f"measured); past it response time grows as R = N/X − Z = N/{level:.3g} s (Z = 0).")
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
def test_a_jtl_from_anywhere_gets_what_a_test_shows_and_no_cell_advice(name, corpus):
    s = analyze([corpus / name])
    kinds = [f.kind for f in s.findings]
    assert kinds[0] == "throughput" and "slowest" in kinds
    text = " ".join(f.statement + " " + (f.recommendation or "") for f in s.findings)
    for advice in ("Next cells", "closed-law tolerance", "Run N =", "window is too short", "Limit concurrency"):
        assert advice not in text, advice
    sentences = s.headline.sentences
    assert 1 <= len(sentences) <= 3 and "the slowest is '" in sentences[0]
    if name.startswith("insta"):  # 768 of 2,813 failed, most in one label: the headline says where
        assert "27% of requests failed, most of them in 'HTTP Request 6' (228 of 768)" in sentences[1]
    else:  # the transactions' time rose through the test (Kendall's test on its seconds' medians)
        assert any(f.kind == "latency_shift" for f in s.findings)
