"""The findings laid out as a performance engineer reads them: the answer, trust, what to do; each with how sure it is
in plain words, its figures, and a link to the chart that shows the curve it is about (that curve highlighted).
Everything here is read from the summary: the group, the curve and whether a finding is minor are the findings
stage's."""

from __future__ import annotations

from littlegrid.summary.model import Curve

TITLES = {"answer": "The answer", "trust": "Can the figures be trusted?", "action": "What to do next"}
SURE = {"holds": "measured", "suggests": "likely (one piece of evidence is missing)",
        "cannot tell": "cannot tell (the data cannot decide)"}
# the chart that shows what a finding is about: the throughput chart, or the response-time one
ON_LATENCY = ("waiting", "knee", "overhead")


def evidence_chart(kind: str, curve: Curve) -> str:
    """The id of the overview chart that shows a finding of this kind about this curve (overview.py names them)."""
    open_ = curve.workload == "open"
    if kind in ON_LATENCY:
        return "latency-mean_ms" + ("-rate" if open_ else "")
    return "throughput-vs-rate" if open_ else "throughput-vs-users"


def groups(findings: list, curves: list[Curve], charts: set[str]) -> list[dict]:
    """[{"group", "title", "major": [item], "minor": [item]}] in the findings' own order; an item is the finding
    with `sure` (how sure, in words), `figures` (its evidence rows) and, when a drawn chart shows its curve,
    `chart`, `colour` (the curve's index: its colour and series group) and `curve_label`."""
    colour = {k.key: i for i, k in enumerate(curves)}
    by_key = {k.key: k for k in curves}
    out: dict[str, dict] = {}
    for index, f in enumerate(findings):
        group = getattr(f, "group", None) or "answer"
        item = {"index": index, "f": f, "sure": SURE.get(f.standing, f.standing),
                "kind": f.kind.replace("_", " ") + (f": {f.resource.replace('_', ' ')}" if f.resource else ""),
                "figures": [e for e in f.evidence if e.value is not None]}
        curve = by_key.get(getattr(f, "curve", None))
        if curve is not None and evidence_chart(f.kind, curve) in charts:
            item |= {"chart": evidence_chart(f.kind, curve), "colour": colour[curve.key], "curve_label": curve.label}
        g = out.setdefault(group, {"group": group, "title": TITLES.get(group, group), "major": [], "minor": []})
        g["minor" if getattr(f, "minor", False) else "major"].append(item)
    return [out[g] for g in TITLES if g in out] + [g for k, g in out.items() if k not in TITLES]
