"""Looks at the start of a file and decides how to read it: XML or CSV, delimiter, header, timestamps."""

from __future__ import annotations

import csv
import gzip
import io
from dataclasses import dataclass, field
from pathlib import Path

from littlegrid.jtl import columns_infer, timeformat
from littlegrid.jtl.schema import CANONICAL_HEADER, JMETER_DEFAULT_COLUMNS, NS_TWINS, REQUIRED_CSV
from littlegrid.usererror import at

SAMPLE_BYTES = 256 * 1024  # enough for hundreds of records, small enough to sniff a 10 GB file instantly
SAMPLE_RECORDS = 500
DELIMITERS = (",", ";", "\t", "|")
_DELIMITER_NAMES = {",": "','", ";": "';'", "\t": "TAB", "|": "'|'"}
GZIP_MAGIC = b"\x1f\x8b"
BOM = "\ufeff"
NS_TWINS_HEADER = {name.lower(): name for name in NS_TWINS}  # sample variables, any case


@dataclass(frozen=True)
class Sniffed:
    """How to read one file."""

    kind: str                        # "csv" or "xml"
    gzip: bool
    delimiter: str = ","
    header: bool = True
    names: tuple[str, ...] = ()      # one JMeter column name per field (sample variables keep their own)
    timestamp_format: str | None = None  # Java pattern, None = epoch milliseconds
    notes: tuple[str, ...] = field(default_factory=tuple)  # warnings worth passing on

    def describe(self) -> str:
        if self.kind == "xml":
            return "xml" + (" gzip" if self.gzip else "")
        parts = ["csv", _DELIMITER_NAMES.get(self.delimiter, repr(self.delimiter)),
                 "header" if self.header else "no header"]
        if self.timestamp_format:
            parts.append(f"timestamps '{self.timestamp_format}'")
        if self.gzip:
            parts.append("gzip")
        return " ".join(parts)


def open_binary(path: Path, compressed: bool):
    return gzip.open(path, "rb") if compressed else open(path, "rb")


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as raw:
        return raw.read(2) == GZIP_MAGIC


def read_head(path: Path, compressed: bool) -> tuple[str, bool]:
    """(decoded start of the file without BOM, whether that is the whole file)."""
    try:
        with open_binary(path, compressed) as stream:
            head = stream.read(SAMPLE_BYTES + 1)
    except (OSError, EOFError) as error:  # gzip.BadGzipFile is an OSError
        raise at(path, None, f"cannot read: {error}") from None
    whole = len(head) <= SAMPLE_BYTES
    text = head[:SAMPLE_BYTES].decode("utf-8", errors="replace")
    return text.removeprefix(BOM), whole


def sniff(path: Path, columns=None, timestamp_format: str | None = None, delimiter: str | None = None) -> Sniffed:
    """How to read `path`; `columns`, `timestamp_format`, `delimiter`: what the user said (else inferred)."""
    compressed = is_gzip(path)
    text, whole = read_head(path, compressed)
    if not text.strip():
        raise at(path, None, "empty file: no samples")
    if text.lstrip().startswith("<"):
        return _sniff_xml(path, text, compressed)
    if not whole:  # the sample may end inside a record: keep whole lines only
        text = text[: text.rfind("\n") + 1] or text
    delimiter, header = _choose_delimiter(path, text, delimiter)
    rows = _split(text, delimiter, SAMPLE_RECORDS)
    if not whole and len(rows) > 1:
        rows = rows[:-1]  # may be cut inside a quoted field
    first = [name.strip() for name in rows[0]]
    if header:
        names = _header_names(path, first)
        data = rows[1:]
        notes: list[str] = []
        given = [CANONICAL_HEADER.get(c.strip().lower(), c.strip()) for c in _as_list(columns or [])]
        if given and given != names:
            notes.append("--columns ignored: the file has a header naming other columns")
    else:
        data = rows
        names, notes = _headerless_names(path, data, columns)
    ts_format = _timestamp_format(path, names, data, timestamp_format, header)
    if ts_format and not timeformat.has_zone(ts_format):
        notes.append(f"timestamps '{ts_format}' have no time zone: taken as UTC")
    return Sniffed("csv", compressed, delimiter, header, tuple(names), ts_format, tuple(notes))


def _sniff_xml(path: Path, text: str, compressed: bool) -> Sniffed:
    import re

    body = re.sub(r"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", "", text, flags=re.S).lstrip()
    match = re.match(r"<([A-Za-z_][\w.\-:]*)", body)
    if not match:
        raise at(path, 1, "XML without a root element: not a JMeter results file")
    if match.group(1) != "testResults":
        raise at(path, None, f"XML root element is <{match.group(1)}>, not <testResults>: "
                             "not a JMeter results file (a test plan .jmx is not a result log)")
    return Sniffed("xml", compressed)


def _split(text: str, delimiter: str, limit: int) -> list[list[str]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows = []
    try:
        for row in reader:
            if row:
                rows.append(row)
            if len(rows) >= limit:
                break
    except csv.Error:  # a stray NUL or similar: the rows so far are enough to decide
        pass
    return rows


def _choose_delimiter(path: Path, text: str, given: str | None = None) -> tuple[str, bool]:
    """(delimiter, has header). A header names timeStamp/elapsed; a header-less file starts with a timestamp.
    The delimiter is the one that gives the most rows of the first row's width (the widest on a tie)."""
    best = None
    for delimiter in (given,) if given else DELIMITERS:
        rows = _split(text, delimiter, 50)
        if not rows:
            continue
        first = [f.strip().lower() for f in rows[0]]
        known = sum(1 for f in first if f in CANONICAL_HEADER)
        if len(first) > 1 and known >= 2:
            score = (2, known, 0)
        elif len(first) > 2 and _looks_like_timestamp(first[0]):
            counts = [len(r) for r in rows]
            score = (1, counts.count(len(first)), len(first))
        else:
            continue
        if best is None or score > best[0]:
            best = (score, delimiter)
    if best is None and given:
        shown = text.lstrip().split("\n", 1)[0].strip()[:60]
        raise at(path, 1, f"split at {_DELIMITER_NAMES.get(given, repr(given))} (the delimiter "
                          f"--jmeter-properties gives) the first line is neither a JMeter CSV header nor a "
                          f"sample row ({shown!r})")
    if best is None:
        _refuse_not_jtl(path, text.lstrip().split("\n", 1)[0])
    return best[1], best[0][0] == 2


def _looks_like_timestamp(value: str) -> bool:
    value = value.strip()
    return bool(timeformat.EPOCH.match(value)) or timeformat.detect([value]) is not None


def _refuse_not_jtl(path: Path, first_line: str):
    lowered = first_line.lower()
    if "# samples" in lowered or ("label" in lowered and ("average" in lowered or "median" in lowered)):
        raise at(path, 1, "an Aggregate/Summary Report table (statistics per label), not a sample log: "
                          "give the JTL the listener or `jmeter -l` wrote")
    shown = first_line.strip()[:60]
    raise at(path, 1, f"not a JTL: the first line is neither a JMeter CSV header nor a sample row ({shown!r})")


def _header_names(path: Path, first: list[str]) -> list[str]:
    names, seen = [], set()
    for raw in first:
        name = CANONICAL_HEADER.get(raw.lower()) or NS_TWINS_HEADER.get(raw.lower(), raw)
        while name in seen:  # duplicate sample_variables names: keep both, distinctly
            name += "_"
        seen.add(name)
        names.append(name)
    missing = [c for c in REQUIRED_CSV if c not in names]
    if missing:
        raise at(path, 1, f"CSV header has no {' or '.join(missing)} column: cannot place samples in time")
    return names


def _headerless_names(path: Path, data: list[list[str]], columns) -> tuple[list[str], list[str]]:
    width = max((len(r) for r in data), key=[len(r) for r in data].count)
    if columns:
        names = [CANONICAL_HEADER.get(c.strip().lower(), c.strip()) for c in _as_list(columns)]
        if len(names) != width:
            raise at(path, 1, f"--columns names {len(names)} columns but the file's rows have {width} fields")
        for required in REQUIRED_CSV:
            if required not in names:
                raise at(path, None, f"--columns has no {required}")
        return names, [f"no header: columns as given (--columns or --jmeter-properties): {','.join(names)}"]
    if width == len(JMETER_DEFAULT_COLUMNS):
        return list(JMETER_DEFAULT_COLUMNS), ["no header: JMeter's 17 default columns assumed"]
    found = columns_infer.infer_layout([r for r in data if len(r) == width])
    if found.names is None:
        pick = "pick one with --columns NAMES or --jmeter-properties FILE"
        if found.candidates:
            listed = " | ".join(",".join(c) for c in found.candidates[:columns_infer.SHOWN])
            more = len(found.candidates) - columns_infer.SHOWN
            how = ("fit the values equally well" if found.tied else
                   f"fit the values, none within {columns_infer.MAX_TOGGLES} save flags of a JMeter default "
                   "(closest first)")
            raise at(path, 1, f"no header and {width} fields per row: {len(found.candidates)} save configurations "
                              f"{how}: {listed}{f' and {more} more' if more > 0 else ''}; {pick}")
        raise at(path, 1, f"no header and {width} fields per row (JMeter's default is 17): no JMeter save "
                          f"configuration fits the values; name the columns with --columns NAMES or "
                          "--jmeter-properties FILE")
    return found.names, [f"no header: layout inferred from the values: {','.join(found.names)} ({found.why})"]


def _as_list(columns) -> list[str]:
    return columns.split(",") if isinstance(columns, str) else list(columns)


def _timestamp_format(path, names, data, given: str | None, header: bool) -> str | None:
    index = names.index("timeStamp")
    values = [r[index] for r in data if len(r) > index][:50]
    if not values or all(timeformat.EPOCH.match(v) for v in values if v.strip()):
        return None
    line = 2 if header else 1
    if given:
        try:
            timeformat.to_strptime(given)
        except ValueError as error:
            raise at(path, None, f"--timestamp-format {given!r}: {error}") from None
        if not timeformat.matches(values[0], given):
            raise at(path, line, f"timeStamp {values[0]!r} does not match --timestamp-format {given!r}")
        return given
    detected = timeformat.detect(values)
    if detected is None:
        raise at(path, line, f"timeStamp {values[0]!r} is neither epoch milliseconds nor a common date "
                             "pattern: give its pattern with --timestamp-format PATTERN (the run's "
                             "jmeter.save.saveservice.timestamp_format), or --jmeter-properties FILE")
    return detected
