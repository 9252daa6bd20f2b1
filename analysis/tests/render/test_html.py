"""render/html.py's compiled-template cache: a second run loads what the first compiled, and a cache that is
garbled or cannot be written gives the same page, never a failure."""

import jinja2
import pytest

from littlegrid.render import html

TEMPLATE = "_glossary.html.j2"


def environment(cache) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("littlegrid.render", "templates"), bytecode_cache=cache,
                              autoescape=True)


def compiles(monkeypatch) -> list:
    """The names Jinja compiles from source from now on."""
    compiled = []
    source = jinja2.Environment._compile

    def counting(self, text, filename):
        compiled.append(filename)
        return source(self, text, filename)

    monkeypatch.setattr(jinja2.Environment, "_compile", counting)
    return compiled


def test_a_second_run_loads_the_compiled_template(monkeypatch, tmp_path):
    compiled = compiles(monkeypatch)
    first = environment(html._CompiledTemplates(str(tmp_path))).get_template(TEMPLATE).render()
    assert len(compiled) == 1 and list(tmp_path.iterdir())
    second = environment(html._CompiledTemplates(str(tmp_path))).get_template(TEMPLATE).render()
    assert len(compiled) == 1  # loaded, not compiled again
    assert second == first and "What every number means" in first


MAGIC = jinja2.bccache.bc_magic  # Jinja's and Python's versions


@pytest.mark.parametrize("garbage", [b"", b"not a cache file at all", MAGIC, MAGIC + b"\x80\x04garbled",
                                     "cut"])
def test_a_garbled_cache_file_is_compiled_again(monkeypatch, tmp_path, garbage):
    environment(html._CompiledTemplates(str(tmp_path))).get_template(TEMPLATE)
    for cached in tmp_path.iterdir():
        cached.write_bytes(cached.read_bytes()[:-20] if garbage == "cut" else garbage)
    compiled = compiles(monkeypatch)
    again = environment(html._CompiledTemplates(str(tmp_path))).get_template(TEMPLATE)
    assert len(compiled) == 1 and "What every number means" in again.render()


def test_a_cache_that_cannot_be_written_is_no_cache(monkeypatch, tmp_path):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(html.jinja2.bccache.tempfile, "NamedTemporaryFile", full)
    compiled = compiles(monkeypatch)
    for _ in range(2):
        assert "What every number means" in environment(html._CompiledTemplates(str(tmp_path))).get_template(
            TEMPLATE).render()
    assert len(compiled) == 2 and not list(tmp_path.iterdir())


def test_no_safe_folder_means_no_cache(monkeypatch):
    def unsafe(self):
        raise RuntimeError("Cache directory is not owned by the user")

    monkeypatch.setattr(html._CompiledTemplates, "_get_default_cache_dir", unsafe)
    assert html._compiled_templates() is None
