"""JMeter's CSV save configuration: which `jmeter.save.saveservice.*` flag writes which column, JMeter's
defaults by version, and the layout (columns, delimiter, timestamps) a set of properties gives.

Read from JMeter 5.6.3's SampleSaveConfiguration (flags and defaults) and CSVSaveService (column order);
older versions' defaults from the same classes at the tags v2_1_1 ... v5_0 (docs/jtl.md lists them)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from littlegrid.jtl import java_properties
from littlegrid.jtl.schema import JMETER_CSV_ORDER
from littlegrid.usererror import UserError

PREFIX = "jmeter.save.saveservice."

# Flag (property suffix) -> the CSV columns it writes, in CSVSaveService's order; timeStamp hangs on
# timestamp_format (`none` drops it), every other column on one boolean flag.
FLAG_COLUMNS: dict[str, tuple[str, ...]] = {
    "time": ("elapsed",),
    "label": ("label",),
    "response_code": ("responseCode",),
    "response_message": ("responseMessage",),
    "thread_name": ("threadName",),
    "data_type": ("dataType",),
    "successful": ("success",),
    "assertion_results_failure_message": ("failureMessage",),
    "bytes": ("bytes",),
    "sent_bytes": ("sentBytes",),
    "thread_counts": ("grpThreads", "allThreads"),
    "url": ("URL",),
    "filename": ("Filename",),
    "latency": ("Latency",),
    "encoding": ("Encoding",),
    "sample_count": ("SampleCount", "ErrorCount"),
    "hostname": ("Hostname",),
    "idle_time": ("IdleTime",),
    "connect_time": ("Connect",),
}
FLAG_OF_COLUMN: dict[str, str] = {column: flag for flag, columns in FLAG_COLUMNS.items() for column in columns}
assert tuple(c for cs in FLAG_COLUMNS.values() for c in cs) == JMETER_CSV_ORDER[1:]

# JMeter 5.6.3's defaults (SampleSaveConfiguration's static block): the 17 columns of a default file.
DEFAULT_ON = frozenset(FLAG_COLUMNS) - {"filename", "encoding", "sample_count", "hostname"}


def _toggled(off=(), on=()) -> frozenset[str]:
    return (DEFAULT_ON - set(off)) | set(on)


# Each version's defaults, as flags toggled from 5.6.3's: SampleSaveConfiguration's code defaults at the tags v2_1_1
# ... rel/v5.6.3 (no shipped jmeter.properties sets a column flag) and the columns CSVSaveService (OldSaveService
# before 2.9) writes for them. print_field_names was false before 3.0, so these are the header-less files people
# have. Newest first; the widths differ, so no two can fit one file.
VERSION_DEFAULTS: dict[str, frozenset[str]] = {
    "JMeter 5.0-5.6": DEFAULT_ON,
    "JMeter 3.1-4.0": _toggled(off=["url"]),
    "JMeter 3.0": _toggled(off=["url", "sent_bytes", "connect_time"]),
    "JMeter 2.12-2.13": _toggled(off=["url", "sent_bytes", "connect_time", "idle_time",
                                      "assertion_results_failure_message"]),
    "JMeter 2.3-2.11": _toggled(off=["url", "sent_bytes", "connect_time", "idle_time",
                                     "assertion_results_failure_message", "thread_counts"]),
    # bytes were off, and the CSV writer wrote no Latency although the flag was on
    "JMeter 2.1-2.2": _toggled(off=["url", "sent_bytes", "connect_time", "idle_time",
                                    "assertion_results_failure_message", "thread_counts", "bytes", "latency"]),
}

# sampleresult.timestamp.start: SampleResult's code default is false, JMeter's shipped jmeter.properties
# sets it true; a run that used the shipped file (any run given no jmeter.properties of its own) had true.
SHIPPED_PROPERTIES = {"sampleresult.timestamp.start": "true"}


def columns_of(flags) -> list[str]:
    """The columns a set of enabled flags writes, in JMeter's order (timeStamp first)."""
    return ["timeStamp"] + [c for flag, cs in FLAG_COLUMNS.items() if flag in flags for c in cs]


def flags_of(columns) -> frozenset[str]:
    return frozenset(FLAG_OF_COLUMN[c] for c in columns if c in FLAG_OF_COLUMN)


def nearest_default(flags) -> tuple[int, str]:
    """(flags toggled, version) of the version default closest to `flags`."""
    return min((len(set(flags) ^ default), name) for name, default in VERSION_DEFAULTS.items())


@dataclass(frozen=True)
class SaveConfig:
    """What a run's properties say about its CSV results file."""

    columns: tuple[str, ...]             # JMeter column names, sample_variables last
    delimiter: str
    header: bool                         # print_field_names
    timestamp_format: str | None         # None: epoch milliseconds
    timestamp_is_start: bool
    output_format: str                   # "csv" or "xml"
    sources: tuple[str, ...]             # the files, in the order they were applied


def from_properties(props: dict[str, str], sources=("(properties)",)) -> SaveConfig:
    """The save configuration JMeter 5.6.3 builds from these properties (absent ones take its defaults)."""
    where = " + ".join(map(str, sources))

    def flag(name: str) -> bool:
        value = props.get(PREFIX + name)
        return name in DEFAULT_ON if value is None else value.strip().lower() == "true"

    stamp = props.get(PREFIX + "timestamp_format", "ms").strip()
    if stamp.lower() == "none":
        raise UserError(f"{where}: {PREFIX}timestamp_format=none: the run saved no timeStamp, so its samples "
                        "cannot be placed in time")
    delimiter = props.get(PREFIX + "default_delimiter", ",")
    delimiter = "\t" if delimiter == "\\t" else delimiter  # JMeterUtils.getDelimiter
    if len(delimiter) != 1:
        raise UserError(f"{where}: {PREFIX}default_delimiter {delimiter!r}: must be one character")
    flags = {name for name in FLAG_COLUMNS if flag(name)}
    if "time" not in flags:
        raise UserError(f"{where}: {PREFIX}time=false: the run saved no elapsed time")
    variables = [v.strip() for v in props.get("sample_variables", "").split(",") if v.strip()]
    return SaveConfig(
        columns=tuple(columns_of(flags) + variables), delimiter=delimiter,
        header=props.get(PREFIX + "print_field_names", "true").strip().lower() == "true",
        timestamp_format=None if stamp.lower() == "ms" else stamp,
        timestamp_is_start=props.get("sampleresult.timestamp.start", "false").strip().lower() == "true",
        output_format=props.get(PREFIX + "output_format", "csv").strip().lower(), sources=tuple(map(str, sources)))


def from_files(paths) -> SaveConfig:
    """As JMeter loads them: its shipped jmeter.properties (unless one of `paths` is a jmeter.properties,
    which replaces it), then each file in order, a later file overriding an earlier one (user.properties
    after jmeter.properties, as JMeter does)."""
    paths = [Path(p) for p in paths]
    props: dict[str, str] = {} if any(p.name == "jmeter.properties" for p in paths) else dict(SHIPPED_PROPERTIES)
    for path in paths:
        if not path.is_file():
            raise UserError(f"{path}: no such properties file (--jmeter-properties)")
        props.update(java_properties.load(path))
    return from_properties(props, paths)
