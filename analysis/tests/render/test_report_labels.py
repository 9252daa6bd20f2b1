"""Reports of the corpus's multi-label JTLs: the overview is the statistics per label, with figures equal to a
plain sort of each label's samples in the file, Transaction Controllers marked, errors by type and label."""

import csv
import json
import math
from fractions import Fraction

import pytest

from littlegrid import cli
from littlegrid.render.labels import COLUMNS
from test_report_pages import Page, _json_block

FILES = ["insta-rzd-errors-large.jtl", "karang-tc-commas.jtl", "youanchi-chinese.jtl", "shnyr-cyrillic.jtl"]
PERCENTILES = (("p50_ms", "50"), ("p90_ms", "90"), ("p95_ms", "95"), ("p99_ms", "99"), ("p999_ms", "99.9"))


def nearest_rank(values, p):
    ordered = sorted(values)
    return ordered[max(math.ceil(Fraction(p) * len(ordered) / 100), 1) - 1]


def _by_label(path):
    """{label: [(elapsed, success, response message)]} straight from the CSV file."""
    out = {}
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            out.setdefault(row["label"], []).append((int(row["elapsed"]), row["success"] == "true",
                                                     row["responseMessage"]))
    return out


@pytest.fixture(scope="module", params=FILES)
def reported(request, corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp(request.param.split(".")[0])
    assert cli.main(["report", str(corpus / request.param), "-o", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    return corpus / request.param, out, summary["cells"][0]


def test_the_overview_of_a_jtl_opens_with_its_verdict_line_then_its_label_table(reported):
    _, out, cell = reported
    html = (out / "index.html").read_text(encoding="utf-8")
    # issue 51: the verdict is one line of the first screen, under the headline; the label table follows
    assert html.index('id="headline"') < html.index('id="verdict"') < html.index('id="labels"') \
        < html.index('id="errors"')
    data = json.loads(_json_block(Page(html), "label-data"))
    # transactions first (what a user of a multi-step plan waits for), then the requests, each part by name
    assert [r[0] for r in data["rows"]] == sorted(cell["labels"], key=lambda k: (not cell["labels"][k]["transaction"], k))
    assert sum(st["count"] for st in cell["labels"].values()) == \
        cell["reading"]["rows_read"] - cell["reading"]["rows_skipped"]  # transaction rows keep their own line


def test_three_labels_figures_equal_a_plain_nearest_rank_sort_of_the_file_and_the_page_carries_them(reported):
    path, out, cell = reported
    truth = _by_label(path)
    data = json.loads(_json_block(Page((out / "index.html").read_text(encoding="utf-8")), "label-data"))
    rows = {r[0]: r for r in data["rows"]}
    at = {key: 3 + i for i, (key, _, _) in enumerate(COLUMNS)}
    # the busiest labels the reader kept whole (a sub-result row dropped from a label would change its figures)
    whole = [k for k in sorted(truth, key=lambda k: (-len(truth[k]), k))
             if k in cell["labels"] and cell["labels"][k]["count"] == len(truth[k])][:3]
    assert len(whole) == min(3, len(truth))
    for label in whole:
        elapsed = [e for e, _, _ in truth[label]]
        errors = sum(1 for _, ok, _ in truth[label] if not ok)
        expected = {"count": len(elapsed), "errors": errors, "min_ms": min(elapsed), "max_ms": max(elapsed),
                    "mean_ms": sum(elapsed) / len(elapsed), "error_rate": errors / len(elapsed),
                    **{key: nearest_rank(elapsed, p) for key, p in PERCENTILES}}
        st = cell["labels"][label]
        assert {k: st[k] for k in expected} == pytest.approx(expected, rel=1e-12), label
        for key in ("count", "errors", "min_ms", "max_ms", *(k for k, _ in PERCENTILES)):
            assert rows[label][at[key]] == expected[key], (label, key)  # whole numbers reach the page exactly
        transaction = all(m.startswith("Number of samples in transaction") for _, _, m in truth[label])
        assert st["transaction"] is transaction and rows[label][1] is transaction


def test_transaction_controller_rows_are_marked_and_left_out_of_the_first_row(corpus, tmp_path):
    path = corpus / "karang-tc-commas.jtl"
    assert cli.main(["report", str(path), "-o", str(tmp_path)]) == 0
    cell = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))["cells"][0]
    truth = _by_label(path)
    transactions = {k for k, rows in truth.items() if all(m.startswith("Number of samples in transaction")
                                                          for _, _, m in rows)}
    assert len(transactions) == 9 and transactions == {k for k, st in cell["labels"].items() if st["transaction"]}
    assert sum(len(truth[k]) for k in transactions) == cell["reading"]["transaction_rows_excluded"] == 25
    assert cell["overall"]["count"] == sum(st["count"] for st in cell["labels"].values() if not st["transaction"])
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "transactions only (9)" in html
    # the label table opens with the transactions (what a user of a multi-step plan waits for), then the requests
    order = [r[0] for r in json.loads(_json_block(Page(html), "label-data"))["rows"]]
    assert order[:9] == sorted(transactions) and order[9:] == sorted(set(cell["labels"]) - transactions)
    assert any("," in k for k in cell["labels"])  # labels with commas, read whole


def test_errors_by_type_and_the_top_five_of_each_label_link_to_the_label(corpus, tmp_path):
    path = corpus / "insta-rzd-errors-large.jtl"
    assert cli.main(["report", str(path), "-o", str(tmp_path)]) == 0
    cell = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))["cells"][0]
    by_type = cell["errors"]["by_type"]
    assert sum(t["count"] for t in by_type) == cell["overall"]["errors"] == 768
    assert by_type[0] == {"type": "Non HTTP response code: java.net.SocketTimeoutException/Non HTTP response "
                                  "message: Read timed out", "count": 389, "share_of_errors": 389 / 768,
                          "per_s": by_type[0]["per_s"]}
    worst = cell["labels"]["HTTP Request 6"]
    assert worst["errors"] == 228 and sum(e["count"] for e in worst["top_errors"]) <= 228
    assert [e["count"] for e in worst["top_errors"]] == sorted((e["count"] for e in worst["top_errors"]), reverse=True)
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    top = html[html.index("Top 5 errors by label"):]
    assert top.index('href="#label=HTTP%20Request%206"') < top.index('href="#label=HTTP%20Request%204"')
    assert "Response codes per second" in html
