"""Several files at once: one table, each row keeping its source file (and host)."""

from littlegrid.jtl import read_jtl


def test_several_files_are_stacked_keeping_source_and_categories(fixture):
    csv_path, xml_path = fixture("default-header.jtl"), fixture("nested-transaction-responsedata.xml")
    reading = read_jtl([csv_path, xml_path])
    samples = reading.samples
    assert len(samples) == 7
    assert samples.source.value_counts().to_dict() == {str(csv_path): 5, str(xml_path): 2}
    assert samples.label.dtype == "category" and samples.host.dtype == "category"
    assert samples.host.tolist()[5:] == ["gen-1", "gen-1"] and samples.host.iloc[:5].isna().all()
    assert reading.absent_columns == []  # host comes from the XML file
    assert reading.format == "csv ',' header; xml"
    assert reading.transaction_labels == frozenset()
