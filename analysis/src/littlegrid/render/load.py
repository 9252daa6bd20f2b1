"""Find and read the summary.json a report or comparison renders from (producing it with `analyze` when asked)."""

from __future__ import annotations

import json
from pathlib import Path

from littlegrid.atomic import write_atomic
from littlegrid.summary import SCHEMA, older  # one schema name for the writer and every reader
from littlegrid.usererror import UserError, at

SUMMARY = "summary.json"


def read_summary(path: Path) -> dict:
    """Parse and sanity-check one summary.json; a wrong file is a one-line UserError naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise at(path, None, f"cannot read summary: {e.strerror or e}") from None
    try:
        summary = json.loads(text)
    except json.JSONDecodeError as e:
        raise at(path, e.lineno, f"not valid JSON: {e.msg}") from None
    if not isinstance(summary, dict) or summary.get("schema") != SCHEMA:
        found = summary.get("schema") if isinstance(summary, dict) else type(summary).__name__
        hint = "; written by an older littlegrid: run `littlegrid analyze` on the run again" if older(found) else ""
        raise at(path, None, f"not a littlegrid summary (schema {found!r}, expected {SCHEMA!r}){hint}")
    if not isinstance(summary.get("cells"), list):
        raise at(path, None, "summary has no 'cells' list")
    for i, cell in enumerate(summary["cells"]):
        if not isinstance(cell, dict) or "id" not in cell:
            raise at(path, None, f"cells[{i}] has no 'id'")
    return summary


def resolve_inputs(inputs: list[str]) -> tuple[Path | None, list[Path]]:
    """Split the command line into (run folder or None, JTL files); refuse anything else."""
    paths = [Path(p) for p in inputs]
    for p in paths:
        if not p.exists():
            raise UserError(f"{p}: no such file or directory")
    dirs = [p for p in paths if p.is_dir()]
    if dirs and len(paths) > 1:
        raise UserError(f"{dirs[0]}: give one run folder, or JTL files, not both")
    return (dirs[0], []) if dirs else (None, paths)


def load_or_analyze(inputs: list[str], *, warmup_s=None, cooldown_s=None, by_label=False,
                    reanalyze=False, read_options=None) -> tuple[dict, Path, bool]:
    """(summary, folder the report goes into by default, whether the summary was just produced).

    A run folder with summary.json is read as is (unless `reanalyze`, a trim, `by_label` or reader options
    (`read_options`, read_jtl keywords) are asked); otherwise
    `littlegrid.analyze` produces the summary. For a run folder it is written there, so `check` and
    `compare` reuse it; for JTL files the caller writes it beside the report.
    """
    run_dir, jtls = resolve_inputs(inputs)
    base = run_dir if run_dir is not None else jtls[0].parent
    existing = base / SUMMARY
    asked = reanalyze or by_label or warmup_s is not None or cooldown_s is not None or bool(read_options)
    if run_dir is not None and existing.is_file() and not asked:
        return read_summary(existing), base, False
    from littlegrid.analyze import analyze  # imported only when needed: it pulls in the JTL reader

    summary = analyze([str(run_dir)] if run_dir is not None else [str(p) for p in jtls],
                      warmup_s=warmup_s, cooldown_s=cooldown_s, by_label=by_label, read_options=read_options)
    if run_dir is not None:
        write_json(existing, summary)
    return summary, base, True


def write_json(path: Path, data: dict) -> None:
    write_atomic(path, json.dumps(data, indent=1, allow_nan=False))
