"""The fixed samples-table schema and how JMeter's CSV headers and XML attributes map onto it."""

from __future__ import annotations

import functools

import numpy as np

# The samples table (docs/contracts.md §2): name -> (pandas dtype, unit / meaning). Order is the contract.
SAMPLES_SCHEMA: dict[str, tuple[str, str]] = {
    "start_ms": ("int64", "sample start, epoch ms"),
    "end_ms": ("int64", "start_ms + elapsed_ms, epoch ms"),
    "elapsed_ms": ("int64", "JMeter elapsed: just before sending to last byte received, ms"),
    "latency_ms": ("Int64", "time to first byte, ms"),
    "connect_ms": ("Int64", "connection set-up time, ms"),
    "idle_ms": ("Int64", "JMeter IdleTime, ms"),
    "label": ("category", "sampler label"),
    "success": ("boolean", "JMeter success flag"),
    "response_code": ("category", "as written (may be 'Non HTTP response code: ...')"),
    "response_message": ("string", "responseMessage"),
    "failure_message": ("string", "first failing assertion message"),
    "thread": ("category", "threadName as written"),
    "group_threads": ("Int32", "grpThreads: threads alive in the group"),
    "all_threads": ("Int32", "allThreads: threads alive in this engine"),
    "bytes": ("Int64", "received bytes"),
    "sent_bytes": ("Int64", "sent bytes"),
    "url": ("string", "URL"),
    "host": ("category", "Hostname column (XML: hn), or null"),
    "source": ("category", "file the row came from"),
}
COLUMNS: tuple[str, ...] = tuple(SAMPLES_SCHEMA)

# Every column JMeter's CSVSaveService can write, in the order it writes them (each behind its own
# jmeter.save.saveservice.* flag); sample_variables follow at the end.
JMETER_CSV_ORDER: tuple[str, ...] = (
    "timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType",
    "success", "failureMessage", "bytes", "sentBytes", "grpThreads", "allThreads", "URL", "Filename",
    "Latency", "Encoding", "SampleCount", "ErrorCount", "Hostname", "IdleTime", "Connect",
)

# JMeter 5.x's default save configuration: the 17 columns of a header-less default file.
JMETER_DEFAULT_COLUMNS: tuple[str, ...] = (
    "timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType",
    "success", "failureMessage", "bytes", "sentBytes", "grpThreads", "allThreads", "URL", "Latency",
    "IdleTime", "Connect",
)

# JMeter CSV header name -> samples-table column fed by it (timeStamp feeds start_ms after conversion).
CSV_TO_COLUMN: dict[str, str] = {
    "timeStamp": "start_ms",
    "elapsed": "elapsed_ms",
    "Latency": "latency_ms",
    "Connect": "connect_ms",
    "IdleTime": "idle_ms",
    "label": "label",
    "success": "success",
    "responseCode": "response_code",
    "responseMessage": "response_message",
    "failureMessage": "failure_message",
    "threadName": "thread",
    "grpThreads": "group_threads",
    "allThreads": "all_threads",
    "bytes": "bytes",
    "sentBytes": "sent_bytes",
    "URL": "url",
    "Hostname": "host",
}
# Nanosecond twins some plans save as sample_variables (header name -> raw column): they stand in for a
# timeStamp or elapsed written as 0 (assemble.py).
NS_TWINS: dict[str, str] = {"timeStamp_ns": "start_ns", "elapsed_ns": "elapsed_ns"}
# Read although not in the table: ErrorCount stands in for a missing success column; the twins above.
EXTRA_CSV_INPUTS: tuple[str, ...] = ("ErrorCount", *NS_TWINS)
# The CSV inputs' types when read: integers (Int32 for the thread counts) and text with few distinct values.
INT64_INPUTS = ("elapsed", "Latency", "Connect", "IdleTime", "bytes", "sentBytes", "ErrorCount", *NS_TWINS)
INT32_INPUTS = ("grpThreads", "allThreads")
DICTIONARY_INPUTS = ("label", "threadName", "responseCode", "Hostname", "success")  # few distinct values

# Case-insensitive lookup of JMeter's header names (hand-edited files change case).
CANONICAL_HEADER: dict[str, str] = {name.lower(): name for name in JMETER_CSV_ORDER}

# XML attribute -> samples-table column (SampleSaveConfiguration / XStream aliases of SampleResult).
XML_ATTRIBUTES: dict[str, str] = {
    "ts": "start_ms",
    "t": "elapsed_ms",
    "lt": "latency_ms",
    "ct": "connect_ms",
    "it": "idle_ms",
    "lb": "label",
    "s": "success",
    "rc": "response_code",
    "rm": "response_message",
    "tn": "thread",
    "ng": "group_threads",
    "na": "all_threads",
    "by": "bytes",
    "sby": "sent_bytes",
    "hn": "host",
}

# Read whatever `fields` says: the reader itself needs them (times; transaction and sub-result detection).
ALWAYS_READ = frozenset({"start_ms", "end_ms", "elapsed_ms", "label", "thread", "response_message", "source"})
# Columns a file may lack without the reader refusing it.
REQUIRED_CSV = ("timeStamp", "elapsed")

INTEGER_COLUMNS = ("start_ms", "elapsed_ms", "latency_ms", "connect_ms", "idle_ms", "group_threads",
                   "all_threads", "bytes", "sent_bytes")
CATEGORY_COLUMNS = ("label", "response_code", "thread", "host", "source")
STRING_COLUMNS = ("response_message", "failure_message", "url")

# responseMessage of a Transaction Controller parent sample (TransactionController/TransactionSampler).
TRANSACTION_MESSAGE_PREFIX = "Number of samples in transaction"
# JMeter names a thread "<thread group> <group number>-<thread number>" (after the engine's name and "-" when it ran
# on a remote engine): what follows the group's name, as a regular expression
THREAD_NUMBER_SUFFIX = r" \d+-\d+"



@functools.cache
def string_dtype():
    """The pandas dtype of "string" columns, stored in Arrow so that millions of URLs do not become Python objects
    (made on first use: this module is read before pandas is imported, by the read-ahead)."""
    import pandas as pd

    return pd.StringDtype("pyarrow")


INT32_MAX = 2**31 - 1  # grpThreads/allThreads are Int32; every other integer column is Int64
INT64_MAX = 2**63 - 1


def parse_int(text: str, int32: bool = False) -> int:
    """An integer field as JMeter writes it; ValueError if it is not one or does not fit the column."""
    value = int(text)
    if abs(value) > (INT32_MAX if int32 else INT64_MAX):
        raise ValueError(f"{text[:30]!r} is out of range")
    return value


def parse_csv_int(text: str, int32: bool = False) -> int:
    """An integer field of a CSV JTL as pyarrow's fast path reads it (jtl/arrow_csv.py), for the row-by-row path:
    the same bytes give the same samples whichever path a file takes (a gzip file with one short row goes row by
    row). pyarrow also reads "0x" and up to 8 (Int32) or 16 (Int64) hex digits, as that bit pattern: "0xffffffff"
    is -1 in an Int32 column. JMeter writes none; a damaged file may."""
    stripped = text.strip()
    if stripped[:2] not in ("0x", "0X"):
        return parse_int(text, int32)
    bits, digits = (32 if int32 else 64), stripped[2:]
    if not 0 < len(digits) <= bits // 4 or digits.strip("0123456789abcdefABCDEF"):
        raise ValueError(f"{text[:30]!r} is not an integer")
    value = int(digits, 16)
    return value - (1 << bits) if value >> (bits - 1) else value


def pandas_dtype(column: str):
    """The pandas dtype the contract gives `column`."""
    dtype = SAMPLES_SCHEMA[column][0]
    return string_dtype() if dtype == "string" else dtype


def empty_column(column: str, length: int) -> "pd.Series":
    """An all-null column of the contract's dtype (for a column the file does not have)."""
    import pandas as pd

    dtype = pandas_dtype(column)
    if dtype in ("int64",):
        raise ValueError(f"{column} cannot be absent")
    if dtype == "category":
        return pd.Series(pd.Categorical.from_codes(np.full(length, -1, dtype="int8"), categories=[]))
    # built from arrays: pd.Series(pd.NA, dtype=...) took ~0.15 s per 5 M rows and column
    missing = np.ones(length, dtype=bool)
    if dtype == "string":
        import pyarrow as pa
        # zero offsets and an all-null validity bitmap from np.zeros (calloc): pages nobody reads are never
        # resident (pa.nulls writes its zeros: 40 MB of RSS for an unread URL column at 5 M rows)
        validity = pa.py_buffer(np.zeros((length + 7) // 8, dtype=np.uint8))
        offsets = pa.py_buffer(np.zeros(length + 1, dtype=np.int64))
        nulls = pa.LargeStringArray.from_buffers(length, offsets, pa.py_buffer(b""), validity, null_count=length)
        return pd.Series(pd.arrays.ArrowStringArray(nulls))
    if dtype == "boolean":
        return pd.Series(pd.arrays.BooleanArray(np.zeros(length, dtype=bool), missing))
    return pd.Series(pd.arrays.IntegerArray(np.zeros(length, dtype=dtype.lower()), missing))
