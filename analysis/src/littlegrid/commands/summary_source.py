"""Where a command's summary comes from: a run folder's summary.json read as it is, or the analysis run now
(a run folder without one, JTL files, or other trims or reader options asked for). The report and compare
commands start here; the renderers then only lay out what it hands them."""

from __future__ import annotations

from pathlib import Path

from littlegrid import summary as summary_file
from littlegrid.summary.model import Summary
from littlegrid.usererror import UserError


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
                    reanalyze=False, read_options=None) -> tuple[Summary, Path, bool]:
    """(summary, folder the report goes into by default, whether the summary was just produced).

    A run folder with summary.json is read as is (unless `reanalyze`, a trim, `by_label` or reader options
    (`read_options`, read_jtl keywords) are asked); otherwise `littlegrid.commands.analyze` produces the summary. For a
    run folder it is written there, so `check` and `compare` reuse it; for JTL files the caller writes it
    beside the report.
    """
    run_dir, jtls = resolve_inputs(inputs)
    base = run_dir if run_dir is not None else jtls[0].parent
    existing = base / summary_file.NAME
    if not _to_analyze(run_dir, reanalyze, by_label, warmup_s, cooldown_s, read_options):
        return summary_file.read(existing), base, False
    from littlegrid.summarize import analyze  # imported only when needed: it pulls in the JTL reader

    summary = analyze([str(run_dir)] if run_dir is not None else [str(p) for p in jtls],
                      warmup_s=warmup_s, cooldown_s=cooldown_s, by_label=by_label, read_options=read_options)
    if run_dir is not None:
        summary_file.write(summary, existing)
    return summary, base, True


def _to_analyze(run_dir: Path | None, reanalyze, by_label, warmup_s, cooldown_s, read_options) -> bool:
    """Whether load_or_analyze runs the analysis (else it reads the run folder's summary.json as it is)."""
    asked = reanalyze or by_label or warmup_s is not None or cooldown_s is not None or bool(read_options)
    return run_dir is None or asked or not (run_dir / summary_file.NAME).is_file()


def bytes_to_analyze(inputs: list[str], *, warmup_s=None, cooldown_s=None, by_label=False, reanalyze=False,
                     read_options=None) -> int:
    """The JTL bytes load_or_analyze (given the same arguments) will read: 0 when it reads a summary.json as it is.
    A command that can use the time the analysis takes (report draws its image meanwhile) asks first."""
    run_dir, jtls = resolve_inputs(inputs)
    if not _to_analyze(run_dir, reanalyze, by_label, warmup_s, cooldown_s, read_options):
        return 0
    files = jtls if run_dir is None else [p for p in run_dir.rglob("*") if p.suffix in (".jtl", ".csv", ".xml")]
    return sum(p.stat().st_size for p in files if p.is_file())


def open_run(arg: str, read_options=None) -> tuple[Summary, Path]:
    """(summary, default output base) for a run folder or a summary.json path."""
    p = Path(arg)
    if p.is_file():
        return summary_file.read(p), p.parent
    summary, base, _ = load_or_analyze([arg], read_options=read_options)
    return summary, base
