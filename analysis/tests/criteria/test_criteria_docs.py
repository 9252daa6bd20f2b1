"""docs/criteria.md stays true: its examples parse, its refusals are the real messages, its tables name every metric."""

import re
from pathlib import Path

import pytest

from littlegrid.criteria.grammar import METRICS, PERCENTILE_KEYS, _percentile_names, parse
from littlegrid.usererror import UserError
from needs import missing

DOC = Path(__file__).resolve().parents[3] / "docs" / "criteria.md"
if not DOC.is_file():
    missing("docs/criteria.md", f"not at {DOC}")
TEXT = DOC.read_text(encoding="utf-8")


def section(title: str) -> str:
    return TEXT.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_every_criterion_in_the_grid_example_parses():
    block = TEXT.split("```toml", 1)[1].split("```", 1)[0]
    examples = re.findall(r'^\s*("[^"\n]*"|\'[^\'\n]*\'),$', block, re.M)
    assert len(examples) >= 5
    for quoted in examples:
        parse(quoted[1:-1])


def test_every_refusal_shown_is_the_message_littlegrid_gives():
    lines = [line for line in section("Refusals").splitlines() if line.startswith("criterion '")]
    assert len(lines) >= 8
    for line in lines:
        text = re.match(r"criterion '(.*?)': ", line).group(1)
        with pytest.raises(UserError) as refused:
            parse(text)
        shown = line.split("...")[0]  # a line may elide its long tail
        assert str(refused.value).startswith(shown), line


def test_the_metrics_table_names_every_metric_and_percentile():
    table = section("Metrics")
    for name in [*METRICS, *_percentile_names()]:
        assert f"`{name}`" in table, name
    assert len(PERCENTILE_KEYS) == 6
