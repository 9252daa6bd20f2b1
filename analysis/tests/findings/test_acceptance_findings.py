"""Each classic grid, run against the sample server (or, for throttling-haproxy, against the PostgreSQL and haproxy it
starts), shows the findings its grid file expects (`expect`).

About 30 minutes of load for all seven: run one at a time, under the load lock, e.g.
    flock "$LOAD_LOCK" target/venv/bin/python -m pytest -m acceptance \
        tests/analysis/test_acceptance_findings.py -k littles-law
What host load cannot change is asserted (the expectations, which state levels and resources); the figures
are printed by `littlegrid explain` for the record.
"""

from pathlib import Path

import pytest

from littlegrid.summarize import analyze
from littlegrid.render.words import text
from littlegrid.run.jmeter import repo_root

pytestmark = pytest.mark.acceptance
GRIDS = repo_root(Path(__file__).parent) / "grids"
CLASSIC = ["littles-law", "throttling", "throttling-haproxy", "connection-limits", "think-time", "thread-pool-proxy",
           "thread-pool-transform"]
PARTS = ("/usr/sbin/haproxy", "/usr/lib/postgresql/15/bin/postgres", "/usr/bin/prometheus-postgres-exporter")


@pytest.mark.parametrize("name", CLASSIC)
def test_the_classic_grid_shows_the_findings_it_expects(runnable, tmp_path, name):
    from littlegrid.run.runner import run_grid
    from needs import missing
    for program in PARTS if name == "throttling-haproxy" else ():
        if not Path(program).is_file():
            missing(Path(program).name, f"{program} not found (.ci/run installs it)")
    run = run_grid(GRIDS / f"{name}.toml", out=tmp_path, run_id=name)
    summary = analyze([run])
    print(text(summary.findings))  # the record: what `littlegrid explain` prints
    missed = [e for e in summary.expectations if e.passed is not True]
    assert summary.expectations and not missed, missed
    if name == "littles-law":  # the textbook figure: 10 threads of 100 ms serve 100/s
        bottleneck = next(f for f in summary.findings if f.kind == "bottleneck")
        assert bottleneck.where == {"server.tomcat.threads.max": 10}
        assert bottleneck.figures["throughput_per_s"] == pytest.approx(100.0, rel=0.05)
    if name == "throttling-haproxy":  # the seed's point, in haproxy's own figures: the throttled arm's queue
        waiting = next(f for f in summary.findings if f.kind == "waiting" and f.resource == "proxy")
        assert waiting.where.get("port") == 15433 and "haproxy's queue" in waiting.statement
        assert "requests wait in haproxy's queue" in waiting.statement and "in service behind it take" in waiting.statement
        assert "PostgreSQL counts" in waiting.statement  # the database's own count of queries in service
        figures = dict(waiting.figures)
        assert figures["waiting_in_front"] > 1 and figures["wait_in_front_ms"] > figures["in_service_ms"]
