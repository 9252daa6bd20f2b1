"""The plans are stored in JMeter 5.6.3's own save format: SaveService load + save, and a GUI pass, change no byte."""

from __future__ import annotations

import subprocess

import pytest
from plan_files import PLAN_FILES, PLANS

pytestmark = pytest.mark.integration

SCRIPT = PLANS / "tools" / "roundtrip.groovy"


@pytest.fixture(scope="module")
def roundtrips(jmeter, tmp_path_factory):
    """One JVM: every plan loaded and saved (plain/), and passed through its GUI editors, saved, reloaded (gui/);
    a truncated plan goes last, to show that a failure is reported and the other plans are still written."""
    out = tmp_path_factory.mktemp("roundtrip")
    (out / "plain").mkdir()
    (out / "gui").mkdir()
    broken = out / "broken.jmx"
    broken.write_text((PLANS / "spike.jmx").read_text(encoding="utf-8")[:500], encoding="utf-8")
    classpath = f"{jmeter.home / 'lib'}/*:{jmeter.home / 'lib' / 'ext'}/*"
    command = ["java", "-Djava.awt.headless=true", f"-Djmeter.home={jmeter.home}", "-cp", classpath,
               "groovy.ui.GroovyMain", str(SCRIPT), "--out", str(out / "plain"), "--gui-out", str(out / "gui"),
               *map(str, PLAN_FILES), str(broken)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    return out, broken, done


@pytest.mark.parametrize("plan", PLAN_FILES, ids=lambda p: p.name)
def test_saveservice_round_trip_is_byte_identical(plan, roundtrips):
    out, _, _ = roundtrips
    assert (out / "plain" / plan.name).read_bytes() == plan.read_bytes()


@pytest.mark.parametrize("plan", PLAN_FILES, ids=lambda p: p.name)
def test_gui_editors_change_no_value(plan, roundtrips):
    out, _, _ = roundtrips
    assert (out / "gui" / plan.name).read_bytes() == plan.read_bytes()


def test_roundtrip_script_reports_a_broken_plan_in_one_line_and_fails(roundtrips):
    _, broken, done = roundtrips
    assert done.returncode == 1
    assert [line.split(": ")[:2] for line in done.stderr.splitlines() if line.startswith("roundtrip:")] == \
        [["roundtrip", str(broken)]]
