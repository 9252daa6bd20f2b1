"""A real JTL through analyze, then criteria and check, against percentiles counted by hand from the file."""

import csv
import math
import xml.etree.ElementTree as ET

import pytest

from littlegrid import cli
from littlegrid.criteria.evaluate import evaluate

JTL = "shnyr-cyrillic.jtl"  # in the corpus (tests/conftest.py): 159 samples, two Cyrillic labels, no errors


def nearest_rank(values, q):
    ordered = sorted(values)
    return ordered[math.ceil(q / 100 * len(ordered)) - 1]


@pytest.fixture(scope="module")
def real(corpus):
    from littlegrid import summary
    from littlegrid.commands import analyze

    jtl = corpus / JTL
    with jtl.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    elapsed = {label: [int(r["elapsed"]) for r in rows if r["label"] == label] for label in {r["label"] for r in rows}}
    elapsed[None] = [int(r["elapsed"]) for r in rows]
    return summary.plain(analyze.analyze([str(jtl)], by_label=True)), elapsed


def test_p90_on_the_whole_cell_is_the_nearest_rank_p90_of_the_file(real):
    s, elapsed = real
    p90 = nearest_rank(elapsed[None], 90)
    at_most, below = evaluate([f"p90 <= {p90}ms", f"p90 < {p90}ms"], s)
    assert (at_most["value"], at_most["passed"], below["passed"]) == (p90, True, False)


@pytest.mark.parametrize("label", ["Авторизация", "Создание водителя"], ids=["authorisation", "create_driver"])
def test_a_cyrillic_label_scope_reads_that_labels_own_p99(real, label):
    s, elapsed = real
    p99 = nearest_rank(elapsed[label], 99)
    [entry] = evaluate([f'p99 < {p99 + 1}ms label "{label}"'], s)
    assert (entry["value"], entry["passed"]) == (p99, True)


def test_check_on_the_analysed_run_fails_on_the_tight_criterion_and_writes_junit(real, tmp_path, capsys):
    from littlegrid import summary

    s, elapsed = real
    p90 = nearest_rank(elapsed[None], 90)
    run = tmp_path / "run"
    run.mkdir()
    summary.write(s, run / "summary.json")
    junit = tmp_path / "junit.xml"
    code = cli.main(["check", str(run), "--criteria-only", "--junit", str(junit),
                     "--criterion", "error_rate == 0%", "--criterion", f"p90 < {p90}ms"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines == [f"FAIL p90 < {p90}ms [shnyr-cyrillic.jtl]: p90 is {p90} ms, needs < {p90} ms",
                     "1 passed, 1 failed"]
    suite = ET.parse(junit).getroot()
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
