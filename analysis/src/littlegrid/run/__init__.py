"""Run: a grid file expanded into cells, each one JMeter non-GUI against the target (the sample server when asked),
into a resumable run folder with its manifests and metrics. `littlegrid run` is runner.py."""
