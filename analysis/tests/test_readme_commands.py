"""CI proves what a new user runs: `.ci/run` runs exactly the README's two commands (main job, then tests), in order."""

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## The two commands"


def readme_commands(text: str) -> list[str]:
    """The command lines of the shell code blocks of the README's "The two commands" section, in order."""
    assert SECTION in text, f"README.md has no '{SECTION}' section"
    section = text.split(SECTION + "\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```(?:sh|bash|shell)\n(.*?)^```", section, flags=re.M | re.S)
    return [line.strip() for block in blocks for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def ci_commands(script: str) -> list[str]:
    """The Maven wrapper lines of .ci/run: the commands CI runs, as opposed to its set-up."""
    return [line.strip() for line in script.splitlines() if line.strip().startswith("./mvnw")]


def test_the_readme_shows_two_commands_the_main_job_first():
    commands = readme_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert [shlex.split(c)[:2] for c in commands] == [["./mvnw", "verify"]] * 2
    main_job, tests = commands
    assert "-DskipTests" in shlex.split(main_job) and "-Dgrid=grids/littles-law.toml" in shlex.split(main_job)
    assert tests == "./mvnw verify"


def test_ci_runs_exactly_the_readmes_two_commands_in_the_readmes_order():
    readme = readme_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert ci_commands((ROOT / ".ci" / "run").read_text(encoding="utf-8")) == readme


def test_the_parsers_read_code_blocks_only_and_skip_comments():
    text = ("# x\n\n## The two commands\n\nRun `./mvnw nothing` (prose).\n\n```sh\n# a comment\n./mvnw a\n```\n\n"
            "text\n\n```sh\n./mvnw b\n```\n\n## Next\n\n```sh\n./mvnw c\n```\n")
    assert readme_commands(text) == ["./mvnw a", "./mvnw b"]
    assert ci_commands("set -e\n# ./mvnw commented\n./mvnw a\necho ./mvnw no\n  ./mvnw b\n") == ["./mvnw a", "./mvnw b"]
