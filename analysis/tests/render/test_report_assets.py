"""Vendored assets: exactly the pinned files recorded in static/VERSIONS, with their licence."""

import hashlib
from importlib import resources

STATIC = resources.files("littlegrid.render") / "static"


def test_vendored_files_match_the_sha256_recorded_in_versions():
    recorded = {}
    for line in (STATIC / "VERSIONS").read_text().splitlines():
        parts = line.split()
        if len(parts) == 2 and len(parts[0]) == 64:
            recorded[parts[1]] = parts[0]
    assert set(recorded) == {"uPlot.iife.min.js", "uPlot.min.css"}
    for name, digest in recorded.items():
        assert hashlib.sha256((STATIC / name).read_bytes()).hexdigest() == digest, name


def test_the_vendored_version_is_the_one_recorded_and_its_licence_ships_with_it():
    assert (STATIC / "uPlot.iife.min.js").read_text().startswith("/*! https://github.com/leeoniya/uPlot (v1.6.32) */")
    assert "uPlot     1.6.32   MIT" in (STATIC / "VERSIONS").read_text()
    assert "MIT License" in (STATIC / "LICENSE.uPlot").read_text()
