"""The search page of a report: what search.json holds (the probes in order, the SLO, the bounds and the model's
boundary, the answer with its intervals), drawn as it is."""

from __future__ import annotations

import json
from pathlib import Path

from littlegrid.render import html
from littlegrid.usererror import UserError

PAGE = "search.html"


def view(doc: dict) -> dict:
    """The template's context: each search with its probes as rows; nothing is computed here."""
    axis = doc.get("axis", "users")
    searches = []
    for s in doc.get("searches") or []:
        rows = [{"n": i + 1, "load": p.get(axis), "cell": p.get("cell"), "why": p.get("why"),
                 "valid": p.get("valid"), "why_invalid": p.get("why_invalid"), "meets": p.get("meets"),
                 "figures": p.get("figures") or [], "mean_ms": p.get("mean_ms"), "x": p.get("throughput_per_s"),
                 "duration_s": p.get("duration_s")} for i, p in enumerate(s.get("probes") or [])]
        searches.append({"group": ", ".join(f"{k}={v}" for k, v in (s.get("group") or {}).items()),
                         "answer": s.get("answer") or {}, "rows": rows, "bounds": s.get("bounds"),
                         "model": s.get("model") or {}, "load_s": s.get("load_s"),
                         "full_grid_cells": s.get("full_grid_cells")})
    return {"axis": axis, "slo": doc.get("slo") or [], "resolution": doc.get("resolution") or {},
            "range": doc.get("range") or {}, "searches": searches}


def read(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UserError(f"{path}: cannot read the search's result ({e})") from None
    if not isinstance(doc, dict) or doc.get("schema") != "littlegrid.search/1":
        raise UserError(f"{path}: not a littlegrid.search/1 document")
    return doc


def write(doc: dict, out_dir: Path, run_title: str) -> Path:
    path = out_dir / PAGE
    html.write(path, html.render("search.html.j2", root="", chart_data=[], run_title=run_title, **view(doc)))
    return path
