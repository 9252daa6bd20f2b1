"""`littlegrid search` end to end without JMeter: each probe's cell is a simulated M/M/c//N (c = 10, S = 100 ms,
Z = 0) written as a JTL by a stand-in for run_cell; the run folder, search.json, the words, --resume, and --live
(the live view's status and page while the probes run)."""

import contextlib
import io
import json
import socket
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from analysis_synthetic import machine_repairman, write_jtl
from littlegrid import cli
from littlegrid.run import cell_run, preflight, runner
from littlegrid.run.jmeter import JMeter
from littlegrid.usererror import UserError


PLAN = Path(__file__).parents[1] / "run" / "fixtures" / "tiny.jmx"


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


def _simulate(mp: pytest.MonkeyPatch, home: Path) -> tuple[list, dict]:
    """run_cell writes an M/M/10//N cell of the cell's duration: returns the cells it ran, in order, and the cells
    to kill (cell id -> True) that a test may fill."""
    ran, kill_at = [], {}
    mp.setattr("littlegrid.run.jmeter.find_jmeter", lambda: JMeter(home=home, jar=home / "j.jar"))
    mp.setattr(runner, "java_version", lambda: "17 (fake)")
    mp.setattr(preflight, "check_grid", lambda grid: None)

    def fake_run_cell(jmeter, plan, folder, properties, duration_s, **kw):
        n = int(properties["users"])
        ran.append(folder.name)
        if folder.name in kill_at:
            raise cell_run.Interrupted("SIGKILL (simulated)")
        samples = machine_repairman(n, 10, 100.0, float(properties.get("think_ms", 0)), duration_s, seed=len(ran))
        write_jtl(samples, folder / "results.jtl")
        return cell_run.CellOutcome("complete", None, 0, len(samples), "2026-01-01T00:00:00.000Z",
                                    "2026-01-01T00:00:40.000Z", duration_s, 0)

    mp.setattr(runner, "run_cell", fake_run_cell)
    return ran, kill_at


@pytest.fixture
def simulated(monkeypatch, tmp_path):
    """Each probe's cell simulated (_simulate) for one test: (cells ran, cells to kill)."""
    return _simulate(monkeypatch, tmp_path)


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    """One search of users 1..80 for p90 < 300 ms, run once for the tests that read what it leaves (its run folder,
    search.json, its words, its report), none of which writes into it: (folder, doc, cells ran, what it printed)."""
    from littlegrid.search.runner import search
    home = tmp_path_factory.mktemp("found")
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(printed):
        ran, _ = _simulate(mp, home)
        folder, doc = search(grid(home), ["p90 < 300ms"], out=home / "out", run_id="s1")
    return folder, doc, ran, printed.getvalue()


def test_a_search_writes_ordinary_cells_and_search_json_with_the_answer_in_words(found):
    folder, doc, ran, out = found
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
    assert out.count("\nprobe ") + out.startswith("probe ") == len(ran) and "ETA" in out
    assert f"largest N with p90 < 300 ms: {answer['users']} (p90 at {answer['users']}: " in out
    assert "a full 1..80 grid would take 80 cells" in out


def test_the_runners_own_manifest_writes_keep_the_searchs_cells(tmp_path, simulated, monkeypatch):
    """The grid runner writes the run's manifest itself when the sample server starts (its placement, before any
    load). In a search that write replaced the probes' list with the runner's empty one, and the first probe's
    analysis found no cell (KeyError 'users=1': every search of a grid with [server] start = true failed)."""
    from littlegrid.run.runner import GridRun
    from littlegrid.search.runner import search

    def ensure_server(self, knobs, clock):  # what the real start does to the manifest, without a server
        self.manifest.update({"target": {"host": "127.0.0.1", "port": 8080, "addresses": ["127.0.0.1"],
                                         "placement": "this_host"}})
        self.folder.write_manifest(self.manifest)

    monkeypatch.setattr(GridRun, "ensure_server", ensure_server)
    folder, doc = search(grid(tmp_path), ["p90 < 300ms"], out=tmp_path / "out", run_id="s1")
    assert doc["answer"]["kind"] == "found"
    assert json.loads((folder / "manifest.json").read_text())["cells"] == [p["cell"] for p in doc["probes"]]


def test_resume_after_a_kill_keeps_finished_probes_and_reruns_only_the_unfinished_one(tmp_path, simulated):
    from littlegrid.search.runner import search
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
    from littlegrid.search.runner import search
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
    from littlegrid.search.runner import search
    ran, _ = simulated
    with pytest.raises(UserError, match=problem):
        search(grid(tmp_path, users=users), [slo], out=tmp_path / "out")
    assert ran == [] and not (tmp_path / "out").exists()


def test_the_report_of_a_search_has_its_page_with_the_probes_the_slo_and_the_answer(tmp_path, found):
    import argparse
    from littlegrid.commands import report
    folder, doc, _, _ = found
    args = argparse.Namespace(inputs=[str(folder)], output=tmp_path / "rep", warmup=None, cooldown=None,
                              by_label=False, columns=None, jmeter_properties=None, timestamp_is_start=None)
    for name in ("delimiter", "timestamp_format", "include_subsamples", "timestamp_end"):
        setattr(args, name, None)
    report.main(args)
    page = (tmp_path / "rep" / "search.html").read_text()
    assert doc["answer"]["words"] in page.replace("&gt;", ">").replace("&lt;", "<")
    assert page.count("<tr>") - 1 == len(doc["probes"])  # header row + one row per probe
    assert "p90 &lt; 300ms" in page and "D_max" in page


@pytest.fixture
def watched(monkeypatch, simulated):
    """A search's live session (the real one, on a free port, updated every 50 ms), every search_update it was
    given, and a hook run inside each probe's cell while the view serves it."""
    from littlegrid.run.live import session as live_session
    got = {"updates": [], "during": []}
    real_open = live_session.open_live

    def open_live(host, port, *, title, bind_any=False, update_s=None):
        session = real_open(host, port, title=title, bind_any=bind_any, update_s=0.05)
        tell = session.view.search_update
        session.view.search_update = lambda search: (got["updates"].append(search), tell(search))[-1]
        got["session"] = session
        return session

    monkeypatch.setattr(live_session, "open_live", open_live)
    fake = runner.run_cell

    def run_cell(jmeter, plan, folder, properties, duration_s, **kw):
        for hook in got["during"]:
            hook(folder.name)
        return fake(jmeter, plan, folder, properties, duration_s, **kw)

    monkeypatch.setattr(runner, "run_cell", run_cell)
    return got


def _status(session) -> dict:
    with urllib.request.urlopen(session.url + "status.json", timeout=5) as r:
        return json.loads(r.read())


def test_live_status_shows_each_probe_running_the_bracket_and_the_answer(tmp_path, simulated, watched):
    from littlegrid.search.runner import search
    ran, _ = simulated
    seen = []

    def look(cell_id):  # inside the probe's cell: the status is read over HTTP, as the page reads it
        session = watched["session"]
        session.view.refresh()
        seen.append((cell_id, _status(session)))

    watched["during"].append(look)
    folder, doc = search(grid(tmp_path, users="{ min = 1, max = 40 }"), ["p90 < 300ms"], out=tmp_path / "out",
                         run_id="live", live="0")
    answer = doc["answer"]
    assert answer["kind"] == "found"
    # each probe ran the load the view had announced as the next one, and the view showed it running
    for (cell_id, status), probe in zip(seen, doc["probes"]):
        assert status["cell"]["id"] == cell_id == probe["cell"]
        assert status["search"]["next probe"].startswith(f"{probe['users']:.0f}: ")
        assert status["run"]["state"] == "running"
    assert len(seen) == len(ran) == len(doc["probes"])
    # the bracket tightens to the answer: the last update is the answer in search.json's words
    last = watched["updates"][-1]
    assert last["answer"] == answer["words"] and last["probes"] == len(doc["probes"])
    assert last["bracket"] == [answer["users"], answer["above"]["users"]]
    assert "next probe" not in last and last["searching"] == "users in 1..40" and last["slo"] == "p90 < 300ms"
    final = json.loads(watched["session"].view.status_json())
    assert final["run"]["state"] == "complete" and final["search"]["answer"] == answer["words"]
    assert [c["id"] for c in final["cells"]] == ran  # every probe in the table, analysed
    # --live wrote nothing into the run folder
    assert sorted(p.name for p in folder.iterdir()) == ["cells", "grid.toml", "manifest.json", "search.json",
                                                        "summary.json"]


def test_live_search_of_two_groups_says_the_earlier_answer(tmp_path, simulated, watched):
    from littlegrid.search.runner import search
    path = grid(tmp_path, users="{ min = 1, max = 8 }")
    path.write_text(path.read_text().replace("[properties]\nthink_ms = 0\n", "") + "think_ms = [0, 1000]\n")
    folder, doc = search(path, ["p90 < 300ms"], out=tmp_path / "out", run_id="live2", live="0")
    second = [u for u in watched["updates"] if u["searching"].endswith("where think_ms = 1000")]
    assert second and all(u["earlier searches"] == doc["answer"][0]["words"] for u in second)
    assert second[-1]["answer"] == doc["answer"][1]["words"]


@pytest.mark.parametrize("live, words", [
    ("0.0.0.0:8123", "--live 0.0.0.0:8123: 0.0.0.0 is not a loopback address"),
    ("http://x", "--live http://x:"),
])
def test_bad_live_values_are_refused_in_one_line_before_any_load(tmp_path, simulated, capsys, live, words):
    ran, _ = simulated
    code = cli.main(["search", str(grid(tmp_path)), "--slo", "p90 < 300ms", "--out", str(tmp_path / "out"),
                     "--live", live])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and words in err, err
    assert ran == [] and not (tmp_path / "out").exists()


def test_a_busy_live_port_is_refused_before_any_load_and_leaves_no_run_folder(tmp_path, simulated, capsys):
    ran, _ = simulated
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = cli.main(["search", str(grid(tmp_path)), "--slo", "p90 < 300ms", "--out", str(tmp_path / "out"),
                         "--live", str(port)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err == (f"littlegrid search: --live 127.0.0.1:{port}: the port is already in use; "
                                 "choose another (or 0 for any free port)")
    assert ran == [] and not (tmp_path / "out").exists()


@pytest.mark.browser
def test_the_live_page_shows_the_search_converging_in_chromium(tmp_path, simulated, watched, browser):
    from littlegrid.search.runner import search
    page = browser.new_page()
    requests, errors, shown = [], [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))

    def look(cell_id):
        if not shown:
            page.goto(watched["session"].url, wait_until="load")
        # the updater and the server run on their own threads while this probe's cell "runs"
        page.wait_for_function("n => !document.getElementById('search').hidden && "
                               "document.getElementById('search-facts').textContent.includes('probes' + n)",
                               arg=len(shown), timeout=10_000)  # this probe's update: the count of probes before it
        shown.append(page.inner_text("#search-facts"))

    watched["during"].append(look)
    search(grid(tmp_path, users="{ min = 1, max = 20 }"), ["p90 < 300ms"], out=tmp_path / "out", run_id="lb", live="0")
    assert len(shown) >= 3 and "searching" in shown[0] and "users in 1..20" in shown[0]
    assert any("meets up to" in s and "fails from" in s for s in shown[1:])
    url = watched["session"].url
    assert not errors and requests and all(u.startswith(url) for u in requests), (errors, requests)
    page.close()


@pytest.mark.parametrize("gap_ms, valid", [(0.6, True), (10.0, False)])
def test_a_probe_whose_workload_shortfall_is_jmeters_per_cycle_work_stays_valid(tmp_path, simulated, monkeypatch,
                                                                                gap_ms, valid):
    """/cpu-like cells: R ≈ 5 ms on 2 servers, Z = 0 asked. JMeter's 0.6 ms between samples makes X·R fall ~10 %
    short of N, which the per-cycle overhead explains (findings.base.overhead_explains): the probe is evidence.
    Negative control: 10 ms between samples is not JMeter's own work, and the probe is not trusted."""
    from littlegrid.search.runner import search

    def run_cell(jmeter, plan, folder, properties, duration_s, **kw):
        samples = machine_repairman(int(properties["users"]), 2, 5.0, gap_ms, duration_s, seed=7)
        write_jtl(samples, folder / "results.jtl")
        return cell_run.CellOutcome("complete", None, 0, len(samples), "2026-01-01T00:00:00.000Z",
                                    "2026-01-01T00:00:40.000Z", duration_s, 0)

    monkeypatch.setattr(runner, "run_cell", run_cell)
    folder, doc = search(grid(tmp_path, users="{ min = 1, max = 4 }"), ["p90 < 25ms"], out=tmp_path / "out",
                         run_id="gap")
    first = doc["probes"][0]
    assert first["users"] == 1 and first["valid"] is valid
    summary = json.loads((folder / "summary.json").read_text())
    checks = {c["name"]: c for c in summary["cells"][0]["checks"]}
    if valid:  # JMeter's measured per-cycle work is the loop's cost, counted in the cycle and reported (issue 62)
        assert checks["workload"]["passed"] is True and "the generator's own" in checks["workload"]["explanation"]
    else:
        assert checks["workload"]["passed"] is False and first["why_invalid"].startswith("workload:")


def test_precise_probes_stop_when_precise_or_their_slo_is_clear_and_count_their_own_load(tmp_path, monkeypatch):
    """With [cell] until = "precise" every probe runs under the watcher with both conditions, the precision's and
    the SLO's. The stand-in writes its M/M/10//N cell second by second, as JMeter would, asks the watcher after each
    second and ends two seconds after it answered (the seconds still open when it decided); the search then adds
    each probe's own load_s."""
    from analysis_synthetic import machine_repairman, write_jtl

    monkeypatch.setattr("littlegrid.run.jmeter.find_jmeter", lambda: JMeter(home=tmp_path, jar=tmp_path / "j.jar"))
    monkeypatch.setattr(runner, "java_version", lambda: "17 (fake)")
    monkeypatch.setattr(preflight, "check_grid", lambda grid: None)
    asked = []

    def stand_in(jmeter, plan, folder, properties, duration_s, watcher=None, **kw):
        asked.append([name for name, _ in watcher.conditions])
        samples = machine_repairman(int(properties["users"]), 10, 100.0, 0.0, duration_s, seed=len(asked))
        samples = samples.sort_values("end_ms", kind="stable")
        # the cell's lines written once, then handed out second by second (the same bytes): a write_jtl and a scan of
        # every row per second cost 0.3 s of CPU per probe of 120 s
        lines = write_jtl(samples, tmp_path / "whole.jtl").read_bytes().splitlines(keepends=True)
        assert len(lines) == len(samples) + 1  # the header, then one line per row, in the rows' order
        first = int(samples["start_ms"].min())
        # row k ends in cell second t (ends in [first + 1000 (t-1), first + 1000 t)) for ends[t-1] <= k < ends[t]
        ends = np.searchsorted(samples["end_ms"].to_numpy(), first + 1000 * np.arange(int(duration_s) + 1))
        jtl = folder / "results.jtl"
        jtl.write_bytes(lines[0])
        stop_at = None
        for t in range(1, int(duration_s) + 1):  # each second's answers appended, as JMeter writes them
            with jtl.open("ab") as f:
                f.writelines(lines[1 + ends[t - 1]: 1 + ends[t]])
            if stop_at is None and watcher.check(10.0 * t):
                stop_at = t + 2
            if stop_at is not None and t >= stop_at:
                break
        stop = watcher.stop("complete")
        return cell_run.CellOutcome("complete", None, 0, 1, "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:40.000Z",
                                    float(t), 0, stop=stop, load_s=watcher.load_s)

    monkeypatch.setattr(runner, "run_cell", stand_in)
    path = grid(tmp_path).with_name("precise.toml")
    # ±5% asked: the probes next to the boundary (16, 17) stop precise within 80 s. At the default ±2% they all ran
    # to max_s, so no probe ever stopped for its precision, and they were two thirds of the test's time
    path.write_text(grid(tmp_path).read_text().replace("duration_s = 40",
                                                       'until = "precise"\nprecision = "5%"\nmax_s = 120'))
    cli.main(["search", str(path), "--slo", "p90 < 300ms", "--out", str(tmp_path / "out"), "--run-id", "p"])
    doc = json.loads((tmp_path / "out" / "p" / "search.json").read_text())
    probes = doc["searches"][0]["probes"]
    assert asked and all(names == ["precise", "slo"] for names in asked)
    stops = [json.loads((tmp_path / "out" / "p" / "cells" / p["cell"] / "manifest.json").read_text())["stop"]
             for p in probes]
    assert {"precise", "slo"} <= {s["reason"] for s in stops} <= {"precise", "slo", "max_s"}  # both conditions stop
    # the probes far below the boundary (N = 1 to 8: no queue at 10 servers) are decided early: their load is their
    # own seconds, well short of max_s
    early = [p for p, s in zip(probes, stops) if s["reason"] == "slo"]
    assert early and all(p["duration_s"] < 100 for p in early)
    assert doc["searches"][0]["answer"]["kind"] == "found"
