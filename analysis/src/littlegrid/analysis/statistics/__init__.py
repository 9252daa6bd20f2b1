"""Statistics: a cell's window counted from its rows in bounded memory. The first pass settles the frame (survey);
the second hands each accumulator one block of rows at a time (rowblock) for the counts, errors, throughput and
exact percentiles (stats), the per-second series (series) and the window second by second (window_seconds); each
cell's within-run 95% intervals come from seeded bootstrap replicates of its block histograms (resample,
intervals)."""
