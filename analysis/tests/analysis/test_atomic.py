"""Files are written whole or not at all, readable by other users, with no temporary files left behind."""

import stat

import pytest

from littlegrid.atomic import write_atomic
from littlegrid.usererror import UserError


def test_a_file_is_replaced_whole_readable_by_others_and_no_temporary_file_remains(tmp_path):
    target = tmp_path / "sub" / "summary.json"
    write_atomic(target, "first")
    write_atomic(target, b"second")
    assert target.read_text() == "second"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["summary.json"]


def test_a_target_that_cannot_be_written_is_refused_in_one_line_and_leaves_nothing_behind(tmp_path):
    (tmp_path / "taken").mkdir()
    with pytest.raises(UserError, match=r"taken: cannot write the JUnit report \(Is a directory\)"):
        write_atomic(tmp_path / "taken", "x", "the JUnit report")
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]
    with pytest.raises(UserError, match=r"taken: cannot write: Is a directory"):
        write_atomic(tmp_path / "taken", "x")
