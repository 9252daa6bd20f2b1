"""Two arms (or two runs): one sentence per metric whose bootstrap interval says it changed, per paired cell."""

from __future__ import annotations

from littlegrid.findings.base import Figure, Finding, fields, ms, rate

UNIT = {"throughput_per_s": "/s"}


def _value(key: str, x) -> str:
    return rate(x) if key == "throughput_per_s" else ms(x)


def two_arms(rows: list[dict], name_a: str = "A", name_b: str = "B") -> list[Finding]:
    """rows: the comparison's paired cells (littlegrid.comparison.deltas.compare_pair output with the cell's "id"). A metric is
    stated when its verdict is better or worse: its whole 95% interval lies beyond the minimum effect."""
    out = []
    for row in rows:
        cell_a, cell_b = row["a"], row["b"]  # summary.model.Cell
        axes = cell_a.axes
        at = ", ".join(f"{k} = {v}" for k, v in axes.items()) or str(row.get("id"))
        for m in row.get("metrics") or []:
            if m.get("verdict") not in ("better", "worse") or m.get("rel") is None:
                continue
            key = m["key"]
            statement = (f"At {at}, {m['name']} is {m['verdict']} in {name_b} than in {name_a}: "
                         f"{_value(key, m['b'])} against {_value(key, m['a'])} ({m['rel']:+.1%}, 95% interval "
                         f"{m['rel_lo']:+.1%} to {m['rel_hi']:+.1%}).")
            out.append(Finding("arms", statement, "holds", "the whole bootstrap interval lies beyond the minimum "
                               "effect (sampling noise within each run only: a rerun on a busy host can move more)",
                               (Figure(m["name"], m["a"], UNIT.get(key, "ms"), cell_a.id),
                                Figure(m["name"], m["b"], UNIT.get(key, "ms"), cell_b.id)),
                               fields({"metric": key, "a": m["a"], "b": m["b"], "rel": m["rel"],
                                       "rel_lo": m["rel_lo"], "rel_hi": m["rel_hi"]}),
                               tuple(axes.items()), (cell_a.id, cell_b.id)))
    return out
