"""Live view of a running grid (`littlegrid run --live`): the running cell and the finished ones, served over HTTP.

tailing: complete lines of files JMeter and the metrics sampler are still writing.
status: the live figures, computed by the analysis' own functions (pure, testable).
view: the hook the runner (or a search) calls, and the thread that keeps the status fresh.
server: the HTTP server (`/` and `/status.json`) on a daemon thread.
"""
