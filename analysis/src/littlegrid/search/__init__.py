"""Capacity search: the largest load that meets an SLO, found by probing cells of a run folder; the strategy is a
pure function of the probes so far. `littlegrid search` is runner.py."""
