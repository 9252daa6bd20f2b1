"""arrow_csv.file_stream: exactly the bytes asked for (a gzip file's decompressed ones, over its members), from the
pool given, and always a native stream: pyarrow reads ahead on its own I/O thread, where a Python file object's
read at interpreter exit aborts the process (test_read_ahead's child-process tests show the exit)."""

import gzip
import io

import pyarrow as pa
import pytest

from littlegrid.jtl.arrow_csv import batches, file_stream


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "bytes.bin"
    data = bytes(range(256)) * 40
    path.write_bytes(data)
    return path, data


@pytest.mark.parametrize("with_pool", [False, True])
def test_a_range_reads_exactly_its_bytes(data, with_pool):
    path, data = data
    pool = pa.proxy_memory_pool(pa.default_memory_pool()) if with_pool else None
    with file_stream(path, pool, 100, 9000) as stream:
        assert isinstance(stream, pa.NativeFile)
        pieces = [stream.read_buffer(1000) for _ in range(10)]
        assert stream.read(1000) == b"" and stream.read() == b""
    assert [len(p) for p in pieces] == [1000] * 8 + [900, 0]
    assert b"".join(p.to_pybytes() for p in pieces) == data[100:9000]
    if with_pool:  # the blocks pyarrow keeps come from the pool given, which reuses them
        assert pool.bytes_allocated() >= 8900
    del pieces  # before the proxy pool they came from
    with file_stream(path, None, 8000) as stream:
        assert stream.read() == data[8000:]
    with file_stream(path) as stream:
        assert stream.read() == data


def test_a_gzip_file_gives_its_decompressed_bytes_over_every_member(data, tmp_path):
    _, data = data
    two = tmp_path / "two.gz"
    two.write_bytes(gzip.compress(data[:3000]) + gzip.compress(data[3000:]))  # `cat a.gz b.gz`, as gzip allows
    with file_stream(two, pa.default_memory_pool(), compressed=True) as stream:
        assert isinstance(stream, pa.NativeFile) and stream.read() == data


def test_the_parser_refuses_a_python_file_object():
    with pytest.raises(TypeError, match="native stream"):
        next(batches(io.BytesIO(b"timeStamp,elapsed\n1,2\n"), None, [], {}, 1 << 16, True, None, None))


def test_closing_a_stream_waits_until_arrow_has_let_its_row_handler_go(tmp_path, monkeypatch):
    """Arrow's parse options hold the invalid-row handler, a Python object, and the task of a stream dropped mid-file
    that ends last lets it go on Arrow's thread; at interpreter exit that thread cannot take the GIL and the process
    aborts (2 to 7 of 150 read-ahead children on a busy host, none of 200 with this wait). The race is microseconds
    wide, so here a stand-in reader holds the handler 0.3 s past its close, as such a task would."""
    import threading
    import time

    from littlegrid.jtl import arrow_csv
    from littlegrid.jtl.sniff import sniff

    path = tmp_path / "tiny.jtl"
    path.write_text("timeStamp,elapsed,label\n1700000000000,5,a\n")
    gone = threading.Event()

    class Reader:  # what pacsv.open_csv returns, with a task still holding the handler after close()
        def __init__(self, parse_options):
            closed = threading.Event()

            def task(handler):
                closed.wait(5)
                time.sleep(0.3)
                del handler  # the last reference: the handler ends here, on this thread
                gone.set()

            threading.Thread(target=task, args=(parse_options.invalid_row_handler,), daemon=True).start()
            self.close = closed.set  # `yield from` closes it when the batches are closed
            self.batches = iter([pa.record_batch({"elapsed": [5]}), pa.record_batch({"elapsed": [7]})])

        def __iter__(self):
            return self

        def __next__(self):
            return next(self.batches)

    monkeypatch.setattr(arrow_csv.pacsv, "open_csv", lambda stream, parse_options, **_: Reader(parse_options))
    sniffed = sniff(path)
    wanted = arrow_csv.wanted_inputs(sniffed)
    with file_stream(path) as stream:
        parsed = batches(stream, sniffed, wanted, arrow_csv.arrow_types(sniffed, wanted), 1 << 16, True,
                         lambda row: "skip", None)
        next(parsed)
        started = time.monotonic()
        parsed.close()
        took = time.monotonic() - started
    assert gone.is_set() and took >= 0.29  # close() returned only once the handler was gone
