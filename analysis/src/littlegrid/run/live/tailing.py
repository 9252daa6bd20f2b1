"""The complete lines a writer has appended to a file so far: a half-written last line is left for the next read."""

from __future__ import annotations

import os
from pathlib import Path

MAX_READ_BYTES = 64 << 20  # per call: a long cell's backlog is caught up over a few updates, memory stays bounded


class GrowingFile:
    """Reads a file another process appends to, a complete line at a time.

    `new_lines()` returns the bytes from where the previous call stopped up to the last newline; the header
    line (the first line, when it is not data) is kept apart so that every batch can be read on its own.
    A file that shrinks or is replaced (a cell re-run into a fresh folder) starts over: `restarted` says so.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.offset = 0
        self.header: bytes | None = None
        self.restarted = False
        self._identity: tuple[int, int] | None = None

    def new_lines(self) -> bytes:
        self.restarted = False
        try:
            st = os.stat(self.path)
        except OSError:  # not written yet (JMeter creates results.jtl with its first sample)
            return b""
        identity = (st.st_dev, st.st_ino)
        if self._identity is not None and (identity != self._identity or st.st_size < self.offset):
            self.offset, self.header, self.restarted = 0, None, True
        self._identity = identity
        if st.st_size <= self.offset:
            return b""
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            data = f.read(min(st.st_size - self.offset, MAX_READ_BYTES))
        cut = data.rfind(b"\n")
        if cut < 0:
            return b""
        lines = data[: cut + 1]
        first_read = self.offset == 0
        self.offset += cut + 1
        if first_read:  # the file's first lines: is the first one a header?
            first, _, rest = lines.partition(b"\n")
            if not _is_data(first):
                self.header, lines = first + b"\n", rest
        return lines


def _is_data(line: bytes) -> bool:
    """A JTL or metrics CSV row starts with its timestamp (epoch ms or a date): a digit; a header with a name."""
    text = line.lstrip(b"\xef\xbb\xbf \t\"")
    return text[:1].isdigit()
