"""A full disk: the user gets one clear line naming the file, and nothing already written is lost (the writers go
through a temporary file beside the target, renamed over it only when whole). On a real, tiny tmpfs."""

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from littlegrid import cli
from needs import missing

SIZE = "256k"


@pytest.fixture
def small_disk(tmp_path):
    """A tmpfs of 256 KiB mounted for the test (root only: CI runs as root), unmounted afterwards."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        missing("root (to mount a small tmpfs)", "the disk-full tests mount a 256 KiB tmpfs")
    mount = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    mount.mkdir()
    got = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(mount)], capture_output=True,
                         text=True)
    if got.returncode != 0:
        missing("a tmpfs mount", got.stderr.strip())
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def fill(disk: Path) -> None:
    """Fill the disk to its last byte (unbuffered: what did not fit raises here, never at close)."""
    with open(disk / "filler", "wb", buffering=0) as f:
        for size in (65536, 1):
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError:
                pass


def test_a_summary_that_does_not_fit_is_one_line_and_the_previous_summary_survives(small_disk, capsys, corpus):
    jtl = corpus / "karang-tc-commas.jtl"
    out = small_disk / "results.summary.json"
    assert cli.main(["analyze", str(jtl), "--json", str(out)]) == 0
    before = out.read_bytes()
    fill(small_disk)
    capsys.readouterr()
    code = cli.main(["analyze", str(jtl), "--json", str(out), "--by-label"])
    err = capsys.readouterr().err
    assert code != 0 and err.count("\n") == 1 and str(out) in err and "Traceback" not in err
    assert out.read_bytes() == before  # nothing already written is lost
    assert not [p for p in small_disk.iterdir() if p.name not in ("results.summary.json", "filler")]  # no debris


def test_a_report_that_does_not_fit_is_one_line(small_disk, capsys, corpus):
    fill(small_disk)
    capsys.readouterr()
    code = cli.main(["report", str(corpus / "karang-tc-commas.jtl"), "-o", str(small_disk / "report")])
    err = capsys.readouterr().err
    assert code != 0 and err.count("\n") == 1 and str(small_disk) in err and "Traceback" not in err
