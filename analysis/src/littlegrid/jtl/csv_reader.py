"""Reads a CSV JTL into raw sample columns: pyarrow in blocks when the file is clean, csv-module row by row when not."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from littlegrid.jtl.reading import SkipLog
from littlegrid.jtl.schema import CSV_TO_COLUMN, EXTRA_CSV_INPUTS, STRING_DTYPE
from littlegrid.jtl.sniff import BOM, Sniffed, open_binary

DEFAULT_BLOCK_SIZE = 16 << 20  # bytes pyarrow parses at a time: bounds the reader's working memory
_INT64 = ("elapsed", "Latency", "Connect", "IdleTime", "bytes", "sentBytes", "ErrorCount")
_INT32 = ("grpThreads", "allThreads")
_DICTIONARY = ("label", "threadName", "responseCode", "Hostname", "success")  # few distinct values
_STRING = ("responseMessage", "failureMessage", "URL")
RAW_NAMES = {**CSV_TO_COLUMN, "ErrorCount": "error_count"}


@dataclass
class RawCsv:
    """Columns named as in the samples table (start_ms may still be text, success is raw text) plus
    `_line`, the file line of each row; `exact_lines` is False when lines are record numbers."""

    frame: pd.DataFrame
    skips: SkipLog
    warnings: list[str] = field(default_factory=list)
    exact_lines: bool = True
    read_by: str = "pyarrow"


def read_csv(path: Path, sniffed: Sniffed, skips: SkipLog, block_size: int = DEFAULT_BLOCK_SIZE) -> RawCsv:
    """Fast path first; the exact row-by-row path when pyarrow cannot convert a value or a row in the
    middle has the wrong number of fields (then the line numbers of the bad rows are known)."""
    wanted = [n for n in sniffed.names if n in CSV_TO_COLUMN or n in EXTRA_CSV_INPUTS]
    invalid: list[str] = []
    try:
        table = _read_arrow(path, sniffed, wanted, block_size, invalid)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError, OSError, EOFError):
        return _read_python(path, sniffed, wanted, skips)
    warnings = []
    if invalid:
        if len(invalid) > 1 or sniffed.gzip or not _is_last_record(path, invalid[0]):
            return _read_python(path, sniffed, wanted, skips)
        warnings.append(_truncation_warning(1))
    frame = _arrow_to_frame(table)
    first_line = 2 if sniffed.header else 1
    frame["_line"] = np.arange(first_line, first_line + len(frame), dtype="int64")
    exact = not any(frame[c].str.contains("\n", regex=False).any()
                    for c in ("response_message", "failure_message", "url") if c in frame)
    return RawCsv(frame, skips, warnings, exact_lines=exact)


def _read_arrow(path, sniffed, wanted, block_size, invalid) -> pa.Table:
    def on_invalid(row):
        invalid.append(row.text)
        return "skip"

    types = {}
    for name in wanted:
        if name in _INT64 or (name == "timeStamp" and sniffed.timestamp_format is None):
            types[name] = pa.int64()
        elif name in _INT32:
            types[name] = pa.int32()
        elif name in _DICTIONARY:
            types[name] = pa.dictionary(pa.int32(), pa.string())
        else:
            types[name] = pa.string()
    read = pacsv.ReadOptions(column_names=list(sniffed.names), skip_rows=1 if sniffed.header else 0,
                             block_size=block_size)
    parse = pacsv.ParseOptions(delimiter=sniffed.delimiter, newlines_in_values=True,
                               invalid_row_handler=on_invalid)
    convert = pacsv.ConvertOptions(column_types=types, include_columns=wanted, strings_can_be_null=False,
                                   quoted_strings_can_be_null=False)
    with open_binary(path, sniffed.gzip) as stream:
        reader = pacsv.open_csv(stream, read_options=read, parse_options=parse, convert_options=convert)
        batches = list(reader)  # blocks of block_size: memory is the output plus one block
        schema = reader.schema
    # Blocks choose dictionary indices independently; unify them once for the whole table.
    return pa.Table.from_batches(batches, schema=schema).unify_dictionaries().combine_chunks()


def _arrow_to_frame(table: pa.Table) -> pd.DataFrame:
    columns = {}
    for name in table.column_names:
        column = table.column(name)
        if pa.types.is_string(column.type):
            series = pd.Series(pd.arrays.ArrowStringArray(column), dtype=STRING_DTYPE) \
                if name != "timeStamp" else column.to_pandas()
        elif pa.types.is_integer(column.type):
            series = column.to_pandas(integer_object_nulls=False)
            if column.null_count:
                series = pd.Series(pd.array(column.to_numpy(zero_copy_only=False), dtype="Int64"))
        else:
            series = column.to_pandas()
        columns[RAW_NAMES[name]] = series.reset_index(drop=True)
    return pd.DataFrame(columns)


def _is_last_record(path: Path, text: str) -> bool:
    """True when `text` is the end of the file: a run killed mid-write leaves a short last record."""
    with open(path, "rb") as stream:
        stream.seek(0, io.SEEK_END)
        size = stream.tell()
        stream.seek(max(0, size - len(text.encode()) - 4096))
        tail = stream.read().decode("utf-8", errors="replace").rstrip("\r\n")
    return tail.endswith(text.rstrip("\r\n"))


def _truncation_warning(lines: int) -> str:
    return (f"the last record is incomplete (the run was probably killed mid-write): {lines} line(s) "
            "dropped")


def _read_python(path: Path, sniffed: Sniffed, wanted: list[str], skips: SkipLog) -> RawCsv:
    """Row by row with the csv module: every bad row is skipped and counted with its line number."""
    width = len(sniffed.names)
    index = [sniffed.names.index(n) for n in wanted]
    ints = [n in _INT64 or n in _INT32 or (n == "timeStamp" and sniffed.timestamp_format is None)
            for n in wanted]
    values: list[list] = [[] for _ in wanted]
    lines: list[int] = []
    bad: list[tuple[int, str]] = []
    with open_binary(path, sniffed.gzip) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="")
        reader = csv.reader(text, delimiter=sniffed.delimiter)
        end_line = 0
        for record in _records(reader):
            start_line, end_line = end_line + 1, reader.line_num
            if record is None:  # the csv module gave up (NUL byte): skip that line
                bad.append((start_line, "unreadable line"))
                continue
            if start_line == 1 and sniffed.header:
                continue
            if not record or record == [""]:
                continue
            if start_line == 1 and record[0].startswith(BOM):
                record[0] = record[0][1:]
            if len(record) != width:
                bad.append((start_line, f"{len(record)} fields, expected {width}"))
                continue
            row, problem = _convert(record, index, ints, wanted)
            if problem:
                bad.append((start_line, problem))
                continue
            for column, value in zip(values, row):
                column.append(value)
            lines.append(start_line)
    warnings = []
    if bad and bad[-1][0] > (lines[-1] if lines else 0):  # the bad record is the file's last one
        warnings.append(_truncation_warning(end_line - bad[-1][0] + 1))
        bad.pop()
    for line, problem in bad:
        skips.add(f"malformed row ({problem.split(':')[0]})", line)
    frame = _columns_to_frame(wanted, values, ints)
    frame["_line"] = np.asarray(lines, dtype="int64")
    return RawCsv(frame, skips, warnings, exact_lines=True, read_by="csv module")


def _records(reader):
    """Records of a csv reader; None for a line the csv module refuses, then it carries on."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error:
            yield None


def _convert(record, index, ints, wanted):
    row = []
    for i, is_int, name in zip(index, ints, wanted):
        value = record[i]
        if is_int:
            value = value.strip()
            if not value:
                row.append(None)
                continue
            try:
                row.append(int(value))
            except ValueError:
                return None, f"{name}: {value[:30]!r} is not an integer"
        else:
            row.append(value)
    return row, None


def _columns_to_frame(wanted, values, ints) -> pd.DataFrame:
    columns = {}
    for name, column, is_int in zip(wanted, values, ints):
        if is_int:
            series = pd.Series(pd.array(column, dtype="Int32" if name in _INT32 else "Int64"))
        elif name in _DICTIONARY:
            series = pd.Series(column, dtype="category")
        elif name == "timeStamp":
            series = pd.Series(column, dtype=object)
        else:
            series = pd.Series(column, dtype=STRING_DTYPE)
        columns[RAW_NAMES[name]] = series
    return pd.DataFrame(columns)
