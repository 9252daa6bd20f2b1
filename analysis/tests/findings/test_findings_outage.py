"""The outage finding (findings/outage.py): in words, with when, how long and what failed, from the
real JTL of a cell whose sample server was SIGKILLed, and from a constructed hang that recovered."""

from pathlib import Path

import numpy as np
import pytest

import littlegrid.summarize
from analysis_synthetic import REFUSED, T0, held, outcome_loop, service_loop, table, write_jtl
from littlegrid.findings import findings

KILLED = Path(__file__).parents[1] / "analysis" / "fixtures" / "killed-server.jtl"


def test_a_killed_server_is_said_as_an_outage_in_words():
    found = findings(littlegrid.summarize.analyze([KILLED]))
    first = next(f for f in found if f.kind == "outage")
    assert first.standing == "holds" and first.cells == ("killed-server.jtl",)
    assert first.statement == (
        "The server stopped answering 7.86 s into cell killed-server.jtl and never came back: every request from "
        "then on failed: 1,070 were refused (connection refused) and 5 had their connection dropped (connection "
        "reset), 1,075 samples at 95.2/s, until the cell ended 11.3 s later; its figures are those of the part "
        "before it.")  # the classes not mixed (issue 62: "every request … was refused (…, 5 connection_reset)")
    assert dict(first.figures) == {"began_s": 7.861, "lasted_s": 11.291, "failed": 1075.0,
                                   "error_class": "connection_refused", "recovered": "no"}
    assert "--resume" in first.recommendation
    assert [f.kind for f in found].count("outage") == 1


def test_a_hang_whose_request_was_then_answered_is_a_stall_said_with_what_it_did_to_r(tmp_path):
    # one thread, 20 ms requests every 70 ms; the one started at 10.01 s hangs 6 s and is answered: no answer from
    # 9.96 s (the last request before it ended) to 16.01 s, nothing failed (once said as a recovered outage)
    rows, t = [], T0
    while t < T0 + 30_000:
        elapsed = 6_000 if T0 + 10_000 <= t < T0 + 10_070 else 20
        rows.append((t, elapsed, "Thread Group 1-1"))
        t += elapsed + 50
    summary = littlegrid.summarize.analyze([write_jtl(table(rows, 1), tmp_path / "hang.jtl")])
    found = findings(summary)
    assert "outage" not in [f.kind for f in found]
    (stall,) = [f for f in found if f.kind == "stall"]
    # the thread thought 50 ms after the last answer, so nothing was in flight at the stall's start: its request
    # started while it lasted, and is said so (issue 62: it was "the one request in flight was held")
    assert stall.statement == (
        "In cell hang.jtl, no request was in flight when the answers stopped at 9.96 s, and none came for 6.05 s; "
        "1 request that started while it lasted was answered after it (it took 6000 ms); R's max (6000 ms) holds "
        "it. It took 20% of the 30 s window: nothing completed while it lasted, so the window's X and R describe "
        "the stall as much as the load, and the cell's place on its curve is in question. A stall, not an outage: "
        "nothing failed in it, so the cell keeps its whole window.")
    assert summary.cells[0].status == "complete" and summary.cells[0].window.length_s > 29
    # two sentences at most (issue 51): the stall joins the "no request failed" sentence
    first = stall.statement.split(". ")[0]
    assert summary.headline.sentences[-1] == f"No request failed; {first[0].lower() + first[1:]}."


def test_the_outage_is_not_said_again_as_a_cell_without_figures():
    # its figures are the part before the outage: validity has no "no figures" finding to add about it
    found = findings(littlegrid.summarize.analyze([KILLED]))
    assert not [f for f in found if f.kind == "validity" and "outage" in f.statement]


def _found(tmp_path, samples, name):
    return findings(littlegrid.summarize.analyze([write_jtl(samples, tmp_path / name)], warmup_s=2, cooldown_s=0))


def test_a_dying_server_is_an_outage_not_a_connection_limit_nor_an_error_burst(tmp_path):
    # 5 threads of 20 ms requests; from 12 s on every connection is refused at once. The window ends at the last
    # answer, so it holds the one refusal that came while that answer was in service, and the series bucket the
    # window's end cuts holds the outage's first second (98 refusals)
    found = _found(tmp_path, outcome_loop(5, 30, lambda t: (20, None) if t < 12_000 else (0, REFUSED)), "killed.jtl")
    kinds = [f.kind for f in found]
    assert kinds.count("outage") == 1 and "error_burst" not in kinds, [(f.kind, f.statement) for f in found]
    assert not [f for f in found if f.kind == "bottleneck" and "Connections" in f.statement]
    # the file's errors: the window's own refusal (it came while the last answer was in service) and the outage's
    errors = next(f for f in found if f.kind == "errors")
    assert errors.statement.startswith("1,798 of 2,656 requests failed (68%), 1,797 of them in the 18 s outage at "
                                       "12 s. In the window, they concentrate in 'GET /' (1 of 1 errors")


def test_without_an_outage_refusals_among_answers_are_a_connection_limit_and_a_burst_inside_is_found(tmp_path):
    # the negative controls: 60 users, most connections refused at once, the rest served (no outage), and a 1 s
    # burst of refusals well inside the window of an otherwise healthy cell
    rng = np.random.default_rng(3)
    spike = _found(tmp_path, outcome_loop(60, 20, lambda t: (100, None) if rng.random() < 0.2 else (1, REFUSED),
                                          think_ms=0), "spike.jtl")
    assert "outage" not in [f.kind for f in spike]
    assert [f for f in spike if f.kind == "bottleneck" and f.statement.startswith("Connections are the limit")]
    burst = _found(tmp_path, outcome_loop(5, 30, lambda t: (0, REFUSED) if 15_000 <= t < 16_000 else (20, None)),
                   "burst.jtl")
    assert "outage" not in [f.kind for f in burst]
    said = next(f for f in burst if f.kind == "error_burst")
    assert dict(said.figures)["burst_errors"] == dict(said.figures)["errors"] > 50, said.statement


def test_refusals_among_answers_before_an_outage_are_still_a_connection_limit(tmp_path):
    # 20 threads: a fifth of the connections refused while the server answers the rest, then from 12 s on every
    # one refused. The refusals before the outage (hundreds) are far more than its start explains (about
    # 100/s x 20 ms): the server had a connection limit before it died.
    rng = np.random.default_rng(7)
    found = _found(tmp_path, outcome_loop(20, 30, lambda t: ((20, None) if rng.random() < 0.8 else (0, REFUSED))
                                          if t < 12_000 else (0, REFUSED)), "limited-then-killed.jtl")
    assert [f.kind for f in found].count("outage") == 1
    limit = [f for f in found if f.kind == "bottleneck" and f.statement.startswith("Connections are the limit")]
    assert len(limit) == 1, [(f.kind, f.statement) for f in found]


def test_an_outage_that_left_no_figures_is_not_said_again_by_validity(tmp_path):
    found = _found(tmp_path, outcome_loop(3, 10, lambda t: (0, REFUSED)), "dead.jtl")
    assert [f.kind for f in found] == ["outage"], [(f.kind, f.statement) for f in found]


def _headline(tmp_path, samples, name):
    return littlegrid.summarize.analyze([write_jtl(samples, tmp_path / name)]).headline.sentences


def test_the_killed_servers_headline_counts_the_files_failures_and_never_says_none_failed():
    # issue 49: "No request failed." beside 1,075 refusals, because only the window before the outage was counted
    sentences = littlegrid.summarize.analyze([KILLED]).headline.sentences
    assert "No request failed." not in sentences
    assert sentences[1] == "82% of requests failed (1,075 of 1,316), all of them in the 11.3 s outage at 7.86 s."


def test_ten_seconds_of_refused_connections_are_15_percent_of_the_file_with_the_outage_share_and_recovery(tmp_path):
    # issue 49: 10 threads, S about 100 ms; from 60 s every connection refused at once for 10 s (then 49 ms
    # before the next try), then 50 s of service. Once: "0.88% of requests failed (53 of 53)"
    samples = service_loop(120, lambda t, s: (1, REFUSED, 49) if 60_000 <= t < 70_000 else None)
    summary = littlegrid.summarize.analyze([write_jtl(samples, tmp_path / "refused.jtl")])
    failed, o = int((~samples["success"].astype(bool)).sum()), summary.cells[0].outage
    assert failed / len(samples) == pytest.approx(0.15, abs=0.01)
    assert summary.headline.sentences[1] == (f"15% of requests failed ({failed:,} of {len(samples):,}), "
                                             f"{o.failed:,} of them in the 10 s outage at 60.1 s.")
    said = next(f for f in findings(summary) if f.kind == "outage")
    assert said.statement.startswith("The server stopped answering 60.1 s into cell refused.jtl for 10 s, then "
                                     "answered again: every request in it was refused")
    a = o.after
    after = f"after it ({a.length_s:.3g} s): {a.count:,} requests, X = 100/s, mean R = 100 ms, no error."
    assert after in said.statement
    assert dict(said.figures)["after_throughput_per_s"] == pytest.approx(100, rel=0.02)
    assert len(summary.headline.sentences) == 2  # at most two (issue 51): the outage is told by its share above
    # a burst is what the server did while it answered: the outage's refusals are not one
    assert "error_burst" not in [f.kind for f in findings(summary)]


def test_a_stall_of_10_threads_is_its_own_finding_and_no_failure_is_claimed(tmp_path):
    summary = littlegrid.summarize.analyze([write_jtl(service_loop(300, held(60_000, 62_500)), tmp_path / "stall.jtl")])
    found = findings(summary)
    assert [f.kind for f in found].count("stall") == 1 and "outage" not in [f.kind for f in found]
    stall = next(f for f in found if f.kind == "stall")
    assert stall.statement.startswith("In cell stall.jtl, all 10 requests in flight at its start were held for 2.5 s "
                                      "at 60 s, then answered; R's max includes it (max = 25")
    assert "It took 0.83% of the 300 s window." in stall.statement
    assert stall.statement.endswith("A stall, not an outage: nothing failed in it, so the cell keeps its whole "
                                    "window and its place on its curve.")
    assert summary.headline.sentences[1].startswith("No request failed; in cell stall.jtl, all 10 requests in "
                                                    "flight at its start were held for 2.5 s at 60 s")


def test_held_requests_that_failed_when_released_are_named_not_said_answered():
    """Words follow the figures: of 10 requests held through a 3 s stall, 2 failed when released (their failures
    after its end, so the stretch itself had none and it is a stall); "then answered" would claim all ten."""
    from littlegrid.findings.outage import _held_words
    from littlegrid.summary.model import Stall
    base = {"began_s": 60.0, "lasted_s": 3.0, "shortest_ms": 2990.0, "longest_ms": 3050.0, "in_window": True,
            "rule": "a stall", "joined": 0}
    assert _held_words(Stall(**base, held=10, held_failed=0)) == \
        "all 10 requests in flight at its start were held for 3 s at 60 s, then answered"
    assert _held_words(Stall(**base, held=10, held_failed=2)) == \
        "all 10 requests in flight at its start were held for 3 s at 60 s, then 8 answered and 2 failed"
    assert _held_words(Stall(**base, held=1, held_failed=1)) == \
        "the one request in flight at its start was held for 3 s at 60 s, then it failed"
    joined = _held_words(Stall(**(base | {"joined": 3, "joined_longest_ms": 2400.0}), held=2, held_failed=0))
    assert joined.endswith("; 3 more requests that started while it lasted were answered after it (the longest "
                           "took 2400 ms)")


def test_a_recovered_outage_before_the_death_of_the_server_is_its_own_finding(tmp_path):
    """Every outage of a cell is recorded and said (issue 62: only one was): refused 20-25 s, answered again,
    refused from 60 s on."""
    samples = service_loop(90, lambda t, s: (1, REFUSED, 49) if 20_000 <= t < 25_000 or t >= 60_000 else None)
    summary = littlegrid.summarize.analyze([write_jtl(samples, tmp_path / "twice.jtl")], warmup_s=2, cooldown_s=0)
    found = [f for f in findings(summary) if f.kind == "outage"]
    assert len(found) == 2
    first, death = sorted(found, key=lambda f: dict(f.figures)["began_s"])
    assert first.statement.startswith("The server stopped answering 20") and "then answered again: every " \
        "request in it was refused (connection refused)" in first.statement
    assert first.statement.endswith("; its failures stay among the window's errors.")
    assert "never came back" in death.statement and "its figures are those of the part before it" in death.statement


def test_a_stall_taking_a_large_share_of_the_window_questions_the_cells_place_on_its_curve(tmp_path):
    """A 6 s stall in a 30 s cell of 10 threads: nothing completes for a fifth of the window, so X is the stall's as
    much as the load's; a 2.5 s stall in a 300 s cell keeps its place unquestioned."""
    long = littlegrid.summarize.analyze([write_jtl(service_loop(30, held(12_000, 18_000)), tmp_path / "long.jtl")],
                                        warmup_s=2, cooldown_s=0)
    (stall,) = [f for f in findings(long) if f.kind == "stall"]
    share = dict(stall.figures)["window_share"]
    assert 0.2 < share < 0.25
    assert "the window's X and R describe the stall as much as the load" in stall.statement
    assert "its place on its curve" not in stall.statement.split("A stall, not an outage")[1]
