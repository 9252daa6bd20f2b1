"""Analysis: the cells of a run folder or JTL files, trimmed to their steady windows, into the summary (statistics,
queueing-law checks, models). Its sub-packages are the steps of a cell's analysis, each importing only the steps
before it: reading (exact counts, error classes), steady (the steady window), queueing (Little's law and the law
checks), observed (what [observe] saw, the server's CPU), statistics (the window counted block by block), workload
(what the generator delivered) and modelling (curves and their models). cells.py lists the cells of an analysis and
cell.py analyses one, composing the steps. `littlegrid analyze` (littlegrid/summarize.py, its command in
commands/analyze.py) composes this stage with the criteria and the findings."""
