"""Reading: what a cell's rows become before any window is drawn, the base every later step counts with: the
columns the analysis reads (fields), exact counts of whole-millisecond values (int_sort, histogram), failed
samples classified from their code and messages (error_classes), and a latency distribution's shape (tail)."""
