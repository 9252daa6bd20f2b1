"""How CI reaches the history and the gate: analysis/pom.xml passes -Dhistory and -Dbaseline through to analyze and
check (empty by default: no history, no gate), and the README's GitHub Actions and GitLab snippets keep the SQLite
file between jobs and gate on the last run that passed."""

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

from analysis_synthetic import closed_loop, make_run
from littlegrid import cli

ROOT = Path(__file__).resolve().parents[3]
POM = "{http://maven.apache.org/POM/4.0.0}"


def executions() -> dict[str, list[str]]:
    pom = ET.parse(ROOT / "analysis" / "pom.xml").getroot()
    return {e.findtext(f"{POM}id"): [a.text for a in e.iter(f"{POM}argument")] for e in pom.iter(f"{POM}execution")}


def test_the_pom_passes_history_and_baseline_through_empty_by_default():
    pom = ET.parse(ROOT / "analysis" / "pom.xml").getroot()
    props = pom.find(f"{POM}properties")
    assert props.findtext(f"{POM}history") == "" or props.find(f"{POM}history").text is None
    assert props.findtext(f"{POM}baseline") == "" or props.find(f"{POM}baseline").text is None
    runs = executions()
    assert "--history=${history}" in runs["grid-analyze"]
    assert {"--baseline=${baseline}", "--db=${history}"} <= set(runs["grid-check"])


def test_the_commands_as_maven_calls_them_by_default_record_nothing_and_gate_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the pom's working directory: a default store would appear under reports/
    run = make_run(tmp_path / "run", [{"id": "users=2", "axes": {"users": 2}, "users": 2,
                                        "samples": closed_loop(2, 100, 0, 20)}])
    assert cli.main(["analyze", str(run), "--history="]) == 0
    assert cli.main(["check", str(run), "--criteria-only", "--baseline=", "--db="]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("0 passed, 0 failed")
    assert not (tmp_path / "reports").exists() and not (run / "baseline.md").exists()


def readme_ci_snippets() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## The answer in CI"):text.index("## Pass/fail criteria")]
    return re.findall(r"```yaml\n(.*?)```", section, re.S)


def test_the_readme_snippets_keep_the_history_between_jobs_and_gate_on_the_last_pass():
    github, gitlab = readme_ci_snippets()
    steps = yaml.safe_load(github)
    uses = [s.get("uses") for s in steps]
    restore, save = uses.index("actions/cache/restore@v4"), uses.index("actions/cache/save@v4")
    run = next(i for i, s in enumerate(steps) if "mvnw verify" in s.get("run", ""))
    assert restore < run < save and steps[save]["if"] == "always()"
    assert steps[restore]["with"]["path"] == steps[save]["with"]["path"] == "reports/history.sqlite"
    assert "-Dhistory=reports/history.sqlite -Dbaseline=history:last-pass" in steps[run]["run"]
    job = yaml.safe_load(gitlab)["littlegrid"]
    assert job["cache"]["paths"] == ["reports/history.sqlite"] and job["cache"]["when"] == "always"
    assert job["script"] == ["./mvnw verify -Dhistory=reports/history.sqlite -Dbaseline=history:last-pass"]
    assert any("history report --db reports/history.sqlite" in line for line in job["after_script"])
