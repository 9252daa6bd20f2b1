"""The Reading record: the samples table plus what the reader kept, skipped and noticed."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

FIRST_LINES = 5  # line numbers kept per skip reason: enough to find the pattern in an editor


@dataclass(frozen=True)
class Skip:
    """Rows left out of the table for one reason: how many, and where the first few were."""

    reason: str
    count: int
    first_lines: tuple[str, ...]  # "file:line" (or "file:record N" where lines are unknown)

    def __str__(self) -> str:
        where = ", ".join(self.first_lines)
        more = ", ..." if self.count > len(self.first_lines) else ""
        return f"{self.count} rows skipped: {self.reason} (at {where}{more})"


@dataclass(frozen=True)
class Reading:
    """Result of `read_jtl`.

    samples: the samples table (docs/contracts.md §2).
    rows_read: data records found in the files = len(samples) + skipped_total.
    rows_skipped: one Skip per reason (malformed, degenerate, sub-result dropped, ...).
    warnings: one-line notes a reader of the report should see (truncation, inferences, ...).
    absent_columns: table columns the files did not provide (all-null in samples).
    format: how the files were read, e.g. "csv ',' header" (several files: joined with "; ").
    transaction_labels: labels whose rows are Transaction Controller parents (responseMessage
        "Number of samples in transaction ..."); in CSV they sit beside their samplers, so counting
        requests means excluding them: samples[~samples.label.isin(reading.transaction_labels)].
    """

    samples: pd.DataFrame
    rows_read: int
    rows_skipped: tuple[Skip, ...] = ()
    warnings: list[str] = field(default_factory=list)
    absent_columns: list[str] = field(default_factory=list)
    format: str = ""
    transaction_labels: frozenset[str] = frozenset()

    @property
    def skipped_total(self) -> int:
        return sum(skip.count for skip in self.rows_skipped)


class SkipLog:
    """Accumulates skipped rows per reason while a file is read."""

    def __init__(self, source: str):
        self.source = source
        self._counts: dict[str, int] = {}
        self._where: dict[str, list[str]] = {}

    def add(self, reason: str, line: int | str | None, count: int = 1) -> None:
        self._counts[reason] = self._counts.get(reason, 0) + count
        where = self._where.setdefault(reason, [])
        if len(where) < FIRST_LINES and line is not None:
            where.append(f"{self.source}:{line}")

    def add_many(self, reason: str, lines, count: int | None = None) -> None:
        """`count` rows (default: as many as lines) skipped for one reason; `lines` are the first ones."""
        lines = list(lines)
        count = len(lines) if count is None else count
        if count:
            self._counts[reason] = self._counts.get(reason, 0) + count
            where = self._where.setdefault(reason, [])
            where.extend(f"{self.source}:{n}" for n in lines[: FIRST_LINES - len(where)])

    def add_skips(self, skips) -> None:
        """Skips another reader recorded (their lines already name the file)."""
        for skip in skips:
            self._counts[skip.reason] = self._counts.get(skip.reason, 0) + skip.count
            where = self._where.setdefault(skip.reason, [])
            where.extend(skip.first_lines[: FIRST_LINES - len(where)])

    def merge(self, other: "SkipLog") -> None:
        for reason, count in other._counts.items():
            self._counts[reason] = self._counts.get(reason, 0) + count
            where = self._where.setdefault(reason, [])
            where.extend(other._where[reason][: FIRST_LINES - len(where)])

    @property
    def total(self) -> int:
        return sum(self._counts.values())

    def skips(self) -> tuple[Skip, ...]:
        return tuple(Skip(r, c, tuple(self._where.get(r, ()))) for r, c in self._counts.items())
