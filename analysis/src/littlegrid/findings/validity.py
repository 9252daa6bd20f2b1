"""Cells not to trust and why (failed law checks, a window too short, errors), with the cell length that would do."""

from __future__ import annotations

import math

from littlegrid.findings.base import Figure, Finding, cell_words, check, fields, num, overall, pct, users, where_of

ERROR_RATE = 0.01  # above this share of failed requests, a cell's figures describe failures too
# The checks whose failure says the cell's figures do not describe the workload asked for, and in what words.
CHECK_WORDS = {
    "closed_law": "the closed law N = X·(R+Z) fails",
    "workload": "the generator did not deliver the load asked for",
    "think_time": "the think time realised is not the one asked for",
    "generator_sizing": "the open plan's thread pool is nearly exhausted (coordinated omission)",
    "open_rate": "the arrival rate asked for was not achieved",
    "users": "N is miscounted",
    "server_little": "the server's own metrics disagree with Little's law",
}


def needed_window_s(cycle_ms: float, n: float, tolerance: float) -> float:
    """Steady window T at which three closed-law errors 2·(R+Z)/(T·√N) fit the tolerance (the check then need not
    widen it): T = 6·(R+Z)/(tolerance·√N)."""
    return 6.0 * cycle_ms / 1000.0 / (tolerance * math.sqrt(n))


def validity(summary: dict) -> list[Finding]:
    tol = (summary.get("tolerances") or {}).get("closed_law") or 0.02
    out = []
    for c in summary.get("cells") or []:
        reasons, evidence, figures = [], [], {}
        if c.get("status") not in (None, "complete") or c.get("overall") is None:
            reasons.append(f"it has no figures ({c.get('status')}: {c.get('reason') or 'no samples in the window'})")
        for name, words in CHECK_WORDS.items():
            k = check(c, name)
            if k and k.get("passed") is False:
                reasons.append(f"{words} ({k.get('explanation')})")
                evidence.append(Figure(f"{name} relative error", num(k.get("rel_error")), "", c["id"]))
        rate_ = overall(c, "error_rate")
        if rate_ is not None and rate_ > ERROR_RATE:
            classes = (c.get("overall") or {}).get("errors_by_class") or {}
            listed = ", ".join(f"{k} {v}" for k, v in list(classes.items())[:3])
            reasons.append(f"{pct(rate_)} of its requests failed ({listed}), and X and R count them")
            evidence.append(Figure("error rate", rate_, "", c["id"]))
        window = num((c.get("window") or {}).get("length_s"))
        law = check(c, "closed_law")
        r, z, n = overall(c, "mean_ms"), num((c.get("think_time") or {}).get("mean_ms")) or 0.0, users(c)
        if window and law and num(law.get("tolerance")) and r is not None and n and law["tolerance"] > tol + 1e-12:
            need = needed_window_s(r + z, n, tol)
            reasons.append(f"its {window:.3g} s window is too short for the {pct(tol)} closed-law tolerance (the "
                           f"check widened it to {pct(law['tolerance'])})")
            figures["needed_window_s"] = need
            evidence.append(Figure("steady window", window, "s", c["id"]))
        if not reasons:
            continue
        trim = (num((c.get("window") or {}).get("warmup_s")) or 0) + (num((c.get("window") or {}).get("cooldown_s")) or 0)
        need = figures.get("needed_window_s")
        advice = None
        if need is not None and (window is None or need > window):
            figures["needed_duration_s"] = math.ceil(need + trim)
            advice = (f"Run {cell_words(c)} for at least {figures['needed_duration_s']:g} s (a steady window of "
                      f"{need:.3g} s = 6·(R+Z)/({pct(tol)}·√N), plus {trim:g} s trimmed) so the window's own error "
                      f"fits the tolerance.")
        if len(reasons) == 1 and "needed_window_s" in figures:
            statement = f"Read {cell_words(c)} with care: " + reasons[0] + "."
        else:
            statement = f"Do not trust {cell_words(c)} as it stands: " + "; ".join(reasons) + "."
        out.append(Finding("validity", statement, "holds", "a check of the cell's own data failed, its figures "
                           "include failures, or its window is too short for the tolerance", tuple(evidence), fields(figures), where_of([c]), (c["id"],),
                           recommendation=advice))
    return out
