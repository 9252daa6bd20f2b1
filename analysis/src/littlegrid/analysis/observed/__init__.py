"""What was observed beside the load: [observe]'s scrapes in the Prometheus text format (prometheus_text) mapped
onto pools, processes, hosts and the server's requests (mapping), whose figures each source gives (observed_sources),
a cell's scrapes over its window (observed_window, server_metrics; an older folder's server-metrics.csv through
server_metrics_csv), the server's CPU (server_cpu) and the CPU per request (cpu_demand)."""
