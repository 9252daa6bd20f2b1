"""littlegrid: JMeter grids in, steady-state statistics, queueing-law checks and HTML reports out."""

__version__ = "0.1.0"
