"""GrowingFile: only complete lines, the header kept apart, a replaced file read from its start."""

from littlegrid.run.live.tailing import GrowingFile

HEADER = b"timeStamp,elapsed,label\n"


def test_a_half_written_last_line_waits_for_its_newline(tmp_path):
    path = tmp_path / "results.jtl"
    path.write_bytes(HEADER + b"1000,5,a\n1001,6,b\n1002,7")
    tail = GrowingFile(path)
    assert tail.new_lines() == b"1000,5,a\n1001,6,b\n"
    assert tail.header == HEADER
    assert tail.new_lines() == b""  # still no newline after 1002,7
    with path.open("ab") as f:
        f.write(b"0,c\n1003,1,d")
    assert tail.new_lines() == b"1002,70,c\n"  # the whole line, never its first half alone
    assert tail.offset == len(HEADER) + len(b"1000,5,a\n1001,6,b\n1002,70,c\n")


def test_a_file_not_written_yet_gives_nothing_and_a_header_alone_gives_no_rows(tmp_path):
    path = tmp_path / "results.jtl"
    tail = GrowingFile(path)
    assert tail.new_lines() == b""
    path.write_bytes(HEADER)
    assert tail.new_lines() == b"" and tail.header == HEADER


def test_a_header_less_file_keeps_its_first_row_as_data(tmp_path):
    path = tmp_path / "results.jtl"
    path.write_bytes(b"1000,5,a\n")
    tail = GrowingFile(path)
    assert tail.new_lines() == b"1000,5,a\n" and tail.header is None


def test_a_replaced_file_is_read_again_from_its_start(tmp_path):
    path = tmp_path / "results.jtl"
    path.write_bytes(HEADER + b"1000,5,a\n1001,6,b\n")
    tail = GrowingFile(path)
    tail.new_lines()
    replacement = tmp_path / "new.jtl"
    replacement.write_bytes(HEADER + b"2000,1,z\n")
    replacement.replace(path)  # a cell re-run writes into a fresh folder: another file under the same name
    assert tail.new_lines() == b"2000,1,z\n" and tail.restarted
    assert tail.new_lines() == b"" and not tail.restarted
