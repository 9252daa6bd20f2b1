"""Two arms are equal only by an equivalence test: the interval of X's relative change wholly inside a stated margin
(two one-sided tests). Rows built here as the comparison stage builds them (a Delta with its interval given, its
verdict by bootstrap.verdict), then read by every reader: the arms finding, the headline, the expectations and the
compare page."""

import pytest

from littlegrid.comparison import bootstrap, deltas
from littlegrid.comparison.bootstrap import Delta
from littlegrid.findings import headline
from littlegrid.findings.expect import evaluate
from littlegrid.findings.two_arms import Arms
from typed_cells import cell as typed_cell
from typed_cells import summary as typed_summary

K = "littlegrid.throttle.max-concurrent"


def cells(users: int = 8) -> tuple:
    """The pair as the arms see them (the arm axis dropped), and as the run holds them (with it)."""
    def one(k: int, axes: dict):
        return typed_cell({"id": f"{K}={k},users={users}", "axes": axes, "users": {"n": users},
                           "intended": {"think_ms": 0.0, "workload": "closed"}})
    return (one(0, {"users": users}), one(1, {"users": users}),
            one(0, {K: 0, "users": users}), one(1, {K: 1, "users": users}))


def row(lo: float, hi: float, rel: float, margin: float, a_cell, b_cell) -> dict:
    d = Delta(100.0, 100.0 * (1 + rel), rel, lo, hi)
    x = {"key": "throughput_per_s", "name": "X", "higher_is_better": True, **d.as_dict(), "margin": margin,
         "verdict": bootstrap.verdict(d, True, margin)}
    return {"id": a_cell.id, "a": a_cell, "b": b_cell, "metrics": [x]}


def arms_said(lo, hi, rel, margin=None, expect=()):
    """(the arms finding, the headline's text, the summary, the finding as summary.json holds it)."""
    a, b, run_a, run_b = cells()
    kwargs = {} if margin is None else {"margin": margin}
    rows = [row(lo, hi, rel, margin or 0.05, a, b)]
    found = Arms(K, "0", "1", rows, **kwargs).in_words()
    s = typed_summary([run_a, run_b], run={"arms": f"{K}=0,1", "expect": list(expect)},
                      axes={K: [0, 1], "users": [8]})
    return found[0], " ".join(headline(s, found)["sentences"]), s, [f.as_dict() for f in found]


def test_an_interval_from_minus_17_to_plus_0_2_percent_is_never_called_equal():
    """The throttling runs: the throttled arm 9% lower, its interval reaching +0.2%. Not shown different, and not
    equivalent either: no reader may call it equal, same or equivalent."""
    finding, head, s, found = arms_said(-0.17, 0.002, -0.09)
    assert finding.resource == "not_shown_different"
    said = "at N = 8 throughput is not shown different, nor equivalent within ±5%: 100/s against 91/s"
    assert said in finding.statement and "(-9.0%, 95% interval -17.0% to +0.2%)" in finding.statement
    assert "Neither arm can be chosen on throughput" in finding.statement
    # the headline writes the change at the interval's precision, its ends rounded outwards (issue 51)
    assert "throughput is not shown different, nor equivalent within ±5% (about -9% (-17% to +1%))" \
        in head and "neither arm can be chosen" in head
    for text in (finding.statement, head):
        assert "equal" not in text and "same" not in text and "is equivalent" not in text
    got = evaluate(["arms same", "arms same within 10%", "no arms same within 10%", "arms different"], s, found)
    assert [e["passed"] for e in got] == [False, False, True, False], got
    # a margin wide enough to hold the interval would pass, and the grid would have to state it
    assert evaluate(["arms same within 20%"], s, found)[0]["passed"] is True


def test_an_interval_within_3_percent_with_a_5_percent_margin_is_equivalent_with_the_margin_printed():
    finding, head, s, found = arms_said(-0.03, 0.03, 0.0, margin=0.05, expect=["arms same within 5%"])
    assert finding.resource == "equivalent" and dict(finding.figures)["margin"] == 0.05
    assert "at N = 8 throughput is equivalent within ±5%: 100/s against 100/s" in finding.statement
    assert "throughput is equivalent within ±5% (about +0% (-3% to +3%))" in head
    got = evaluate(["arms same within 5%", "arms same", "arms same within 2%", "arms different"], s, found)
    assert [e["passed"] for e in got] == [True, True, False, False], got


def test_an_interval_from_minus_1_to_plus_4_percent_with_a_3_percent_margin_is_not_shown_different():
    finding, head, s, found = arms_said(-0.01, 0.04, 0.015, margin=0.03)
    assert finding.resource == "not_shown_different"
    assert "throughput is not shown different, nor equivalent within ±3%" in finding.statement
    assert "throughput is not shown different, nor equivalent within ±3%" in head
    assert [e["passed"] for e in evaluate(["arms same within 3%", "arms different"], s, found)] == [False, False]


def test_an_interval_from_plus_1_to_plus_2_percent_with_a_3_percent_margin_is_a_difference_smaller_than_it():
    finding, head, s, found = arms_said(0.01, 0.02, 0.015, margin=0.03)
    assert finding.resource == "different_within_margin"
    said = f"throughput is different ({K} = 1 higher), but by less than the ±3% margin"
    assert said in finding.statement and said in head
    # both tests pass: shown different, and shown inside the margin
    assert [e["passed"] for e in evaluate(["arms same within 3%", "arms different"], s, found)] == [True, True]
    # inside the margin the throughput counts as equal: the choice falls to the next figures, not to 1.5% more X
    assert "Either arm: throughput equivalent within ±3% and nothing else measured separates them" in finding.statement


def test_the_headline_never_prints_a_missing_value_when_the_first_arms_finding_is_a_crossed_one():
    """A crossed finding (arm A of one group reaching arm B of another) names no arms and no choice: the headline
    takes the first group's finding, and prints no None when there is none."""
    from littlegrid.findings.base import Finding, fields
    a, b, run_a, run_b = cells()
    crossed = Finding("arms", "With mode = non-blocking, K = 0 reaches the throughput that blocking needs K = 1 "
                      "for: equivalent within ±5% at N = 8.", "holds", "why", (),
                      fields({"users": 8, "rel": 0.0, "rel_lo": -0.01, "rel_hi": 0.01, "margin": 0.05}), (),
                      (run_a.id, run_b.id), "equivalent")
    s = typed_summary([run_a, run_b], run={"arms": f"{K}=0,1"}, axes={K: [0, 1], "users": [8]})
    text = " ".join(headline(s, [crossed])["sentences"])
    assert "None" not in text and "Arms" not in text
    group = Arms(K, "0", "1", [row(-0.03, 0.03, 0.0, 0.05, a, b)]).in_words()
    text = " ".join(headline(s, [crossed] + group)["sentences"])
    assert "None" not in text and f"Arms {K} = 0 against 1 (within this run): at N = 8 throughput is equivalent within ±5%" in text


def test_the_compare_page_words_an_interval_that_includes_zero_as_not_shown_different(tmp_path):
    from littlegrid.render import compare as page
    from littlegrid.summary import plain
    from littlegrid.summary.comparison import Comparison
    a, b, run_a, run_b = cells()
    rows = [row(-0.17, 0.002, -0.09, 0.05, a, b)]
    found = [f.as_dict() for f in Arms(K, "0", "1", rows).in_words()]
    verdict = rows[0]["metrics"][0]["verdict"]
    result = Comparison.model_validate(plain({
        "rows": [rows[0] | {"a": a.id, "b": b.id, "verdict": deltas.UNDECIDED, "error_rate": [None, None],
                            "note": ""}],
        "counts": {v: int(v == deltas.UNDECIDED) for v in deltas.CELL_VERDICTS}, "only_a": [], "only_b": [],
        "findings": found, "interval_words": "", "margin": 0.05, "margin_text": "±5%",
        "verdict_words": deltas.verdict_words(0.05), "cell_words": deltas.cell_words(0.05), "metric_names": ["X"]}))
    sa = typed_summary([a], run={"id": "A"})
    sb = typed_summary([b], run={"id": "B"})
    html = page.draw(result, sa, sb, tmp_path, generated="x").read_text()
    assert verdict == "not_shown_different"
    assert 'class="num not_shown_different" title="not shown different"' in html
    assert "<td class=\"undecided\">undecided (neither shown beyond ±5% nor inside it)</td>" in html
    assert "equal within" not in html and "no significant difference" not in html


def p99_row(lo: float, hi: float, p99_a: float, p99_b: float, a_cell, b_cell, margin: float = 0.05) -> dict:
    """row() with a p99 metric shown lower in the arm whose p99 is lower (its interval excludes zero)."""
    r = row(lo, hi, (lo + hi) / 2, margin, a_cell, b_cell)
    rel = p99_b / p99_a - 1
    d = Delta(p99_a, p99_b, rel, rel - 0.05, rel + 0.05)
    p99 = {"key": "p99_ms", "name": "p99", "higher_is_better": False, **d.as_dict(), "margin": margin,
           "verdict": bootstrap.verdict(d, False, margin)}
    return r | {"metrics": [*r["metrics"], p99]}


def test_throughput_better_by_less_than_the_margin_never_makes_the_headline_choose_the_lower_arm_on_throughput():
    """B's throughput +2% (+1% to +3%): different, but by less than the ±5% margin; A's p99 30% lower. The finding
    may choose A on its p99, and says so; the headline never words that as "A gives 1.02× the throughput", nor
    chooses B on throughput: within the margin throughput decides nothing."""
    a, b, run_a, run_b = cells()
    rows = [p99_row(0.01, 0.03, 100.0, 143.0, a, b)]
    (finding,) = Arms(K, "0", "1", rows).in_words()
    figures = dict(finding.figures)
    assert finding.resource == "different_within_margin" and figures["chosen"] == f"{K} = 0"
    assert figures["chosen_on"] == "p99" and "with a lower p99 (100 ms against 143 ms)" in finding.statement
    s = typed_summary([run_a, run_b], run={"arms": f"{K}=0,1"}, axes={K: [0, 1], "users": [8]})
    head = " ".join(headline(s, [finding])["sentences"])
    assert "the throughput" not in head and "gives" not in head, head
    assert f"choose {K} = 0: throughput equivalent within ±5% with a lower p99" in head
    assert "(within this run)" in head and "but by less than the ±5% margin" in head
    # the same with B's p99 lower: B is chosen, on its p99, and still not "on throughput"
    (other,) = Arms(K, "0", "1", [p99_row(0.01, 0.03, 143.0, 100.0, a, b)]).in_words()
    head = " ".join(headline(s, [other])["sentences"])
    assert dict(other.figures)["chosen_on"] == "p99" and "gives" not in head and "lower p99" in head
    # shown higher beyond the margin: throughput decides, as a ratio
    (beyond,) = Arms(K, "0", "1", [p99_row(0.08, 0.12, 100.0, 143.0, a, b)]).in_words()
    head = " ".join(headline(s, [beyond])["sentences"])
    assert dict(beyond.figures)["chosen_on"] == "throughput"
    assert f"choose {K} = 1: at N = 8 it gives about +10% on the throughput" in head, head


def test_an_arm_is_never_chosen_on_the_generators_load_average_when_the_server_ran_elsewhere():
    """Throughput and p99 alike, the load averages 3 against 9: on the generator's host that says nothing of a
    server elsewhere, so no arm is chosen on it (on this host it would be)."""
    from typed_cells import update

    def placed(c, load1, here):
        cpu = {"basis": "host_shared" if here else "not_measured", "host": "this host" if here else None,
               "cores": 2.0 if here else None, "util": 0.5 if here else None, "shared_with_generator": here,
               "words": "the host's 2 cores, which JMeter shares" if here else "not measured"}
        return update(c, host={"load1_mean": load1}, server_cpu=cpu)

    for here, chosen in ((True, f"{K} = 0"), (False, None)):
        a, b, _, _ = cells()
        a, b = placed(a, 3.0, here), placed(b, 9.0, here)
        (finding,) = Arms(K, "0", "1", [row(-0.02, 0.02, 0.0, 0.05, a, b)]).in_words()
        assert dict(finding.figures)["chosen"] == chosen, finding.statement
        if not here:
            assert "Either arm" in finding.statement and "the generator host's load average, 3 against 9" in \
                finding.statement and "the server ran elsewhere" in finding.why
