"""Error classes from responseCode, responseMessage and failureMessage, on the messages JMeter really writes."""


import numpy as np
import pandas as pd
import pytest

from analysis_synthetic import table
from littlegrid.analysis.reading.error_classes import (classes_and_types, classify, classify_one, count_by_class,
                                                       count_names, error_types, failed_mask)
from littlegrid.jtl import read_jtl



@pytest.mark.parametrize("code, message, failure, expected", [
    ("404", "Not Found", None, "http_4xx"),
    ("503", "Service Unavailable", None, "http_5xx"),
    ("200", "OK", "Test failed: text expected to contain /x/", "http_2xx"),  # an assertion failed a 200
    ("Non HTTP response code: java.net.ConnectException", "Non HTTP response message: Connection refused", None,
     "connection_refused"),
    ("Non HTTP response code: org.apache.http.conn.HttpHostConnectException",
     "Non HTTP response message: Connect to 127.0.0.1:8080 [/127.0.0.1] failed: Connection refused", None,
     "connection_refused"),
    ("Non HTTP response code: org.apache.http.conn.ConnectTimeoutException",
     "Non HTTP response message: Connect to 10.0.0.1:80 [/10.0.0.1] failed: connect timed out", None,
     "connect_timeout"),
    ("Non HTTP response code: java.net.SocketTimeoutException", "Non HTTP response message: connect timed out",
     None, "connect_timeout"),
    ("Non HTTP response code: java.net.SocketTimeoutException", "Non HTTP response message: Read timed out", None,
     "read_timeout"),
    ("Non HTTP response code: java.net.SocketException", "Non HTTP response message: Connection reset", None,
     "connection_reset"),
    ("Non HTTP response code: org.apache.http.NoHttpResponseException",
     "Non HTTP response message: localhost:9090 failed to respond", None, "connection_reset"),
    ("Non HTTP response code: java.net.UnknownHostException", "Non HTTP response message: google.com", None, "other"),
    ("", "Number of samples in transaction : 4, number of failing samples : 3", None, "other"),
    (None, None, None, "other"),
])
def test_a_failed_sample_is_classified_by_what_jmeter_wrote(code, message, failure, expected):
    assert classify_one(code, message, failure) == expected


def test_successes_have_no_class_and_a_missing_success_column_falls_back_on_the_status_code():
    samples = table([(0, 1, "t"), (1, 1, "t"), (2, 1, "t")], 1, success=[True, False, True], codes=["200", "500", "302"])
    classes = classify(samples)
    assert classes.isna().tolist() == [True, False, True] and classes[1] == "http_5xx"
    samples["success"] = pd.array([None] * 3, dtype="boolean")  # all null, as in an errors-only file
    assert list(failed_mask(samples)) == [False, True, False]


@pytest.fixture
def corpus_samples(corpus):
    return lambda name: read_jtl([str(corpus / name)]).samples


def test_the_hostconnect_refusals_and_404s_of_a_headerless_crlf_file_are_counted_as_sources_md_says(corpus_samples):
    # SOURCES.md: 6 connection-refused errors (HttpHostConnectException), 2 × 404, 1 × 200
    assert count_by_class(classify(corpus_samples("supercomp-noheader-crlf-errors.jtl"))) == {
        "connection_refused": 6, "http_4xx": 2}


def test_every_failed_request_of_the_distributed_practice_file_is_a_404_or_a_server_that_failed_to_respond(corpus_samples):
    samples = corpus_samples("amisha-results-clean.csv")
    classes = classify(samples)
    requests = samples["label"] == "1 - Request"
    assert classes[requests].notna().all() and requests.sum() == 2500  # SOURCES.md: all 2,500 failed
    no_response = samples["response_code"].astype(str).str.contains("NoHttpResponseException")
    assert (classes[no_response] == "connection_reset").all() and no_response.sum() > 0
    assert set(classes[requests & ~no_response]) == {"http_4xx"}


def test_read_timeouts_network_failures_and_unknown_hosts_of_a_real_run_are_told_apart(corpus_samples):
    samples = corpus_samples("insta-rzd-errors-large.jtl")
    classes = classify(samples)
    code = samples["response_code"].astype(str)
    assert (classes == "read_timeout").sum() == code.str.contains("SocketTimeoutException").sum() > 0
    assert (classes == "connection_refused").sum() == code.str.contains("HttpHostConnectException").sum() > 0
    assert set(classes[code.str.contains("UnknownHostException")]) == {"other"}
    assert (classes == "http_4xx").sum() == code.str.match(r"4\d\d$").sum()


def test_the_multiline_500_stack_traces_of_the_taurus_fixture_are_server_errors(corpus_samples):
    assert count_by_class(classify(corpus_samples("taurus-distributed-multiline-crlf.jtl"))) == {"http_5xx": 8}


def test_classes_and_types_found_together_are_each_what_it_finds_alone(corpus_samples):
    samples = corpus_samples("insta-rzd-errors-large.jtl")
    classes, types = classes_and_types(samples)
    pd.testing.assert_series_equal(classes, classify(samples))
    pd.testing.assert_series_equal(types, error_types(samples))
    assert len(count_names(types)) > 3 and count_names(types) != count_names(classes)  # two different namings
    only, none = classes_and_types(samples, types=False)
    pd.testing.assert_series_equal(only, classes)
    assert none is None


@pytest.mark.parametrize("one_key", [True, False])
def test_classes_and_types_name_every_failed_row_as_its_own_triple_would(monkeypatch, one_key):
    """Each distinct (code, message, failure) is named once; every failed row gets its triple's names (nulls read
    ""), whether the columns are categorical or strings, against classify_one and error_type_one row by row; with
    the codes as one integer key, and as rows of three (columns too diverse for one key)."""
    from littlegrid.analysis.reading import error_classes
    from littlegrid.analysis.reading.error_classes import error_type_one

    if not one_key:
        monkeypatch.setattr(error_classes, "KEY_LIMIT", 0)

    rng = np.random.default_rng(9)
    n = 3000
    code = rng.choice(["500", "404", "Non HTTP response code: java.net.ConnectException", "200", None], n)
    message = rng.choice(["Internal Server Error", "Not Found", "Connection refused", "OK", None, ""], n)
    failure = rng.choice(["Test failed: code expected 200", None, "timeout after 5000 ms"], n)
    success = rng.random(n) < 0.3
    for categorical in (True, False):
        kind = "category" if categorical else "string"
        table = pd.DataFrame({"success": pd.array(success, dtype="boolean"),
                              "response_code": pd.Series(code).astype(kind),
                              "response_message": pd.Series(message).astype("string"),
                              "failure_message": pd.Series(failure).astype(kind)})
        classes, types = classes_and_types(table)
        for i in range(n):
            if success[i]:
                assert pd.isna(classes[i]) and pd.isna(types[i]), i
            else:
                triple = tuple("" if v is None else v for v in (code[i], message[i], failure[i]))
                assert (classes[i], types[i]) == (classify_one(*triple), error_type_one(*triple)), (i, triple)


# JMeter's JDBC Request: success 200 OK; a failed query's responseCode is its SQLSTATE and the driver's vendor code,
# responseMessage the exception (PostgreSQL's driver, as JMeter 5.6.3 wrote them against PostgreSQL 15); "000" for a
# failure that is no SQLException
JDBC_ROWS = [
    ("08001 0", "org.postgresql.util.PSQLException: Connection to 127.0.0.1:5999 refused. Check that the hostname "
                "and port are correct and that the postmaster is accepting TCP/IP connections.", "connection_refused"),
    ("57014 0", "org.postgresql.util.PSQLException: ERROR: canceling statement due to statement timeout",
     "read_timeout"),
    ("42P01 0", 'org.postgresql.util.PSQLException: ERROR: relation "itemz" does not exist\n  Position: 22', "sql_42"),
    ("53300 0", "org.postgresql.util.PSQLException: FATAL: sorry, too many clients already", "sql_53"),
    ("08006 0", "org.postgresql.util.PSQLException: An I/O error occurred while sending to the backend.", "sql_08"),
    ("000", "java.lang.IllegalArgumentException: Name for DataSource must not be empty in query", "other"),
]


@pytest.mark.parametrize("code, message, expected", JDBC_ROWS, ids=[r[2] + ":" + r[0] for r in JDBC_ROWS])
def test_a_jdbc_failure_is_classed_by_its_message_then_its_sqlstate(code, message, expected):
    assert classify_one(code, message, None) == expected


def test_a_jtl_of_jdbc_samples_reads_with_its_failures_classed(tmp_path):
    header = ("timeStamp,elapsed,label,responseCode,responseMessage,threadName,success,failureMessage,bytes,sentBytes,"
              "grpThreads,allThreads,URL,Latency,IdleTime,Connect")
    rows = [f"{1_795_933_769_659 + 10 * i},12,query,200,OK,users 1-1,true,,11,0,1,1,null,12,0,3" for i in range(4)]
    quoted = [message.replace('"', '""') for _, message, _ in JDBC_ROWS]  # as JMeter's CSV writer quotes them
    rows += [f'{1_795_933_769_759 + i},5,query,{code},"{text}",users 1-1,false,,{len(text)},0,1,1,null,0,0,5'
             for i, ((code, _, _), text) in enumerate(zip(JDBC_ROWS, quoted))]
    jtl = tmp_path / "jdbc.jtl"
    jtl.write_text("\n".join([header, *rows]) + "\n")
    samples = read_jtl(jtl).samples
    assert int(failed_mask(samples).sum()) == len(JDBC_ROWS)
    assert count_by_class(classify(samples)) == {e: 1 for *_, e in JDBC_ROWS if e != "other"} | {"other": 1}
