"""The gate's typed record (summary/baseline.py): each shown string from one method, in the criterion's unit; the
noise and the detectable size said with every verdict; a persistent shift worded; the verdict in words;
RUN/baseline.json read back as written, a broken one refused in one line naming the file."""

import pytest

from littlegrid.summary import baseline
from littlegrid.usererror import UserError

NOISE = "σ_b 2% (prior 2%, this project's default, 6 df)"


def row(**changes) -> baseline.BaselineRow:
    figures = dict(criterion="p90 regress < 10%", cell="users=20", metric="p90", unit="%", baseline=110.0, value=142.0,
                   regression=0.2909, lo=0.18, hi=0.412, margin=0.1, reference_runs=3, noise_sd=0.02, noise_df=6.0,
                   noise_source="prior", noise_words=NOISE, detectable=0.1642, passed=False, reason=None)
    return baseline.BaselineRow(**(figures | changes))


def test_margins_changes_and_sizes_read_in_the_criterions_unit():
    assert baseline.margin_text("points", 0.005) == "0.5 points" and baseline.margin_text("%", 0.1) == "10%"
    assert baseline.change_text("%", 0.1234) == "+12.3%"
    assert baseline.change_text("points", -0.002) == "-0.20 points"
    assert baseline.change_text("%", None) == "unknown"
    assert baseline.size_text("%", 0.1642) == "16%" and baseline.size_text("%", 0.064) == "6.4%"
    assert baseline.size_text("points", 0.0031) == "0.31 points"


def test_a_row_says_its_figures_interval_noise_detectable_size_and_verdict_in_one_line():
    assert row().message() == ("p90 regress < 10% [users=20]: p90 110 ms (median of 3 runs) -> 142 ms, regression "
                               f"+29.1% (95% interval +18.0% to +41.2%; noise {NOISE}; detects ≥ 16%): regressed "
                               "beyond 10%")
    assert row(passed=True).verdict() == "not shown beyond 10%"
    assert row(reference_runs=1).message().startswith("p90 regress < 10% [users=20]: p90 110 ms -> 142 ms")
    assert row().noise_short() == "prior, 6 df"
    missing = row(value=None, regression=None, lo=None, hi=None, passed=None, reason="this run has no p90 in this cell")
    assert missing.interval_text() == "none"
    assert missing.message() == "p90 regress < 10% [users=20]: not judged: this run has no p90 in this cell"
    errors = row(criterion="error_rate increase < 0.5 points", metric="error_rate", unit="points", baseline=0.0,
                 value=0.012, regression=0.012, lo=0.008, hi=0.016, margin=0.005, detectable=0.0081)
    assert (errors.shown(errors.value), errors.interval_text()) == ("1.2%", "+0.80 points to +1.60 points")
    assert errors.detectable_text() == "detects ≥ 0.81 points"
    assert row(metric="throughput", criterion="throughput regress < 5%").shown(19.5) == "19.5/s"


def test_a_persistent_shift_is_worded_and_fails_even_when_this_run_alone_does_not():
    shift = baseline.Shift(since_run="r3", since_commit=None, runs_after=4, runs_before=2, change_points=2,
                           regression=0.213, lo=0.15, hi=0.279, beyond=True)
    crept = row(lo=0.02, regression=0.06, shift=shift)
    assert crept.verdict() == "persistent shift beyond 10%"
    assert crept.shift_text() == "persistent shift +21.3% (+15.0% to +27.9%) since run r3 (4 runs at the new level)"
    assert crept.verdict_line() == "persistent shift beyond 10%; " + crept.shift_text()
    assert crept.message().endswith("; " + crept.shift_text() + "): persistent shift beyond 10%")


def gate(rows, reference=("b",), notes=(), verdict="failed") -> baseline.Baseline:
    return baseline.Baseline(schema=baseline.SCHEMA, run_id="r", series="s", reference=list(reference),
                             reference_kind="series", criteria=[], rows=rows, notes=list(notes), verdict=verdict)


def test_the_gates_verdict_counts_its_rows_and_names_its_reference():
    assert gate([row(), row(passed=True)]).verdict_text() == "1 of 2 regressed beyond their margin"
    assert gate([row(passed=True)]).verdict_text() == "none of 1 regressed beyond its margin"
    assert gate([row(passed=True), row(passed=None, reason="x")]).verdict_text() == \
        "none of 2 regressed beyond their margin; 1 not judged"
    assert gate([], (), ["the first run of grid ci"]).verdict_text() == "not judged: the first run of grid ci"
    assert gate([row()], ("r1", "r2", "r3")).baseline_id == "median of r1, r2, r3"
    assert gate([row()]).baseline_id == "b" and gate([], ()).baseline_id is None


def test_what_each_criterion_could_detect_is_said_over_its_cells():
    rows = [row(detectable=d, cell=f"users={i}") for i, d in enumerate((0.12, 0.19, 0.14))]
    rows.append(row(criterion="throughput regress < 5%", metric="throughput", detectable=0.08))
    assert gate(rows).detectable_lines() == [
        f"p90 regress < 10%: this comparison detects p90 regressions of 14% or more (12% to 19% over 3 cells); "
        f"noise {NOISE}",
        f"throughput regress < 5%: this comparison detects throughput falls of 8.0% or more; noise {NOISE}"]


def test_the_record_reads_back_and_a_broken_one_is_refused_in_one_line(tmp_path):
    kept = gate([row()], notes=["cell x is only in the reference: not judged"])
    path = baseline.write(kept, tmp_path)
    assert baseline.read(path) == kept
    path.write_text('{"schema": "littlegrid.baseline/2", "run_id": "r"}')
    with pytest.raises(UserError) as e:
        baseline.read(path)
    assert str(e.value).startswith(f"{path}: not a valid littlegrid.baseline/2 file: ") and "\n" not in str(e.value)
    path.write_text('{"schema": "littlegrid.baseline/1"}')
    with pytest.raises(UserError, match="not a littlegrid.baseline/2 file"):
        baseline.read(path)
    path.write_text("{")
    with pytest.raises(UserError, match=r":1: not valid JSON"):
        baseline.read(path)
