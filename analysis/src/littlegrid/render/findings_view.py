"""The findings laid out as a performance engineer reads them: the answer, trust, what to do; each with how sure it is
in plain words, its figures, and a link to the chart that shows the curve it is about (that curve highlighted).
Everything here is read from the summary: the group, the curve and whether a finding is minor are the findings
stage's; the words are render/words.py's, the same `littlegrid explain` prints."""

from __future__ import annotations

from littlegrid.render import words
from littlegrid.summary.model import Curve

# the chart that shows what a finding is about: the throughput chart, or the response-time one
ON_LATENCY = ("waiting", "knee", "overhead")


def evidence_chart(kind: str, curve: Curve) -> str:
    """The id of the overview chart that shows a finding of this kind about this curve (overview.py names them)."""
    open_ = curve.workload == "open"
    if kind in ON_LATENCY:
        return "latency-mean_ms" + ("-rate" if open_ else "")
    return "throughput-vs-rate" if open_ else "throughput-vs-users"


def groups(findings: list, curves: list[Curve], charts: set[str]) -> list[dict]:
    """[{"group", "title", "major": [item], "minor": [item]}] in reading order (words.by_group); an item is the
    finding with `how_sure` (the words), `kind`, `figures` (its evidence rows: name, value, cell) and, when a drawn
    chart shows its curve, `chart`, `colour` (the curve's index: its colour and series group) and `curve_label`."""
    colour = {k.key: i for i, k in enumerate(curves)}
    by_key = {k.key: k for k in curves}
    out = []
    for group, items in words.by_group(findings):
        g = {"group": group, "title": words.group_title(group), "major": [], "minor": []}
        for index, f in items:
            item = {"index": index, "f": f, "how_sure": f"{words.HOW_SURE}: {words.sure(f.standing)}",
                    "kind": words.kind(f), "do": words.DO, "figures_title": words.FIGURES,
                    "figures": [{"name": e.name, "value": words.figure_value(e), "cell": e.cell}
                                for e in words.figures(f)]}
            curve = by_key.get(f.curve)
            if curve is not None and evidence_chart(f.kind, curve) in charts:
                item |= {"chart": evidence_chart(f.kind, curve), "colour": colour[curve.key],
                         "curve_label": curve.label}
            g["minor" if f.minor else "major"].append(item)
        out.append(g)
    return out
