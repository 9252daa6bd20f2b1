"""One vocabulary: `littlegrid explain`, `littlegrid explain --markdown` and the HTML report print a finding's kind,
how sure it is, its group and its figures in the same words (render/words.py), never the standing's bare code."""

import html

import pytest

from littlegrid import cli, findings, summary as summary_io
from littlegrid.render import overview, words
from littlegrid.render.report import build_report
from littlegrid.summary import plain
from littlegrid.summary.model import Evidence, Finding, Headline, Summary


@pytest.fixture(scope="module")
def three(tmp_path_factory, golden_summary_dict):
    """The golden grid analysed to findings, written where explain reads it, and its report."""
    s = Summary.model_validate(golden_summary_dict)
    found = findings.findings(s)
    # and one the data only suggests, so every standing the words table knows is printed
    doubt = Finding(kind="knee", statement="The knee may lie near N = 5.", standing="suggests", why="one curve only",
                    where={}, cells=[], figures={}, evidence=[], recommendation=None, resource=None, group="action")
    s = s.model_copy(update={"findings": [Finding.model_validate(plain(f)) for f in findings.as_json(found)] + [doubt],
                             "headline": Headline.model_validate(findings.headline(s, found))})
    s = Summary.model_validate(s.model_dump(by_alias=True))
    run = tmp_path_factory.mktemp("words")
    summary_io.write(s, run / "summary.json")
    page = build_report(s, run / "report").read_text(encoding="utf-8")
    return s, run, html.unescape(page)


def _explain(run, capsys, *flags) -> str:
    assert cli.main(["explain", str(run), *flags]) == 0
    return capsys.readouterr().out


def test_explain_its_markdown_and_the_report_say_how_sure_the_group_and_the_kind_in_the_same_words(three, capsys):
    s, run, page = three
    text, md = _explain(run, capsys), _explain(run, capsys, "--markdown").replace("\\", "")
    in_markdown = [f for f in s.findings if not f.minor][:5]
    assert in_markdown and len({f.standing for f in s.findings}) >= 2 and len({f.group for f in s.findings}) >= 2
    for f in s.findings:
        said = f"{words.HOW_SURE}: {words.sure(f.standing)}"
        assert said in text and said in page, said
        assert words.group_title(f.group) in text and words.group_title(f.group) in page
        assert f"{words.kind(f)}: {f.statement}" in text and words.kind(f) in page
    for f in in_markdown:
        assert f"({words.HOW_SURE}: {words.sure(f.standing)})" in md
        assert words.group_title(f.group) in md and f"**{words.kind(f)}**" in md
    for code in ("standing: holds", "standing: suggests", ", holds]", "(holds)", "(suggests)"):
        assert code not in text and code not in md and code not in page, code  # never the bare code


def test_a_findings_figures_read_the_same_in_explain_and_in_the_report(three, capsys):
    s, run, page = three
    text = _explain(run, capsys)
    shown = [e for f in s.findings for e in words.figures(f)]
    assert shown
    for e in shown:
        assert words.figure(e) in text
        assert f'<td>{e.name}</td><td class="num">{words.figure_value(e)}</td>' in page, e


def test_the_words_come_from_the_tables_and_an_unknown_standing_or_group_is_said_as_it_is():
    f = Finding(kind="bottleneck", statement="s.", standing="holds", why="w", where={}, cells=[], figures={},
                evidence=[Evidence(name="X", value=97.14, unit="/s", cell="users=10"),
                          Evidence(name="none", value=None, unit="", cell=None)],
                recommendation="do it", resource="thread_pool", group="trust")
    assert words.kind(f) == "bottleneck: thread pool" and words.sure("holds") == "measured"
    assert words.sure("new standing") == "new standing" and words.group_title("other") == "other"
    assert [e.name for e in words.figures(f)] == ["X"] and words.figure(f.evidence[0]) == "X 97.14 /s (users=10)"
    assert words.text([f]) == ("Can the figures be trusted?\n1. bottleneck: thread pool: s.\n"
                               "   How sure: measured: w.\n   Its figures: X 97.14 /s (users=10)\n   Do: do it")
    assert words.text([]).startswith("No findings")


def test_the_verdict_and_the_checks_read_the_same_in_explain_its_markdown_and_the_report(three, capsys):
    s, run, page = three
    text, md = _explain(run, capsys), _explain(run, capsys, "--markdown").replace("\\", "")
    o = overview.outcomes(s)
    assert o["verdict"] == "fail" and o["criteria_failed"] >= 1  # the golden grid fails a criterion
    verdict, checks = f"Verdict: {words.verdict(o)}", f"Checks of the data: {words.checks(o)}"
    assert verdict == f"Verdict: {o['criteria_failed']} of {len(o['criteria'])} criteria FAIL"
    for said in (verdict, checks):
        assert said in text and said in md and said in page, said
