"""JTL reader: CSV and XML JMeter result files -> one fixed-schema samples table (docs/jtl.md).

The package imports nothing heavy: read_jtl and the rest come from reader.py (pandas and all) on first use, so that
a read-ahead can sniff a file and start pyarrow's parse before pandas is imported (read_ahead.py)."""

from __future__ import annotations

from littlegrid.jtl.schema import ALWAYS_READ

__all__ = ["read_jtl", "iter_jtl", "Reading", "Skip", "SAMPLES_SCHEMA", "COLUMNS", "ALWAYS_READ", "UserError"]
_FROM_READER = frozenset({"read_jtl", "iter_jtl", "Reading", "Skip", "SkipLog", "SAMPLES_SCHEMA", "COLUMNS",
                          "UserError", "DEFAULT_CHUNK_ROWS", "DEFAULT_BLOCK_SIZE"})


def __getattr__(name: str):
    if name in _FROM_READER:
        from littlegrid.jtl import reader

        return getattr(reader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
