"""The gate's typed record (summary/baseline.py): each shown string from one method, in the criterion's unit; the
verdict in words; RUN/baseline.json read back as written, a broken one refused in one line naming the file."""

import pytest

from littlegrid.summary import baseline
from littlegrid.usererror import UserError


def row(**changes) -> baseline.BaselineRow:
    figures = dict(criterion="p90 regress < 10%", cell="users=20", metric="p90", unit="%", baseline=110.0, value=142.0,
                   regression=0.2909, lo=0.18, hi=0.412, margin=0.1, noise_runs=5, noise_needed=3, noise_used=True,
                   passed=False, reason=None)
    return baseline.BaselineRow(**(figures | changes))


def test_margins_and_changes_read_in_the_criterions_unit():
    assert baseline.margin_text("points", 0.005) == "0.5 points" and baseline.margin_text("%", 0.1) == "10%"
    assert baseline.change_text("%", 0.1234) == "+12.3%"
    assert baseline.change_text("points", -0.002) == "-0.20 points"
    assert baseline.change_text("%", None) == "unknown"


def test_a_row_says_its_figures_interval_noise_and_verdict_in_one_line():
    assert row().message() == ("p90 regress < 10% [users=20]: p90 110 ms -> 142 ms, regression +29.1% (95% interval "
                               "+18.0% to +41.2%, with the run-to-run noise of 5 earlier runs): regressed beyond 10%")
    assert row(passed=True).verdict() == "not shown beyond 10%"
    waiting = row(noise_runs=1, noise_used=False, passed=None, reason="the history holds 1 comparable earlier run")
    assert waiting.awaits_noise and waiting.noise_short() == "within-run only (1 runs)"
    assert waiting.message().endswith("(95% interval +18.0% to +41.2%, within-run only): not judged: the history "
                                      "holds 1 comparable earlier run")
    missing = row(value=None, regression=None, lo=None, hi=None, passed=None, reason="this run has no p90 in this cell")
    assert not missing.awaits_noise and missing.interval_text() == "none"
    assert missing.message() == "p90 regress < 10% [users=20]: not judged: this run has no p90 in this cell"
    errors = row(criterion="error_rate increase < 0.5 points", metric="error_rate", unit="points", baseline=0.0,
                 value=0.012, regression=0.012, lo=0.008, hi=0.016, margin=0.005)
    assert (errors.shown(errors.value), errors.interval_text()) == ("1.2%", "+0.80 points to +1.60 points")
    assert row(metric="throughput", criterion="throughput regress < 5%").shown(19.5) == "19.5/s"


def test_the_gates_verdict_counts_its_rows():
    def gate(rows, baseline_id="b", notes=()):
        return baseline.Baseline(schema=baseline.SCHEMA, run_id="r", baseline_id=baseline_id, criteria=[],
                                 rows=rows, notes=list(notes))

    assert gate([row(), row(passed=True)]).verdict_text() == "1 of 2 regressed beyond their margin"
    assert gate([row(passed=True)]).verdict_text() == "none of 1 regressed beyond its margin"
    assert gate([row(passed=True), row(passed=None, noise_used=False)]).verdict_text() == \
        "none of 2 regressed beyond their margin; 1 not judged"
    assert gate([], None, ["no earlier run passed"]).verdict_text() == "not judged: no earlier run passed"


def test_the_record_reads_back_and_a_broken_one_is_refused_in_one_line(tmp_path):
    kept = baseline.Baseline(schema=baseline.SCHEMA, run_id="r", baseline_id="b", criteria=["p90 regress < 10%"],
                             rows=[row()], notes=["cell x is only in the baseline: not judged"])
    path = baseline.write(kept, tmp_path)
    assert baseline.read(path) == kept
    path.write_text('{"schema": "littlegrid.baseline/1", "run_id": "r"}')
    with pytest.raises(UserError) as e:
        baseline.read(path)
    assert str(e.value).startswith(f"{path}: not a valid littlegrid.baseline/1 file: ") and "\n" not in str(e.value)
    path.write_text('{"schema": "littlegrid.baseline/0"}')
    with pytest.raises(UserError, match="not a littlegrid.baseline/1 file"):
        baseline.read(path)
    path.write_text("{")
    with pytest.raises(UserError, match=r":1: not valid JSON"):
        baseline.read(path)
