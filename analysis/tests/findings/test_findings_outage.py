"""The outage finding (findings/outage.py): in words, with when, how long and what failed, from the
real JTL of a cell whose sample server was SIGKILLed, and from a constructed hang that recovered."""

from pathlib import Path

import numpy as np

import littlegrid.summarize
from analysis_synthetic import REFUSED, T0, outcome_loop, table, write_jtl
from littlegrid.findings import findings

KILLED = Path(__file__).parents[1] / "analysis" / "fixtures" / "killed-server.jtl"


def test_a_killed_server_is_said_as_an_outage_in_words():
    found = findings(littlegrid.summarize.analyze([KILLED]))
    first = next(f for f in found if f.kind == "outage")
    assert first.standing == "holds" and first.cells == ("killed-server.jtl",)
    assert first.statement == (
        "The server stopped answering 7.86 s into cell killed-server.jtl: every request from then on was refused "
        "(connection refused): 1,075 samples at 95.2/s (1,070 connection_refused, 5 connection_reset), until the "
        "cell ended, 11.3 s later; its figures are those of the part before it, and the cell is left out of the "
        "curves.")
    assert dict(first.figures) == {"began_s": 7.861, "lasted_s": 11.291, "failed": 1075.0,
                                   "error_class": "connection_refused"}
    assert "--resume" in first.recommendation
    assert [f.kind for f in found].count("outage") == 1


def test_a_hang_that_recovered_says_no_request_completed_and_for_how_long(tmp_path):
    # one thread, 20 ms requests every 70 ms; the one started at 10.01 s hangs 6 s: no answer from 9.96 s (the last
    # request before it ended) to 16.01 s
    rows, t = [], T0
    while t < T0 + 30_000:
        elapsed = 6_000 if T0 + 10_000 <= t < T0 + 10_070 else 20
        rows.append((t, elapsed, "Thread Group 1-1"))
        t += elapsed + 50
    summary = littlegrid.summarize.analyze([write_jtl(table(rows, 1), tmp_path / "hang.jtl")])
    first = next(f for f in findings(summary) if f.kind == "outage")
    assert first.statement.startswith("The server stopped answering 9.96 s into cell hang.jtl: no request completed, "
                                      "for 6.05 s, then requests were answered again;")
    assert "its figures are those of the part before it" in first.statement


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
    errors = next(f for f in found if f.kind == "errors")  # the window's own refusal is still counted, as it is
    assert errors.statement.startswith("1 of 717 requests failed")


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
