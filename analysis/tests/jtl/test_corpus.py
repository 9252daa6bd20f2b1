"""Every file of the real JTL corpus (../shared/corpus/jtl, see its SOURCES.md) is read with a known row
count, or refused for a stated reason."""

import pytest

from littlegrid.jtl import COLUMNS, read_jtl
from littlegrid.usererror import UserError

# file -> (rows by default, rows with include_subsamples, Transaction Controller rows, what the reader does)
READ = {
    "perfaction-basic.jtl": (100, 100, 0, "plain 5.x default"),
    "karang-tc-commas.jtl": (346, 352, 25, "6 redirect sub-results (authorize-43-0/-1 ...) dropped"),
    "youanchi-chinese.jtl": (1700, 1700, 0, "Chinese labels"),
    "shnyr-cyrillic.jtl": (159, 159, 0, "Cyrillic labels, two runs appended"),
    "insta-rzd-errors-large.jtl": (2813, 4851, 0, "2038 redirect sub-results dropped, 1028 failures"),
    "amisha-results-clean.csv": (5000, 5000, 0, "15 columns, empty Hostname"),
    "flood-uuid-zero-ts.jtl": (891, 891, 0, "335 timeStamp-0 rows skipped, quoted \"uuid\" variable"),
    "xplorin-distributed-2servers.csv": (16, 16, 0, "two engines as threadName prefixes"),
    "taurus-distributed-multiline-crlf.jtl": (225, 225, 0, "multi-line quoted messages, CRLF"),
    "perfplugin-filewithtransactions.csv": (313, 313, 103, "nested transactions kept and named"),
    "ssun86-report-tab.jtl": (100, 300, 0, "TAB; 200 redirect sub-result rows dropped"),
    "gilbert-pipe-noheader.jtl": (61, 61, 0, "pipe, no header, 13 columns inferred"),
    "mvnplugin-csv3-semicolon.csv": (2, 2, 0, "semicolon, doubled quotes"),
    "supercomp-noheader-crlf-errors.jtl": (9, 9, 0, "no header, 17 default columns, CRLF"),
    "noaroet-log-graph-noheader.jtl": (63, 63, 0, "no header, 13 columns inferred"),
    "ssun86-predict-nested.xml": (100, 300, 0, "XML, 2 nested redirects per sample"),
    "sonar-test-trans.jtl.xml": (64, 360, 0, "XML transaction parents on top; 296 children on request"),
    "skruthi-responsedata.xml": (9, 15, 0, "XML with whole HTML pages in responseData"),
    "apache-sample_log1.jtl": (10000, 10000, 0, "XML, 10,000 flat samples"),
    "cedric-asserts-csv-content.xml": (1277, 1277, 62, "CSV named .xml, success from ErrorCount"),
}
REFUSED = {
    "eugene-aggregate-decimal-comma.csv": "Aggregate/Summary Report table",
}


def test_every_corpus_file_is_covered_by_name(corpus):
    files = {p.name for p in corpus.iterdir() if p.is_file() and p.name not in ("SOURCES.md", ".gitattributes")}
    assert files == set(READ) | set(REFUSED)


@pytest.mark.parametrize("name", sorted(READ))
def test_corpus_file_is_read_with_its_row_count(corpus, name):
    rows, with_subsamples, transaction_rows, _ = READ[name]
    reading = read_jtl(corpus / name)
    samples = reading.samples
    assert list(samples.columns) == list(COLUMNS)
    assert len(samples) == rows
    assert reading.rows_read == rows + reading.skipped_total
    assert int(samples.label.isin(reading.transaction_labels).sum()) == transaction_rows
    assert (samples.end_ms - samples.start_ms).equals(samples.elapsed_ms)
    assert (samples.start_ms > 0).all()
    assert set(samples.source.astype(str)) == {str(corpus / name)}
    everything = read_jtl(corpus / name, include_subsamples=True)
    assert len(everything.samples) == with_subsamples


def test_xml_transaction_parents_are_named_only_when_their_children_are_rows_too(corpus):
    top = read_jtl(corpus / "sonar-test-trans.jtl.xml")
    assert top.transaction_labels == frozenset()
    assert any("64 top-level samples are Transaction Controller parents" in w for w in top.warnings)
    everything = read_jtl(corpus / "sonar-test-trans.jtl.xml", include_subsamples=True)
    assert int(everything.samples.label.isin(everything.transaction_labels).sum()) == 64


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_corpus_file_that_is_not_a_sample_log_is_refused(corpus, name):
    with pytest.raises(UserError, match=REFUSED[name]) as error:
        read_jtl(corpus / name)
    assert str(error.value).startswith(f"{corpus / name}:1: ")
