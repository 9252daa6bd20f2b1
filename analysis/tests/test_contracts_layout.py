"""docs/contracts.md §1 lists every module of the package with its job: the list and the code hold the same
modules (a module added, moved or removed without the docs fails here)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "analysis" / "src" / "littlegrid"


def listed() -> list[str]:
    text = (ROOT / "docs" / "contracts.md").read_text(encoding="utf-8")
    section = text[text.index("## 1. "):text.index("## 2. ")]
    block = section[section.index("```") + 3:]
    block = block[:block.index("```")]
    names = []
    for line in block.splitlines():
        m = re.match(r"^  (\S+)", line)  # the package's entries sit two spaces in; stage headings one
        if m:
            names.append(m.group(1))
    return names


def test_section_1_lists_every_module_once_and_nothing_else():
    names = listed()
    in_code = sorted([p.name for p in PACKAGE.glob("*.py")]
                     + [f"{p.name}/" for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()])
    assert sorted(names) == in_code
    assert len(names) == len(set(names))
