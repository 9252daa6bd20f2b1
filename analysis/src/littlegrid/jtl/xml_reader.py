"""Streams an XML JTL (<testResults>) with expat: sample attributes kept, response bodies never held."""

from __future__ import annotations

import re
from pathlib import Path
from xml.parsers import expat

import numpy as np
import pandas as pd

from littlegrid.jtl.reading import SkipLog
from littlegrid.jtl.schema import XML_ATTRIBUTES, parse_int, string_dtype
from littlegrid.jtl.sniff import Sniffed, open_binary
from littlegrid.usererror import at

SAMPLE_ELEMENTS = ("httpSample", "sample")
CHUNK = 1 << 20
_INT_COLUMNS = ("start_ms", "elapsed_ms", "latency_ms", "connect_ms", "idle_ms", "group_threads",
                "all_threads", "bytes", "sent_bytes")
_TEXT_COLUMNS = ("label", "success", "response_code", "response_message", "thread", "host")
# Character data is kept only inside these elements; everything else (responseData, samplerData,
# cookies, headers) streams past without being stored.
_CAPTURED = ("java.net.URL", "failure", "error", "failureMessage")


class _Collector:
    """expat callbacks: one row per sample element (nested ones marked by depth)."""

    def __init__(self, parser, include_subsamples: bool, skips: SkipLog):
        self.parser = parser
        self.include_subsamples = include_subsamples
        self.skips = skips
        self.columns = {name: [] for name in (*_INT_COLUMNS, *_TEXT_COLUMNS, "url", "failure_message",
                                              "_line", "_depth")}
        self.stack: list[int | None] = []  # row index of each open sample (None: not stored)
        self.element: list[str] = []
        self.text: list[str] = []
        self.assertion: dict[str, str] | None = None
        self.seen_root = False

    def start(self, name, attrs):
        if not self.seen_root:
            self.seen_root = True
            if name != "testResults":
                raise at(self.source, self.parser.CurrentLineNumber, f"root element <{name}> is not <testResults>")
        self.element.append(name)
        self.text = []
        if name in SAMPLE_ELEMENTS:
            depth = len(self.stack)
            self.stack.append(self._row(attrs, depth) if depth == 0 or self.include_subsamples else None)
        elif name == "assertionResult":
            self.assertion = {}

    def end(self, name):
        self.element.pop()
        if name in SAMPLE_ELEMENTS:
            self.stack.pop()
            return
        row = self.stack[-1] if self.stack else None
        value = "".join(self.text)
        if name == "java.net.URL" and row is not None:
            self.columns["url"][row] = value
        elif self.assertion is not None and name in ("failure", "error", "failureMessage"):
            self.assertion[name] = value
        elif name == "assertionResult" and self.assertion is not None:
            failed = self.assertion.get("failure") == "true" or self.assertion.get("error") == "true"
            if failed and row is not None and not self.columns["failure_message"][row]:
                self.columns["failure_message"][row] = self.assertion.get("failureMessage", "")
            self.assertion = None

    def finished_rows(self) -> int:
        """Rows before the first one still open (a top-level sample whose end tag has not come yet)."""
        open_rows = [row for row in self.stack if row is not None]
        return open_rows[0] if open_rows else len(self.columns["_line"])

    def take_finished(self) -> dict[str, list]:
        """The finished rows' columns, removed from the collector (the open ones stay, renumbered)."""
        k = self.finished_rows()
        taken = {name: values[:k] for name, values in self.columns.items()}
        for values in self.columns.values():
            del values[:k]
        self.stack = [None if row is None else row - k for row in self.stack]
        return taken

    def data(self, text):
        if self.element and self.element[-1] in _CAPTURED:
            self.text.append(text)

    def _row(self, attrs, depth) -> int | None:
        line = self.parser.CurrentLineNumber
        ints = {}
        for attribute, column in XML_ATTRIBUTES.items():
            if column in _INT_COLUMNS and attribute in attrs:
                try:
                    ints[column] = parse_int(attrs[attribute], int32=column in ("group_threads", "all_threads"))
                except ValueError:
                    self.skips.add(f"malformed sample ({attribute}={attrs[attribute][:20]!r} is not an integer "
                                   "in range)", line)
                    return None
        row = len(self.columns["_line"])
        for attribute, column in XML_ATTRIBUTES.items():
            self.columns[column].append(ints.get(column) if column in _INT_COLUMNS else attrs.get(attribute))
        self.columns["url"].append(None)
        self.columns["failure_message"].append("")  # as in CSV: empty = no failing assertion
        self.columns["_line"].append(line)
        self.columns["_depth"].append(depth)
        return row


def read_xml(path: Path, sniffed: Sniffed, skips: SkipLog, include_subsamples: bool):
    """(raw columns named as in the table, those some sample has, + _depth; warnings; row index -> line)."""
    return next(iter_xml(path, sniffed, skips, include_subsamples))


def iter_xml(path: Path, sniffed: Sniffed, skips: SkipLog, include_subsamples: bool, block_rows: int | None = None):
    """read_xml's tuple for every block of about `block_rows` samples (None: one block, the whole file), in
    document order. A block ends between top-level samples (a sample's nested ones stay with it), so the blocks
    add up to the whole file's rows; warnings come with the last block, and each block has the columns some of
    its own samples have."""
    parser, collector = _parser(path, include_subsamples, skips)
    warnings = []
    with open_binary(path, sniffed.gzip) as stream:
        while True:
            try:
                chunk = stream.read(CHUNK)
            except (OSError, EOFError) as error:
                raise at(path, None, f"cannot read: {error}") from None
            try:
                parser.Parse(chunk, not chunk)
            except expat.ExpatError as error:
                if chunk:  # broken in the middle: the rest cannot be placed in the tree
                    raise at(path, error.lineno, f"not well-formed XML ({expat.errors.messages[error.code]})") \
                        from None
                warnings.append(_truncated(path, collector))
            except LookupError as error:  # <?xml encoding="..."?> names a codec Python does not know
                raise at(path, 1, f"XML declares an unknown encoding ({error})") from None
            if not chunk:
                break
            if block_rows is not None and collector.finished_rows() >= block_rows:
                yield _block(collector.take_finished(), [])
    if not collector.seen_root:
        raise at(path, None, "XML without a <testResults> element")
    yield _block(collector.columns, warnings)


_TOP_LEVEL_SAMPLE = re.compile(rb"\n<(?:httpSample|sample)[\s>/]")  # JMeter indents nested samples, not these


def read_tail(path: Path, sniffed: Sniffed, nbytes: int, include_subsamples: bool):
    """read_xml's tuple for the samples of the file's last `nbytes` bytes (the whole file when it is no larger),
    from the first top-level sample that starts there; None for a gzip file (no seeking), no such sample, or text
    expat cannot read. A guess (jtl.blocks' ends): the samples are parsed inside a <testResults> of their own,
    and their line numbers count from the cut."""
    if sniffed.gzip:
        return None
    size = path.stat().st_size
    if size <= nbytes:
        return next(iter_xml(path, sniffed, SkipLog(str(path)), include_subsamples))
    with open(path, "rb") as stream:
        stream.seek(size - nbytes)
        text = stream.read()
    first = _TOP_LEVEL_SAMPLE.search(text)
    if first is None:
        return None
    # JMeter writes UTF-8; another declared encoding only spoils the guess
    parser, collector = _parser(path, include_subsamples, SkipLog(str(path)), "UTF-8")
    try:
        parser.Parse(b"<testResults>" + text[first.start() + 1:], True)
    except expat.ExpatError:  # the file's own end tag, or a run killed mid-write: the samples finished so far
        pass
    columns = collector.take_finished()
    return _block(columns, []) if columns["_line"] else None


def _parser(path: Path, include_subsamples: bool, skips: SkipLog, encoding: str | None = None):
    """An expat parser whose callbacks fill a _Collector: (parser, collector)."""
    parser = expat.ParserCreate(encoding)
    parser.buffer_text = True
    collector = _Collector(parser, include_subsamples, skips)
    collector.source = path
    parser.StartElementHandler = collector.start
    parser.EndElementHandler = collector.end
    parser.CharacterDataHandler = collector.data
    return parser, collector


def _block(columns: dict[str, list], warnings: list[str]):
    """read_xml's tuple for some samples: a column none of them has is left out (assemble calls it absent),
    start, elapsed and failure_message (empty = no failing assertion) always kept. A sample has a column when its
    value is not None (the collector keeps str, int or None: what the column's notna() says), so a column none
    has is never built (a file read in small blocks built and tested it for each: 12% of apache-sample_log1.jtl's
    analysis in 206 blocks)."""
    has = {name: values for name, values in columns.items()
           if name in ("start_ms", "elapsed_ms", "failure_message") or name[0] == "_"
           or any(value is not None for value in values)}
    lines = np.asarray(columns["_line"], dtype="int64")
    return _frame(has), warnings, (lambda rows: lines[rows])


def _truncated(path, collector: _Collector) -> str:
    """The file ends inside the document (run killed mid-write): drop samples whose end tag is missing."""
    unfinished = [row for row in collector.stack if row is not None]
    if unfinished:
        keep = unfinished[0]
        for column in collector.columns.values():
            del column[keep:]
    collector.stack.clear()
    return (f"{path}: the XML ends before </testResults> (the run was probably killed mid-write); "
            f"{len(unfinished)} unfinished sample(s) dropped")


def _frame(columns: dict[str, list]) -> dict[str, pd.Series]:
    data = {}
    for name, values in columns.items():
        if name == "_line":
            continue
        if name == "_depth":
            data[name] = pd.Series(np.asarray(values, dtype="int64"))
        elif name in _INT_COLUMNS:
            data[name] = pd.Series(pd.array(values, dtype="Int64"))
        elif name in ("label", "response_code", "thread", "host", "success"):
            data[name] = pd.Series(values, dtype="category")
        else:
            data[name] = pd.Series(values, dtype=string_dtype())
    return data
