"""The words a reader meets for a finding, in one table: how sure it is, the group it is read in, what kind it is and
its figures. The HTML report, `littlegrid explain` and `littlegrid explain --markdown` all print through these
names, so a word a reader repeats from one of them is the word the other two use (tests/render/test_words.py
compares the three)."""

from __future__ import annotations

from littlegrid.render import fmt
from littlegrid.summary.model import Evidence, Finding, Precision, Stop, Window

HOW_SURE = "How sure"  # the question the standing answers, before its words
DO = "Do"  # before a finding's recommendation
FIGURES = "Its figures"  # before the evidence rows
# A finding's standing (findings.base.STANDINGS) in the words a reader repeats.
SURE = {"holds": "measured", "suggests": "likely (one piece of evidence is missing)",
        "cannot tell": "cannot tell (the data cannot decide)"}
# The groups in the order they are read (Finding.group): the answer, whether to trust it, what to do.
GROUPS = {"answer": "The answer", "trust": "Can the figures be trusted?", "action": "What to do next"}


def sure(standing: str) -> str:
    """How sure a finding is, in words ("measured"); a standing this table does not know is said as it is."""
    return SURE.get(standing, standing)


def group_title(group: str | None) -> str:
    g = group or "answer"
    return GROUPS.get(g, g)


def kind(f: Finding) -> str:
    """"bottleneck: thread pool": the finding's kind, and the resource it names."""
    return f.kind.replace("_", " ") + (f": {f.resource.replace('_', ' ')}" if f.resource else "")


def figure_value(e: Evidence) -> str:
    """One figure's value with its unit ("97.1 /s"), as printed for a reader."""
    return fmt.value(e.value) + (f" {e.unit}" if e.unit else "")


def figure(e: Evidence) -> str:
    """"throughput_per_s 97.1 /s (users=10)": a figure's name, value and unit, and the cell it was measured in."""
    return f"{e.name} {figure_value(e)}" + (f" ({e.cell})" if e.cell else "")


def figures(f: Finding) -> list[Evidence]:
    """The figures a finding shows a reader: those with a value (a missing one is never printed)."""
    return [e for e in f.evidence if e.value is not None]


def by_group(found: list[Finding]) -> list[tuple[str, list[tuple[int, Finding]]]]:
    """[(group, [(index in found, finding)])]: the known groups in reading order, then any other, each keeping the
    findings' own order."""
    out: dict[str, list] = {}
    for i, f in enumerate(found):
        out.setdefault(f.group or "answer", []).append((i, f))
    return [(g, out[g]) for g in GROUPS if g in out] + [(g, v) for g, v in out.items() if g not in GROUPS]


def text(found: list[Finding]) -> str:
    """The findings as plain text (`littlegrid explain`), grouped and worded as the report prints them:

        The answer
        1. saturation: Throughput levels off at 98/s from N = 10 ...
           How sure: measured: the plateau holds within ...
           Its figures: throughput_per_s 98 /s (users=10), ...
           Do: ...
    """
    if not found:
        return "No findings: the summary holds no cells with figures."
    lines = []
    for group, items in by_group(found):
        lines += ([""] if lines else []) + [group_title(group)]
        for i, f in items:
            lines.append(f"{i + 1}. {kind(f)}: {f.statement}")
            lines.append(f"   {HOW_SURE}: {sure(f.standing)}: {f.why}.")
            shown = figures(f)
            if shown:
                lines.append(f"   {FIGURES}: " + "; ".join(figure(e) for e in shown))
            if f.recommendation:
                lines.append(f"   {DO}: {f.recommendation}")
    return "\n".join(lines)


def verdict(outcomes: dict) -> str:
    """The criteria's verdict in words ("all 18 criteria pass"), from overview.outcomes: the report's verdict line
    and summary.md say it alike."""
    n = len(outcomes["criteria"])
    return {"pass": f"all {outcomes['criteria_passed']} criteria pass",
            "fail": f"{outcomes['criteria_failed']} of {n} criteria FAIL",
            "undecided": f"no criterion fails, but {outcomes['criteria_unknown']} of {n} could not be evaluated",
            }.get(outcomes["verdict"], "no criteria were given")


def checks(outcomes: dict) -> str:
    """"15 pass, 4 fail, 0 could not be made": the analysis's checks of the data, counted."""
    return (f"{outcomes['checks_passed']} pass, {outcomes['checks_failed']} fail, "
            f"{outcomes['checks_unknown']} could not be made")


CHECKS = "Checks of the data"
VERDICT = "Verdict"


# A cell's window in words: the warm-up the rule trimmed, the window's precision and why the cell stopped
# (analysis/steady/steady_state.py; docs/analysis.md "Warm-up from the data, precision from batch means"). The cell page,
# the run table and summary.md print these, so each says it alike.
WARMUP_SERIES = {"completions": "completions", "response time": "response times"}


def warmup(w: Window | None) -> str | None:
    """"warm-up 12 s found by MSER-5 on completions", "the 5 s floor: no longer warm-up found", "never settled…":
    what the window's warm-up came from (None: no window)."""
    if w is None:
        return None
    trimmed, floor = fmt.seconds(w.warmup_s), fmt.seconds(w.warmup_floor_s)
    if w.warmup_by in WARMUP_SERIES:
        return f"warm-up {trimmed} found by MSER-5 on {WARMUP_SERIES[w.warmup_by]}"
    if w.warmup_by == "stop":
        return (f"warm-up {trimmed}, as the runner's rule found it when it stopped the cell (MSER-5): the window "
                f"the cell was answered on")
    if w.warmup_by == "too short":
        return f"the {floor} floor: too few seconds to look for a warm-up"
    if w.warmup_by == "silent":
        return f"the {floor} floor: no warm-up looked for (no request succeeded for over half the cell)"
    if w.warmup_settled is False:
        return (f"never settled: MSER-5 found no steady state in the completions or response times (a trend, an "
                f"overload, or too short a cell), so only the {floor} floor was trimmed")
    if w.warmup_by == "floor":
        return f"the {floor} floor: no longer warm-up found"
    return f"warm-up {trimmed}, fixed"  # nothing was looked for: --warmup-fixed, or a summary from before the rule


def cooldown(w: Window) -> str:
    """"2 s cool-down", or a precise cell's "1.4 s cool-down, the file's tail after the seconds the runner's rule
    judged" (the window is the one it answered on)."""
    trimmed = f"{fmt.seconds(w.cooldown_s)} cool-down"
    return trimmed + (", the file's tail after the seconds the runner's rule judged" if w.cooldown_by == "stop" else "")


def precision(p: Precision | None) -> str | None:
    """"X ±1.2 %, mean R ±1.8 % (95 %, batch means over 10 batches of 6 s)" (None: no window)."""
    if p is None:
        return None
    how = f"batch means over {p.batches} batch{'es' if p.batches != 1 else ''} of {fmt.seconds(p.batch_s)}"
    if p.throughput_rel is None:
        return f"no interval: {how}, fewer than 3" if p.batches else "no interval: no answers in the window"
    r = f"±{fmt.pct(p.mean_rel)}" if p.mean_rel is not None else "not known"
    drift = (f"; with the ±{fmt.pct(p.drift_rel)} drift the warm-up left, which no batch sees"
             if p.drift_rel is not None else "")
    short = (f"; mean R's {fmt.pct(p.level)} is nominal: for an open queue holding requests it covered as little "
             f"as {fmt.pct(p.mean_coverage)} in simulation" if p.mean_coverage is not None else "")
    return f"X ±{fmt.pct(p.throughput_rel)}, mean R {r} ({fmt.pct(p.level)}, {how}{drift}{short})"


def stopped(s: Stop | None) -> str | None:
    """Why the cell stopped: "precise at 42 s (X ±1.2 %, mean R ±1.8 %)", "SLO met early at 14 s, by the sequential
    rule (…); X ±4.1 %, mean R ±2.2 %", "max_s reached at 120 s with X ±3.1 %, mean R ±2.6 % (±2 % asked)", "fixed
    duration" (None: a bare JTL, no manifest)."""
    if s is None:
        return None
    at = f" at {fmt.seconds(s.at_s)}" if s.at_s is not None else ""
    had = ", ".join(f"{name} ±{fmt.pct(v)}" for name, v in (("X", s.x_rel), ("mean R", s.r_rel)) if v is not None)
    if s.reason == "precise":
        return "precise" + at + (f" ({had})" if had else "")
    if s.reason == "slo":  # a search probe whose SLO was decided before its precision (search/early_stop.py)
        return (f"SLO {s.slo or 'decided'} early{at}, by the sequential rule (99% intervals at every look, "
                f"confirmed over the window's first half; or a maximum already reached)"
                + (f"; {had}" if had else ""))
    if s.reason == "max_s":
        asked = f" (±{fmt.pct(s.precision_asked)} asked)" if s.precision_asked is not None else ""
        return f"max_s reached{at}" + (f" with {had}" if had else "") + asked
    if s.reason == "duration":
        return "fixed duration"
    return s.reason + at + (f": {s.why}" if s.why else "")
