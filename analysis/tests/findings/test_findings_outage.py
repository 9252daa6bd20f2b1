"""The outage finding (findings/outage.py): in words, with when, how long and what failed, from the
real JTL of a cell whose sample server was SIGKILLed, and from a constructed hang that recovered."""

from pathlib import Path

import littlegrid.analyze
from analysis_synthetic import T0, table, write_jtl
from littlegrid.findings import findings

KILLED = Path(__file__).parents[1] / "analysis" / "fixtures" / "killed-server.jtl"


def test_a_killed_server_is_said_as_an_outage_in_words():
    found = findings(littlegrid.analyze.analyze([KILLED]))
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
    summary = littlegrid.analyze.analyze([write_jtl(table(rows, 1), tmp_path / "hang.jtl")])
    first = next(f for f in findings(summary) if f.kind == "outage")
    assert first.statement.startswith("The server stopped answering 9.96 s into cell hang.jtl: no request completed, "
                                      "for 6.05 s, then requests were answered again;")
    assert "its figures are those of the part before it" in first.statement


def test_the_outage_is_not_said_again_as_a_cell_without_figures():
    # its figures are the part before the outage: validity has no "no figures" finding to add about it
    found = findings(littlegrid.analyze.analyze([KILLED]))
    assert not [f for f in found if f.kind == "validity" and "outage" in f.statement]
