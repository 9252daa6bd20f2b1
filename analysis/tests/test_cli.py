"""The dispatcher: user mistakes become one line and exit 2; unknown commands show help."""

import os
import subprocess
import sys
import types

import pytest

from littlegrid import cli
from littlegrid.usererror import at


def _fake_stage(behaviour):
    module = types.SimpleNamespace(
        HELP="a fake stage", EXAMPLES=["littlegrid fake X"],
        add_arguments=lambda p: p.add_argument("path"),
        main=behaviour,
    )
    return module


@pytest.fixture
def fake_command(monkeypatch):
    def install(behaviour):
        monkeypatch.setitem(cli.COMMANDS, "fake", (lambda: _fake_stage(behaviour), "a fake stage"))
    return install


def test_a_user_error_is_one_line_on_stderr_and_exit_code_2(fake_command, capsys):
    def main(args):
        raise at(args.path, 7, "no timeStamp column\nin header")
    fake_command(main)
    assert cli.main(["fake", "results.jtl"]) == 2
    err = capsys.readouterr().err
    assert err == "littlegrid fake: results.jtl:7: no timeStamp column in header\n"


def test_the_stage_exit_code_is_passed_through(fake_command):
    fake_command(lambda args: 1)
    assert cli.main(["fake", "x"]) == 1


def test_a_bug_is_not_swallowed(fake_command):
    def main(args):
        raise ZeroDivisionError("bug")
    fake_command(main)
    with pytest.raises(ZeroDivisionError):
        cli.main(["fake", "x"])


def test_no_command_prints_help_and_exits_2(capsys):
    assert cli.main([]) == 2
    out = capsys.readouterr().out
    for name in ("run", "analyze", "report", "compare", "check"):
        assert name in out


def test_usage_text_ends_with_runnable_examples(fake_command, capsys):
    fake_command(lambda args: 0)
    with pytest.raises(SystemExit):
        cli.main(["fake", "--help"])
    assert capsys.readouterr().out.rstrip().endswith("littlegrid fake X")


def test_user_error_without_a_line_names_only_the_file():
    assert str(at("grid.toml", None, "unknown key 'userz'")) == "grid.toml: unknown key 'userz'"


def test_a_reader_that_leaves_early_is_no_error(tmp_path):
    """`littlegrid analyze X --json - | head -c 1`: the closed pipe ends the command quietly, exit 0."""
    import subprocess
    import sys

    # 2,000 labels: their statistics are far more JSON than a pipe buffers, so the writer meets the closed pipe
    jtl = tmp_path / "many-labels.jtl"
    rows = [f"{1700000000000 + i},{5 + i % 7},label {i},200,OK,t 1-1,text,true,,10,0,1,1,,1,0,0" for i in range(2000)]
    jtl.write_text("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,"
                   "bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n" + "\n".join(rows) + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "littlegrid.cli", "analyze", str(jtl), "--by-label", "--json", "-"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    assert proc.stdout.read(1)  # read one byte, then leave
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert "Traceback" not in err, err


def test_every_subcommand_s_module_loads_and_has_the_stage_interface():
    for name, (load, summary) in cli.COMMANDS.items():
        module = load()
        assert callable(module.main) and callable(module.add_arguments) and module.HELP and module.EXAMPLES, name
        assert summary and "\n" not in summary


BLAS_PROBE = """
import os, sys
from littlegrid import cli
cli.blas_threads()
import numpy
print(os.environ["OPENBLAS_NUM_THREADS"], len(os.listdir("/proc/self/task")))
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="threads counted in /proc")
@pytest.mark.parametrize("given, kept", [(None, "1"), ("2", "2")])
def test_numpy_s_blas_gets_one_thread_unless_the_user_said_otherwise(given, kept):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    done = subprocess.run([sys.executable, "-c", BLAS_PROBE], env=env, capture_output=True, text=True, check=True)
    value, threads = done.stdout.split()
    assert value == kept
    if given is None:
        assert threads == "1"  # no BLAS thread beside the main one
