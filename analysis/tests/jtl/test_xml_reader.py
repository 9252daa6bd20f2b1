"""XML JTLs: top-level samples by default, nested ones on request, response bodies never kept."""

import gzip

from littlegrid.jtl import COLUMNS, read_jtl


def test_xml_gives_top_level_samples_with_every_attribute_mapped(fixture):
    reading = read_jtl(fixture("nested-transaction-responsedata.xml"))
    samples = reading.samples
    assert list(samples.columns) == list(COLUMNS)
    assert samples.label.tolist() == ["Buy", "home"]
    buy = samples.iloc[0]
    assert (buy.start_ms, buy.elapsed_ms, buy.end_ms, buy.idle_ms) == (1_700_000_000_000, 300, 1_700_000_000_300, 5)
    assert bool(buy.success) is False and buy.bytes == 3000 and buy.sent_bytes == 400
    assert buy.host == "gen-1" and buy.group_threads == 1 and buy.all_threads == 1
    home = samples.iloc[1]
    assert (home.latency_ms, home.connect_ms, home.url, home.failure_message) == (40, 5, "http://h/", "")
    assert reading.transaction_labels == frozenset()  # its children are not rows: nothing counts twice
    assert reading.format == "xml" and reading.absent_columns == []


def test_xml_subsamples_on_request_with_url_and_first_failing_assertion(fixture):
    reading = read_jtl(fixture("nested-transaction-responsedata.xml"), include_subsamples=True)
    samples = reading.samples
    assert samples.label.tolist() == ["Buy", "cart", "pay", "home"]
    assert reading.transaction_labels == frozenset({"Buy"})
    assert samples.url.tolist()[1:] == ["http://h/cart", "http://h/pay", "http://h/"]
    assert samples.failure_message.iloc[2] == "Test failed: code expected to equal 200"
    assert samples.response_code.iloc[2] == "500"


def test_response_data_streams_past_without_being_held_in_memory(tmp_path):
    # 40 samples each carrying a 1 MiB body: the reader's Python allocations stay far below the file size.
    import tracemalloc

    body = "x" * (1 << 20)
    sample = ('<httpSample t="5" ts="1700000000000" s="true" lb="big" rc="200" rm="OK" tn="T 1-1">'
              f'<responseData class="java.lang.String">{body}</responseData></httpSample>\n')
    path = tmp_path / "bodies.xml"
    path.write_text("<testResults version=\"1.2\">\n" + sample * 40 + "</testResults>\n")
    del body, sample
    tracemalloc.start()
    samples = read_jtl(path).samples
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(samples) == 40
    assert peak < 8 << 20, f"peak {peak / 2**20:.1f} MiB for a 40 MiB file"


def test_gzip_xml_is_read(fixture, tmp_path):
    path = tmp_path / "results.xml.gz"
    path.write_bytes(gzip.compress(fixture("nested-transaction-responsedata.xml").read_bytes()))
    assert read_jtl(path).samples.label.tolist() == ["Buy", "home"]
