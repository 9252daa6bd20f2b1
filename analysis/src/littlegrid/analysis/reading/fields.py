"""The samples-table columns a cell's analysis reads (plain tuples, no imports: the read-ahead, read_ahead.py, opens
the report's JTL with them before the analysis modules are imported)."""

# The table columns the analysis reads: URL, bytes… are never parsed (a third of a default JTL). IdleTime
# gives a transaction's whole span (its timers), which tells the samplers it wraps.
ANALYZED_FIELDS = ("start_ms", "end_ms", "elapsed_ms", "latency_ms", "connect_ms", "idle_ms", "label", "success",
                   "response_code", "response_message", "failure_message", "thread", "all_threads", "host")
# Read only for the statistics per label (bytes received and sent per sample).
LABEL_FIELDS = ("bytes", "sent_bytes")
# The first pass of a cell read in blocks: the window, the transaction labels, rows per label, answers (outage.py).
SURVEY_FIELDS = ("start_ms", "end_ms", "elapsed_ms", "label", "thread", "response_message", "success",
                 "response_code")
