"""Turns raw columns of one file into the fixed samples table: times, success, skips, sub-results, transactions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from littlegrid.jtl import timeformat
from littlegrid.jtl.reading import SkipLog
from littlegrid.jtl.schema import (CATEGORY_COLUMNS, COLUMNS, TRANSACTION_MESSAGE_PREFIX, empty_column,
                                   pandas_dtype)

LAST_EPOCH_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z
FIRST_TWIN_EPOCH_MS = 946_684_800_000  # 2000-01-01: an earlier timeStamp_ns is a System.nanoTime, not a date
NS_PER_MS = 1_000_000
LONGEST_ELAPSED_MS = 366 * 86_400_000  # beyond this a value is garbage, and end_ms could overflow
SUBRESULT_REASON = "sub-result row of a parent sample (written because subresults=true; include_subsamples keeps it)"


@dataclass
class Assembled:
    samples: pd.DataFrame
    absent: list[str]
    warnings: list[str]
    transaction_labels: set[str]
    # each (label, thread)'s latest-starting row, for the next chunk's sub-results (assemble's carried_parents)
    parents: pd.DataFrame | None = None
    # XML read top level only: (rows, labels) of the Transaction Controller parents it noted (parents_warning)
    top_level_parents: tuple[int, frozenset[str]] | None = None


def assemble(raw: dict[str, pd.Series], source: str, skips: SkipLog, *, timestamp_format: str | None,
             timestamp_is_start: bool, include_subsamples: bool, detect_subresults: bool,
             line_of, exact_lines=lambda: True, carried_parents: pd.DataFrame | None = None) -> Assembled:
    """`raw` maps table column names (a subset) and optionally `error_count` / `_depth` to equally long
    Series; `line_of(row indices)` gives file lines (record numbers when `exact_lines()` is False).
    carried_parents: a file read in chunks passes the previous chunk's `parents`, so that a sub-result whose
    parent was written at the end of the previous chunk is still found (JMeter writes the parent, then its
    sub-results); the result's `parents` are then this chunk's, for the next one."""
    warnings: list[str] = []
    top_level_parents = None
    rows = len(raw["elapsed_ms"])
    keep = np.ones(rows, dtype=bool)

    def where(lines):
        return list(lines) if exact_lines() else [f"record {n}" for n in lines]

    def drop(mask: np.ndarray, reason: str) -> None:
        mask = mask & keep
        if mask.any():
            skips.add_many(reason, where(line_of(np.flatnonzero(mask)[:5])), count=int(mask.sum()))
            keep[mask] = False

    start = raw["start_ms"]
    if timestamp_format:
        epoch, ok = timeformat.to_epoch_ms(start, timestamp_format)
        drop(~ok & start.notna().to_numpy(), f"timeStamp not in the format '{timestamp_format}'")
        start = pd.Series(pd.array(np.where(ok, epoch, 0), dtype="Int64")).mask(~ok)
    elapsed = raw["elapsed_ms"]
    drop(_isna(start) | _isna(elapsed), "no timeStamp or elapsed")
    start_values = _ints(start)
    elapsed_values = _ints(elapsed)
    warnings += [f"{source}: {note}" for note in _use_ns_twins(raw, start_values, elapsed_values)]
    drop(elapsed_values < 0, "negative elapsed")
    drop(start_values <= 0, "timeStamp 0: the sample never started (e.g. MalformedURLException)")
    drop(start_values > LAST_EPOCH_MS, "timeStamp after the year 9999: not epoch milliseconds")
    drop(elapsed_values > LONGEST_ELAPSED_MS, "elapsed longer than a year")

    notes: list[str] = []
    success, problem_rows = _success(raw, notes)
    warnings += [f"{source}: {note}" for note in notes]
    if problem_rows is not None:
        drop(problem_rows, "success is neither true nor false")

    if not timestamp_is_start:  # sampleresult.timestamp.start=false: timeStamp is the end
        start_values -= elapsed_values  # in place: it may be a view into the reader's times block
    # start, end and elapsed share one 2-D block so that building the DataFrame copies nothing; the
    # CSV reader may have filled it already (start_ms and elapsed_ms are then views of rows 0 and 2).
    times = raw.pop("_times", None)
    if times is None or not (np.shares_memory(start_values, times) and np.shares_memory(elapsed_values, times)):
        times = np.empty((3, rows), dtype="int64")
        times[0], times[2] = start_values, elapsed_values
    np.add(times[0], times[2], out=times[1])
    del start, elapsed, start_values, elapsed_values
    raw.pop("start_ms"), raw.pop("elapsed_ms")

    columns: dict[str, pd.Series] = {}
    absent: list[str] = []
    for name in COLUMNS[3:]:
        if name == "success":
            columns[name] = success if success is not None else empty_column(name, rows)
            if success is None:
                absent.append(name)
        elif name == "source":
            columns[name] = pd.Series(pd.Categorical.from_codes(np.zeros(rows, dtype="int8"), [source]))
        elif name in raw:
            columns[name] = _as_dtype(raw.pop(name), name)
            if name == "host":  # an empty Hostname field means the host was not recorded
                columns[name] = columns[name].cat.remove_categories([""]) \
                    if "" in columns[name].cat.categories else columns[name]
        else:
            columns[name] = empty_column(name, rows)
            absent.append(name)
    table = pd.concat([pd.DataFrame(times.T, columns=list(COLUMNS[:3]), copy=False),
                       pd.DataFrame(columns, copy=False)], axis=1, copy=False)
    del columns

    transactions = _transaction_labels(table)
    parents = None
    if detect_subresults:
        sub = _subresult_rows(table, keep, transactions, carried_parents)
        if carried_parents is not None:
            parents = latest_parents(table, keep, carried_parents)
        if sub.any():
            if include_subsamples:
                warnings.append(f"{source}: {int(sub.sum())} sub-result rows (label-N of a parent in the same "
                                "thread) kept as asked: requests are counted twice")
            else:
                drop(sub, SUBRESULT_REASON)
                warnings.append(f"{source}: {int(sub.sum())} sub-result rows (label-N inside a parent sample "
                                "of the same thread) dropped so that requests are not counted twice")
    if "_depth" in raw and not include_subsamples:
        keep &= raw["_depth"].to_numpy() == 0
    if transactions:
        count = int(table["label"].isin(transactions).to_numpy()[keep].sum())
        if detect_subresults or include_subsamples:  # the samples they wrap are rows of the table too
            warnings.append(transaction_warning(source, count, transactions))
        else:  # XML, top level only: the parent is the one row for its samples, nothing counts twice
            warnings.append(parents_warning(source, count, transactions))
            top_level_parents = (count, frozenset(transactions))
            transactions = set()
    if not keep.all():
        table = table[keep].reset_index(drop=True)
        for name in CATEGORY_COLUMNS:
            table[name] = table[name].cat.remove_unused_categories()
    return Assembled(table, absent, warnings, transactions, parents, top_level_parents)


def parents_warning(source: str, count: int, labels) -> str:
    """The note for an XML read top level only whose top-level samples include Transaction Controller parents."""
    return (f"{source}: {count} top-level samples are Transaction Controller parents (labels: "
            f"{_short(sorted(labels))}); their children are not included")


def transaction_warning(source: str, count: int, labels) -> str:
    """The note for Transaction Controller rows kept beside the samples they wrap (a CSV's)."""
    return (f"{source}: {count} Transaction Controller rows kept beside the samples they wrap (labels: "
            f"{_short(sorted(labels))}); see Reading.transaction_labels")


def _use_ns_twins(raw, start_values: np.ndarray, elapsed_values: np.ndarray) -> list[str]:
    """Where timeStamp or elapsed is 0 and the file has its nanosecond twin (timeStamp_ns, elapsed_ns), take
    the twin (floor to ms), in place; a timeStamp_ns before 2000 is a monotonic clock, not a date, and is not
    used. Returns what was done, for the reading notes."""
    notes = []
    for name, values, column in (("start_ns", start_values, "timeStamp"), ("elapsed_ns", elapsed_values, "elapsed")):
        twin = raw.pop(name, None)
        if twin is None:
            continue
        ms = _ints(twin) // NS_PER_MS
        use = (values == 0) & (ms > 0)
        if column == "timeStamp":
            use &= (ms >= FIRST_TWIN_EPOCH_MS) & (ms <= LAST_EPOCH_MS)
        if use.any():
            values[use] = ms[use]
            notes.append(f"{int(use.sum())} rows have {column} 0: taken from {column}_ns (nanoseconds, floored to ms)")
    return notes


def _isna(series: pd.Series) -> np.ndarray:
    return series.isna().to_numpy()


def _ints(series: pd.Series) -> np.ndarray:
    """int64 values, nulls as 0 (their rows are dropped already)."""
    if series.dtype == "int64":
        return series.to_numpy()
    return series.astype("Int64").fillna(0).to_numpy(dtype="int64")


def _as_dtype(series: pd.Series, name: str) -> pd.Series:
    dtype = pandas_dtype(name)
    if dtype == "category":
        return series if series.dtype == "category" else series.astype("string").astype("category")
    if str(series.dtype) == str(dtype) and dtype != "category":
        return series
    return series.astype(dtype)


def _success(raw: pd.DataFrame, warnings: list[str]):
    """(success boolean series, rows whose value is not a boolean) from text in any case; a missing
    success column is derived from ErrorCount (JMeter writes 0 for a successful sample)."""
    if "success" not in raw:
        if "error_count" in raw:
            warnings.append("no success column: success taken from ErrorCount == 0")  # prefixed below
            errors = raw["error_count"]
            return pd.Series(pd.array(errors.eq(0).to_numpy(), dtype="boolean")).mask(_isna(errors)), None
        return None, None
    text = raw["success"]
    if text.dtype == "boolean":  # the fast path converted it already
        return text, None
    if text.dtype != "category":
        text = text.astype("category")
    lowered = text.cat.categories.astype(str).str.strip().str.lower()
    # -2: an empty field, unknown as on the fast path (pyarrow reads "" as null); the row-by-row path keeps ""
    mapping = np.select([lowered == "true", lowered == "false", lowered == ""], [1, 0, -2], -1).astype("int8")
    codes = text.cat.codes.to_numpy()
    value = np.where(codes >= 0, mapping[np.maximum(codes, 0)], np.int8(-2))
    result = pd.Series(pd.array(value == 1, dtype="boolean")).mask(value < 0)
    return result, (value == -1)


def _transaction_labels(table: pd.DataFrame) -> set[str]:
    messages = table["response_message"]
    if messages.isna().all():
        return set()
    is_tx = messages.str.startswith(TRANSACTION_MESSAGE_PREFIX).fillna(False).to_numpy(dtype=bool)
    return set(table["label"][is_tx].astype(str).unique()) if is_tx.any() else set()


PARENT_COLUMNS = ["parent", "thread", "start", "parent_end"]


def latest_parents(table: pd.DataFrame, keep: np.ndarray, carried: pd.DataFrame) -> pd.DataFrame:
    """The latest-starting kept row of each (label, thread) among `table` and the `carried` ones: the only
    parent a later chunk's sub-result can still match (matching takes the latest parent starting at or before
    it). Bounded by labels × threads, whatever the file's length."""
    rows = np.flatnonzero(keep)
    chosen = rows[_latest_of_each_pair(table["label"].cat.codes.to_numpy()[rows],
                                       table["thread"].cat.codes.to_numpy()[rows], table["start_ms"].to_numpy()[rows])]
    parent = np.concatenate([carried["parent"].to_numpy(dtype=object), _names(table["label"], chosen)])
    thread = np.concatenate([carried["thread"].to_numpy(dtype=object), _names(table["thread"], chosen)])
    start = np.concatenate([carried["start"].to_numpy(dtype=np.int64), table["start_ms"].to_numpy()[chosen]])
    end = np.concatenate([carried["parent_end"].to_numpy(dtype=np.int64), table["end_ms"].to_numpy()[chosen]])
    # per (parent, thread) the last row of its latest start, as merge_asof's backward match takes the last of
    # equal starts; in the rows' order (a pandas group-by and drop_duplicates here took ~25 ms a block)
    pair = pd.factorize(parent)[0].astype(np.int64) * (len(thread) + 1) + pd.factorize(thread)[0]
    order = np.lexsort((np.arange(len(pair)), start, pair))
    last = np.sort(order[np.append(pair[order][1:] != pair[order][:-1], True)]) if len(pair) else order
    return pd.DataFrame({"parent": parent[last], "thread": thread[last], "start": start[last],
                         "parent_end": end[last]})


DENSE_PAIRS = 1 << 20  # (label, thread) pairs counted in arrays indexed by the pair (8 MB each); more are hashed


def _latest_of_each_pair(label: np.ndarray, thread: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Per distinct (label, thread), in order of first appearance, the position of its latest start (the first of
    equal starts: ties are a parent and its own zero-length child at worst, whose order latest_parents' drop
    settles). Labels × threads is small in a load test, so arrays indexed by the pair do it in a few linear passes
    (a pandas group-by took ~30 ms a block); a larger product is hashed, as before."""
    width = int(thread.max(initial=0)) + 2
    pair = (label.astype(np.int64) + 1) * width + (thread.astype(np.int64) + 1)  # a null code (-1) is 0
    size = int(pair.max(initial=0)) + 1
    if size > DENSE_PAIRS:
        return pd.Series(start).groupby(pair, sort=False).idxmax().to_numpy()
    n = len(pair)
    latest = np.full(size, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(latest, pair, start)
    at_latest = np.flatnonzero(start == latest[pair])
    first_latest = np.full(size, n, dtype=np.int64)
    np.minimum.at(first_latest, pair[at_latest], at_latest)
    first_seen = np.full(size, n, dtype=np.int64)
    np.minimum.at(first_seen, pair, np.arange(n, dtype=np.int64))
    present = np.flatnonzero(first_seen < n)
    return first_latest[present[np.argsort(first_seen[present], kind="stable")]]


def _names(column: pd.Series, rows: np.ndarray) -> np.ndarray:
    """column.astype(str) at `rows` of a categorical, converting only its categories (a null reads "nan", as
    astype(str) writes it)."""
    names = np.append(np.asarray(column.cat.categories.astype(str), dtype=object), "nan")
    return names[column.cat.codes.to_numpy()[rows]]


def _subresult_rows(table: pd.DataFrame, keep: np.ndarray, transactions: set[str],
                    carried: pd.DataFrame | None = None) -> np.ndarray:
    """Rows that are sub-results of another row: label = parent label + "-N", same thread, inside the
    parent's time span, and the parent is not a Transaction Controller (its children are real samples).
    `carried`: parents from the previous chunk of the same file (latest_parents)."""
    labels = table["label"]
    categories = pd.Series(labels.cat.categories.astype(str))
    parts = categories.str.extract(r"^(.*)-\d+$")[0]
    known = (set(categories) | (set(carried["parent"]) if carried is not None else set())) - transactions
    parent_of = {child: parent for child, parent in zip(categories, parts) if isinstance(parent, str)
                 and parent in known}
    result = np.zeros(len(table), dtype=bool)
    if not parent_of:
        return result
    is_child = labels.isin(parent_of.keys()).to_numpy() & keep
    children = pd.DataFrame({
        "row": np.flatnonzero(is_child),
        "parent": labels[is_child].astype(str).map(parent_of).to_numpy(),
        "thread": table["thread"][is_child].astype(str).to_numpy(),
        "start": table["start_ms"].to_numpy()[is_child],
        "end": table["end_ms"].to_numpy()[is_child],
    })
    is_parent = labels.isin(set(parent_of.values())).to_numpy() & keep
    parents = pd.DataFrame({
        "parent": labels[is_parent].astype(str).to_numpy(),
        "thread": table["thread"][is_parent].astype(str).to_numpy(),
        "start": table["start_ms"].to_numpy()[is_parent],
        "parent_end": table["end_ms"].to_numpy()[is_parent],
    })
    if carried is not None and len(carried):
        parents = pd.concat([carried[carried["parent"].isin(set(parent_of.values()))][PARENT_COLUMNS], parents],
                            ignore_index=True)
    if parents.empty:
        return result
    # The latest parent of the same label and thread starting at or before the child must also end after it.
    matched = pd.merge_asof(children.sort_values("start"), parents.sort_values("start"), on="start",
                            by=["parent", "thread"], direction="backward")
    inside = matched["parent_end"].notna().to_numpy() & (matched["end"].to_numpy() <= matched["parent_end"]
                                                         .fillna(-1).to_numpy())
    result[matched["row"].to_numpy()[inside]] = True
    return result


def _short(items: list[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")
