"""The queueing laws: Little's law at every boundary the analysis draws, written once (little), and each cell's
law checks: the closed law, workload fidelity, Little's law at the server, the open workload, the throughput bound
and the steady check (laws)."""
