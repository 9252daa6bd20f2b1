"""Benchmark: how many cells `littlegrid search` spends to find the largest load meeting an SLO, beside the
reference, the full grid at the same resolution over the same range (what a user runs without a search).

Usage (from analysis/):
    python bench/bench_search.py              # closed M/M/c//N systems, exact and seeded 20-s probes; open M/M/1
    python bench/bench_search.py --seeds 20   # more seeded searches per system

The systems are the known-answer ones of tests/search/simulated.py (closed M/M/c//N with Z = 0, whose p90 is
closed-form; an open M/M/1 queue), so each answer is set beside the truth on paper. A probe is a cell: the
figures are cells, not wall time (a real probe costs its cell length plus a JMeter start). The seeded probes draw
independent samples: a real queue's correlated responses widen the intervals and add repeats at the boundary
(the acceptance runs in docs/search.md have the measured counts).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))  # queues, summary_contract: simulated imports them
sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "search"))
from simulated import ClosedMMc, drive, exact_probe, sampled_probe  # noqa: E402  (the tests' known answers)

from littlegrid.search.strategy import Probe, Space  # noqa: E402
from littlegrid.search.result import full_grid_cells  # noqa: E402
from littlegrid.search.slo import Figure  # noqa: E402

SLO = "p90 < 300ms"
CELL_S = 20.0


def closed_rows(servers: int, high: int, seeds: int) -> list[str]:
    system = ClosedMMc(servers=servers, service_ms=100.0)
    truth = max(n for n in range(1, high + 1) if system.quantile(n, 0.9) < 300)
    space = Space("users", 1, high)
    grid = full_grid_cells(space)
    exact, probes = drive(space, lambda n, k, longer: exact_probe(system, SLO, n))
    rows = [f"M/M/{servers}//N, S = 100 ms, Z = 0, users 1..{high}: truth {truth} "
            f"(p90 {system.quantile(truth, 0.9):.1f} ms; at {truth + 1}: {system.quantile(truth + 1, 0.9):.1f} ms)",
            f"  exact probes     answer {exact.load:.0f}  probes {len(probes):3d}   full grid {grid} cells  "
            f"ratio 1/{grid / len(probes):.1f}"]
    answers, counts, separated = [], [], 0
    for seed in range(1, seeds + 1):
        got, probes = drive(space, lambda n, k, longer: sampled_probe(system, SLO, n, seed * 100 + k, CELL_S), 60)
        answers.append(got.load)
        counts.append(len(probes))
        separated += bool(got.separated)
    off = [abs(a - truth) for a in answers]
    rows.append(f"  {CELL_S:.0f}-s probes    answers {min(answers):.0f}..{max(answers):.0f} (within 1 of the truth "
                f"in {sum(o <= 1 for o in off)} of {seeds})  probes median {statistics.median(counts):.0f}, "
                f"max {max(counts)}   full grid {grid} cells  ratio 1/{grid / statistics.median(counts):.1f}; "
                f"intervals separated in {separated} of {seeds}")
    return rows


def open_rows() -> list[str]:
    """Open M/M/1, S = 20 ms: p90 of time in system = S/(1 − ρ)·ln 10, so p90 = 300 ms at λ = 42.32/s."""
    service_ms = 20.0
    exact = (1 - math.log(10) * service_ms / 300) / (service_ms / 1000)

    def probe(rate: float) -> Probe:
        p90 = service_ms / (1 - rate * service_ms / 1000) * math.log(10)
        fig = Figure(SLO, "p90", p90, p90 * 0.99, p90 * 1.01, 300.0, True)
        return Probe(rate, (fig,), True, mean_ms=p90 / math.log(10), throughput_per_s=rate, duration_s=CELL_S)

    space = Space("rate_per_s", 5, 49)
    got, probes = drive(space, lambda r, k, longer: probe(r))
    grid = full_grid_cells(space)
    return [f"M/M/1 open, S = 20 ms, rate 5..49/s: truth {exact:.2f}/s",
            f"  exact probes     answer {got.load:.3g}/s (next {got.above.load:.3g}/s)  probes {len(probes):3d}   "
            f"full grid at 2 % steps {grid} cells  ratio 1/{grid / len(probes):.1f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeded 20-s searches per closed system (default 10)")
    args = parser.parse_args()
    print(f"littlegrid search vs the full grid at the search's resolution (the reference), SLO {SLO}")
    for servers, high in ((10, 80), (50, 400)):
        print("\n".join(closed_rows(servers, high, args.seeds)))
    print("\n".join(open_rows()))


if __name__ == "__main__":
    main()
