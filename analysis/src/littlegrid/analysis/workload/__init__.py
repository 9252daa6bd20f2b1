"""The workload: what the generator delivered. Realised think time against the intended distribution (think_time,
its rows spilled by thread in think_blocks, JMeter's clock steps in clock_steps, the KS test's Kolmogorov
distribution in kolmogorov), an open cell's arrivals (arrivals), the users N (users) and each remote engine's share
(engines, with when the controller saw them start in controller_log)."""
