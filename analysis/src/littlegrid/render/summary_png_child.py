"""The process summary_png.Background starts: it lowers its own CPU priority to the lowest before it imports
anything, then serves one image (summary_png.serve).

A report of a large JTL keeps both cores of the machine in docs/report.md busy with its parse and its analysis. A
child at the same priority took a core from them while it imported matplotlib and the summary model (1.2-1.4 s of
CPU): the 5 M-row report took 7.45 s (median of 6) against 6.79 s with no image at all. At the lowest priority it
runs on what the report leaves idle (the pass's waits for the parse, the single-threaded writing of the pages):
6.82 s, the image at no cost. On a host kept busy by others it may get almost nothing, so Background.result()
waits for it only a bounded time and then draws the image itself."""

from __future__ import annotations

import os
import sys

LOWEST = 19  # nice's largest increment: the kernel clamps the result at 19


def lower_priority() -> None:
    """Make this process the last to get a core (no-op where there is no nice, as on Windows)."""
    try:
        os.nice(LOWEST)
    except (AttributeError, OSError):
        pass


if __name__ == "__main__":
    lower_priority()
    from littlegrid.render.summary_png import serve  # matplotlib and the model, imported at the lowest priority

    code = serve()
    sys.stdout.flush()
    os._exit(code)  # without the interpreter's teardown of matplotlib and pandas (0.3 s), which the report waits for
