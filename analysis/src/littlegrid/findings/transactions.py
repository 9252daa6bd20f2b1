"""Where the time of a multi-step plan goes: per curve, the transaction (Transaction Controller row) that holds the
largest share of the time spent in transactions, at the curve's lightest and heaviest load, and whether that
changes with the load. A plan with one request per iteration has no transactions and gets nothing here."""

from __future__ import annotations

from littlegrid.findings.base import Figure, Finding, curves, fields, load, load_words, ms, num
from littlegrid.findings.single_test import is_single_test
from littlegrid.summary.model import Cell, Curve

DOMINANT = 0.25  # a transaction "dominates" R when it holds at least this share of the transactions' time
# About as much as all the others together (a half, up to the pauses a Transaction Controller may include): possibly
# a controller wrapped around the others, which per-label figures cannot tell from a long step
WRAPPER_SHARE = (0.45, 0.6)


def shares(cell: Cell) -> list[tuple[str, float, float]]:
    """(transaction, its share of the time spent in transactions (count × mean), its mean ms), largest first."""
    rows = [(k, s.count * s.mean_ms, s.mean_ms) for k, s in cell.labels.items()
            if s.transaction and s.count and num(s.mean_ms) is not None]
    total = sum(t for _, t, _ in rows)
    if not rows or total <= 0:
        return []
    return sorted(((k, t / total, m) for k, t, m in rows), key=lambda r: -r[1])


def _finding(curve: Curve | None, cells: list[Cell]) -> Finding | None:
    measured = [(c, shares(c)) for c in cells]
    measured = [(c, s) for c, s in measured if s]
    if not measured:
        return None
    (light, ls), (heavy, hs) = measured[0], measured[-1]
    name, share, mean = hs[0]
    if share < DOMINANT:
        return None
    at = (f" at {load_words(curve, load(curve, heavy))}" if curve is not None else "")
    statement = (f"The transaction '{name}' dominates response time{at}: {share:.0%} of the time spent in "
                 f"transactions (mean {ms(mean)})")
    if len(hs) > 1:
        statement += f", ahead of '{hs[1][0]}' ({hs[1][1]:.0%})"
    if heavy is not light:
        before = next((s for k, s, _ in ls if k == name), None)
        if before is not None:
            statement += f"; at {load_words(curve, load(curve, light))} it held {before:.0%}"
        if ls[0][0] != name:
            statement += f", when '{ls[0][0]}' led"
    if WRAPPER_SHARE[0] <= share <= WRAPPER_SHARE[1] and len(hs) > 2:
        # a Transaction Controller around the others holds about as much time as they do together: the summary's
        # per-label figures cannot tell a wrapper from a step, so the next one is named too
        statement += (f". '{name}' holds as much time as the other transactions together: if it wraps them, the step "
                      f"to shorten first is '{hs[1][0]}'.")
    else:
        statement += f". Shorten '{name}' first."
    evidence = tuple(Figure(f"share of '{k}'", s, "", heavy.id) for k, s, _ in hs[:3])
    return Finding("transactions", statement, "holds",
                   "each transaction's count × mean over all transactions' (Transaction Controller rows of the window)",
                   evidence, fields({"transaction": name, "share": share, "mean_ms": mean}),
                   tuple(curve.fixed.items()) if curve is not None else (), tuple(c.id for c, _ in measured))


def dominant(summary) -> list[Finding]:
    """One finding per curve whose cells carry transactions (a single JTL: its one cell)."""
    out = []
    listed = curves(summary)
    if not listed or is_single_test(summary):
        found = _finding(None, [c for c in summary.cells if c.overall is not None])
        return [found] if found is not None else []
    for curve, members in listed:
        found = _finding(curve, members)
        if found is not None:
            out.append(found)
    return out
