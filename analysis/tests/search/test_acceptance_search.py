"""The capacity search against the sample server: its answer agrees with the queueing law for that system.

Minutes of load (8-12 probes of 20 s, about 5 min): run it alone, under the load lock,
    flock /tmp/littlegrid-load.lock target/venv/bin/python -m pytest -m acceptance tests/search/test_acceptance_search.py -s
"""

import json
import math
from pathlib import Path

import pytest

from littlegrid.jmeter import repo_root

pytestmark = pytest.mark.acceptance
GRIDS = repo_root(Path(__file__).parent) / "grids"


def test_ten_threads_of_100ms_without_think_time_answer_where_the_closed_law_puts_p90_at_300ms(runnable, tmp_path):
    from littlegrid.search_run import search
    folder, doc = search(GRIDS / "search-home.toml", ["p90 < 300ms"], out=tmp_path, run_id="search-home")
    answer, probes = doc["answer"], doc["probes"]
    summary = json.loads((folder / "summary.json").read_text())
    cells = {c["id"]: c for c in summary["cells"]}
    print("\n" + answer["words"])
    assert answer["kind"] == "found"
    assert len(probes) <= 12
    # the probes at the answer and one above straddle the SLO
    at, above = answer["at"], answer["above"]
    assert above["users"] == answer["users"] + 1
    assert at["meets"] and at["figures"][0]["value"] < 300 <= above["figures"][0]["value"]
    # the queueing law with the service time the probes measured: past c = 10 users every request is in the
    # server (Z = 0), X = c/S and R = N·S/c (closed law). S is measured at the lightest probe (R at N = 1).
    light = [p for p in probes if p["users"] == 1 and p["valid"]][0]
    s_ms = light["mean_ms"]
    saturated = [cells[p["cell"]] for p in probes if p["valid"] and p["users"] > 10]
    for c in saturated:  # the law itself holds in every saturated probe
        n = c["users"]["n"]
        assert c["overall"]["mean_ms"] == pytest.approx(n * s_ms / 10, rel=0.08), c["id"]
    # p90/R measured past the knee, then the largest N with (p90/R)·N·S/c < 300 ms
    shape = sum(cells[p["cell"]]["overall"]["p90_ms"] / cells[p["cell"]]["overall"]["mean_ms"]
                for p in probes if p["valid"] and p["users"] > 10) / len(saturated)
    predicted = math.ceil(300 * 10 / (shape * s_ms)) - 1
    print(f"S = {s_ms:.1f} ms, p90/R past the knee = {shape:.3f}: the law predicts N = {predicted}; "
          f"search: {answer['users']} in {len(probes)} probes, {doc['searches'][0]['load_s']:.0f} s of load")
    assert abs(answer["users"] - predicted) <= 1
