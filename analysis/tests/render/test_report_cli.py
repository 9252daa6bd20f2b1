"""`littlegrid report` from the command line: run folders (analysed when needed), JTL files, clear refusals."""

import json

from littlegrid import cli
from synthetic_summary import HOSTILE
from runs import write_jtl, write_run


def test_a_run_folder_without_summary_is_analysed_then_reported_into_its_report_folder(tmp_path, capsys):
    run = write_run(tmp_path / "run", users=(2, 4), think_ms=(0,), seconds=6)
    assert cli.main(["report", str(run)]) == 0
    assert capsys.readouterr().out.strip() == str(run / "report" / "index.html")
    summary = json.loads((run / "summary.json").read_text())
    assert [c["id"] for c in summary["cells"]] == ["users=2,think_ms=0", "users=4,think_ms=0"]
    assert sorted(p.name for p in (run / "report" / "cells").iterdir()) == ["users=2,think_ms=0.html", "users=4,think_ms=0.html"]
    # a second report reads the summary as it is (edits to it show)
    summary["run"]["grid_name"] = "edited-grid"
    (run / "summary.json").write_text(json.dumps(summary))
    assert cli.main(["report", str(run), "-o", str(tmp_path / "again")]) == 0
    assert "edited-grid" in (tmp_path / "again" / "index.html").read_text()


def test_jtl_files_are_analysed_as_one_cell_and_the_summary_is_kept_beside_the_report(tmp_path, capsys):
    jtl = tmp_path / "results.jtl"
    rows = write_jtl(jtl, users=3, think_ms=5, service_ms=8, seconds=5, seed=1)
    assert cli.main(["report", str(jtl), "-o", str(tmp_path / "out"), "--warmup", "1", "--cooldown", "1"]) == 0
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["run"]["source"] == "jtl" and 0 < summary["cells"][0]["overall"]["count"] < rows
    assert (tmp_path / "out" / "index.html").is_file()


def test_a_missing_input_or_an_output_that_is_a_file_is_one_line_and_exit_2(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope: no such file or directory" in err
    run = write_run(tmp_path / "run", users=(2,), think_ms=(0,), seconds=4)
    (tmp_path / "file").write_text("x")
    assert cli.main(["report", str(run), "-o", str(tmp_path / "file")]) == 2
    assert "file: exists and is not a folder" in capsys.readouterr().err


def test_hostile_labels_and_messages_in_a_real_jtl_reach_the_pages_as_text(tmp_path):
    jtl = tmp_path / "hostile.jtl"
    write_jtl(jtl, users=4, think_ms=5, service_ms=5, seconds=6, seed=2, labels=HOSTILE, error_message=HOSTILE[1])
    assert cli.main(["report", str(jtl), "--by-label", "-o", str(tmp_path / "out")]) == 0
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert set(summary["cells"][0]["labels"]) == set(HOSTILE)  # the reader kept them verbatim
    for page in (tmp_path / "out").rglob("*.html"):
        raw = page.read_text()
        assert "<script>alert(1)" not in raw and "<img src=x" not in raw and 'href="javascript' not in raw
    cell = next((tmp_path / "out" / "cells").glob("*.html")).read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in cell and "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in cell


def test_a_large_analysis_has_its_image_drawn_by_a_child_process_as_it_would_be_here(tmp_path, monkeypatch):
    from littlegrid.commands import report
    from littlegrid.render import summary_png
    from littlegrid.commands.summary_source import bytes_to_analyze

    jtl = tmp_path / "results.jtl"
    write_jtl(jtl, users=3, think_ms=5, service_ms=8, seconds=5, seed=1)
    assert bytes_to_analyze([str(jtl)]) == jtl.stat().st_size
    children = []

    class Counted(summary_png.Background):
        def __init__(self):
            super().__init__()
            children.append(self._child)

    monkeypatch.setattr(summary_png, "Background", Counted)
    monkeypatch.setattr(summary_png, "GRACE_S", 300)  # the child's path, however busy the host (fallback: elsewhere)
    monkeypatch.setattr(summary_png, "STALL_S", 300)
    assert cli.main(["report", str(jtl), "-o", str(tmp_path / "here")]) == 0
    assert children == []  # a small file: drawn in this process
    monkeypatch.setattr(report, "BACKGROUND_IMAGE_BYTES", 0)
    assert cli.main(["report", str(jtl), "-o", str(tmp_path / "there")]) == 0
    assert len(children) == 1 and children[0].returncode == 0
    assert (tmp_path / "there" / "summary.png").read_bytes() == (tmp_path / "here" / "summary.png").read_bytes()


def test_a_run_folder_whose_summary_is_read_as_it_is_has_nothing_to_analyse(tmp_path):
    from littlegrid.commands.summary_source import bytes_to_analyze

    run = write_run(tmp_path / "run", users=(2,), think_ms=(0,), seconds=4)
    jtl_bytes = sum(p.stat().st_size for p in run.rglob("*.jtl"))
    assert jtl_bytes > 0 and bytes_to_analyze([str(run)]) == jtl_bytes  # no summary.json yet: analysed
    assert cli.main(["report", str(run)]) == 0
    assert bytes_to_analyze([str(run)]) == 0  # its summary.json now is read as it is
    assert bytes_to_analyze([str(run)], warmup_s=1.0) == jtl_bytes  # another trim analyses again
