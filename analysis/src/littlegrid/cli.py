"""Thin command-line dispatcher: one subcommand per pipeline stage, each implemented in its own module."""

import argparse
import importlib
import os
import sys

from littlegrid import __version__
from littlegrid.usererror import UserError

# subcommand -> module exposing HELP, EXAMPLES, add_arguments(parser) and main(args) -> int.
# Imported lazily so `littlegrid --help` does not pay for pandas.
COMMANDS = {
    "run": ("littlegrid.runner", "run a grid file cell by cell into a run folder"),
    "analyze": ("littlegrid.analyze", "steady-state statistics, queueing-law checks and models -> summary.json"),
    "report": ("littlegrid.render.report", "render the HTML report of a run (or of JTL files)"),
    "compare": ("littlegrid.render.compare", "compare two runs cell by cell, with confidence intervals"),
    "check": ("littlegrid.check", "evaluate the criteria: exit 1 when one fails, JUnit XML on request"),
    "search": ("littlegrid.search_run", "capacity search: the largest load meeting an SLO, in a handful of cells"),
    "explain": ("littlegrid.explain", "print the findings: what the run shows, why, and what to change"),
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
    for name, (module_name, summary) in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=summary)
            continue
        module = importlib.import_module(module_name)
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


def entry() -> None:
    """The console script. It ends with os._exit once the command has returned (its files closed, its
    processes stopped): the orderly release of a 5 M-row report's ~1 GB of arrays took a quarter of a
    second that nobody waits for with interest."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (| head): nothing more can be said
            pass
    os._exit(code)


if __name__ == "__main__":  # python -m littlegrid.cli: an orderly exit, so profilers and debuggers can report
    sys.exit(main())
