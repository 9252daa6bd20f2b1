"""A run's record: what makes runs comparable is hashed from its canonical form (the grid as parsed, the plan's
bytes), the host fingerprint read from the run's host facts, the commit from git where the run folder lives."""

import subprocess

from littlegrid import summary as summary_file
from littlegrid.history.record import commit_of, grid_hash, host_facts, host_kind, plan_hash, record
from history_runs import run_folder


def test_the_grid_hash_is_what_the_grid_measures_so_an_edit_of_its_criteria_keeps_the_series(tmp_path):
    """criteria, expect, description, tolerances, arms and comments change nothing measured: the same series. The
    axes, properties and server tables do."""
    folder = run_folder(tmp_path, "r1")
    summary = summary_file.read(folder / "summary.json")

    def series_of(text: str) -> str:
        (folder / "grid.toml").write_text(text)
        return record(summary, folder / "summary.json").series

    plain = series_of('name = "ci"\n[properties]\nthink_ms = 0\n[axes]\nusers = [1, 2]\n')
    assert series_of('# tuned\nname = "ci"\ndescription = "x"\ncriteria = ["p90 < 1s", "p90 regress < 10%"]\n'
                     'expect = ["closed law holds"]\narms = "users=1,2"\n[properties]\nthink_ms = 0\n'
                     '[tolerances]\nclosed_law = 0.05\n[axes]\nusers = [1, 2]\n') == plain
    assert series_of('name = "ci"\n[properties]\nthink_ms = 50\n[axes]\nusers = [1, 2]\n') != plain


def test_the_grid_hash_reads_the_grid_file_as_parsed_without_its_description(tmp_path):
    folder = run_folder(tmp_path, "r1")
    summary = summary_file.read(folder / "summary.json")
    bare = grid_hash(summary, folder)  # no grid.toml: the summary's name, axes and plan
    (folder / "grid.toml").write_text('name = "ci"\ndescription = "one"\n[axes]\nusers = [1, 2]\n')
    first = grid_hash(summary, folder)
    (folder / "grid.toml").write_text('# a comment\nname = "ci"\ndescription = "two"\n\n[axes]\nusers = [1,2]\n')
    assert grid_hash(summary, folder) == first != bare
    (folder / "grid.toml").write_text('name = "ci"\n[axes]\nusers = [1, 2, 4]\n')
    assert grid_hash(summary, folder) != first


def test_the_plan_hash_is_its_content_where_readable_else_its_name(tmp_path):
    a, b = tmp_path / "a" / "closed.jmx", tmp_path / "b" / "closed.jmx"
    for p in (a, b):
        p.parent.mkdir()
        p.write_text("<jmeterTestPlan/>")
    assert plan_hash(str(a)) == plan_hash(str(b))  # two checkouts, one plan
    b.write_text("<jmeterTestPlan version='2'/>")
    assert plan_hash(str(a)) != plan_hash(str(b))
    assert plan_hash(str(tmp_path / "gone" / "closed.jmx")) == plan_hash(str(tmp_path / "elsewhere" / "closed.jmx"))
    assert plan_hash(None) is None


def test_the_host_fingerprint_and_its_kind(tmp_path):
    summary = summary_file.read(run_folder(tmp_path, "r1") / "summary.json")
    facts = host_facts(summary)
    assert facts == {"cpus": 2, "memory_gib": 24, "os": "Linux", "kernel": "6.1.0-18-amd64", "arch": "x86_64",
                     "hostname": "ci-1"}
    other_kernel = host_facts(summary.model_copy(update={"run": summary.run.model_copy(update={
        "host": summary.run.host.model_copy(update={"os": "Linux 6.12.0 (x86_64)", "hostname": "ci-7"})})}))
    assert host_kind(other_kernel) == host_kind(facts)  # a kernel update and another runner: the same kind


def test_the_commit_is_the_checkout_the_run_folder_is_in(tmp_path):
    assert commit_of(tmp_path) is None
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True)
    head = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    folder = run_folder(tmp_path / "reports", "r1")
    rec = record(summary_file.read(folder / "summary.json"), folder / "summary.json")
    assert rec.commit == head.strip()
    assert rec.key == "r1@2026-01-01Tr1" and rec.grid_name == "ci" and rec.report is None
    assert {f.cell for f in rec.figures} == {"rate=10", "rate=20"}


def test_a_changed_target_or_plan_path_keeps_the_grid_and_configuration_comparable(tmp_path):
    # the target is recorded as the change under test; the plan is judged by its content (plan_hash), not its path
    hashes = []
    for name, path, plan in (("a", "/", "plans/closed.jmx"), ("b", "/io?ms=120", "/srv/littlegrid/plans/closed.jmx")):
        folder = run_folder(tmp_path, name)
        (folder / "grid.toml").write_text(
            f'name = "ci"\nplan = "{plan}"\n[target]\npath = "{path}"\n[axes]\nusers = [1, 2]\n')
        rec = record(summary_file.read(folder / "summary.json"), folder / "summary.json")
        hashes.append((rec.grid_hash, rec.config_hash))
        assert rec.config["target"] == {"path": path}
    assert hashes[0] == hashes[1]
