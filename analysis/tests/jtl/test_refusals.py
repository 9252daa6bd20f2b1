"""Input that is not a readable JTL is refused with one line `file[:line]: problem`, never a traceback."""

import pytest

from littlegrid.jtl import read_jtl
from littlegrid.usererror import UserError

CASES = {
    "empty.jtl": (None, "empty file"),
    "random-text.txt": (1, "not a JTL"),
    "summary-report.csv": (1, "Aggregate/Summary Report table"),
    "header-without-elapsed.csv": (1, "no elapsed column"),
    "test-plan-not-results.xml": (None, "root element is <jmeterTestPlan>, not <testResults>"),
    "header-only.jtl": (None, "no samples in the file"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_refused_naming_file_line_and_problem(fixture, name):
    line, problem = CASES[name]
    with pytest.raises(UserError) as error:
        read_jtl(fixture(name))
    message = str(error.value)
    where = f"{fixture(name)}:{line}: " if line else f"{fixture(name)}: "
    assert message.startswith(where) and problem in message
    assert "\n" not in message


def test_missing_file_and_directory_are_refused(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        read_jtl(tmp_path / "nope.jtl")
    with pytest.raises(UserError, match="is a directory"):
        read_jtl(tmp_path)


def test_headerless_file_whose_columns_cannot_be_inferred_asks_for_columns(tmp_path):
    path = tmp_path / "five.jtl"
    path.write_text("1700000000000,5,a,b,c\n1700000000001,6,a,b,c\n")
    with pytest.raises(UserError, match=r"5 fields per row: 35 save configurations fit the values, none within 2 "
                                        r"save flags of a JMeter default .*; pick one with --columns NAMES or "
                                        r"--jmeter-properties FILE$"):
        read_jtl(path)


def test_columns_option_with_the_wrong_number_of_names_is_refused(tmp_path):
    path = tmp_path / "three.jtl"
    path.write_text("1700000000000,5,a\n")
    with pytest.raises(UserError, match="names 2 columns but the file's rows have 3 fields"):
        read_jtl(path, columns=["timeStamp", "elapsed"])


def test_timestamp_neither_epoch_nor_known_pattern_asks_for_timestamp_format(tmp_path):
    path = tmp_path / "odd-dates.jtl"
    path.write_text("timeStamp,elapsed,label\nTuesday noon,5,a\n")
    with pytest.raises(UserError, match=r":2: timeStamp 'Tuesday noon' is neither epoch .* give its pattern with --timestamp-format PATTERN"):
        read_jtl(path)


def test_malformed_xml_in_the_middle_is_refused_with_its_line(tmp_path):
    path = tmp_path / "broken.xml"
    path.write_text('<testResults>\n<httpSample t="1" ts="1700000000000" lb="a" s="true"/>\n<oops <\n'
                    + "<httpSample/>\n" * 200_000 + "</testResults>\n")
    with pytest.raises(UserError, match=r"broken.xml:3: not well-formed XML"):
        read_jtl(path)


def test_corrupt_gzip_is_refused(tmp_path):
    path = tmp_path / "bad.jtl.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(UserError, match="bad.jtl.gz"):
        read_jtl(path)


def test_headerless_rows_of_one_value_are_refused_not_read_without_elapsed(tmp_path):
    # found by tests/jtl/test_fuzz_jtl.py: a layout of timeStamp alone passed the inference, then the reader
    # looked for the elapsed column it lacked (a KeyError)
    path = tmp_path / "timestamps.jtl"
    path.write_text("1700000000000,,\n1700000000001\n1700000000002")
    with pytest.raises(UserError) as error:
        read_jtl(path)
    assert str(error.value).startswith(f"{path}:1: no header and 1 fields per row (JMeter's default is 17): no "
                                       "JMeter save configuration fits the values")
