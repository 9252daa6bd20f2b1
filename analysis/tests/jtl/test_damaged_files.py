"""Damaged files are read as far as they are sound: truncation warns, bad rows are skipped and counted."""

import gzip

import pandas as pd
import pytest

from littlegrid.jtl import read_jtl


def test_truncated_last_line_is_dropped_with_a_warning(fixture):
    reading = read_jtl(fixture("truncated-last-line.jtl"))
    assert len(reading.samples) == 3
    assert reading.skipped_total == 0
    assert any("last record is incomplete" in w and "1 line(s) dropped" in w for w in reading.warnings)


def test_file_killed_inside_a_quoted_field_keeps_every_complete_row(fixture):
    reading = read_jtl(fixture("truncated-inside-quote.jtl"))
    assert len(reading.samples) == 3
    assert any("last record is incomplete" in w for w in reading.warnings)


def test_malformed_rows_in_the_middle_are_skipped_and_counted_with_line_numbers(fixture):
    path = fixture("malformed-middle-rows.jtl")
    reading = read_jtl(path)
    assert reading.samples.start_ms.tolist() == [1700000000000 + 100 * k for k in (0, 2, 4, 6)]
    reasons = {skip.reason: skip for skip in reading.rows_skipped}
    assert reasons["malformed row (elapsed)"].first_lines == (f"{path}:3",)
    assert reasons["malformed row (4 fields, expected 6)"].first_lines == (f"{path}:5",)
    assert reasons["success is neither true nor false"].first_lines == (f"{path}:7",)
    assert reading.rows_read == 7 and reading.skipped_total == 3


def test_rows_with_timestamp_zero_are_skipped_and_counted(fixture):
    path = fixture("zero-timestamps.jtl")
    reading = read_jtl(path)
    assert len(reading.samples) == 1
    (skip,) = reading.rows_skipped
    assert skip.count == 2 and skip.first_lines == (f"{path}:2", f"{path}:4")
    assert "timeStamp 0" in skip.reason


def test_truncated_xml_keeps_the_finished_samples_with_a_warning(fixture):
    reading = read_jtl(fixture("truncated.xml"))
    assert reading.samples.label.tolist() == ["Buy"]
    assert any("ends before </testResults>" in w and "1 unfinished sample(s) dropped" in w
               for w in reading.warnings)


def test_gzip_that_breaks_off_keeps_the_rows_before_the_break(fixture, tmp_path):
    import gzip

    text = fixture("default-header.jtl").read_text()
    header, row = text.split("\n", 2)[:2]
    packed = gzip.compress((header + "\n" + (row + "\n") * 20000).encode())
    path = tmp_path / "cut.jtl.gz"
    path.write_bytes(packed[: len(packed) * 3 // 4])
    reading = read_jtl(path)
    assert 1000 < len(reading.samples) < 20000
    assert any("compressed stream breaks off" in w for w in reading.warnings)


def test_short_rows_in_the_middle_keep_the_fast_path_and_later_line_numbers_stay_right(tmp_path, monkeypatch):
    from littlegrid.jtl import csv_reader

    monkeypatch.setattr(csv_reader, "read_rows", lambda *a: pytest.fail("took the row-by-row path"))
    path = tmp_path / "short-rows.jtl"
    path.write_text("timeStamp,elapsed,label,success\n"
                    "1700000000000,5,a,true\n"
                    "1700000000010,5\n"             # line 3: cut short
                    "1700000000020,5,a,true\n"
                    "0,0,a,false\n"                 # line 5: never started
                    "1700000000030,5,a,true\n")
    reading = read_jtl(path)
    assert reading.samples.start_ms.tolist() == [1700000000000, 1700000000020, 1700000000030]
    lines = {skip.reason.split(":")[0]: skip.first_lines for skip in reading.rows_skipped}
    assert lines["malformed row (2 fields, expected 4)"] == (f"{path}:3",)
    assert lines["timeStamp 0"] == (f"{path}:5",)


def test_integers_too_large_for_their_column_are_malformed_not_a_crash(tmp_path):
    path = tmp_path / "huge.jtl"
    path.write_text("timeStamp,elapsed,label,success,grpThreads\n"
                    "1700000000000,5,a,true,1\n"
                    "170000001700000000010,5,a,true,1\n"      # beyond int64
                    "1700000000020,5,a,true,99999999999\n"    # beyond Int32
                    "9000000000000000000,5,a,true,1\n"        # fits int64, but no epoch ms
                    "1700000000030,9000000000000000000,a,true,1\n")
    reading = read_jtl(path)
    assert reading.samples.start_ms.tolist() == [1700000000000]
    assert reading.skipped_total == 4
    assert (reading.samples.end_ms >= reading.samples.start_ms).all()


def test_an_empty_success_is_unknown_on_the_row_by_row_path_as_on_the_fast_one(tmp_path):
    """A short row sends a gzip file row by row (its line cannot be found in the compressed bytes); that path kept
    "" as text and skipped the row as "neither true nor false", where pyarrow's read of the plain file keeps it
    with success unknown."""
    text = ("timeStamp,elapsed,label,success\n"
            "1700000000000,5,a,\n"
            "1700000000010,5\n"  # short: the row-by-row path for the gzip
            "1700000000020,5,a,true\n")
    plain, packed = tmp_path / "empty.jtl", tmp_path / "empty.jtl.gz"
    plain.write_text(text)
    packed.write_bytes(gzip.compress(text.encode()))
    for path in (plain, packed):
        reading = read_jtl(path)
        assert reading.samples.start_ms.tolist() == [1700000000000, 1700000000020], path
        assert reading.samples.success.tolist() == [pd.NA, True], path
        assert [s.reason for s in reading.rows_skipped] == ["malformed row (2 fields, expected 4)"], path


@pytest.mark.parametrize("int32", [False, True])
def test_the_row_by_row_path_reads_an_integer_as_pyarrows_fast_path_does(int32):
    """Whatever pyarrow's CSV conversion accepts it reads as parse_csv_int does: hex too, as its bit pattern. A value
    pyarrow refuses ("+5") sends the whole file row by row, so only these must agree."""
    import io

    import pyarrow as pa
    import pyarrow.csv as pacsv

    from littlegrid.jtl.schema import parse_csv_int

    values = ["0", "17", "-5", "010", " 5", "5 ", "0x10", "0X1f", " 0xFF ", "0x7fffffff", "0x80000000", "0xffffffff",
              "0x1ffffffff", "0x7fffffffffffffff", "0x8000000000000000", "0xffffffffffffffff", "0x10000000000000000",
              "0x", "0xg", "-0x10", "0x-1", "1e3", "2147483648", "9223372036854775807"]
    column_type = pa.int32() if int32 else pa.int64()
    agreed = set()
    for value in values:
        try:
            expected = pacsv.read_csv(io.BytesIO(f"a\n{value}\n".encode()), convert_options=pacsv.ConvertOptions(
                column_types={"a": column_type})).column(0)[0].as_py()
        except pa.ArrowInvalid:
            continue
        assert parse_csv_int(value, int32) == expected, value
        agreed.add(value)
    assert {"0x10", "0X1f", " 0xFF ", "0xffffffff", "-5", " 5"} <= agreed  # hex, its bit pattern, signs, spaces


def test_a_hex_elapsed_gives_the_same_sample_plain_or_gzip_read_row_by_row(tmp_path):
    text = "timeStamp,elapsed,label\n1700000000000,0x10,a\n1700000000010\n1700000000020,5,a\n"  # line 3 short
    plain, packed = tmp_path / "hex.jtl", tmp_path / "hex.jtl.gz"
    plain.write_text(text)
    packed.write_bytes(gzip.compress(text.encode()))
    got = [read_jtl(path).samples.elapsed_ms.tolist() for path in (plain, packed)]
    assert got == [[16, 5], [16, 5]]
