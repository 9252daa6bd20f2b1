"""The C allocator told to keep the memory it frees, for the next block of rows to reuse.

A report of a large JTL allocates and frees the same few dozen arrays block after block (a few MB each at 250,000
rows a block). By default glibc returns a large freed array to the kernel (above its mmap threshold) and trims the
heap's top, so every block faults its pages in again: at 5 M rows about 0.9 M page faults, 4 s of system time on
the 2-core machine of docs/report.md, for a pass that takes 5 s. Memory kept is reused without a fault. The price is
the slack kept: the peak RSS rose by 60 MiB at 5 M rows and 130 MiB at 100 M with 500,000-row blocks (measured by
bench/bench_scale.py; the blocks are now half that, and the peaks lower than before, docs/report.md).

Only the console script calls keep_freed_memory: a process of its own (in-process callers, such as the tests, keep
their allocator as it was). On a C library other than glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util

# mallopt's parameters (glibc's malloc.h)
M_TRIM_THRESHOLD = -1
M_TOP_PAD = -2
M_MMAP_THRESHOLD = -3

MMAP_THRESHOLD_BYTES = 64 << 20  # arrays larger than this are still mapped and unmapped alone (rare, and large)
TRIM_THRESHOLD_BYTES = 512 << 20  # the heap's top is given back only when this much of it is free
TOP_PAD_BYTES = 64 << 20  # the heap grows by this much more than asked, so it grows (and faults) in large steps


def keep_freed_memory() -> bool:
    """Set glibc's thresholds (mallopt); False where there is no glibc or it refused one."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt), or no C library to load
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return all(mallopt(param, value) == 1 for param, value in (
        (M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES), (M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES),
        (M_TOP_PAD, TOP_PAD_BYTES)))
