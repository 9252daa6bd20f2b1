"""Reads a damaged CSV JTL row by row with the csv module: every bad row is skipped and counted by line."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd

from littlegrid.jtl.raw_csv import RAW_NAMES, RawCsv, truncation_warning
from littlegrid.jtl.reading import SkipLog
from littlegrid.jtl.schema import DICTIONARY_INPUTS, INT32_INPUTS, INT64_INPUTS, NS_TWINS, parse_csv_int, string_dtype
from littlegrid.jtl.sniff import BOM, Sniffed, open_binary


def read_rows(path: Path, sniffed: Sniffed, wanted: list[str], skips: SkipLog) -> RawCsv:
    """Row by row with the csv module: every bad row is skipped and counted with its line number."""
    width = len(sniffed.names)
    index = [sniffed.names.index(n) for n in wanted]
    ints = [n in INT64_INPUTS or n in INT32_INPUTS or (n == "timeStamp" and sniffed.timestamp_format is None)
            for n in wanted]
    values: list[list] = [[] for _ in wanted]
    lines: list[int] = []
    bad: list[tuple[int, str]] = []
    warnings = []
    with open_binary(path, sniffed.gzip) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="")
        reader = csv.reader(text, delimiter=sniffed.delimiter)
        end_line = 0
        for record in _records(reader, warnings):
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
    if bad and bad[-1][0] > (lines[-1] if lines else 0):  # the bad record is the file's last one
        warnings.append(truncation_warning(end_line - bad[-1][0] + 1))
        bad.pop()
    for line, problem in bad:
        skips.add(f"malformed row ({problem.split(':')[0]})", line)
    frame = _columns_to_frame(wanted, values, ints)
    line_numbers = np.asarray(lines, dtype="int64")
    return RawCsv(frame, skips, warnings, line_of=lambda rows: line_numbers[rows])


def _records(reader, warnings: list[str]):
    """Records of a csv reader; None for a line the csv module refuses, then it carries on. A compressed
    stream that breaks off (a .gz copied while still being written) ends the records with a warning."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error:
            yield None
        except (EOFError, OSError) as error:
            warnings.append(f"the compressed stream breaks off after line {reader.line_num} ({error}); "
                            "the rows before it are read")
            return


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
                row.append(parse_csv_int(value, int32=name in INT32_INPUTS))
            except ValueError:
                if name in NS_TWINS:  # a sample variable: not a number (e.g. "null") means no twin here
                    row.append(None)
                    continue
                return None, f"{name}: {value[:30]!r} is not an integer in range"
        else:
            row.append(value)
    return row, None


def _columns_to_frame(wanted, values, ints) -> dict[str, pd.Series]:
    columns = {}
    for name, column, is_int in zip(wanted, values, ints):
        if is_int:
            series = pd.Series(pd.array(column, dtype="Int32" if name in INT32_INPUTS else "Int64"))
        elif name in DICTIONARY_INPUTS:
            series = pd.Series(column, dtype="category")
        elif name == "timeStamp":
            series = pd.Series(column, dtype=object)
        else:
            series = pd.Series(column, dtype=string_dtype())
        columns[RAW_NAMES[name]] = series
    return columns
