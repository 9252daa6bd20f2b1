"""Run-to-run pairing and verdicts: matching cells by their axes, deltas with bootstrap intervals, better/worse/same."""

from __future__ import annotations

from littlegrid.render import bootstrap
from littlegrid.render.cell_samples import CellSamples

# (key in STATS, name, higher is better, quantile when it is a percentile)
METRICS = [("throughput_per_s", "X", True, None), ("mean_ms", "mean R", False, None),
           ("p50_ms", "p50", False, 0.5), ("p90_ms", "p90", False, 0.9), ("p99_ms", "p99", False, 0.99)]
VERDICT_WORDS = {"better": "better", "worse": "worse", "same": "no significant difference", "unknown": "no interval"}


def _key(cell: dict, names) -> tuple:
    axes = cell.get("axes") or {}
    return tuple((k, str(axes.get(k))) for k in names)


def pair_cells(a_cells: list[dict], b_cells: list[dict]) -> tuple[list[tuple[dict, dict]], list[dict], list[dict]]:
    """(pairs, only in A, only in B). Cells pair when the axes both runs have take the same values; two one-cell
    runs (e.g. two JTL files) pair with each other. A key two cells of one run share is ambiguous: not paired."""
    if len(a_cells) == 1 and len(b_cells) == 1 and not a_cells[0].get("axes") and not b_cells[0].get("axes"):
        return [(a_cells[0], b_cells[0])], [], []
    names_a = [k for c in a_cells for k in (c.get("axes") or {})]
    names_b = {k for c in b_cells for k in (c.get("axes") or {})}
    names = list(dict.fromkeys(k for k in names_a if k in names_b))

    def index(cells):
        keyed: dict[tuple, list[dict]] = {}
        for c in cells:
            keyed.setdefault(_key(c, names), []).append(c)
        return {k: v[0] for k, v in keyed.items() if len(v) == 1}

    ia, ib = index(a_cells), index(b_cells)
    pairs = [(ia[k], ib[k]) for k in ia if k in ib] if names else []
    paired_a, paired_b = {id(a) for a, _ in pairs}, {id(b) for _, b in pairs}
    return pairs, [c for c in a_cells if id(c) not in paired_a], [c for c in b_cells if id(c) not in paired_b]


def compare_pair(a: dict, b: dict, sa: CellSamples | None, sb: CellSamples | None, *, seed: int, reps: int,
                 min_effect: float) -> dict:
    """Deltas B − A of every metric with its interval and verdict, and the cell's verdict: worse when any metric
    is significantly worse (a regression anywhere decides), better when some are better and none worse."""
    oa, ob = a.get("overall") or {}, b.get("overall") or {}
    replicates = {"A": None, "B": None}
    if sa is not None and sb is not None:
        for tag, s, o in (("A", sa, oa), ("B", sb, ob)):
            rng = bootstrap.rng_for(seed, f"{tag}:{a['id']}")
            lat = bootstrap.replicate_latencies(s.latencies, [q for *_, q in METRICS if q], rng, reps)
            r = {key: lat[q] for key, _, _, q in METRICS if q} | {"mean_ms": lat["mean"]}
            x = bootstrap.replicate_throughput(s.per_second, rng, reps)
            # completions per whole second vs per window length: rescale so replicates centre on the summary's X
            if o.get("throughput_per_s") and s.per_second.mean() > 0:
                r["throughput_per_s"] = x * (o["throughput_per_s"] / s.per_second.mean())
            replicates[tag] = r
    metrics = []
    for key, name, higher, _ in METRICS:
        d = bootstrap.delta(oa.get(key), ob.get(key), (replicates["A"] or {}).get(key),
                             (replicates["B"] or {}).get(key))
        metrics.append({"key": key, "name": name, "higher_is_better": higher, **d.as_dict(),
                        "verdict": bootstrap.verdict(d, higher, min_effect)})
    verdicts = {m["verdict"] for m in metrics}
    cell_verdict = ("worse" if "worse" in verdicts else "better" if "better" in verdicts
                    else "unknown" if verdicts == {"unknown"} else "same")
    return {"a": a, "b": b, "metrics": metrics, "verdict": cell_verdict,
            "error_rate": (oa.get("error_rate"), ob.get("error_rate"))}
