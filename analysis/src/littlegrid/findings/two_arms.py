"""Two arms (or two runs): one sentence per metric whose bootstrap interval says it changed, per paired cell; and a
grid's two arms in words (Arms): whether throughput is shown different, equivalent within the margin, both or neither
(littlegrid.summary.comparison's rule), what differs, which arm to choose."""

from __future__ import annotations

from dataclasses import dataclass, field

from littlegrid.analysis.modelling.curves import CPU_BUSY
from littlegrid.analysis.observed import cpu_demand, server_cpu
from littlegrid.findings import precision
from littlegrid.findings.base import Figure, Finding, fields, ms, num, overall, rate, users
from littlegrid.findings.capacity import starved
from littlegrid.findings.where_time import in_service_ms
from littlegrid.summary import comparison as equivalence

UNIT = {"throughput_per_s": "/s"}


def _value(key: str, x) -> str:
    return rate(x) if key == "throughput_per_s" else ms(x)


def two_arms(rows: list[dict], name_a: str = "A", name_b: str = "B") -> list[Finding]:
    """rows: the comparison's paired cells (littlegrid.comparison.deltas.compare_pair output with the cell's "id"). A
    metric is stated when its 95% interval excludes zero, with the margin when the change is shown smaller than it."""
    out = []
    for row in rows:
        cell_a, cell_b = row["a"], row["b"]  # summary.model.Cell
        axes = cell_a.axes
        at = ", ".join(f"{k} = {v}" for k, v in axes.items()) or str(row.get("id"))
        for m in row.get("metrics") or []:
            if m.get("verdict") not in equivalence.DIFFERENT or m.get("rel") is None:
                continue
            key = m["key"]
            better, worse = f"better in {name_b} than in {name_a}", f"worse in {name_b} than in {name_a}"
            said = equivalence.words(m["verdict"], m.get("margin") or equivalence.DEFAULT_MARGIN, better, worse)
            statement = (f"At {at}, {m['name']} is {said}: {_value(key, m['b'])} against {_value(key, m['a'])} "
                         f"({_rel(m)}).")
            out.append(Finding("arms", statement, "holds", "the 95% bootstrap interval excludes zero (sampling noise "
                               "within each run only: a rerun on a busy host can move more)",
                               (Figure(m["name"], m["a"], UNIT.get(key, "ms"), cell_a.id),
                                Figure(m["name"], m["b"], UNIT.get(key, "ms"), cell_b.id)),
                               fields({"metric": key, "a": m["a"], "b": m["b"], "rel": m["rel"],
                                       "rel_lo": m["rel_lo"], "rel_hi": m["rel_hi"]}),
                               tuple(axes.items()), (cell_a.id, cell_b.id)))
    return out


# ---------------------------------------------------------------- a grid's two arms in words

# an arms finding's `resource`: what X's interval shows (the expectations judge the interval itself, at their margin)
RESOURCE = {equivalence.BETTER: "different", equivalence.WORSE: "different",
            equivalence.BETTER_WITHIN: "different_within_margin", equivalence.WORSE_WITHIN: "different_within_margin",
            equivalence.EQUIVALENT: "equivalent", equivalence.NOT_SHOWN: "not_shown_different"}
SHORT = {equivalence.BETTER: "differs", equivalence.WORSE: "differs",
         equivalence.BETTER_WITHIN: "differs by less than the margin",
         equivalence.WORSE_WITHIN: "differs by less than the margin", equivalence.EQUIVALENT: "equivalent",
         equivalence.NOT_SHOWN: "not shown different", equivalence.UNKNOWN: "no interval"}
LOAD_AXES = ("users", "rate_per_s")  # the x of a curve: arms are compared along it, grouped by the other axes
DIFFERS = 0.2  # a server or host figure (no interval) differs when one arm's is more than 20% off the other's
CHOOSE_RATIO = 1.5  # at equal X and p99, a load average or time in service this many times the other's decides
# What X's interval does not hold: each arm ran on its own start of the server, and starts differ by more than a
# window's sampling noise (the sample server's X moved −1.3% to −10% between two starts, issue 62), so every
# verdict is said "within this run".
RESTARTS = ("the interval is the sampling noise within this run: each arm is its own server start, and the "
            "spread between starts (the sample server's X moved −1.3% to −10% from one start to another) is not in "
            "it; repeat the arms in interleaved runs to measure it")


@dataclass(frozen=True)
class Arms:
    """A grid's two arms (axis = a vs b) paired cell by cell: `rows` as the comparison stage gives them
    (littlegrid.comparison.deltas.paired_rows: each {"a": Cell, "b": Cell, "metrics": [...]}, the cells without
    the arm axis). The findings stage comes before the comparison, so analyze hands the rows in."""

    axis: str
    a: str
    b: str
    rows: list[dict]
    crossed: list = field(default_factory=list)  # (group 1, group 2, rows): A in one group against B in another
    margin: float = equivalence.DEFAULT_MARGIN  # equivalent: X's interval inside ±margin (the grid's, or the default)

    def name(self, value: str) -> str:
        return f"{self.axis} = {value}"

    def in_words(self) -> list[Finding]:
        """One finding per group of the other axes: whether throughput is shown different or equivalent within the
        margin (both, or neither), the figures that differ and by how much, and which arm to choose and why."""
        groups: dict = {}
        for row in self.rows:
            key = tuple((k, v) for k, v in row["a"].axes.items() if k not in LOAD_AXES)
            groups.setdefault(key, []).append(row)
        found = [self._group(dict(key), sorted(rows, key=lambda r: users(r["a"]) or 0))
                 for key, rows in groups.items()]
        return found + self._matches(groups)

    def _matches(self, groups: dict) -> list[Finding]:
        """Arm A in one group giving the throughput arm B gives in another group whose own A falls short of its B:
        what one setting of the other axes buys ("non-blocking with 10 threads matches blocking with 100")."""
        out = []
        for g1, g2, rows in self.crossed:
            own = groups.get(tuple(g2.items()))
            if not rows or not own:
                continue
            rows = sorted(rows, key=lambda r: users(r["a"]) or 0)
            own_x = _metric(max(own, key=lambda r: users(r["a"]) or 0), "throughput_per_s")
            xs = [_metric(r, "throughput_per_s") for r in rows]
            if own_x.get("verdict") != equivalence.BETTER or any(x.get("verdict") not in equivalence.WITHIN_MARGIN
                                                                  for x in xs):
                continue
            last, x = rows[-1], xs[-1]
            words1, words2 = (", ".join(f"{k} = {v}" for k, v in g.items()) for g in (g1, g2))
            statement = (f"With {words1}, {self.name(self.a)} reaches the throughput that {words2} needs "
                         f"{self.name(self.b)} for (its {self.a} fall short): equivalent within "
                         f"{equivalence.margin_text(self.margin)} at "
                         + "; ".join(f"{_at(r['a'])}, {rate(m['a'])} against {rate(m['b'])} ({_rel(m)})"
                                     for r, m in zip(rows, xs)) + ".")
            differ = self._differences(last)
            if differ:
                statement += f" At {_at(last['a'])} they differ in " + "; ".join(w for w, _ in differ) + "."
            out.append(Finding(
                "arms", statement, "holds",
                f"throughput's 95% bootstrap interval at every paired load inside "
                f"{equivalence.margin_text(self.margin)} (two one-sided tests), while {words2}'s own arms are shown "
                f"different",
                (Figure("X", x.get("a"), "/s", last["a"].id), Figure("X", x.get("b"), "/s", last["b"].id)),
                fields({"users": users(last["a"]), "throughput_a": x.get("a"), "throughput_b": x.get("b"),
                        "rel": x.get("rel"), "rel_lo": x.get("rel_lo"), "rel_hi": x.get("rel_hi"),
                        "margin": self.margin, "verdict": f"equivalent within {equivalence.margin_text(self.margin)}"}),
                (), tuple(i for r in rows for i in (r["a"].id, r["b"].id)), equivalence.EQUIVALENT))
        return out

    def _group(self, fixed: dict, rows: list[dict]) -> Finding:
        last = rows[-1]
        at = _at(last["a"])
        x = _metric(last, "throughput_per_s")
        rest = [r for r in rows[:-1] if _metric(r, "throughput_per_s").get("rel") is not None]
        with_ = ", ".join(f"{k} = {v}" for k, v in fixed.items())
        head = f"{self.name(self.a)} against {self.b}" + (f" (with {with_})" if with_ else "")
        verdict = x.get("verdict", equivalence.UNKNOWN)
        known = x.get("rel_lo") is not None
        said = self._said(verdict)
        if not known:
            x_words = (f"throughput at {at} is {rate(x.get('a'))} against {rate(x.get('b'))}, without an interval "
                       f"(no histogram to resample), so whether it differs cannot be told")
        else:
            x_words = f"at {at} throughput is {said}: {rate(x['a'])} against {rate(x['b'])} ({_rel(x)})"
        if rest:
            x_words += "; at " + ", ".join(f"{_at(r['a'])} {_metric(r, 'throughput_per_s')['rel']:+.1%}"
                                           f" ({SHORT[_metric(r, 'throughput_per_s')['verdict']]})" for r in rest)
        differ = self._differences(last)
        # X's interval is sampling noise within this run: each arm is its own server start (RESTARTS)
        statement = f"Arms {head}{' (within this run)' if known else ''}: {x_words}."
        if differ:
            statement += f" At {at} they differ in " + "; ".join(words for words, _ in differ) + "."
        cpu_words, cpu_figures = self._cpu_bound(last, x, differ)
        statement += cpu_words
        choice, why, chosen, chosen_on = self._choice(last, x, differ, known)
        statement += f" {choice}"
        ids = tuple(i for r in rows for i in (r["a"].id, r["b"].id))
        figures = {"users": users(last["a"]), "throughput_a": x.get("a"), "throughput_b": x.get("b"),
                   "rel": x.get("rel"), "rel_lo": x.get("rel_lo"), "rel_hi": x.get("rel_hi"),
                   "margin": self.margin, "arms": head, "at": at, "verdict": said if known else None,
                   "choice": choice, "chosen": chosen, "chosen_on": chosen_on}
        figures |= {name: value for _, (name, value) in differ} | cpu_figures
        hungry = [c for c in (last["a"], last["b"]) if starved(c)]
        if hungry and known:
            statement += (f" But the generator did not deliver the load asked for at {at} in "
                          f"{' and '.join(self.name(v) for c, v in ((last['a'], self.a), (last['b'], self.b)) if c in hungry)}"
                          f": part of the difference may be JMeter's, not the server's.")
        standing = "cannot tell" if not known else "suggests" if hungry else "holds"
        return Finding("arms", statement, standing,
                       "throughput's 95% bootstrap interval at the heaviest paired load: different when it excludes "
                       f"zero, equivalent when it lies inside {equivalence.margin_text(self.margin)} (two one-sided "
                       "tests at 2.5% each), neither when it includes zero and reaches beyond the margin; " + RESTARTS
                       + "; " + why
                       + ("; the generator fell short of the load in a cell compared, beyond its per-cycle work"
                          if hungry else ""),
                       (Figure("X", x.get("a"), "/s", last["a"].id), Figure("X", x.get("b"), "/s", last["b"].id)),
                       fields(figures), tuple(fixed.items()), ids, RESOURCE.get(verdict))

    def _said(self, verdict: str) -> str:
        """X's verdict in words: "different (B = 1 lower)", "equivalent within ±10%", "not shown different, nor
        equivalent within ±10%", a difference shown smaller than the margin with the margin."""
        b = self.name(self.b)
        said = equivalence.words(verdict, self.margin, f"different ({b} higher)", f"different ({b} lower)")
        if verdict == equivalence.NOT_SHOWN:
            said += f", nor equivalent within {equivalence.margin_text(self.margin)}"
        return said

    @staticmethod
    def _demand(cell) -> float | None:
        """The cell's CPU per request D = U·cores/X, as the analysis stage stored it (analysis.observed.cpu_demand): the same
        work costing more says where X went."""
        cost = cpu_demand.measured(cell)
        return cost.core_ms if cost is not None else None

    def _cpu_bound(self, row: dict, x: dict, differ: list) -> tuple[str, dict]:
        """The utilisation law X = U·cores/D at the heaviest pair, when the server's CPU was measured in both arms:
        both arms keeping the cores busy means neither left capacity unused, and then the throughput can differ only
        as the CPU each request cost (D) does; one arm leaving the cores idle while the other fills them says that
        arm's setting (a throttle's K below the cores, a pool too small) cost the throughput."""
        a, b = row["a"], row["b"]
        ca, cb = cpu_demand.measured(a), cpu_demand.measured(b)
        if ca is None or cb is None:
            return "", {}
        ua, ub, da, db = ca.cpu_util, cb.cpu_util, ca.core_ms, cb.core_ms
        figures = {"cpu_util_a": ua, "cpu_util_b": ub, "cpu_ms_per_request_a": da, "cpu_ms_per_request_b": db,
                   "cpu_basis": ca.basis}
        whose = ca.words if ca.words == cb.words else f"{ca.words}, and {cb.words}"
        busy = f"{ua:.0%} and {ub:.0%} busy, of {whose}"
        if min(ua, ub) >= CPU_BUSY:
            if x.get("verdict") not in equivalence.DIFFERENT:
                return (f" Both arms kept the CPU full ({busy}): the cores bound the throughput either way.",
                        figures)
            said = any(words.startswith("CPU per request") for words, _ in differ)
            cost = "above" if said else f"{da:.3g} against {db:.3g} core-ms, {db / da - 1:+.0%}"
            return (f" Both arms kept the CPU full ({busy}), so by the utilisation law X = U·cores/D the "
                    f"throughput differs only as the CPU each request cost does ({cost}): neither arm left "
                    f"capacity unused; the work per request differed.", figures)
        if max(ua, ub) >= CPU_BUSY:
            idle = self.name(self.a) if ua < ub else self.name(self.b)
            return (f" Only one arm kept the CPU full ({busy}): {idle} left the cores idle "
                    f"{1 - min(ua, ub):.0%} of the time, capacity its setting did not use.", figures)
        return "", figures

    def _differences(self, row: dict) -> list[tuple[str, tuple[str, float | None]]]:
        """The figures of the heaviest pair that differ: p99 and mean R by their intervals; time in service, the
        throttle's wait, the load average and the error rate (no interval) by more than DIFFERS."""
        a, b = row["a"], row["b"]
        out = []
        for key in ("p99_ms", "mean_ms"):
            m = _metric(row, key)
            if m.get("verdict") in (equivalence.BETTER, equivalence.WORSE):
                out.append((f"{m['name']}, {ms(m['a'])} against {ms(m['b'])} ({_rel(m)})", (key + "_rel", m["rel"])))
        for name, unit, get, key in (
                ("time in service", "ms", _in_service, "time_in_service"),
                ("the throttle's queue wait W_q", "ms", _throttle_wait, "the_throttle's_queue_wait_W_q"),
                ("CPU per request U·cores/X", "core-ms", self._demand, "CPU_per_request_U·cores/X"),
                (_load_words(a, b), "", _load1, "load_average"), ("error rate", "%", _errors, "error_rate")):
            va, vb = get(a), get(b)
            if va is None or vb is None or max(va, vb) <= 0 or abs(va - vb) <= DIFFERS * max(va, vb):
                continue
            shown = (lambda v: ms(v)) if unit == "ms" else (lambda v: f"{100 * v:.2g}%") if unit == "%" else \
                (lambda v: f"{v:.3g} core-ms") if unit == "core-ms" else (lambda v: f"{v:.3g}")
            ratio = f" (×{vb / va:.2g})" if va > 0 else ""
            out.append((f"{name}, {shown(va)} against {shown(vb)}{ratio}", (key + "_b_over_a",
                                                                            vb / va if va > 0 else None)))
        return out

    def _choice(self, row: dict, x: dict, differ: list, known: bool) -> tuple[str, str, str | None, str | None]:
        """Which arm to choose, and why: the throughput shown higher (beyond the margin's reach) first; at throughput
        equivalent within the margin (or shown different by less than it) the p99 shown lower, then the lower load
        average (only when the server ran on the generator's host: a load average of another host says nothing of
        the server) and time in service (less contention for the same work); none while throughput is neither shown
        different nor equivalent (that would be choosing on noise). (the sentence, why, the arm chosen or None, what
        decided it: "throughput", "p99", "load average", "time in service" or None)."""
        name_a, name_b = self.name(self.a), self.name(self.b)
        margin = equivalence.margin_text(self.margin)
        verdict = x.get("verdict")
        if not known:
            return "Which arm to choose cannot be told without intervals.", "no interval", None, None
        if verdict in (equivalence.BETTER, equivalence.WORSE):
            pick = name_b if verdict == equivalence.BETTER else name_a
            low = min(x["a"], x["b"])
            known_rel = None not in (x.get("rel"), x.get("rel_lo"), x.get("rel_hi"))
            more = (precision.ratio(*precision.higher_over_lower(x["rel"], x["rel_lo"], x["rel_hi"]), "the throughput")
                    if low > 0 and known_rel else "throughput where the other serves none" if low <= 0
                    else f"{max(x['a'], x['b']) / low:.2g}× the throughput")
            return (f"Choose {pick}: at {_at(row['a'])} it gives {more}.",
                    "the choice goes to the throughput shown higher", pick, "throughput")
        if verdict not in equivalence.WITHIN_MARGIN:
            return ("Neither arm can be chosen on throughput, which is neither shown different nor shown "
                    "equivalent: longer cells would tell.",
                    "no choice while throughput is neither shown different nor equivalent", None, None)
        equal = f"throughput equivalent within {margin}"
        p99 = _metric(row, "p99_ms")
        if p99.get("verdict") in (equivalence.BETTER, equivalence.WORSE):
            pick = name_b if p99["verdict"] == equivalence.BETTER else name_a
            return (f"Choose {pick}: {equal} with a lower p99 ({ms(min(p99['a'], p99['b']))} against "
                    f"{ms(max(p99['a'], p99['b']))}).", "at equivalent throughput the p99 shown lower is chosen", pick,
                    "p99")
        here = server_cpu.ran_here(row["a"]) and server_cpu.ran_here(row["b"])
        for get, words in (((_load1, "load average"),) if here else ()) + ((_in_service, "time in service"),):
            va, vb = get(row["a"]), get(row["b"])
            if va is not None and vb is not None and min(va, vb) > 0 and max(va, vb) >= CHOOSE_RATIO * min(va, vb):
                pick = name_a if va < vb else name_b
                return (f"Choose {pick}: {equal}, p99 not shown to differ beyond the margin, and a lower {words} "
                        f"({min(va, vb):.3g} against {max(va, vb):.3g}{' ms' if words == 'time in service' else ''}):"
                        f" less contention for the same work.",
                        f"at equivalent throughput and p99 the lower {words} is chosen", pick, words)
        return (f"Either arm: {equal} and nothing else measured separates them at {_at(row['a'])}.",
                "X within the margin, p99 not shown better or worse, nor "
                + ("load average or " if here else "") + f"time in service {CHOOSE_RATIO:g}-fold"
                + ("" if here else " (the load average is the generator's host's: the server ran elsewhere)"),
                None, None)


def _metric(row: dict, key: str) -> dict:
    return next((m for m in row.get("metrics") or [] if m.get("key") == key), {})


def _rel(m: dict) -> str:
    return equivalence.interval_text(m.get("rel"), m.get("rel_lo"), m.get("rel_hi"))


def _at(cell) -> str:
    n = users(cell)
    if cell.intended is not None and cell.intended.workload == "open" and num(cell.intended.rate_per_s):
        return f"λ = {cell.intended.rate_per_s:g}/s"
    return f"N = {n:g}" if n is not None else str(cell.id)


def _in_service(cell) -> float | None:
    return in_service_ms(cell)


def _throttle_wait(cell) -> float | None:
    return num(cell.server.throttle_wait_ms) if cell.server is not None else None


def _load_words(a, b) -> str:
    """The load average's name: the generator's host's when the server ran elsewhere in either arm."""
    return "load average" if server_cpu.ran_here(a) and server_cpu.ran_here(b) else "the generator host's load average"


def _load1(cell) -> float | None:
    return num(cell.host.load1_mean) if cell.host is not None else None


def _errors(cell) -> float | None:
    return overall(cell, "error_rate")
