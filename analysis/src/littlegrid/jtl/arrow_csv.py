"""How pyarrow reads a CSV JTL: the columns wanted, their Arrow types, the reader's options and memory pool, and the
stream of record batches. Nothing here imports pandas: the read-ahead (read_ahead.py) opens the same stream with it
before the analysis modules are imported."""

from __future__ import annotations

import threading
import weakref

import pyarrow as pa
import pyarrow.csv as pacsv

from typing import TYPE_CHECKING

from littlegrid.jtl.schema import CSV_TO_COLUMN, DICTIONARY_INPUTS, EXTRA_CSV_INPUTS, INT32_INPUTS, INT64_INPUTS

if TYPE_CHECKING:
    from littlegrid.jtl.sniff import Sniffed

DEFAULT_BLOCK_SIZE = 4 << 20  # bytes pyarrow parses at a time: bounds the reader's working memory
USE_THREADS = True
DECAY_MS = 100  # how long the Arrow pool keeps a freed page for reuse (500: +40 MiB peak RSS, no faster)


def memory_pool():
    """jemalloc that keeps freed pages for a tenth of a second: the next blocks' parse buffers reuse them (with
    immediate decay every block faulted in fresh pages: 0.7 s more kernel time per 5 M rows), and pages
    idle longer go back to the OS (the default mimalloc pool kept them, and its fragmentation kept peak
    RSS ~40% higher on 5 M rows). The reader purges what is left once it is done (release)."""
    try:
        pa.jemalloc_set_decay_ms(DECAY_MS)  # before the pool's first use, so that its arenas take it
        return pa.jemalloc_memory_pool()
    except (NotImplementedError, pa.ArrowNotImplementedError):
        return None


def file_stream(path, pool=None, start: int = 0, end: int | None = None, compressed: bool = False):
    """Bytes [start, end) of a file (a gzip file's decompressed bytes, whole), as a native Arrow stream whose reads
    take their blocks from `pool`: a block pyarrow has finished with is reused for a later one (Python bytes of
    4 MiB are fresh mappings each time, ~0.7 s of kernel time in page faults per 5 M-row file on a VM).

    Native, never a Python file object: pyarrow reads its stream ahead on its own I/O thread, and a reader dropped
    mid-file (a read-ahead stopped, an error raised) leaves that read running. Were it Python's, a process
    exiting meanwhile aborts (Fatal Python error: PyGILState_Release, exit 134) after it has written its report."""
    source = pa.OSFile(str(path), memory_pool=pool)
    if compressed:
        return pa.CompressedInputStream(source, "gzip")
    return source.get_stream(start, (source.size() if end is None else end) - start)


def release(pool) -> None:
    """Give the pool's idle pages back now: the analysis after the read needs the room."""
    if pool is not None:
        pool.release_unused()


def wanted_inputs(sniffed: Sniffed, fields=None) -> list[str]:
    """The file's CSV columns that feed the table (only those feeding `fields`, when given: an unread text
    column such as URL is never converted, which is most of the parse's cost beside tokenising)."""
    return [n for n in sniffed.names if (n in CSV_TO_COLUMN and (fields is None or CSV_TO_COLUMN[n] in fields))
            or n in EXTRA_CSV_INPUTS]


def arrow_types(sniffed, wanted) -> dict[str, pa.DataType]:
    types = {}
    for name in wanted:
        if name in INT64_INPUTS or (name == "timeStamp" and sniffed.timestamp_format is None):
            types[name] = pa.int64()
        elif name in INT32_INPUTS:
            types[name] = pa.int32()
        elif name == "success":  # JMeter writes true/false; other spellings take the row-by-row path
            types[name] = pa.bool_()
        elif name in DICTIONARY_INPUTS:
            types[name] = pa.dictionary(pa.int32(), pa.string())
        else:
            types[name] = pa.large_string()  # what pandas stores: no cast (and copy) later
    return types


def options(sniffed, wanted, types, block_size: int, header: bool, on_invalid):
    """pyarrow's read, parse and convert options for a stream of the file (`header`: it starts with the header)."""
    read = pacsv.ReadOptions(column_names=list(sniffed.names), skip_rows=1 if header else 0,
                             block_size=block_size, use_threads=USE_THREADS)
    parse = pacsv.ParseOptions(delimiter=sniffed.delimiter, newlines_in_values=True,
                               invalid_row_handler=on_invalid)
    convert = pacsv.ConvertOptions(column_types=types, include_columns=wanted, strings_can_be_null=False,
                                   quoted_strings_can_be_null=False, true_values=["true", "True", "TRUE"],
                                   false_values=["false", "False", "FALSE"])
    return read, parse, convert


RELEASE_WAIT_S = 10.0  # at most, for Arrow's tasks of a stream dropped mid-file to end (milliseconds, measured)


class _RowHandler:
    """pyarrow's invalid-row handler for one stream: a callable of its own, so that its end tells when Arrow's
    last task of that stream has let it go (see batches)."""

    def __init__(self, on_invalid) -> None:
        self.on_invalid = on_invalid

    def __call__(self, row):
        return self.on_invalid(row)


def batches(stream, sniffed, wanted, types, block_size: int, header: bool, on_invalid, memory):
    """The stream's record batches, parsed by pyarrow (a read-ahead's, when one was started for this stream).
    `stream`: a native one (file_stream).

    Arrow's parse options hold the invalid-row handler, a Python object, and a task of a stream dropped mid-file (a
    read-ahead stopped, an error raised) may let it go last, on Arrow's thread: at interpreter exit that thread
    cannot take the GIL, and the process aborts ("terminate called without an active exception", exit 134; 2 to 7
    of 150 children on a busy host). So a stream closed here waits until its handler is gone."""
    if not isinstance(stream, pa.NativeFile):
        raise TypeError(f"pyarrow reads a JTL from a native stream (file_stream), not {type(stream).__name__}")
    released = threading.Event()
    handler = _RowHandler(on_invalid) if on_invalid is not None else None
    if handler is not None:
        weakref.finalize(handler, released.set)
    else:
        released.set()
    read, parse, convert = options(sniffed, wanted, types, block_size, header, handler)
    try:
        reader = pacsv.open_csv(stream, read_options=read, parse_options=parse, convert_options=convert,
                                memory_pool=memory)
    finally:
        del handler, parse  # from here only Arrow holds the handler (a reader that failed to open: nobody)
    try:
        yield from reader
    finally:
        del reader
        released.wait(RELEASE_WAIT_S)
