"""The steady window: where a cell's steady state begins and ends and what the window is worth. The window and
the error its edges give a closed loop's throughput (window), the warm-up's series and its rule (warmup_seconds,
steady_state: MSER-5, batch-means precision, when a cell is answered), stalls and outages (outage), the drift
rule through the window's thirds (trend) and the block-length rule (blocks)."""
