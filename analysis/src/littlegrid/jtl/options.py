"""The JTL reader's command-line options, shared by `analyze`, `report` and `compare`, and the read_jtl
keywords they give. Outside littlegrid.jtl so that defining them does not import the reader (pandas and
pyarrow: half a second a `report` of an analysed run folder need not pay)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_reader_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "reading JTL files", "how to read a JTL whose layout the file does not say (docs/jtl.md)")
    group.add_argument("--columns", metavar="NAMES",
                       help="JMeter column names of a header-less CSV, comma-separated "
                            "(e.g. timeStamp,elapsed,label,responseCode,threadName,success,bytes); default: inferred")
    group.add_argument("--timestamp-format", metavar="PATTERN",
                       help="the run's jmeter.save.saveservice.timestamp_format when timeStamp is a date "
                            "(Java SimpleDateFormat, e.g. 'yyyy/MM/dd HH:mm:ss.SSS'; 'ms' = epoch milliseconds)")
    group.add_argument("--timestamp-is-end", action="store_true",
                       help="timeStamp is the sample's end (the run had sampleresult.timestamp.start=false)")
    group.add_argument("--include-subsamples", action="store_true",
                       help="keep sub-results (redirects, embedded resources) as samples of their own")
    group.add_argument("--jmeter-properties", metavar="FILE", nargs="+", type=Path,
                       help="the run's jmeter.properties and/or user.properties (later files override earlier "
                            "ones): columns, delimiter, timestamp format and meaning as JMeter derived them; "
                            "the options above override them. Give it after the inputs")


def reader_options(args: argparse.Namespace) -> dict:
    """read_jtl keywords from parsed arguments: the properties' layout first, then the explicit options.
    Empty when nothing was given, so callers can tell "read as usual"."""
    options: dict = {}
    if getattr(args, "jmeter_properties", None):
        from littlegrid.jtl import save_config

        config = save_config.from_files(args.jmeter_properties)
        options.update(columns=list(config.columns), delimiter=config.delimiter,
                       timestamp_format=config.timestamp_format, timestamp_is_start=config.timestamp_is_start)
    if getattr(args, "columns", None):
        options["columns"] = [name.strip() for name in args.columns.split(",")]
    if getattr(args, "timestamp_format", None):
        options["timestamp_format"] = None if args.timestamp_format.strip().lower() == "ms" else args.timestamp_format
    if getattr(args, "timestamp_is_end", False):
        options["timestamp_is_start"] = False
    if getattr(args, "include_subsamples", False):
        options["include_subsamples"] = True
    return options
