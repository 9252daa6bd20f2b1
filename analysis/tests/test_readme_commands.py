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


# ----- "The pipeline, by hand": every line runs as written from the checkout, after the main job (issue 51)

BY_HAND = "## The pipeline, by hand"
ACTIVATE = ". analysis/target/venv/bin/activate"
# Placeholders a reader fills in, and what this test fills them with: run folders it builds under reports/.
PLACEHOLDERS = {"<run-id>": "{a}", "<run-a>": "{a}", "<run-b>": "{b}"}
# Files the lines name as the reader's own: made by the test in the checkout, removed after it.
OWN_FILES = ("my-plan.jmx", "some", "old.jtl", "user.properties", "out.xml", "out", "derived")
FIXTURES = Path(__file__).parent / "jtl" / "fixtures" / "headerless"


def by_hand_lines(text: str) -> list[str]:
    """The lines of the first shell code block of the README's by-hand section, comments kept (bash reads them)."""
    assert BY_HAND in text, f"README.md has no '{BY_HAND}' section"
    section = text.split(BY_HAND + "\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```(?:sh|bash|shell)\n(.*?)^```", section, flags=re.M | re.S).group(1)
    return [line.strip() for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _starts_load(line: str) -> bool:
    """`run` and `search` start JMeter against a server: minutes of load, which the main job itself runs."""
    return shlex.split(line, comments=True)[1] in ("run", "search")


def test_the_by_hand_section_puts_littlegrid_on_path_before_its_first_command():
    lines = by_hand_lines((ROOT / "README.md").read_text(encoding="utf-8"))
    assert shlex.split(lines[0], comments=True) == [".", "analysis/target/venv/bin/activate"]
    assert all(shlex.split(line, comments=True)[0] == "littlegrid" for line in lines[1:]), lines
    # the venv the line activates is the one the build installs the command into (analysis/pom.xml)
    pom = (ROOT / "analysis" / "pom.xml").read_text(encoding="utf-8")
    assert "<venv>${project.build.directory}/venv</venv>" in pom and "${venv}/bin/littlegrid" in pom


def test_every_by_hand_line_runs_as_written_from_the_checkout(tmp_path):
    """Each line, after the section's own activation line, in bash from the repository root: the lines that
    analyse, report, check, explain, compare, inspect and derive on run folders this test builds (real JTLs), the
    lines that start load with `--dry-run` (validated, their cells printed, nothing run; the main job runs a grid
    for real). Each exits 0."""
    import os
    import shutil
    import subprocess
    import sys
    import uuid

    sys.path.insert(0, str(Path(__file__).parent / "render"))
    from runs import write_jtl, write_run

    from needs import missing

    if not (ROOT / "analysis" / "target" / "venv" / "bin" / "littlegrid").exists():
        missing("the build's venv", f"{ROOT}/analysis/target/venv has no littlegrid: run ./mvnw verify first")
    taken = [name for name in OWN_FILES if (ROOT / name).exists()]
    if taken:
        missing("a clean checkout", f"{', '.join(taken)} already in {ROOT}: this test makes and removes them")
    tag = uuid.uuid4().hex[:8]
    runs = {"a": f"readme-{tag}-a", "b": f"readme-{tag}-b"}
    made = [ROOT / "reports" / r for r in runs.values()] + [ROOT / name for name in OWN_FILES]
    lines = by_hand_lines((ROOT / "README.md").read_text(encoding="utf-8"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT / "analysis" / "src"), env.get("PYTHONPATH")] if p)
    try:
        for key, run_id in runs.items():
            write_run(ROOT / "reports" / run_id, users=(2, 8), think_ms=(0,), seconds=8.0,
                      seed=1 if key == "a" else 2, run_id=run_id)
        shutil.copy(ROOT / "plans" / "closed.jmx", ROOT / "my-plan.jmx")
        write_jtl(ROOT / "some" / "other" / "results.jtl", users=2, think_ms=5, service_ms=5, seconds=4, seed=3)
        shutil.copy(FIXTURES / "17-jmeter-5.6.jtl", ROOT / "old.jtl")
        shutil.copy(FIXTURES / "17-jmeter-5.6.properties", ROOT / "user.properties")
        ran = []
        for line in lines[1:]:
            command = line
            for placeholder, key in PLACEHOLDERS.items():
                command = command.replace(placeholder, key.format(**runs))
            if _starts_load(line):
                command = command.split("#", 1)[0].rstrip() + " --dry-run"
                if shlex.split(line)[1] == "search":  # a search has no dry run: its grid and its command on PATH
                    command = f"test -f {shlex.split(line)[2]} && littlegrid search --help >/dev/null"
            done = subprocess.run(["bash", "-c", f"{lines[0]}\n{command}"], cwd=ROOT, env=env, capture_output=True,
                                  text=True, timeout=300)
            assert done.returncode == 0, (line, command, done.stdout[-2000:], done.stderr[-2000:])
            ran.append(command)
        assert (ROOT / "reports" / runs["a"] / "summary.json").is_file()
        assert (ROOT / "reports" / runs["a"] / "report" / "index.html").is_file() and (ROOT / "out.xml").is_file()
        assert (ROOT / "out" / "index.html").is_file() and any((ROOT / "derived").iterdir())
        assert len(ran) == len(lines) - 1
    finally:
        for path in made:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            elif path.exists():
                path.unlink()
