"""HTML rendering of summary.json: the run report (`littlegrid report`) and the run-to-run comparison (`littlegrid compare`)."""
