"""The headline's rules (issue 51): at most two sentences, the main answer first (the limit, its rate, where the
rest wait); for arms, which to choose as a ratio with its interval at the precision it allows; a validity note
only when it changes the answer; on a service with no scrape, the limit the laws name leads."""

import re

from littlegrid.findings import findings, headline
from littlegrid.findings.base import Finding
from littlegrid.findings.two_arms import Arms
from plateau_cells import closed_curve
from test_arms_equivalence import row
from test_findings import THREADS, littles_law
from test_findings_laws_limit import summary_of
from typed_cells import update, update_cells

CARE = Finding("validity", "Read with care N = 100 with server.tomcat.threads.max = 10: the 23.9 s window is too "
               "short for the 2% closed-law tolerance (the check widened it to 2.5%).", "holds", "window",
               figures=(("grade", "Read with care"),))
DOUBT = Finding("validity", "Do not trust N = 20 with server.tomcat.threads.max = 100: the closed law fails by "
                "12%. It is far beyond the tolerance.", "holds", "closed law", figures=(("grade", "Do not trust"),))


def main_job():
    """The main job's grid: 10 or 100 threads of 100 ms, N = 10, 20, 100; at N = 100 the 100-thread arm serves
    +885.3% (95% interval +812.2% to +967.8%) of the 10-thread arm's throughput."""
    s = littles_law()
    by_id = {c.id: c for c in s.cells}
    a, b = (by_id[f"{THREADS}={t},users=100"] for t in (10, 100))
    a, b = (update(c, axes={"users": 100}) for c in (a, b))  # the arm axis dropped, as the arms see them
    arms = Arms(THREADS, "10", "100", [row(8.122, 9.678, 8.853, 0.05, a, b)]).in_words()
    return s, findings(s) + arms


def test_the_main_jobs_headline_is_two_sentences_the_cap_the_wait_and_the_choice_as_a_ratio():
    s, found = main_job()
    sentences = headline(s, found + [CARE])["sentences"]
    assert len(sentences) == 2
    assert sentences[0] == (f"With {THREADS} = 10, 10 Tomcat threads cap throughput at c/S = 100/s (98.7/s "
                            f"measured); at N = 100, about 90 requests wait in front of the server.")
    assert sentences[1] == (f"Arms {THREADS} = 10 against 100 (within this run): choose {THREADS} = 100: at N = 100 it gives about "
                            f"9.9× the throughput (9.1× to 10.7×).")
    text = " ".join(sentences)
    assert "Read with care" not in text and "window is too short" not in text  # the note stays in the findings
    assert not re.search(r"885|812|967|\d\.\d%", text)  # no figure finer than its interval


def test_a_finding_that_says_not_to_trust_the_figures_takes_the_second_sentence():
    s, found = main_job()
    sentences = headline(s, found + [CARE, DOUBT])["sentences"]
    assert len(sentences) == 2 and sentences[1] == ("Do not trust N = 20 with server.tomcat.threads.max = 100: the "
                                                    "closed law fails by 12%.")


def test_on_a_service_with_no_scrape_the_headline_leads_with_the_limit_not_jmeters_per_cycle_work():
    # gunicorn's shape: 4 workers of 25 ms; at N = 1 the threads thought 0.61 ms though asked for none, a
    # think-time check that JMeter's per-cycle work explains: a "read with care" note, not the answer
    s = summary_of(closed_curve(4, 25.0, 0.0))
    s = update_cells(s, lambda c: update(c, think_time={"mean_ms": 0.61, "gaps": 100, "sequence": {
        "rule": "every sample"}}, checks=[*c.checks, {"name": "think_time", "passed": False, "value": 0.61,
                                                     "expected": 0.0, "rel_error": 1.0, "tolerance": 0.02,
                                                     "explanation": "threads thought 0.61 ms, asked 0"}]), [0])
    found = findings(s)
    assert any(f.kind == "validity" and dict(f.figures).get("grade") == "Read with care" for f in found)
    sentences = headline(s, found)["sentences"]
    assert len(sentences) <= 2
    assert sentences[0].startswith("With think_ms = 0.0, about 4 requests in service at once (a limit of 4: "
                                   "worker threads or processes, connections, or cores) likely cap throughput at 160/s")
    assert "at N = 16 the other 12 wait" in sentences[0]
    assert "0.61" not in " ".join(sentences) and "Read with care" not in " ".join(sentences)


# ---------------------------------------------------------------- issue 62: the headline says no more than its findings

def spike_grid():
    """grids/connection-limits.toml on paper: a spike of N users, one request each, against 10 threads of 2 s
    behind max-connections 20 + accept-count 10 = 30 connections: N = 10 and 20 are all served (in waves of 10);
    at N = 40, 10 of 40 are refused; at N = 120, 90 of 120 (refused, or timed out connecting)."""
    from littlegrid.summary.model import Stats
    from test_findings import cell, summary_of
    knobs = {"server.tomcat.max-connections": 20, "server.tomcat.accept-count": 10}
    cells = []
    for n, refused in ((10, 0), (20, 0), (40, 10), (120, 90)):
        errors = {"connection_refused": refused - refused // 10, "connect_timeout": refused // 10} if refused else None
        c = cell(n, 5.0, 2000.0 * (1 + min(n, 30) // 10) / 2, workload="spike", count=n, errors=errors,
                 extra_axes=knobs)
        # waves of 10 at 2, 4 and 6 s: the CCDF holds every value with its share, as analyze writes it for ≤ 240
        served = min(n, 30)
        xs = [2000.0 * k for k in range(1, served // 10 + 1)] + ([1.0] if refused else [])
        xs = sorted(xs)
        counts = {x: (refused if x == 1.0 else 10) for x in xs}
        p = [sum(counts[v] for v in xs if v >= x) / n for x in xs]
        c = update(c, overall=update(c.overall, successes=served, errors=refused, ccdf={"x_ms": xs, "p": p}))
        cells.append(c)
    return summary_of(cells, service_ms=None)


def test_the_spike_grids_headline_leads_with_the_connection_limit_and_the_share_refused_not_with_distrust():
    s = spike_grid()
    found = findings(s)
    assert any(f.kind == "validity" and dict(f.figures)["grade"] == "Do not trust" for f in found)  # still there
    sentences = headline(s, found)["sentences"]
    assert sentences[0] == ("The server takes at most 30 connections at once (max-connections + accept-count = "
                            "20 + 10): at N = 40, 10 of 40 requests (25%) failed to connect or were dropped; at "
                            "N = 120, 90 of 120 (75%)."), sentences
    assert "Do not trust" not in " ".join(sentences) and "No curve saturated" not in sentences[0]
    assert sentences[1] == "Below it the server serves about 10 at a time: at N = 20, 2 waves of S ≈ 2000 ms."


def test_a_distrust_the_limit_does_not_explain_still_takes_the_second_sentence():
    s = spike_grid()
    sentences = headline(s, findings(s) + [DOUBT])["sentences"]
    assert sentences[0].startswith("The server takes at most 30 connections at once")
    assert sentences[1].startswith("Do not trust N = 20 with server.tomcat.threads.max = 100")


def test_a_bottleneck_that_only_suggests_stays_likely_in_the_headline():
    """Without a busy-thread figure X at c/S only suggests the pool (findings: "probably caps"); the headline keeps
    the hedge: "likely cap", never the bare "cap" it says of a held bottleneck."""
    from test_findings import no_server
    s = no_server(littles_law())
    found = findings(s)
    b = next(f for f in found if f.kind == "bottleneck" and dict(f.where).get(THREADS) == 10)
    assert b.resource == "thread_pool" and b.standing == "suggests"
    first = headline(s, found)["sentences"][0]
    assert first.startswith(f"With {THREADS} = 10, 10 Tomcat threads likely cap throughput at c/S = 100/s"), first
    held = headline(*main_job())["sentences"][0]
    assert "likely" not in held and "10 Tomcat threads cap throughput" in held
