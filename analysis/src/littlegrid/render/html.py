"""Jinja environment (autoescape on), inlined assets with their CSP hashes, and writing pages to disk."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from importlib import resources
from pathlib import Path

import jinja2
import jinja2.bccache
from markupsafe import Markup

from littlegrid import __version__
from littlegrid.atomic import write_atomic
from littlegrid.render import fmt

# Inlined into every page, in this order. Only these package files are ever marked safe.
SCRIPTS = ["uPlot.iife.min.js", "littlegrid.js"]
STYLES = ["uPlot.min.css", "littlegrid.css"]


@dataclass(frozen=True)
class Assets:
    scripts: tuple[tuple[str, Markup], ...]
    styles: tuple[tuple[str, Markup], ...]
    csp: str


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


@lru_cache(maxsize=1)
def assets() -> Assets:
    """The vendored and own static files, and a Content-Security-Policy that allows exactly them.

    No source is allowed to load anything: default-src 'none' forbids every fetch (scripts, styles, images,
    fonts, connections, frames); the inline scripts and styles run because their hashes are listed, so an
    injected <script> or style attribute would not. Canvas charts need no img-src beyond data:.
    """
    return page_assets(tuple(SCRIPTS))


@lru_cache(maxsize=4)
def page_assets(script_names: tuple[str, ...], connect_self: bool = False) -> Assets:
    """assets() with other package scripts; connect_self: the page may fetch from its own origin (the live
    view's /status.json) and from nowhere else."""
    static = resources.files("littlegrid.render") / "static"
    scripts = tuple((n, Markup((static / n).read_text(encoding="utf-8"))) for n in script_names)
    styles = tuple((n, Markup((static / n).read_text(encoding="utf-8"))) for n in STYLES)
    csp = ("default-src 'none'; "
           f"script-src {' '.join(_csp_hash(str(t)) for _, t in scripts)}; "
           f"style-src {' '.join(_csp_hash(str(t)) for _, t in styles)}; "
           + ("connect-src 'self'; " if connect_self else "")
           + "img-src data:; base-uri 'none'; form-action 'none'")
    return Assets(scripts, styles, csp)


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Templates compiled once and kept between runs, in Jinja's own per-user folder of the temporary directory
    (created 0700 and checked to be the user's), each under its template's path and checked against its source:
    compiling a report's templates took 0.2 s of every `littlegrid report`. A cache that cannot be read or
    written is no cache, never a failed page."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # a file cut short or garbled: compiled again
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:  # a full or read-only temporary directory
            pass


def _compiled_templates() -> jinja2.BytecodeCache | None:
    try:
        return _CompiledTemplates()
    except (OSError, RuntimeError):  # no safe folder of the user's could be made
        return None


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("littlegrid.render", "templates"),
        bytecode_cache=_compiled_templates(),
        autoescape=True,  # every template: nothing from the JTL or the summary is ever marked safe
        undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    )
    env.filters.update(fmt.FILTERS)
    env.policies["json.dumps_kwargs"] = {"sort_keys": False, "separators": (",", ":"), "allow_nan": False}
    return env


def render(template: str, **context) -> str:
    """One page: the template with the assets, the CSP and the generation stamp in its context."""
    context.setdefault("generated", datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"))
    return environment().get_template(template).render(assets=assets(), version=__version__, **context)


def write(path: Path, text: str) -> None:
    """Written whole or not at all: an interrupted report never leaves half a page behind."""
    write_atomic(path, text)
