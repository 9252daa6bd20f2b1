"""Header-less files JMeter 5.6.3 wrote under other save configurations (fixtures/headerless, made by its
make.sh): every JMeter version's default layout read exactly, other layouts read when inferable and refused
with the candidates when not, and every file read exactly with the run's own properties file
(--jmeter-properties)."""

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from littlegrid import cli
from littlegrid.jtl import read_jtl
from littlegrid.jtl.save_config import from_files
from littlegrid.usererror import UserError

HERE = Path(__file__).parent / "fixtures" / "headerless"
LAYOUT_2_2 = ["timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "dataType", "success"]
LAYOUT_2_11 = LAYOUT_2_2 + ["bytes", "Latency"]
LAYOUT_2_13 = LAYOUT_2_2 + ["bytes", "grpThreads", "allThreads", "Latency"]
LAYOUT_3_0 = LAYOUT_2_2 + ["failureMessage", "bytes", "grpThreads", "allThreads", "Latency", "IdleTime"]
LAYOUT_4_0 = LAYOUT_2_2 + ["failureMessage", "bytes", "sentBytes", "grpThreads", "allThreads", "Latency", "IdleTime",
                           "Connect"]
LAYOUT_5 = LAYOUT_4_0[:-3] + ["URL", "Latency", "IdleTime", "Connect"]
# file -> (delimiter, its true columns)
FILES = {
    "8-jmeter-2.2.jtl": (",", LAYOUT_2_2),
    "10-jmeter-2.11.jtl": (",", LAYOUT_2_11),
    "12-tab-jmeter-2.13.jtl": ("\t", LAYOUT_2_13),
    "14-jmeter-3.0.jtl": (",", LAYOUT_3_0),
    "16-jmeter-4.0.jtl": (",", LAYOUT_4_0),
    "17-jmeter-5.6.jtl": (",", LAYOUT_5),
    "12-comma-dates-end.jtl": (",", LAYOUT_2_13),
    "9-pipe.jtl": ("|", ["timeStamp", "elapsed", "label", "responseCode", "threadName", "success", "bytes",
                         "grpThreads", "allThreads"]),
    "13-semicolon.jtl": (";", ["timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName",
                               "success", "bytes", "sentBytes", "grpThreads", "allThreads", "Latency", "Connect"]),
}


def _truth(name):
    """The file's figures computed here, from its lines and its known layout: the answers the reader must give."""
    delimiter, columns = FILES[name]
    rows = [dict(zip(columns, line.split(delimiter)))
            for line in (HERE / name).read_text().splitlines()]
    assert all(len(r) == len(columns) for r in rows)
    elapsed = [int(r["elapsed"]) for r in rows]
    if name == "12-comma-dates-end.jtl":  # formatted end times (UTC, see make.sh): start = end - elapsed
        ends = [int(datetime.strptime(r["timeStamp"], "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=timezone.utc)
                    .timestamp() * 1000 + 0.5) for r in rows]
        starts = [e - t for e, t in zip(ends, elapsed)]
    else:
        starts = [int(r["timeStamp"]) for r in rows]
    return {"rows": len(rows), "starts": starts, "elapsed": elapsed,
            "failures": sum(r["success"] == "false" for r in rows),
            "labels": {label: sum(r["label"] == label for r in rows) for label in {r["label"] for r in rows}},
            "threads": len({r["threadName"] for r in rows})}


def _assert_exact(reading, name):
    truth = _truth(name)
    s = reading.samples
    assert len(s) == truth["rows"] == 48 and reading.skipped_total == 0
    assert s["start_ms"].tolist() == truth["starts"]
    assert s["elapsed_ms"].tolist() == truth["elapsed"]
    assert int((~s["success"]).sum()) == truth["failures"] == 24
    assert s["label"].astype(str).value_counts().to_dict() == truth["labels"] == {"java ok": 24, "java fails": 24}
    assert s["thread"].nunique() == truth["threads"] == 3
    assert set(s.loc[~s["success"], "response_code"].astype(str)) == {"500"}


# each version's default layout (save_config.VERSION_DEFAULTS; docs/jtl.md lists them) -> the file in it and what
# the note says: its version and the text columns empty on every row (no assertion: no failureMessage)
DEFAULT_LAYOUTS = {
    "8-jmeter-2.2.jtl": "JMeter 2.1-2.2's default save configuration; 3 other layout(s) fit the values",
    "10-jmeter-2.11.jtl": "JMeter 2.3-2.11's default save configuration; 5 other layout(s) fit the values",
    "12-tab-jmeter-2.13.jtl": "JMeter 2.12-2.13's default save configuration; 4 other layout(s) fit the values",
    "14-jmeter-3.0.jtl": "JMeter 3.0's default save configuration, failureMessage empty on every row)",
    "16-jmeter-4.0.jtl": "JMeter 3.1-4.0's default save configuration, failureMessage empty on every row)",
}


@pytest.mark.parametrize("name", sorted(DEFAULT_LAYOUTS))
def test_each_jmeter_versions_default_layout_is_read_exactly_and_said_why(name):
    reading = read_jtl(HERE / name)
    _assert_exact(reading, name)
    assert reading.format == ("csv TAB no header" if "tab" in name else "csv ',' no header")
    note = next(w for w in reading.warnings if "layout inferred" in w)
    assert f"{','.join(FILES[name][1])} ({DEFAULT_LAYOUTS[name]}" in note
    assert reading.samples["latency_ms"].notna().all() == ("Latency" in FILES[name][1])


def test_the_5x_default_layout_is_taken_by_its_width():
    reading = read_jtl(HERE / "17-jmeter-5.6.jtl")
    _assert_exact(reading, "17-jmeter-5.6.jtl")
    assert any("JMeter's 17 default columns assumed" in w for w in reading.warnings)


SLEEP = "12-java-sleep-jmeter-2.13.jtl"  # Java Request SleepTest samplers: no response code, message or data type


def test_a_java_request_file_with_empty_text_columns_is_read_in_its_versions_default_layout_every_row_counted():
    lines = [line.split(",") for line in (HERE / SLEEP).read_text().splitlines()]
    assert len(lines) == 48 and all(len(f) == 12 and f[3] == f[4] == f[6] == "" for f in lines)
    reading = read_jtl(HERE / SLEEP)
    s = reading.samples
    assert len(s) == 48 and reading.skipped_total == 0
    assert s["start_ms"].tolist() == [int(f[0]) for f in lines]
    assert s["elapsed_ms"].tolist() == [int(f[1]) for f in lines]
    assert s["latency_ms"].tolist() == [int(f[11]) for f in lines]
    assert s["all_threads"].tolist() == [int(f[10]) for f in lines] and s["thread"].nunique() == 3
    assert s["label"].astype(str).value_counts().to_dict() == {"sleep long": 24, "sleep short": 24}
    assert bool(s["success"].all())
    note = next(w for w in reading.warnings if "layout inferred" in w)
    assert note.endswith(f"{','.join(LAYOUT_2_13)} (JMeter 2.12-2.13's default save configuration, responseCode, "
                         "responseMessage, dataType empty on every row)")


def test_analyze_counts_every_row_of_the_java_request_file(capsys):
    assert cli.main(["analyze", str(HERE / SLEEP), "--json", "-"]) == 0
    cell = json.loads(capsys.readouterr().out)["cells"][0]
    assert cell["reading"]["rows_read"] == 48 and cell["reading"]["rows_skipped"] == 0
    assert cell["users"]["threads_seen"] == 3


def test_formatted_timestamps_are_detected_but_only_the_properties_say_they_mark_the_end():
    name = "12-comma-dates-end.jtl"
    guessed = read_jtl(HERE / name)
    assert guessed.format == "csv ',' no header timestamps 'yyyy/MM/dd HH:mm:ss.SSS'"
    truth = _truth(name)
    # read as starts, every sample sits `elapsed` ms late: nothing in the file can tell
    assert (guessed.samples["start_ms"] - guessed.samples["elapsed_ms"]).tolist() == truth["starts"]
    _assert_exact(read_jtl(HERE / name, timestamp_is_start=False), name)


@pytest.mark.parametrize("name", ["9-pipe.jtl", "13-semicolon.jtl"])
def test_a_layout_the_values_cannot_settle_is_refused_with_the_candidates(name):
    with pytest.raises(UserError) as error:
        read_jtl(HERE / name)
    message = str(error.value)
    width = len(FILES[name][1])
    assert message.startswith(f"{HERE / name}:1: no header and {width} fields per row: 4 save configurations fit")
    assert ",".join(FILES[name][1]) in message  # the true layout is among those listed
    assert message.endswith("pick one with --columns NAMES or --jmeter-properties FILE")


@pytest.mark.parametrize("name", sorted(FILES))
def test_every_file_is_read_exactly_with_the_runs_properties(name):
    config = from_files([HERE / name.replace(".jtl", ".properties")])
    assert list(config.columns) == FILES[name][1] and config.delimiter == FILES[name][0]
    assert config.header is False
    reading = read_jtl(HERE / name, columns=list(config.columns), delimiter=config.delimiter,
                       timestamp_format=config.timestamp_format, timestamp_is_start=config.timestamp_is_start)
    _assert_exact(reading, name)


@pytest.mark.parametrize("name", sorted(FILES))
def test_analyze_with_jmeter_properties_on_the_command_line(name, capsys):
    props = HERE / name.replace(".jtl", ".properties")
    assert cli.main(["analyze", str(HERE / name), "--json", "-", "--jmeter-properties", str(props)]) == 0
    cell = json.loads(capsys.readouterr().out)["cells"][0]
    assert cell["reading"]["rows_read"] == 48 and cell["reading"]["rows_skipped"] == 0
    assert cell["users"]["threads_seen"] == 3
    assert any("columns as given (--columns or --jmeter-properties)" in w for w in cell["warnings"])


def test_a_refusal_on_the_command_line_is_one_line_naming_file_line_and_option(capsys):
    path = HERE / "9-pipe.jtl"
    assert cli.main(["analyze", str(path), "--json", "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"littlegrid analyze: {path}:1: no header and 9 fields")
    assert "--columns NAMES" in err


def test_report_with_columns_end_to_end(tmp_path, capsys):
    name = "9-pipe.jtl"
    out = tmp_path / "report"
    assert cli.main(["report", str(HERE / name), "--columns", ",".join(FILES[name][1]), "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out / "index.html")
    summary = json.loads((out / "summary.json").read_text())
    overall = summary["cells"][0]["overall"]
    assert summary["cells"][0]["reading"]["format"] == "csv '|' no header"
    assert overall["count"] == 48 and overall["errors"] == 24
    assert sorted(p.name for p in out.iterdir()) == ["cells", "distributions.html", "index.html", "summary.json",
                                                     "summary.md", "summary.png"]


def test_compare_of_a_copied_summary_needs_no_reader_options(tmp_path, capsys):
    """The summary keeps each cell's exact histogram: a summary copied away from a header-less JTL compares with
    intervals and never re-reads the file."""
    name, columns = "9-pipe.jtl", ",".join(FILES["9-pipe.jtl"][1])
    assert cli.main(["report", str(HERE / name), "--columns", columns, "-o", str(tmp_path / "r")]) == 0
    summary = tmp_path / "summary.json"
    summary.write_text((tmp_path / "r" / "summary.json").read_text())
    capsys.readouterr()
    assert cli.main(["compare", str(summary), str(summary), "-o", str(tmp_path / "c")]) == 0
    page = (tmp_path / "c" / "index.html").read_text()
    # every cell has its intervals: the run compared with itself differs nowhere. Its p50 of 8 ms is known to
    # JMeter's whole millisecond only (a standard error of 1/√12 ms, 3.6% of it, in each run), so the difference's
    # interval reaches ±10%: beyond the 5% margin, the cell is undecided, never equivalent on a resolution it lacks
    assert "no JTL found" not in page and "without intervals" not in page
    assert ("1 cells paired: 0 worse by more than ±5%, 0 better by more than ±5%, 0 equivalent within ±5%, "
            "1 undecided (neither shown beyond ±5% nor inside it)</h2>") in page
