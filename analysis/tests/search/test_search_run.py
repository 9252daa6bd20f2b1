"""`littlegrid search` end to end without JMeter: each probe's cell is a simulated M/M/c//N (c = 10, S = 100 ms,
Z = 0) written as a JTL by a stand-in for run_cell; the run folder, search.json, the words, and --resume."""

import json
import sys
from pathlib import Path

import pytest

from littlegrid import cell_run, runner
from littlegrid.jmeter import JMeter
from littlegrid.usererror import UserError

sys.path.insert(0, str(Path(__file__).parents[1] / "analysis"))
from analysis_synthetic import machine_repairman, write_jtl  # noqa: E402

PLAN = Path(__file__).parents[1] / "runner" / "fixtures" / "tiny.jmx"


def grid(tmp_path, users="{ min = 1, max = 80 }", extra="") -> Path:
    path = tmp_path / "search.toml"
    path.write_text(f"""
name = "search"
plan = "{PLAN}"
[target]
host = "127.0.0.1"
port = 9
[cell]
duration_s = 40
warmup_s = 5
cooldown_s = 1
rampup_s = 0
[properties]
think_ms = 0
[axes]
users = {users}
{extra}""")
    return path


@pytest.fixture
def simulated(monkeypatch, tmp_path):
    """run_cell writes an M/M/10//N cell of the cell's duration; records the cells it ran."""
    ran = []
    monkeypatch.setattr("littlegrid.jmeter.find_jmeter", lambda: JMeter(home=tmp_path, jar=tmp_path / "j.jar"))
    monkeypatch.setattr(runner, "java_version", lambda: "17 (fake)")
    monkeypatch.setattr(runner, "_preflight", lambda grid: None)
    kill_at = {}

    def fake_run_cell(jmeter, plan, folder, properties, duration_s, **kw):
        n = int(properties["users"])
        ran.append(folder.name)
        if folder.name in kill_at:
            raise cell_run.Interrupted("SIGKILL (simulated)")
        samples = machine_repairman(n, 10, 100.0, float(properties.get("think_ms", 0)), duration_s, seed=len(ran))
        write_jtl(samples, folder / "results.jtl")
        return cell_run.CellOutcome("complete", None, 0, len(samples), "2026-01-01T00:00:00.000Z",
                                    "2026-01-01T00:00:40.000Z", duration_s, 0)

    monkeypatch.setattr(runner, "run_cell", fake_run_cell)
    return ran, kill_at


def test_a_search_writes_ordinary_cells_and_search_json_with_the_answer_in_words(tmp_path, simulated, capsys):
    from littlegrid.search_run import search
    ran, _ = simulated
    folder, doc = search(grid(tmp_path), ["p90 < 300ms"], out=tmp_path / "out", run_id="s1")
    answer = doc["answer"]
    assert answer["kind"] == "found" and answer["users"] in (15, 16, 17)  # exact: 16 (p90 293 and 304 ms at 16, 17)
    assert len(doc["probes"]) <= 12 + 6 and len({p["users"] for p in doc["probes"]}) <= 12
    assert doc["slo"] == ["p90 < 300ms"] and doc["resolution"]["value"] == 1
    first = doc["probes"][0]
    assert first["users"] == 1 and first["valid"] and first["interval"][0] <= first["p90_ms"] <= first["interval"][1]
    # every probe is a cell of the run folder, analysed like any grid's
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["cells"] == ran == [p["cell"] for p in doc["probes"]]
    summary = json.loads((folder / "summary.json").read_text())
    assert [c["id"] for c in summary["cells"]] == ran
    out = capsys.readouterr().out
    assert out.count("\nprobe ") + out.startswith("probe ") == len(ran) and "ETA" in out
    assert f"largest N with p90 < 300 ms: {answer['users']} (p90 at {answer['users']}: " in out
    assert "a full 1..80 grid would take 80 cells" in out


def test_resume_after_a_kill_keeps_finished_probes_and_reruns_only_the_unfinished_one(tmp_path, simulated):
    from littlegrid.search_run import search
    ran, kill_at = simulated
    path = grid(tmp_path)
    kill_at["users=4"] = True
    with pytest.raises(KeyboardInterrupt):
        search(path, ["p90 < 300ms"], out=tmp_path / "out", run_id="s2")
    assert ran == ["users=1", "users=2", "users=4"]
    kill_at.clear()
    ran.clear()
    folder, doc = search(path, ["p90 < 300ms"], out=tmp_path / "out", run_id="s2", resume=True)
    assert ran[0] == "users=4" and "users=1" not in ran and "users=2" not in ran
    assert [p["cell"] for p in doc["probes"]][:3] == ["users=1", "users=2", "users=4"]
    with pytest.raises(UserError, match="started with"):
        search(path, ["p90 < 250ms"], out=tmp_path / "out", run_id="s2", resume=True)


def test_other_axes_get_one_search_each(tmp_path, simulated):
    from littlegrid.search_run import search
    path = grid(tmp_path, users="{ min = 1, max = 8 }")
    path.write_text(path.read_text().replace("[properties]\nthink_ms = 0\n", "") + "think_ms = [0, 1000]\n")
    folder, doc = search(path, ["p90 < 300ms"], out=tmp_path / "out", run_id="s3")
    assert [s["group"] for s in doc["searches"]] == [{"think_ms": 0}, {"think_ms": 1000}]
    assert all(s["answer"]["kind"] == "all" and s["answer"]["users"] == 8 for s in doc["searches"])
    assert isinstance(doc["answer"], list) and [a["group"] for a in doc["answer"]] == [{"think_ms": 0}, {"think_ms": 1000}]
    assert {p["cell"] for p in doc["probes"]} >= {"think_ms=0,users=8", "think_ms=1000,users=8"}


@pytest.mark.parametrize("users, slo, problem", [
    ("[1, 2]", "p90 < 300ms", "no range axis to search"),
    ("{ min = 1, max = 8 }", "throughput > 5/s", "not a per-cell bound"),
])
def test_refusals_come_before_any_load(tmp_path, simulated, users, slo, problem):
    from littlegrid.search_run import search
    ran, _ = simulated
    with pytest.raises(UserError, match=problem):
        search(grid(tmp_path, users=users), [slo], out=tmp_path / "out")
    assert ran == [] and not (tmp_path / "out").exists()


def test_the_report_of_a_search_has_its_page_with_the_probes_the_slo_and_the_answer(tmp_path, simulated):
    import argparse
    from littlegrid.render import report
    from littlegrid.search_run import search
    folder, doc = search(grid(tmp_path, users="{ min = 1, max = 20 }"), ["p90 < 300ms"], out=tmp_path / "out",
                         run_id="s5")
    args = argparse.Namespace(inputs=[str(folder)], output=tmp_path / "rep", warmup=None, cooldown=None,
                              by_label=False, columns=None, jmeter_properties=None, timestamp_is_start=None)
    for name in ("delimiter", "timestamp_format", "include_subsamples", "timestamp_end"):
        setattr(args, name, None)
    report.main(args)
    page = (tmp_path / "rep" / "search.html").read_text()
    assert doc["answer"]["words"] in page.replace("&gt;", ">").replace("&lt;", "<")
    assert page.count("<tr>") - 1 == len(doc["probes"])  # header row + one row per probe
    assert "p90 &lt; 300ms" in page and "D_max" in page
