"""What `littlegrid report` starts before its own modules are imported: the parse of its one large JTL
(jtl/read_ahead.py), on the core that would otherwise idle while pandas, pydantic and the package import.

cli.entry calls start(argv) first. Only `report FILE` qualifies, with options that do not change how the file is
read (-o, --warmup, --cooldown, --by-label), and only a plain CSV file larger than one piece: the reader's first
pass over it claims what was parsed (same columns, types and options, else it is dropped and the file is read as
usual). A JTL given as a file is analysed by label (analyze.py), so the columns are the analysed ones and the
per-label ones (analysis/reading/fields.py); tests/jtl/test_read_ahead.py checks that the report claims it."""

from __future__ import annotations

from pathlib import Path

WITH_VALUE = ("-o", "--output", "--warmup", "--cooldown")
FLAGS = ("--by-label",)


def start(argv: list[str]) -> None:
    """Start the read-ahead when `argv` (without the program's name) is such a report; else do nothing."""
    if not argv or argv[0] != "report":
        return
    files, rest = [], list(argv[1:])
    while rest:
        arg = rest.pop(0)
        if arg in WITH_VALUE:
            if not rest:
                return
            rest.pop(0)
        elif arg.split("=", 1)[0] in WITH_VALUE and "=" in arg:
            continue
        elif arg in FLAGS:
            continue
        elif arg.startswith("-"):
            return  # an option that may change the reading (columns, timestamps, sub-results): read as usual
        else:
            files.append(arg)
    if len(files) != 1:
        return
    from littlegrid.jtl import read_ahead

    path = Path(files[0])
    try:
        if not path.is_file() or path.stat().st_size <= read_ahead.ONE_PIECE_BYTES:
            return
        from littlegrid.jtl.sniff import sniff

        sniffed = sniff(path)
    except Exception:  # noqa: BLE001  the report reads the file itself and says what is wrong with it
        return
    if sniffed.kind != "csv" or sniffed.gzip:
        return
    from littlegrid.analysis.reading.fields import ANALYZED_FIELDS, LABEL_FIELDS
    from littlegrid.jtl import ALWAYS_READ

    read_ahead.start(path, sniffed, frozenset(ANALYZED_FIELDS + LABEL_FIELDS) | ALWAYS_READ)


def stop() -> None:
    """Stop what start() began and wait for it (cli.entry, on the way out)."""
    from littlegrid.jtl import read_ahead

    read_ahead.shutdown()
