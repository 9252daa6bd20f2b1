"""The run folder: atomic manifests, sample counting that survives quoted newlines and cut files, resume state."""

import json
import stat

import pytest

from littlegrid.run import run_folder as rf
from littlegrid.usererror import UserError

HEADER = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,success\n"


def test_a_manifest_is_replaced_whole_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "manifest.json"
    rf.write_json(path, {"a": 1})
    rf.write_json(path, {"a": 2})
    assert json.loads(path.read_text()) == {"a": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]
    # readable by the CI tool or web server that serves the run folder (mkstemp alone makes it 0600)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_samples_are_csv_records_not_lines(tmp_path):
    jtl = tmp_path / "results.jtl"
    jtl.write_text(HEADER + '1,2,GET /,200,OK,t 1-1,true\n' + '3,4,GET /,500,"two\nlines",t 1-1,false\n')
    assert rf.count_samples(jtl) == 2


def test_a_file_cut_inside_a_quoted_field_counts_its_whole_records(tmp_path):
    jtl = tmp_path / "results.jtl"
    jtl.write_text(HEADER + '1,2,GET /,200,OK,t 1-1,true\n' + '3,4,GET /,500,"cut')
    assert rf.count_samples(jtl) in (1, 2)  # the cut record may or may not read as one; never an exception


def test_no_file_or_a_header_only_means_no_samples(tmp_path):
    assert rf.count_samples(tmp_path / "absent.jtl") == 0
    (tmp_path / "h.jtl").write_text(HEADER)
    assert rf.count_samples(tmp_path / "h.jtl") == 0


def test_a_run_folder_is_never_overwritten(tmp_path):
    grid = tmp_path / "g.toml"
    grid.write_text("name = 'x'\n")
    folder = rf.RunFolder.create(tmp_path / "reports", "run-1", grid)
    assert (folder.root / "grid.toml").read_text() == "name = 'x'\n"
    with pytest.raises(UserError, match="already exists; resume it with --resume"):
        rf.RunFolder.create(tmp_path / "reports", "run-1", grid)


def test_resume_needs_a_run_folder(tmp_path):
    with pytest.raises(UserError, match="not a littlegrid run folder"):
        rf.RunFolder.open(tmp_path)


def test_a_retried_cell_starts_from_an_empty_folder_and_every_earlier_attempt_is_kept_whole(tmp_path):
    folder = rf.RunFolder(tmp_path)
    cell, kept = folder.fresh_cell_dir("users=1")
    assert kept == [] and list(cell.iterdir()) == []
    (cell / "results.jtl").write_text(HEADER + "partial\n")
    folder.write_cell_manifest("users=1", {"status": "incomplete", "reason": "interrupted by SIGINT"})
    assert folder.cell_status("users=1") == "incomplete"
    cell, kept = folder.fresh_cell_dir("users=1")
    assert [p.name for p in cell.iterdir()] == ["attempts"] and folder.cell_status("users=1") is None
    assert kept == [{"attempt": 1, "status": "incomplete", "reason": "interrupted by SIGINT", "folder": "attempts/1"}]
    assert (cell / "attempts" / "1" / "results.jtl").read_text() == HEADER + "partial\n"  # nothing lost
    folder.write_cell_manifest("users=1", {"status": "failed", "reason": "JMeter exited with code 1"})
    _, kept = folder.fresh_cell_dir("users=1")
    assert [(a["attempt"], a["status"]) for a in kept] == [(1, "incomplete"), (2, "failed")]
    assert folder.attempts("users=1") == kept


def test_a_second_writer_of_one_run_folder_is_refused_in_one_line_and_the_lock_goes_with_its_holder(tmp_path):
    import subprocess
    import sys

    folder = rf.RunFolder(tmp_path)
    with folder.locked():
        # another process (a second `littlegrid run --resume` of this folder) cannot take it
        code = ("import sys; from pathlib import Path; from littlegrid.run import run_folder as rf\n"
                "from littlegrid.usererror import UserError\n"
                "try:\n    rf.RunFolder(Path(sys.argv[1])).locked().__enter__()\n"
                "except UserError as e:\n    print(e); sys.exit(2)\n")
        got = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
        assert got.returncode == 2 and got.stdout.count("\n") == 1
        assert "another littlegrid run is writing this folder (pid " in got.stdout
    with folder.locked():  # released with its holder: the next run takes it
        pass


@pytest.mark.parametrize("bad", ["../x", "a/b", "", ".hidden", "a b"])
def test_a_run_id_names_one_folder_and_nothing_else(bad):
    with pytest.raises(UserError, match="--run-id"):
        rf.check_run_id(bad)


def test_host_facts_and_versions_name_what_the_contract_asks():
    facts = rf.host_facts()
    assert set(facts) == {"hostname", "cpus", "memory_bytes", "os", "boot_time_s"}
    # this kernel's boot time, as node_exporter's node_boot_time_seconds reads it (/proc/stat btime)
    with open("/proc/stat") as f:
        btime = next(int(line.split()[1]) for line in f if line.startswith("btime"))
    assert abs(facts["boot_time_s"] - btime) <= 1.0
    assert set(rf.versions("5.6.3", "openjdk 17")) == {"jmeter", "java", "python", "littlegrid"}


def test_samples_by_engine_reads_the_thread_name_prefix_the_controller_gave_each_engine(tmp_path):
    jtl = tmp_path / "results.jtl"
    jtl.write_text(HEADER + "1,2,GET /,200,OK,127.0.0.1:21001-users 1-1,true\n"
                   "1,2,GET /,200,OK,127.0.0.1:21002-users 1-1,true\n"
                   "1,2,GET /,200,OK,load-gen-2:1099-users 1-2,true\n")
    assert rf.samples_by_engine(jtl, ["127.0.0.1:21001", "load-gen-2:1099"]) == {"127.0.0.1:21001": 1,
                                                                                 "load-gen-2:1099": 1}
