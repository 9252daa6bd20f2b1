"""allocator.keep_freed_memory: a large array freed and made again reuses the process's memory instead of faulting
its pages in afresh (the kernel counts the faults: a known answer, not a timing). Each case runs in a process of its
own, as the console script does, so the test process keeps its allocator as it was."""

import subprocess
import sys

PROBE = """
import resource, sys
import numpy as np
if sys.argv[1] == "keep":
    from littlegrid import allocator
    assert allocator.keep_freed_memory()
np.ones(5_000_000)  # the first time faults in any case
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    block = np.ones(5_000_000)  # 40 MB: above glibc's largest dynamic mmap threshold (32 MiB), below ours (64)
    del block
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_a_freed_block_is_reused_without_a_page_fault():
    default, kept = _faults("default"), _faults("keep")
    assert default >= 20  # by default every one of the 20 blocks is mapped afresh, and faults at least once
    assert kept < 20  # kept: the same memory again (a stray fault or two from the interpreter at most)
