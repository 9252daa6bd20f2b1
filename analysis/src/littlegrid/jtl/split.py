"""Where a CSV file can be cut in two so that each half parses on its own (one pyarrow stream per core)."""

from __future__ import annotations

import re
from pathlib import Path

SCAN_BYTES = 16 << 20  # read this much at a time while counting quotes
# the first field of a record: epoch milliseconds, or (formatted timestamps) anything but a quote
_EPOCH_RECORD = re.compile(rb"-?\d{1,19}[,;\t|]")


def record_boundary(path: Path, near: int, epoch_times: bool, delimiter: str) -> int | None:
    """A byte offset ≥ `near` where a record starts, or None when there is no safe one.

    A newline ends a record only outside quotes: JMeter quotes any value holding a delimiter, quote or line
    break and doubles its quotes, so quotes before a record boundary come in pairs. The first newline after
    `near` with an even number of quotes before it is a boundary; it must also be followed by what starts a
    record (epoch digits and the delimiter, or an unquoted field). Files that break the quoting rules fail
    these tests or parse differently in halves, so the caller compares nothing and falls back to one stream
    whenever this returns None."""
    quotes = 0
    buffer = bytearray(SCAN_BYTES)  # one buffer, reused: fresh 16 MiB objects cost page faults every time
    view = memoryview(buffer)
    with open(path, "rb", buffering=0) as stream:
        done = 0
        while done < near:
            got = stream.readinto(view[:min(SCAN_BYTES, near - done)])
            if not got:
                return None
            if buffer.find(b'"', 0, got) >= 0:  # find is a memchr; most JTL chunks hold no quote at all
                quotes += buffer.count(b'"', 0, got)
            done += got
        tail = stream.read(1 << 20)  # the boundary lies within a few records of `near`
    return _record_start(tail, near, quotes, epoch_times, delimiter)


def record_start_after(path: Path, near: int, epoch_times: bool, delimiter: str) -> int | None:
    """The first offset >= `near` after a newline that looks like a record's start, without counting the quotes
    before it (record_boundary reads the whole file up to `near` for that): a guess, which a line break inside a
    quoted value can fool. For readers that only guess from the rows found there (jtl.blocks' ends)."""
    with open(path, "rb") as stream:
        stream.seek(near)
        tail = stream.read(1 << 20)
    return _record_start(tail, near, None, epoch_times, delimiter)


def _record_start(tail: bytes, near: int, quotes: int | None, epoch_times: bool, delimiter: str) -> int | None:
    """near + the position in `tail` (the bytes from `near` on) after the first newline that starts a record;
    with `quotes` (how many came before `near`), only where the quotes before it pair up."""
    position = 0
    while True:
        newline = tail.find(b"\n", position)
        if newline < 0:
            return None
        if quotes is not None:
            quotes += tail.count(b'"', position, newline)
        position = newline + 1
        if (quotes is None or quotes % 2 == 0) and _starts_record(tail[position:position + 64], epoch_times,
                                                                     delimiter):
            return near + position


def _starts_record(head: bytes, epoch_times: bool, delimiter: str) -> bool:
    if not head:
        return False
    if epoch_times:
        match = _EPOCH_RECORD.match(head)
        return match is not None and match.group()[-1:] == delimiter.encode()
    return head[:1] not in (b'"', b"\r", b"\n")
