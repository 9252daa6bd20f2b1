"""read_jtl and iter_jtl: CSV and XML JMeter result files -> one fixed-schema samples table (docs/jtl.md)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from littlegrid.jtl.assemble import assemble
from littlegrid.jtl.csv_reader import DEFAULT_BLOCK_SIZE, iter_csv_chunks, read_csv
# Skip and SAMPLES_SCHEMA: the package re-exports them from here (littlegrid.jtl.__getattr__)
from littlegrid.jtl.reading import Reading, Skip, SkipLog  # noqa: F401
from littlegrid.jtl.schema import ALWAYS_READ, CATEGORY_COLUMNS, COLUMNS, CSV_TO_COLUMN, SAMPLES_SCHEMA  # noqa: F401
from littlegrid.jtl.sniff import sniff as _sniff
from littlegrid.jtl.xml_reader import read_xml
from littlegrid.usererror import UserError, at

DEFAULT_CHUNK_ROWS = 1_000_000


def read_jtl(paths, *, include_subsamples: bool = False, timestamp_is_start: bool = True, columns=None,
             timestamp_format: str | None = None, block_size: int = DEFAULT_BLOCK_SIZE, fields=None,
             delimiter: str | None = None) -> Reading:
    """Read one JTL or several (a distributed run, runs to combine) into the samples table.

    include_subsamples: keep sub-results (XML nested samples, CSV `label-N` rows inside their parent).
    timestamp_is_start: False when the run had sampleresult.timestamp.start=false (timeStamp = end).
    columns: JMeter column names of a header-less CSV (list or "a,b,c"); default: JMeter's 17, or inferred.
    timestamp_format: jmeter.save.saveservice.timestamp_format when timeStamp is a date (default: detected).
    delimiter: the CSV delimiter (jmeter.save.saveservice.default_delimiter; default: sniffed).
    The command line's --columns, --timestamp-format, --timestamp-is-end, --include-subsamples and
    --jmeter-properties map onto these (littlegrid.jtl.options).
    block_size: bytes parsed at a time (the reader's working memory beside the table it returns).
    fields: table columns the caller needs (default: all). The others are not parsed (a CSV's URL column is
    a third of a default file's bytes) and come back all-null; `absent_columns` still names only the
    columns missing from the file. ALWAYS_READ columns are read whatever `fields` says. XML reads all.
    Raises UserError("file[:line]: problem") for input that is not a readable JTL.
    """
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if not paths:
        raise UserError("read_jtl: no files given")
    if block_size < 1 << 16:
        raise UserError(f"block_size {block_size}: at least 65536 bytes")
    if fields is not None:
        unknown = sorted(set(fields) - set(COLUMNS))
        if unknown:
            raise UserError(f"read_jtl: unknown field {unknown[0]!r} (fields: {', '.join(COLUMNS)})")
        fields = frozenset(fields) | ALWAYS_READ
    parts, skips, warnings, absent, formats, transactions = [], SkipLog(""), [], None, [], set()
    for path in paths:
        part = _read_one(Path(path), include_subsamples, timestamp_is_start, columns, timestamp_format,
                         block_size, fields, delimiter)
        samples, file_skips, file_warnings, file_absent, file_format, file_transactions = part
        parts.append(samples)
        skips.merge(file_skips)
        warnings.extend(file_warnings)
        absent = set(file_absent) if absent is None else absent & set(file_absent)
        formats.append(file_format)
        transactions |= file_transactions
    samples = _concat(parts)
    return Reading(samples=samples, rows_read=len(samples) + skips.total, rows_skipped=skips.skips(),
                   warnings=warnings, absent_columns=[c for c in COLUMNS if c in absent],
                   format="; ".join(dict.fromkeys(formats)), transaction_labels=frozenset(transactions))


def _read_one(path: Path, include_subsamples, timestamp_is_start, columns, timestamp_format, block_size,
              fields=None, delimiter=None):
    source = str(path)
    _check_path(path, source)
    sniffed = _sniff(path, columns, timestamp_format, delimiter)
    skips = SkipLog(source)
    warnings = [f"{source}: {note}" for note in sniffed.notes]
    if sniffed.kind == "xml":
        raw, xml_warnings, line_of = read_xml(path, sniffed, skips, include_subsamples)
        warnings += xml_warnings
        exact, detect_subresults, fmt = (lambda: True), False, sniffed.describe()
    else:
        result = read_csv(path, sniffed, skips, block_size, fields)
        raw = result.frame
        warnings += [f"{source}: {w}" for w in result.warnings]
        exact, detect_subresults, line_of = result.exact_lines, True, result.line_of
        fmt = sniffed.describe()
    if len(raw["elapsed_ms"]) == 0 and skips.total == 0:
        raise at(source, None, "no samples in the file")
    done = assemble(raw, source, skips, timestamp_format=sniffed.timestamp_format,
                    timestamp_is_start=timestamp_is_start, include_subsamples=include_subsamples,
                    detect_subresults=detect_subresults, line_of=line_of, exact_lines=exact)
    warnings += done.warnings
    absent = done.absent
    if fields is not None and sniffed.kind != "xml":  # an unread column is absent only if the file lacks it
        in_file = {CSV_TO_COLUMN[n] for n in sniffed.names if n in CSV_TO_COLUMN}
        absent = [c for c in absent if c in fields or c not in in_file]
    if len(done.samples) == 0:
        warnings.append(f"{source}: no usable samples ({skips.total} rows skipped)")
    return done.samples, skips, warnings, absent, fmt, done.transaction_labels


def _check_path(path: Path, source: str) -> None:
    if not path.exists():
        raise at(source, None, "no such file")
    if path.is_dir():
        raise at(source, None, "is a directory, not a JTL file")


def _concat(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """Stack per-file tables keeping categorical columns categorical (plain concat would make them object)."""
    if len(parts) == 1:
        return parts[0]
    union = {name: pd.api.types.union_categoricals([p[name] for p in parts]).categories
             for name in CATEGORY_COLUMNS}
    aligned = [p.assign(**{n: p[n].cat.set_categories(union[n]) for n in CATEGORY_COLUMNS}) for p in parts]
    return pd.concat(aligned, ignore_index=True)


def iter_jtl(paths, *, chunk_rows: int = DEFAULT_CHUNK_ROWS, include_subsamples: bool = False,
             timestamp_is_start: bool = True, columns=None, timestamp_format: str | None = None,
             block_size: int = DEFAULT_BLOCK_SIZE, delimiter: str | None = None):
    """Read files whose table does not fit in memory: one Reading per chunk of about `chunk_rows` rows
    (at least one block), in file order, so memory is bounded by chunk_rows instead of the file size.

    Same options and table as read_jtl, with three differences: a sub-result whose parent lies in the
    previous chunk is kept; rows pyarrow cannot split are counted without line numbers; a value it
    cannot convert is refused (read_jtl re-reads such a file row by row). XML files come as one chunk.
    """
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if chunk_rows < 1:
        raise UserError(f"chunk_rows {chunk_rows}: at least 1")
    for path in paths:
        path = Path(path)
        source = str(path)
        _check_path(path, source)
        sniffed = _sniff(path, columns, timestamp_format, delimiter)
        if sniffed.kind == "xml":
            yield read_jtl(path, include_subsamples=include_subsamples, timestamp_is_start=timestamp_is_start)
            continue
        notes = [f"{source}: {note}" for note in sniffed.notes]
        for raw, first_line, bad in iter_csv_chunks(path, sniffed, block_size, chunk_rows):
            skips = SkipLog(source)
            for _ in bad:
                skips.add("malformed row (wrong number of fields; line unknown when read in chunks)", None)
            done = assemble(raw, source, skips, timestamp_format=sniffed.timestamp_format,
                            timestamp_is_start=timestamp_is_start, include_subsamples=include_subsamples,
                            detect_subresults=True, line_of=lambda rows, first=first_line: rows + first)
            yield Reading(samples=done.samples, rows_read=len(done.samples) + skips.total,
                          rows_skipped=skips.skips(), warnings=notes + done.warnings,
                          absent_columns=done.absent, format=sniffed.describe(),
                          transaction_labels=frozenset(done.transaction_labels))
            notes = []
