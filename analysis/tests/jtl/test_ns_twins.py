"""timeStamp or elapsed written as 0 beside nanosecond twins (sample variables timeStamp_ns, elapsed_ns)."""

from littlegrid.jtl import read_jtl


def test_zero_times_are_taken_from_their_nanosecond_twins(tmp_path):
    path = tmp_path / "twins.jtl"
    path.write_text("timeStamp,elapsed,label,success,threadName,timeStamp_ns,elapsed_ns\n"
                    "0,0,a,true,T 1-1,1700000000123456789,25999999\n"       # both from the twins
                    "1700000000200,7,a,true,T 1-1,1700000000200999999,7000001\n"  # written: kept as is
                    "0,0,a,false,T 1-1,null,null\n"                         # no twin: never started
                    "0,4,a,true,T 1-1,123456789,4000000\n")                 # nanoTime, not a date: skipped
    reading = read_jtl(path)
    s = reading.samples
    assert s["start_ms"].tolist() == [1700000000123, 1700000000200]
    assert s["elapsed_ms"].tolist() == [25, 7]
    assert reading.skipped_total == 2
    assert any("1 rows have timeStamp 0: taken from timeStamp_ns" in w for w in reading.warnings)
    assert any("1 rows have elapsed 0: taken from elapsed_ns" in w for w in reading.warnings)


def test_without_twins_a_zero_timestamp_row_is_still_skipped(corpus):
    reading = read_jtl(corpus / "flood-uuid-zero-ts.jtl")  # 335 MalformedURLException rows, no _ns columns
    assert len(reading.samples) == 891 and reading.skipped_total == 335
    assert not any("_ns" in w for w in reading.warnings)
