"""CSV JTLs in every shape JMeter writes: header or not, delimiters, quotes, BOM, CRLF, gzip, columns."""

import gzip

import pandas as pd
import pytest

from littlegrid.jtl import COLUMNS, SAMPLES_SCHEMA, read_jtl
from littlegrid.jtl.schema import JMETER_DEFAULT_COLUMNS


def _default(fixture):
    return fixture("default-header.jtl").read_text(encoding="utf-8")


def _check_default_values(reading):
    samples = reading.samples
    assert list(samples.columns) == list(COLUMNS)
    assert len(samples) == 5
    assert samples.elapsed_ms.tolist() == [100, 200, 50, 300, 1000]
    assert samples.start_ms.iloc[0] == 1_700_000_000_000
    assert samples.end_ms.tolist() == (samples.start_ms + samples.elapsed_ms).tolist()
    assert samples.success.tolist() == [True, True, True, False, False]
    assert samples.label.tolist() == ["home", "home", "search, advanced", "checkout", "checkout"]
    assert samples.response_message.iloc[3] == 'Internal "Server" Error, see\nstack trace'
    assert samples.failure_message.iloc[3] == "Response code was 500, expected 200"
    assert samples.response_code.iloc[4] == "Non HTTP response code: java.net.SocketTimeoutException"
    assert samples.latency_ms.tolist() == [90, 180, 40, 290, 0]
    assert samples.connect_ms.sum() == 30
    assert samples.bytes.sum() == 4820 and samples.sent_bytes.sum() == 450
    assert samples.group_threads.tolist() == [2] * 5 and samples.all_threads.tolist() == [2] * 5
    assert samples.thread.tolist() == ["Group 1-1", "Group 1-2", "Group 1-1", "Group 1-2", "Group 1-1"]
    assert samples.url.iloc[2] == "http://127.0.0.1/search?q=a"
    assert samples.host.isna().all() and reading.absent_columns == ["host"]
    assert reading.rows_read == 5 and reading.skipped_total == 0


def test_default_csv_with_header_gives_every_column_with_the_contract_dtypes(fixture):
    reading = read_jtl(fixture("default-header.jtl"))
    _check_default_values(reading)
    for name, (dtype, _) in SAMPLES_SCHEMA.items():
        assert str(reading.samples[name].dtype) == dtype, name
    assert reading.format == "csv ',' header"
    assert reading.warnings == []


@pytest.mark.parametrize("delimiter,name", [(";", "';'"), ("\t", "TAB"), ("|", "'|'")])
def test_any_delimiter_jmeter_can_write_is_sniffed(fixture, tmp_path, delimiter, name):
    import csv
    import io

    rows = list(csv.reader(io.StringIO(_default(fixture), newline="")))
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(rows)
    path = tmp_path / "delimited.jtl"
    path.write_text(out.getvalue(), encoding="utf-8")
    reading = read_jtl(path)
    _check_default_values(reading)
    assert reading.format == f"csv {name} header"


def test_crlf_line_ends_and_utf8_bom_are_read(fixture, tmp_path):
    path = tmp_path / "crlf-bom.jtl"
    path.write_bytes(b"\xef\xbb\xbf" + _default(fixture).replace("\n", "\r\n").encode())
    reading = read_jtl(path)
    assert len(reading.samples) == 5
    assert reading.samples.response_message.iloc[3].startswith('Internal "Server" Error')


def test_gzip_compressed_file_is_read_like_the_plain_one(fixture, tmp_path):
    path = tmp_path / "results.jtl.gz"
    path.write_bytes(gzip.compress(_default(fixture).encode()))
    reading = read_jtl(path)
    _check_default_values(reading)
    assert reading.format.endswith("gzip")


def test_file_without_header_takes_jmeters_default_columns(fixture, tmp_path):
    path = tmp_path / "no-header.jtl"
    path.write_text(_default(fixture).split("\n", 1)[1])
    reading = read_jtl(path)
    _check_default_values(reading)
    assert reading.format == "csv ',' no header"
    assert any("17 default columns" in w for w in reading.warnings)


def test_columns_given_for_a_headerless_file_name_its_fields(tmp_path):
    path = tmp_path / "custom.jtl"
    path.write_text("1700000000000;250;T 1-1;true;page\n1700000000300;150;T 1-1;false;page\n")
    reading = read_jtl(path, columns="timeStamp,elapsed,threadName,success,label")
    assert reading.samples.elapsed_ms.tolist() == [250, 150]
    assert reading.samples.label.tolist() == ["page", "page"]
    assert reading.samples.success.tolist() == [True, False]
    assert reading.absent_columns == [c for c in COLUMNS if c not in
                                      ("start_ms", "end_ms", "elapsed_ms", "thread", "success", "label", "source")]


def test_any_subset_and_order_of_columns_is_placed_by_header_name(tmp_path):
    path = tmp_path / "reordered.jtl"
    path.write_text("label,success,elapsed,Connect,timeStamp\nx,true,7,3,1700000000000\n")
    samples = read_jtl(path).samples
    assert samples[["label", "elapsed_ms", "connect_ms", "start_ms"]].iloc[0].tolist() == \
        ["x", 7, 3, 1_700_000_000_000]
    assert samples.latency_ms.isna().all()


def test_sample_variables_including_a_quoted_header_name_are_ignored_and_booleans_any_case(fixture):
    reading = read_jtl(fixture("sample-variables-mixed-case-booleans.jtl"))
    assert reading.samples.success.tolist() == [True, False, True]
    assert reading.samples.elapsed_ms.tolist() == [10, 20, 30]
    assert list(reading.samples.columns) == list(COLUMNS)


def test_formatted_timestamps_are_detected_and_taken_as_utc(fixture):
    reading = read_jtl(fixture("timestamp-format.jtl"))
    expected = int(pd.Timestamp("2024-01-02 10:11:12.345", tz="UTC").value // 1_000_000)
    assert reading.samples.start_ms.tolist() == [expected, expected + 655]
    assert "timestamps 'yyyy/MM/dd HH:mm:ss.SSS'" in reading.format
    assert any("taken as UTC" in w for w in reading.warnings)


def test_a_given_timestamp_format_in_java_notation_is_used(tmp_path):
    path = tmp_path / "dmy.jtl"
    path.write_text("timeStamp,elapsed,label,success\n02/01/2024 10:11:12,5,a,true\n")
    reading = read_jtl(path, timestamp_format="dd/MM/yyyy HH:mm:ss")
    assert reading.samples.start_ms.iloc[0] == int(pd.Timestamp("2024-01-02 10:11:12", tz="UTC").value // 10**6)


def test_end_timestamps_option_moves_start_back_by_elapsed(fixture):
    reading = read_jtl(fixture("default-header.jtl"), timestamp_is_start=False)
    assert reading.samples.start_ms.iloc[0] == 1_700_000_000_000 - 100
    assert reading.samples.end_ms.iloc[0] == 1_700_000_000_000


def test_headerless_default_order_constant_matches_jmeter_5():
    assert len(JMETER_DEFAULT_COLUMNS) == 17 and JMETER_DEFAULT_COLUMNS[-1] == "Connect"
