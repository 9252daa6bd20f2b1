"""Fuzz: JTLs built from JMeter's own columns and attributes with hostile values (CSV with any header subset and
delimiter, XML with any attributes and nesting, either cut anywhere) give a reading, or a refusal in one line that
begins with the file; `littlegrid analyze` of them gives a summary or that refusal, never a traceback. The block
reader (a large file's `littlegrid report`) of any such CSV, plain, gzip or a gzip cut anywhere, gives read_jtl's
rows, or a one-line refusal where read_jtl has no sample."""

import gzip

import pytest
from hypothesis import given
from hypothesis import strategies as st

import littlegrid.summarize
from fuzz import accepted, assert_one_line_refusal, budget, fuzz
from littlegrid.jtl import Reading, read_jtl
from jtl.test_blocks import all_blocks, same_rows
from littlegrid.jtl.blocks import BlockReader
from littlegrid.usererror import UserError

CSV_COLUMNS = ["timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success",
               "failureMessage", "bytes", "sentBytes", "grpThreads", "allThreads", "URL", "Latency", "IdleTime",
               "Connect", "Hostname", "SampleCount", "ErrorCount", "Filename", "Encoding", "bogus"]
# values a JTL may hold, or that a damaged one does: numbers near the edges, dates, booleans, quotes, delimiters
VALUES = ["", "0", "1", "-1", "100", "1700000000000", "1700000000123", "9223372036854775807", "99999999999999999999",
          "1.5", "NaN", "inf", "1e308", "true", "false", "TRUE", "null", "200", "500", "Non HTTP response code: x",
          "2024/01/02 03:04:05.678", "GET /", "Thread Group 1-1", '"', '""', "a,b", "a;b", "a\tb", "\\", "é", "\x00",
          "<", "&amp;", "0x10", " 12 ", "-0"]
XML_ATTRIBUTES = ["t", "it", "lt", "ct", "ts", "s", "lb", "rc", "rm", "tn", "dt", "by", "sby", "ng", "na", "hn", "sc",
                  "ec", "bogus"]


# what each column holds in a JTL JMeter wrote (the rest of the time a row gets any of VALUES)
VALID = {"timeStamp": ["1700000000000", "1700000000123", "1700000001000"], "elapsed": ["0", "1", "20", "1500"],
         "label": ["GET /", "login", "a,b"], "responseCode": ["200", "500", "Non HTTP response code: x"],
         "responseMessage": ["OK", ""], "threadName": ["Thread Group 1-1", "Thread Group 1-2"],
         "dataType": ["text", ""], "success": ["true", "false"], "failureMessage": [""],
         "bytes": ["100", "0"], "sentBytes": ["50"], "grpThreads": ["1", "2"], "allThreads": ["1", "2"],
         "URL": ["http://127.0.0.1/"], "Latency": ["0", "15"], "IdleTime": ["0"], "Connect": ["0", "3"],
         "Hostname": ["h"], "SampleCount": ["1"], "ErrorCount": ["0", "1"], "Filename": [""], "Encoding": ["UTF-8"],
         "bogus": ["x"]}


@st.composite
def csv_jtl(draw) -> bytes:
    """A header of JMeter's columns (timeStamp first most of the time, as JMeter writes it) and rows mostly of
    what JMeter writes, some values and row lengths hostile; sometimes no header, sometimes cut anywhere."""
    header = draw(st.lists(st.sampled_from(CSV_COLUMNS), min_size=0, max_size=12, unique=True))
    if draw(st.integers(0, 3)):
        header = ["timeStamp", "elapsed", "label", *[c for c in header if c not in ("timeStamp", "elapsed", "label")]]
    delimiter = draw(st.sampled_from([",", ",", ";", "\t", "|"]))
    lines = [delimiter.join(header)] if draw(st.integers(0, 5)) else []
    for _ in range(draw(st.integers(0, 12))):
        row = [draw(st.sampled_from(VALID[c])) if draw(st.integers(0, 9)) else draw(st.sampled_from(VALUES))
               for c in header]
        if not draw(st.integers(0, 9)):  # a row a value short or long
            row = row[:-1] if row and draw(st.booleans()) else row + [draw(st.sampled_from(VALUES))]
        quote = draw(st.integers(0, 4)) == 0
        lines.append(delimiter.join(f'"{v}"' if quote and '"' not in v else v for v in row))
    text = "\n".join(lines).encode("utf-8", "surrogatepass")
    return text[:draw(st.integers(0, len(text)))] if not draw(st.integers(0, 4)) else text


@st.composite
def xml_jtl(draw) -> bytes:
    def sample(depth):
        tag = draw(st.sampled_from(["httpSample", "sample", "other"]))
        names = draw(st.lists(st.sampled_from(XML_ATTRIBUTES), max_size=10, unique=True))
        attributes = "".join(f' {n}="{draw(st.sampled_from(VALUES)).replace(chr(34), "&quot;")}"' for n in names)
        children = "".join(sample(depth + 1) for _ in range(draw(st.integers(0, 2)) if depth < 2 else 0))
        return f"<{tag}{attributes}>{children}</{tag}>"

    body = "".join(sample(0) for _ in range(draw(st.integers(0, 8))))
    text = f'<?xml version="1.0" encoding="UTF-8"?>\n<testResults version="1.2">\n{body}\n</testResults>\n'
    data = text.encode("utf-8")
    return data[:draw(st.integers(0, len(data)))] if draw(st.booleans()) else data


def _read_or_refuse(path):
    try:
        reading = read_jtl(path)
    except UserError as error:
        assert_one_line_refusal(error, path)
        return None
    assert isinstance(reading, Reading)
    assert reading.rows_read == len(reading.samples) + reading.skipped_total
    accepted()
    return reading


def _read_then_analyse(path, data: bytes):
    """The file read (a reading or a refusal), then, when read, analysed (a summary or a refusal)."""
    path.write_bytes(data)
    if _read_or_refuse(path) is None:
        return
    try:
        littlegrid.summarize.analyze([path])
    except UserError as error:
        assert_one_line_refusal(error, path)


# pyarrow reports a row it cannot decode as UTF-8 through an "unraisable" exception before falling back (then the
# csv-module path reads the file): pyarrow's noise, not ours.
@fuzz
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@budget(60)
@given(data=csv_jtl())
def test_any_csv_jtl_gives_a_reading_or_a_one_line_refusal(tmp_path, data):
    _read_then_analyse(tmp_path / "fuzzed.jtl", data)


@fuzz
@budget(60)
@given(data=xml_jtl())
def test_any_xml_jtl_gives_a_reading_or_a_one_line_refusal(tmp_path, data):
    _read_then_analyse(tmp_path / "fuzzed.xml", data)


@fuzz
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@budget(40)
@given(data=csv_jtl(), packing=st.sampled_from(["plain", "gzip", "gzip cut"]), cut=st.floats(0.3, 1.0))
def test_any_csv_jtl_in_blocks_gives_read_jtls_rows_or_a_one_line_refusal(tmp_path, data, packing, cut):
    """Found by it: a gzip that breaks off escaped the block reader as EOFError; a file without a label column
    was "no samples" in blocks; an empty success skipped a gzip's row that the plain file's read kept."""
    path = tmp_path / ("fuzzed.jtl" if packing == "plain" else "fuzzed.jtl.gz")
    packed = gzip.compress(data)
    path.write_bytes(data if packing == "plain" else packed if packing == "gzip" else
                     packed[:max(1, int(len(packed) * cut))])
    try:
        whole = read_jtl(path).samples
    except UserError:
        whole = None
    try:
        blocks = all_blocks(BlockReader([path], one_piece_bytes=0, block_rows=3, block_size=1 << 16))
    except UserError as error:
        assert_one_line_refusal(error, path)
        assert whole is None or len(whole) == 0, error
        return
    assert whole is not None
    if blocks:
        same_rows(blocks, whole)
    else:
        assert len(whole) == 0
