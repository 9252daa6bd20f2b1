"""Benchmark: what the baseline gate decides on histories drawn with a known run-to-run spread, beside what it should
(the issue's targets): false alarms with no change (≤ 5% a build), power for a step twice the detectable size it
prints (≥ 80%), a +20% step at the second run of a new series flagged by its third, five 4% steps (+22%) flagged by
the seventh run, and histories whose own spread measures as 0. Each line: the figure, its binomial 95% interval, the
target, and what the gate printed.

Usage (from analysis/):
    python bench/bench_gate.py               # 500 replications per figure, seed 61
    python bench/bench_gate.py --reps 2000   # narrower intervals

The histories are tests/history/gate_simulation.py's: six cells, each build's p90 = level·e^{step + b + w}, b ~ N(0,
σ_b²) the build's own offset, w ~ N(0, s²) its window's error (stated as its interval), judged by the gate as CI
wires it (`analyze --history`, then `check --baseline history:last-pass`, the verdict kept). A table per (σ_b, s):
the project's default prior (docs/history.md) and a noisier host.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "history"))
from gate_simulation import scenarios  # noqa: E402  (the tests' known answers)

from littlegrid.analysis.statistics.intervals import wilson  # noqa: E402  (a share's 95% interval, as the history's error rate)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--seed", type=int, default=61)
    args = parser.parse_args()
    for between, within, prior in ((0.02, 0.01, None), (0.04, 0.015, None), (0.04, 0.015, 0.02)):
        said = "the true σ_b" if prior is None else f"{prior:.0%}: the host is twice as noisy as the prior says"
        print(f"\nσ_b {between:.0%}, within-run s {within:.1%}, the gate's prior {said} "
              f"(p90 regress < 10%; {args.reps} histories each)")
        print(f"  {'figure':66s} {'measured':>9s} {'95% interval':>15s}  target")
        for name, (hits, n, target, note) in scenarios(between, within, args.reps, args.seed, prior_sd=prior).items():
            lo, hi, _ = wilson(hits, n)
            print(f"  {name:66s} {hits / n:9.1%} {lo:6.1%} to {hi:5.1%}  {target}{note}")

if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
