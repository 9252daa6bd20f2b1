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
