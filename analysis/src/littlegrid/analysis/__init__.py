"""Analysis: the cells of a run folder or JTL files, trimmed to their steady windows, into the summary (statistics,
queueing-law checks, models); cell.py analyses one cell. `littlegrid analyze` (littlegrid/summarize.py, its command in commands/analyze.py) composes this
stage with the criteria and the findings."""
