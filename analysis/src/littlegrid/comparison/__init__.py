"""Comparison: two arms or two runs paired cell by cell, deltas with bootstrap intervals from the summaries' exact
histograms, verdicts. The renderer draws the result; `littlegrid compare` is littlegrid/commands/compare.py."""
