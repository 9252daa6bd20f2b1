"""The save configuration JMeter 5.6.3 derives from jmeter.properties / user.properties, and Java's
properties syntax as Properties.load reads it."""

import argparse

import pytest

from littlegrid.jtl import java_properties
from littlegrid.jtl.options import add_reader_arguments, reader_options
from littlegrid.jtl.save_config import VERSION_DEFAULTS, columns_of, from_files, from_properties
from littlegrid.jtl.schema import JMETER_DEFAULT_COLUMNS
from littlegrid.usererror import UserError

P = "jmeter.save.saveservice."


def test_no_properties_give_jmeter_5_6_3s_17_default_columns_with_a_header():
    config = from_properties({})
    assert config.columns == JMETER_DEFAULT_COLUMNS
    assert (config.delimiter, config.header, config.timestamp_format) == (",", True, None)
    assert config.timestamp_is_start is False  # SampleResult's code default; the shipped file says true


def test_version_defaults_have_the_widths_of_their_header_less_files():
    widths = {name: len(columns_of(flags)) for name, flags in VERSION_DEFAULTS.items()}
    assert widths == {"JMeter 5.0-5.6": 17, "JMeter 3.1-4.0": 16, "JMeter 3.0": 14, "JMeter 2.12-2.13": 12,
                      "JMeter 2.3-2.11": 10, "JMeter 2.1-2.2": 8}


def test_flags_pairs_variables_delimiter_and_timestamps(tmp_path):
    config = from_properties({P + "thread_counts": "false", P + "sample_count": "TRUE", P + "url": "false",
                              P + "default_delimiter": "\\t", P + "timestamp_format": "yyyy/MM/dd HH:mm:ss",
                              "sample_variables": "user, uuid", P + "print_field_names": "false"})
    assert config.columns == ("timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName",
                              "dataType", "success", "failureMessage", "bytes", "sentBytes", "Latency",
                              "SampleCount", "ErrorCount", "IdleTime", "Connect", "user", "uuid")
    assert (config.delimiter, config.header, config.timestamp_format) == ("\t", False, "yyyy/MM/dd HH:mm:ss")


def test_files_apply_in_order_over_the_shipped_jmeter_properties(tmp_path):
    user = tmp_path / "user.properties"
    user.write_text(f"{P}default_delimiter=;\n{P}latency : false\n")
    later = tmp_path / "later.properties"
    later.write_text(f"{P}default_delimiter=|\n")
    config = from_files([user, later])
    assert config.delimiter == "|" and "Latency" not in config.columns
    assert config.timestamp_is_start is True  # the shipped jmeter.properties sets sampleresult.timestamp.start
    own = tmp_path / "jmeter.properties"  # the run's own copy replaces the shipped one
    own.write_text("# without sampleresult.timestamp.start\n")
    assert from_files([own, user]).timestamp_is_start is False


def test_settings_no_file_can_be_read_with_are_refused(tmp_path):
    with pytest.raises(UserError, match="timestamp_format=none: the run saved no timeStamp"):
        from_properties({P + "timestamp_format": "none"})
    with pytest.raises(UserError, match="default_delimiter ';;': must be one character"):
        from_properties({P + "default_delimiter": ";;"})
    with pytest.raises(UserError, match=r"nope.properties: no such properties file \(--jmeter-properties\)"):
        from_files([tmp_path / "nope.properties"])


def test_java_properties_syntax(tmp_path):
    path = tmp_path / "x.properties"
    path.write_bytes(b"# comment\n! also\n  a = 1\nb:2\nc 3\nd=\\t\ne=x\\\n   y\nf=\\u0041\\\\t\ng\n\xe9=latin1\n")
    assert java_properties.load(path) == {"a": "1", "b": "2", "c": "3", "d": "\t", "e": "xy", "f": "A\\t",
                                          "g": "", "\u00e9": "latin1"}
    path.write_text("x=\\u00zz\n")
    with pytest.raises(UserError, match=r"x.properties:1: malformed \\uxxxx escape"):
        java_properties.load(path)


def test_command_line_options_become_read_jtl_keywords(tmp_path):
    parser = argparse.ArgumentParser()
    parser.add_argument("inputs", nargs="+")
    add_reader_arguments(parser)
    assert reader_options(parser.parse_args(["a.jtl"])) == {}
    props = tmp_path / "user.properties"
    props.write_text(f"{P}print_field_names=false\n{P}default_delimiter=|\n{P}timestamp_format=yyyy-MM-dd HH:mm:ss\n")
    args = parser.parse_args(["a.jtl", "--jmeter-properties", str(props), "--columns", "timeStamp,elapsed,label",
                              "--timestamp-is-end", "--include-subsamples"])
    assert reader_options(args) == {"columns": ["timeStamp", "elapsed", "label"], "delimiter": "|",
                                     "timestamp_format": "yyyy-MM-dd HH:mm:ss", "timestamp_is_start": False,
                                     "include_subsamples": True}
    assert reader_options(parser.parse_args(["a.jtl", "--timestamp-format", "ms"])) == {"timestamp_format": None}
