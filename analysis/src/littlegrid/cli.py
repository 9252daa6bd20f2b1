"""Thin command-line dispatcher: one subcommand per pipeline stage, each implemented in its own module."""

import argparse
import os
import sys

from littlegrid import __version__, allocator
from littlegrid.commands import report_read_ahead
from littlegrid.usererror import UserError

# The subcommand table: name -> (the module exposing HELP, EXAMPLES, add_arguments(parser) and main(args) -> int,
# one-line help). Each module is imported by its own function, only when its subcommand runs, so
# `littlegrid --help` does not pay for pandas; the imports are plain statements any reader or tool can follow.


def _runner():
    from littlegrid.run import command
    return command


def _analyze():
    from littlegrid.commands import analyze
    return analyze


def _report():
    from littlegrid.commands import report
    return report


def _compare():
    from littlegrid.commands import compare
    return compare


def _check():
    from littlegrid.commands import check
    return check


def _search():
    from littlegrid.search import runner
    return runner


def _history():
    from littlegrid.commands import history
    return history


def _explain():
    from littlegrid.commands import explain
    return explain


def _plan():
    from littlegrid.commands import plan as plan_command
    return plan_command


def _engines():
    from littlegrid.commands import engines as engines_command
    return engines_command


COMMANDS = {
    "run": (_runner, "run a grid file cell by cell into a run folder"),
    "analyze": (_analyze, "steady-state statistics, queueing-law checks and models -> summary.json"),
    "report": (_report, "render the HTML report of a run (or of JTL files)"),
    "compare": (_compare, "compare two runs cell by cell, with confidence intervals"),
    "check": (_check, "evaluate the criteria: exit 1 when one fails, JUnit XML on request"),
    "history": (_history, "the history of runs: record one, draw the trends across them"),
    "search": (_search, "capacity search: the largest load meeting an SLO, in a handful of cells"),
    "explain": (_explain, "print the findings: what the run shows, why, and what to change"),
    "plan": (_plan, "a plan of your own: what littlegrid controls in it, and the plan each cell runs"),
    "engines": (_engines, "JMeter remote engines: the RMI keystore, start them here or print their commands, stop them"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="littlegrid",
        description="JMeter grids in; steady-state statistics, queueing-law checks and HTML reports out.",
        epilog="stages: run GRID -> RUN_DIR; analyze RUN_DIR -> summary.json; report RUN_DIR -> HTML; "
               "check RUN_DIR -> exit code; explain RUN_DIR -> findings",
    )
    parser.add_argument("--version", action="version", version=f"littlegrid {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (load, summary) in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=summary)
            continue
        module = load()
        p = sub.add_parser(
            name,
            help=module.HELP,
            description=module.HELP,
            epilog="examples:\n" + "\n".join("  " + e for e in module.EXAMPLES),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # Only the chosen subcommand's module is imported (fast start, and a broken stage cannot break the others).
    chosen = next((a for a in argv if a in COMMANDS), None)
    parser = build_parser(only=chosen) if chosen else build_parser(only="")
    args = parser.parse_args(argv)
    if not getattr(args, "_module", None):
        parser.print_help()
        return 2
    try:
        return int(args._module.main(args) or 0)
    except UserError as e:
        print(f"littlegrid {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"littlegrid {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `littlegrid explain --json | head`: the reader left, which is no error of ours. Point stdout at
        # /dev/null so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "1")


def blas_threads() -> None:
    """One OpenBLAS thread unless the user's environment says otherwise (its children inherit it). NumPy's OpenBLAS
    starts a thread per core at import, and after a call its threads spin waiting for the next: littlegrid's linear
    algebra is a few dot products and small fits, and on the 2-core machine of docs/report.md the spinning took
    0.2-0.35 s of CPU from a 5 M-row report whose parse and analysis keep both cores busy."""
    os.environ.setdefault(*BLAS_THREADS)


def entry() -> None:
    """The console script. It ends with os._exit once the command has returned (its files closed, its
    processes stopped): the orderly release of a 5 M-row report's ~1 GB of arrays took a quarter of a
    second that nobody waits for with interest. It begins by telling the C allocator to keep what it frees
    (allocator.py): a large JTL's blocks then reuse their memory instead of faulting it in again; and, for a report
    of one large JTL, by starting its parse while the modules import (report_read_ahead.py). Before NumPy loads,
    it asks OpenBLAS for one thread (blas_threads)."""
    blas_threads()
    allocator.keep_freed_memory()
    report_read_ahead.start(sys.argv[1:])  # a large JTL's parse begins while the modules import
    try:
        code = main()
    finally:
        report_read_ahead.stop()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (| head): nothing more can be said
            pass
    os._exit(code)


if __name__ == "__main__":  # python -m littlegrid.cli: an orderly exit, so profilers and debuggers can report
    sys.exit(main())
