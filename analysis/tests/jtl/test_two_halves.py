"""A large plain CSV is parsed in two halves at once: the table, the skips and the warnings are the same as
from one stream, whatever sits at the middle of the file (quoted line breaks, quotes, bad rows)."""

import pandas as pd
import pytest

from littlegrid.jtl import csv_reader, read_jtl
from littlegrid.jtl.split import record_boundary

HEADER = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,success,failureMessage,Latency,Connect\n"


def _row(i: int) -> str:
    if i % 7 == 3:  # a quoted message with the delimiter, doubled quotes and line breaks
        message = '"Internal ""Server"" Error,\nsee\nstack trace"'
    else:
        message = "OK"
    failure = '"expected 200,\ngot 500"' if i % 7 == 3 else ""
    latency = "" if i % 11 == 5 else str(i % 50)  # nulls in an integer column
    return (f"{1_700_000_000_000 + 10 * i},{i % 97 + 1},label {i % 3},{500 if i % 7 == 3 else 200},{message},"
            f"Group 1-{i % 5 + 1},{'false' if i % 7 == 3 else 'true'},{failure},{latency},{i % 4}\n")


def _file(tmp_path, rows=4000, bad=(), truncated=False):
    lines = [_row(i) for i in range(rows)]
    for at in bad:
        lines[at] = "1700000000000,5\n"  # a short row
    text = HEADER + "".join(lines)
    if truncated:
        text = text[:-9]  # a run killed mid-write
    path = tmp_path / "big.jtl"
    path.write_text(text)
    return path


def _both(path, monkeypatch):
    monkeypatch.setattr(csv_reader, "PARALLEL_MIN_BYTES", 1 << 40)
    one = read_jtl(path)
    monkeypatch.setattr(csv_reader, "PARALLEL_MIN_BYTES", 0)
    calls = []
    real = csv_reader.record_boundary
    monkeypatch.setattr(csv_reader, "record_boundary", lambda *a: calls.append(real(*a)) or calls[-1])
    two = read_jtl(path)
    assert calls and calls[0] is not None, "the file was not cut in two"
    return one, two


def _same(one, two):
    pd.testing.assert_frame_equal(one.samples, two.samples)
    assert one.rows_read == two.rows_read and one.warnings == two.warnings
    assert [(s.reason, s.first_lines) for s in one.rows_skipped] == [(s.reason, s.first_lines) for s in two.rows_skipped]


def test_two_halves_give_the_table_one_stream_gives(tmp_path, monkeypatch):
    one, two = _both(_file(tmp_path), monkeypatch)
    _same(one, two)
    assert len(two.samples) == 4000 and two.samples.latency_ms.isna().sum() == len(range(5, 4000, 11))
    assert two.samples.response_message.str.contains("\n").sum() == len(range(3, 4000, 7))


def test_bad_rows_on_either_side_and_a_truncated_end_are_reported_as_from_one_stream(tmp_path, monkeypatch):
    one, two = _both(_file(tmp_path, bad=(10, 3990), truncated=True), monkeypatch)
    _same(one, two)
    assert len(two.samples) == 4000 - 3 and any("incomplete" in w for w in two.warnings)


@pytest.mark.parametrize("cut_inside", ["quoted line break", "doubled quote"])
def test_a_cut_near_a_quoted_value_moves_to_the_next_record(tmp_path, cut_inside):
    path = _file(tmp_path, rows=50)
    data = path.read_bytes()
    target = b"\nsee\n" if cut_inside == "quoted line break" else b'""Server'
    near = data.index(target) + 2
    cut = record_boundary(path, near, True, ",")
    assert cut is not None and data[cut - 1:cut] == b"\n" and data[cut:cut + 13].isdigit()
    assert data[:cut].count(b'"') % 2 == 0 and data.index(b"\n17", near) + 1 == cut


def test_no_record_start_after_the_middle_means_no_cut(tmp_path):
    path = tmp_path / "odd.jtl"
    path.write_text(HEADER + '1700000000000,5,a,200,"never closed\n' + "x\n" * 100)
    assert record_boundary(path, len(HEADER) + 20, True, ",") is None  # inside the open quote: no boundary
