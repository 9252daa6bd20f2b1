"""The typed summary model (littlegrid.summary.model) and its image docs/summary.schema.json: the committed file is what
the model generates; a real summary validates under both, each independently; both refuse the same broken ones; the
reader names the file and the first broken field in one line; and the tests' own hook really checks what analyze
returns (conftest.py installs it)."""

import copy
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from jsonschema import Draft202012Validator

import littlegrid.summarize
from analysis_synthetic import T0, closed_loop, make_run
from littlegrid import summary
from littlegrid.summary import invalid, schema
from littlegrid.summary.model import Summary
from littlegrid.usererror import UserError
from summary_contract import validating

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "summary.schema.json"


@pytest.fixture(scope="module")
def validator():
    return Draft202012Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))


def _cell(users: int) -> dict:
    """A closed loop of `users` (S = 20 ms, Z = 50 ms) with the server's and the host's 1 Hz metrics beside it."""
    x, r_s, t = users / 0.07, 0.02, np.arange(31)
    server = pd.DataFrame({"time_ms": T0 + 1000 * t, "busy_threads": x * r_s, "in_flight": x * r_s,
                           "requests_total": x * t, "service_seconds_total": x * r_s * t,
                           "in_flight_seconds_total": x * r_s * t})
    host = pd.DataFrame({"time_ms": T0 + 1000 * t, "load1": 0.5, "run_queue": 1, "cpu_util": 0.3})
    return {"id": f"users={users}", "axes": {"users": users}, "samples": closed_loop(users, 20, 50, duration_s=30),
            "users": users, "think_ms": 50, "think_dist": "constant", "server": {"server.tomcat.threads.max": 10},
            "properties": {"path": "/io?ms=20"}, "server_metrics": server, "host_metrics": host}


@pytest.fixture(scope="module")
def summaries(corpus, tmp_path_factory) -> list[dict]:
    """A bare JTL with errors (no server, its labels) and a run folder of three closed-loop cells (server and host
    metrics, the grid's bounds, knee, USL, SLO capacity and checks), as summary.json holds them."""
    run = make_run(tmp_path_factory.mktemp("run"), [_cell(n) for n in (2, 4, 8)],
                   grid_extra={"criteria": ["p90 < 300ms"]})
    return [json.loads(summary.dumps(littlegrid.summarize.analyze([corpus / "supercomp-noheader-crlf-errors.jtl"]))),
            json.loads(summary.dumps(littlegrid.summarize.analyze([run])))]


def test_the_committed_schema_is_the_models_image():
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema.text(), (
        "docs/summary.schema.json is stale: regenerate it with "
        "`python -m littlegrid.summary.schema > docs/summary.schema.json`")


def test_real_summaries_validate_under_the_model_and_under_the_committed_schema(summaries, validator):
    for s in summaries:
        assert invalid(s) is None
        assert list(validator.iter_errors(s)) == []
    assert summaries[0]["cells"][0]["overall"]["errors"] > 0 and summaries[0]["cells"][0]["server"] is None
    grid = summaries[1]
    assert grid["cells"][0]["server"] is not None and grid["cells"][0]["host"] is not None
    assert grid["curves"] and all(k["models"][m] for k in grid["curves"] for m in ("bounds", "knee", "usl", "slo_capacity"))
    assert grid["criteria"]


def _broken(s: dict, how: str) -> dict:
    s = copy.deepcopy(s)
    cell = s["cells"][0]
    if how == "missing":
        del cell["overall"]["p90_ms"]
    elif how == "string for a number":
        cell["overall"]["p90_ms"] = "12"
    elif how == "fraction for a count":
        cell["overall"]["count"] = 1.5
    elif how == "unknown field":
        cell["overall"]["p42_ms"] = 1.0
    elif how == "null where never null":
        cell["id"] = None
    return s


@pytest.mark.parametrize("how, message", [
    ("missing", "cells[0].overall.p90_ms: field required"),
    ("string for a number", "cells[0].overall.p90_ms: input should be a valid number"),
    ("fraction for a count", "cells[0].overall.count: input should be a valid integer"),
    ("unknown field", "cells[0].overall.p42_ms: extra inputs are not permitted"),
    ("null where never null", "cells[0].id: input should be a valid string"),
])
def test_the_model_and_the_schema_refuse_the_same_broken_summaries(summaries, validator, how, message):
    broken = _broken(summaries[0], how)
    assert invalid(broken).startswith(message)
    assert list(validator.iter_errors(broken)), f"the committed schema let a summary with a {how} through"


def test_the_reader_names_the_file_and_the_first_broken_field_in_one_line(summaries, tmp_path):
    path = tmp_path / "summary.json"
    summary.write(_broken(summaries[0], "string for a number"), path)
    with pytest.raises(UserError) as e:
        summary.read(path)
    assert str(e.value) == (f"{path}: not a valid littlegrid.summary/4 summary: "
                            "cells[0].overall.p90_ms: input should be a valid number")
    summary.write(summaries[0], path)
    # the model reads back what it wrote, both spelt by the model (json.dumps spells 3.7e-05 as 3.7e-05, pydantic as
    # 0.000037: a think-time p-value of the corpus file's whole window has one)
    assert summary.dumps(summary.read(path)) == summary.dumps(Summary.model_validate(summaries[0]))


def test_every_summary_analyze_returns_in_the_tests_is_checked():
    assert getattr(littlegrid.summarize.analyze, "__wrapped__", None) is not None  # conftest.py installed the hook
    with pytest.raises(AssertionError, match="breaks the typed model"):
        validating(lambda: {"schema": "littlegrid.summary/4"})()


def test_an_earlier_schema_is_refused_with_the_way_to_upgrade(summaries, tmp_path):
    path = tmp_path / "summary.json"
    summary.write(summaries[0] | {"schema": "littlegrid.summary/2"}, path)
    with pytest.raises(UserError) as e:
        summary.read(path)
    assert str(e.value) == (f"{path}: not a littlegrid.summary/4 file (schema: littlegrid.summary/2); written by an "
                            "older littlegrid: run `littlegrid analyze` again")


def test_the_renderers_own_inputs_are_summaries_too():
    # the synthetic grids the report tests and benchmarks draw, and the committed golden summary
    from synthetic_summary import synthetic_summary

    golden = json.loads((Path(__file__).parent / "render" / "golden" / "summary.json").read_text(encoding="utf-8"))
    for s in (summary.plain(synthetic_summary()), summary.plain(synthetic_summary(hostile=True, think_dist="poisson")),
              golden):
        assert invalid(s) is None


def test_complete_fills_what_a_hand_written_summary_leaves_out_and_nothing_else():
    from summary_contract import complete

    got = complete({"schema": summary.SCHEMA, "cells": [{"id": "c", "overall": {"count": 3}}]})
    assert invalid(got) is None
    cell = got["cells"][0]
    assert cell["id"] == "c" and cell["overall"]["count"] == 3 and cell["overall"]["p90_ms"] is None
    assert cell["labels"] == {} and cell["intended"]["think_ms"] is None and got["curves"] == []
    assert invalid(complete({"cells": [{"p42_ms": 1}]})).startswith("cells[0].p42_ms: extra inputs")
