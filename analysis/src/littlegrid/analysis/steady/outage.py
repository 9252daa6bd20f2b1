"""Silences: stretches of a cell in which no request was answered, told apart as an outage (the server died, hung
until requests timed out, or refused or dropped every connection) or a stall (requests held, then every one
answered: a pause of the server's, a stop-the-world collection), and both told from a bottleneck, where failures
interleave with answers.

Found in the analysis' first pass (survey.LabelSpans feeds AnsweredSeconds every table), so the frame knows them
before anything is counted, in the same single read. The counting pass then counts their own requests
(SilenceCount): an outage's by error class and the window's parts before and after it, a stall's held requests.

Answered: a success, or a failure with an HTTP status below 500 (an assertion failed on a 200, a 404: the server
answered; a cell whose every assertion fails is a broken test, not an outage). A silence: a stretch between two
answers (or from the cell's first start to its first answer, or from its last answer to its last completion) that
lasted at least MIN_SILENT_S, at least SLOWEST_MULTIPLE times the mean response time of the answers (requests in
flight cannot explain it), and in which the answers the rest of the cell gave at its rate would have put at least
DUE of them (at a steady rate the chance of none is about e^-DUE). Between answers it needs requests that failed
through it (in its whole seconds), or one in flight through it (it ended the stretch, started in its first half),
else the generator paused (a JTL of two sessions; a failure just after the last answer is the session's last
request), and is neither.

Which it is (docs/analysis.md, "Stalls and outages"): an OUTAGE when requests failed or timed out in it (the
client saw the server fail them), or when no answer follows it (it runs to the cell's end: a server that would
have answered later cannot be told from one that died, so it is taken as dead); a cell with no answer at all is
an outage from its start. Otherwise a STALL: nothing failed in it, and the requests in flight through it were
held and then answered by the same server (JMeter does not retry, and a restarted server resets the connections
it held), so the server was slow, not gone, however long it lasted. A recovered outage and a stall keep the
cell's whole window; only an outage the server never came back from ends it.
"""

from __future__ import annotations

from dataclasses import dataclass

import re

import numpy as np
import pandas as pd

from littlegrid.analysis.reading.error_classes import count_names, failed_mask, largest_first
from littlegrid.analysis.steady.window import EmptyWindow, SteadyWindow, window_of

MIN_SILENT_S = 2.0
SLOWEST_MULTIPLE = 3.0
DUE = 10.0
SILENCE_RULE = (f"no request was answered for at least {MIN_SILENT_S:g} s, {SLOWEST_MULTIPLE:g}× the mean "
                f"response time of the cell's answers, and at the rate of the rest of the cell at least {DUE:g} "
                f"answers were due in it")
RULE = (f"{SILENCE_RULE}; requests failed or timed out in it, or no answer came after it (the server never came "
        f"back)")
STALL_RULE = f"{SILENCE_RULE}; no request failed in it and the requests held through it were answered after it"
_ANSWER = re.compile(r"^\s*[1-4]\d\d\s*$")  # an HTTP status the server chose to send, 5xx aside
NO_END = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Stretch:
    """A silence found by the first pass: no request was answered from began_ms to ended_ms (epoch ms);
    recovered: an answer ended it, else it lasted to the cell's last completion."""

    began_ms: int
    ended_ms: int
    recovered: bool


@dataclass(frozen=True)
class Silences:
    """A cell's silences, told apart: its outage (None: none; of several, the one the server never came back from,
    else the first) and its stalls, in time order."""

    outage: Stretch | None = None
    stalls: tuple[Stretch, ...] = ()
    # every outage found, the recorded one among them: one the server recovered from before it died is no warm-up
    # and no noise either (the warm-up search leaves out all of them; its failures stay the window's)
    outages: tuple[Stretch, ...] = ()

    @property
    def stretches(self) -> tuple[Stretch, ...]:
        """Every silence, stalls and outages, in time order: the seconds the warm-up search leaves out."""
        found = self.stalls + (self.outages or ((self.outage,) if self.outage is not None else ()))
        return tuple(sorted(found, key=lambda s: s.began_ms))


def answered(table: pd.DataFrame) -> np.ndarray:
    """True for the requests the server answered: successes, and failures with an HTTP status below 500."""
    failed = failed_mask(table)
    rows = np.flatnonzero(failed)
    if len(rows):
        codes = table["response_code"]
        if isinstance(codes.dtype, pd.CategoricalDtype):
            # each distinct code matched once (a regex a failed row took 12 ms of a 270 k-row block with 1%
            # failures); a null code (-1) picks the appended False
            is_answer = np.append(pd.Series(codes.cat.categories.astype(str)).str.match(_ANSWER)
                                  .to_numpy(dtype=bool), False)
            failed[rows[is_answer[codes.cat.codes.to_numpy()[rows]]]] = False
        else:
            text = pd.Series(codes.array.take(rows)).astype("string").fillna("")
            failed[rows[text.str.match(_ANSWER).to_numpy(dtype=bool)]] = False
    return ~failed


class AnsweredSeconds:
    """A cell's requests per second of completion (epoch seconds), table by table: the answered ones (how many,
    the first and last end, their elapsed sum), the unanswered ones (how many, their first and last end), and the
    earliest start of any request completing in the second (a request in flight through a silent stretch).
    Sparse, only the seconds that had completions: memory is those seconds, however far apart (a JTL holding two
    sessions years apart, a damaged timestamp)."""

    COLUMNS = ("count", "first", "last", "failed", "failed_first", "failed_last", "earliest")
    MERGE_AT = 64  # blocks' per-second tables kept before they are merged into one

    def __init__(self) -> None:
        self._parts: list[pd.DataFrame] = []
        self.elapsed_sum = 0

    def add(self, table: pd.DataFrame) -> None:
        if len(table) == 0:
            return
        ok = answered(table)
        ends = table["end_ms"].to_numpy(dtype=np.int64)
        self.elapsed_sum += int(table["elapsed_ms"].to_numpy(dtype=np.int64)[ok].sum())
        self._parts.append(_per_second(ends, table["start_ms"].to_numpy(dtype=np.int64), ok))
        if len(self._parts) >= self.MERGE_AT:
            self._parts = [self._merged(pd.concat(self._parts))]

    @staticmethod
    def _merged(rows: pd.DataFrame) -> pd.DataFrame:
        return rows.groupby("second", sort=True).agg(count=("count", "sum"), first=("first", "min"),
                                                     last=("last", "max"), failed=("failed", "sum"),
                                                     failed_first=("failed_first", "min"),
                                                     failed_last=("failed_last", "max"),
                                                     earliest=("earliest", "min"))

    def seconds(self) -> pd.DataFrame:
        """Per second with completions, in order: count, first, last (the answers'), failed, failed_first,
        failed_last (the unanswered ones'), earliest."""
        if not self._parts:
            return pd.DataFrame({c: np.zeros(0, np.int64) for c in self.COLUMNS})
        self._parts = [self._merged(pd.concat(self._parts).reset_index()) if len(self._parts) > 1
                       else self._parts[0]]
        return self._parts[0]

    def silences(self, first_start_ms: int, last_end_ms: int) -> Silences:
        """The cell's silences (module docstring): its outage and its stalls. first_start_ms, last_end_ms:
        the cell's first sample start and last completion (of its requests)."""
        per_second = self.seconds()
        with_answers = per_second[per_second["count"] > 0]
        if len(with_answers) == 0:  # nothing answered: an outage from the start, if anything completed
            failed = bool(per_second["failed"].sum())
            return Silences(Stretch(first_start_ms, last_end_ms, recovered=False) if failed else None)
        answers = int(with_answers["count"].sum())
        mean_ms = self.elapsed_sum / answers
        span = max(last_end_ms - first_start_ms, 1)
        # the stretches between answers in time order: (began, ended); within a second they are < 1 s apart
        began = np.concatenate(([first_start_ms], with_answers["last"].to_numpy()))
        ended = np.concatenate((with_answers["first"].to_numpy(), [last_end_ms]))
        outages, stalls = [], []
        last = len(with_answers)
        for i, (b, e) in enumerate(zip(began.tolist(), ended.tolist())):
            lasted = e - b
            if lasted < 1000 * MIN_SILENT_S or lasted < SLOWEST_MULTIPLE * mean_ms:
                continue  # first: a busy cell has a stretch per second, and this costs no look-up
            rest = span - lasted
            if rest > 0 and answers * lasted / rest < DUE:
                continue  # the rest of the cell answers too seldom for this silence to mean anything
            if i == last or self._failed_within(per_second, b, e):  # no answer after it, or failures through it
                outages.append(Stretch(int(b), int(e), recovered=i < last))
            elif i == 0 or self._held(per_second, b, e):  # from the first start, requests were in flight by
                # construction; held requests that then failed (timed out) make an outage, else all were answered
                failed = self._failed_in(per_second, b - (i == 0), e)
                (outages if failed else stalls).append(Stretch(int(b), int(e), recovered=True))
            # else nothing failed inside it, nothing in flight through it: the generator paused (two sessions; a
            # failure just after its last answer is the session's last request), not the server
        # one outage is recorded: the one the server never came back from (it ends the window), else the first
        outage = outages[-1] if outages and not outages[-1].recovered else next(iter(outages), None)
        return Silences(outage, tuple(stalls), tuple(outages))

    @staticmethod
    def _failed_within(per_second: pd.DataFrame, began_ms: int, ended_ms: int) -> bool:
        """Whether unanswered requests completed in the whole seconds inside the stretch (through it, not at its
        edges)."""
        return bool(per_second.loc[began_ms // 1000 + 1:ended_ms // 1000 - 1, "failed"].any())

    @staticmethod
    def _failed_in(per_second: pd.DataFrame, after_ms: int, until_ms: int) -> bool:
        """Whether an unanswered request completed after after_ms and at or before until_ms (whole seconds inside
        by their count, the two edge seconds by their unanswered ones' first and last end)."""
        lo, hi = after_ms // 1000, until_ms // 1000
        if AnsweredSeconds._failed_within(per_second, after_ms, until_ms):
            return True
        edge_lo = per_second.loc[lo:lo]
        if len(edge_lo) and int(edge_lo["failed"].iloc[0]) and int(edge_lo["failed_last"].iloc[0]) > after_ms:
            return True
        edge_hi = per_second.loc[hi:hi]
        return bool(len(edge_hi) and int(edge_hi["failed"].iloc[0])
                    and after_ms < int(edge_hi["failed_first"].iloc[0]) <= until_ms)

    @staticmethod
    def _held(per_second: pd.DataFrame, began_ms: int, ended_ms: int) -> bool:
        """Whether a request that ended the stretch had been in flight since its first half (a hang; after a pause
        of the generator the first requests start at its end)."""
        return int(per_second.at[ended_ms // 1000, "earliest"]) < (began_ms + ended_ms) / 2


def _per_second(ends: np.ndarray, starts: np.ndarray, ok: np.ndarray) -> pd.DataFrame:
    """One table's AnsweredSeconds.COLUMNS per second of completion with completions, indexed by the second: counted
    over the table's range of seconds (bincounts; a block's rows span few seconds), or, when that range is far
    wider than the rows (sessions apart, a damaged timestamp), grouped."""
    second = ends // 1000
    low = int(second.min())
    width = int(second.max()) - low + 1
    if width > max(4 * len(ends), 1 << 16):
        rows = pd.DataFrame({"second": second, "count": ok.astype(np.int64), "first": np.where(ok, ends, NO_END),
                             "last": np.where(ok, ends, -NO_END), "failed": (~ok).astype(np.int64),
                             "failed_first": np.where(ok, NO_END, ends), "failed_last": np.where(ok, -NO_END, ends),
                             "earliest": starts})
        return AnsweredSeconds._merged(rows)
    local = second - low
    answered_at, answered_end = local[ok], ends[ok]
    failed_at, failed_end = local[~ok], ends[~ok]
    count = np.bincount(answered_at, minlength=width)
    failed = np.bincount(failed_at, minlength=width)
    first, last, earliest = np.full(width, NO_END), np.full(width, -NO_END), np.full(width, NO_END)
    failed_first, failed_last = np.full(width, NO_END), np.full(width, -NO_END)
    np.minimum.at(first, answered_at, answered_end)
    np.maximum.at(last, answered_at, answered_end)
    if len(failed_at):
        np.minimum.at(failed_first, failed_at, failed_end)
        np.maximum.at(failed_last, failed_at, failed_end)
    np.minimum.at(earliest, local, starts)
    present = np.flatnonzero(count + failed)
    return pd.DataFrame({"count": count[present], "first": first[present], "last": last[present],
                         "failed": failed[present], "failed_first": failed_first[present],
                         "failed_last": failed_last[present], "earliest": earliest[present]},
                        index=pd.Index(present + low, name="second"))


def window_beside(first_start_ms: int, last_end_ms: int, warmup_s: float, cooldown_s: float,
                  outage: Stretch | None) -> SteadyWindow | None:
    """The steady window: the whole trimmed cell, ended where an outage began that the server never came back from
    (a recovered one, like a stall, stays inside it, marked); None when no part of the window is left."""
    try:
        window = window_of(first_start_ms, last_end_ms, warmup_s, cooldown_s)
    except EmptyWindow:
        return None
    if outage is None or outage.recovered:
        return window
    end = min(window.end_ms, outage.began_ms)
    if end <= window.start_ms:
        return None
    return SteadyWindow(start_ms=window.start_ms, end_ms=end, warmup_s=window.warmup_s, cooldown_s=window.cooldown_s,
                        first_start_ms=first_start_ms, last_end_ms=last_end_ms, samples_trimmed_before=0,
                        samples_trimmed_after=0)


def figures(window: SteadyWindow, stretch: Stretch | None) -> str:
    """What the window's figures describe beside the outage: "whole" (the whole window, a recovered outage marked
    inside it, or no outage), "before" it (the server never came back: the window ends where it began), or
    "none" (no part of the window was left: the window is the whole cell, counted only for the outage's own
    requests)."""
    if stretch is None or stretch.recovered:
        return "whole"
    return "before" if window.end_ms <= stretch.began_ms else "none"


class _Part:
    """The requests of the window completed in one part beside an outage: how many, failed, their elapsed sum."""

    def __init__(self, start_ms: int, end_ms: int) -> None:
        self.start_ms, self.end_ms = start_ms, end_ms
        self.count = self.errors = self.elapsed_sum = 0

    def add(self, ends: np.ndarray, failed: np.ndarray, elapsed: np.ndarray) -> None:
        inside = (ends >= self.start_ms) & (ends <= self.end_ms)
        self.count += int(np.count_nonzero(inside))
        self.errors += int(np.count_nonzero(inside & failed))
        self.elapsed_sum += int(elapsed[inside].sum())

    def result(self) -> dict | None:
        """model.OutagePart: None when the part has no length (the outage began before the window, or lasted
        past it)."""
        length = (self.end_ms - self.start_ms) / 1000.0
        if length <= 0:
            return None
        n = self.count
        return {"length_s": length, "count": n, "errors": self.errors, "throughput_per_s": n / length,
                "mean_ms": self.elapsed_sum / n if n else None, "error_rate": self.errors / n if n else None}


class _OutageCount:
    """One outage's requests: those that completed in it (every one unanswered) by error class, and how many of them
    inside the window. Those that ended in the very millisecond of the last answer belong before it, unless the
    outage began with the cell; those of the answer's that ended it, after."""

    def __init__(self, stretch: Stretch, window: SteadyWindow) -> None:
        self.stretch = stretch
        self.after_ms = stretch.began_ms - (stretch.began_ms == window.first_start_ms)
        self.by_class: dict[str, int] = {}
        self.in_window = 0

    def add(self, block, ends: np.ndarray) -> None:
        s = self.stretch
        inside = (ends > self.after_ms) & (ends < s.ended_ms if s.recovered else ends <= s.ended_ms)
        for name, n in count_names(block.sample_classes, inside).items():
            self.by_class[name] = self.by_class.get(name, 0) + n
        self.in_window += int(np.count_nonzero(inside & block.samples_in_window))

    def record(self, window: SteadyWindow, figures: str, parts: tuple[dict | None, dict | None]) -> dict:
        """model.Outage of this outage: `figures` and the window's parts beside it only for the recorded one."""
        s = self.stretch
        failed = sum(self.by_class.values())
        lasted = (s.ended_ms - s.began_ms) / 1000.0
        by_class = largest_first(self.by_class)
        return {"began_s": (s.began_ms - window.first_start_ms) / 1000.0, "lasted_s": lasted,
                "recovered": s.recovered, "failed": failed, "failed_per_s": failed / lasted if lasted > 0 else None,
                "failed_by_class": by_class, "error_class": next(iter(by_class), None),
                "figures": figures, "rule": RULE, "failed_in_window": self.in_window if figures != "none" else 0,
                "before": parts[0], "after": parts[1]}


class SilenceCount:
    """The counting pass's view of a cell's silences. Every outage's requests (_OutageCount), and for the recorded
    one (Silences.outage) the window's parts before and after it (model.OutagePart). Each stall's: the requests held
    by it, those in flight at its start (started at or before it began, completed at or after its end), how many of
    them failed, the quickest and the longest; and those that started while it lasted and were answered after it
    (`joined`: under think time or open arrivals they waited only part of it, so they say nothing of how long the
    held ones waited)."""

    def __init__(self, silences: Silences, window: SteadyWindow) -> None:
        self.silences, self.window = silences, window
        s = silences.outage
        every = silences.outages or ((s,) if s is not None else ())
        self.counts = [_OutageCount(o, window) for o in every]
        self.recorded = next((c for c in self.counts if c.stretch == s), None)
        if s is not None:
            self.before = _Part(window.start_ms, min(window.end_ms, s.began_ms))
            self.after = _Part(max(window.start_ms, s.ended_ms), window.end_ms) if s.recovered else None
        # per stall: held, of which failed, the shortest and longest elapsed, joined and the longest of them
        self.held = [[0, 0, NO_END, 0, 0, 0] for _ in silences.stalls]

    def add(self, block) -> None:
        """block: a rowblock.Block (rowblock's Frame holds the Silences, so this module does not import it)."""
        samples = block.samples
        ends = samples["end_ms"].to_numpy()
        failed = block.sample_classes.notna().to_numpy()
        for count in self.counts:
            count.add(block, ends)
        if self.silences.outage is not None:
            elapsed = samples["elapsed_ms"].to_numpy()
            self.before.add(ends, failed, elapsed)
            if self.after is not None:
                self.after.add(ends, failed, elapsed)
        if self.held:
            starts = samples["start_ms"].to_numpy()
            elapsed = samples["elapsed_ms"].to_numpy()
            for stall, held in zip(self.silences.stalls, self.held):
                through = (starts <= stall.began_ms) & (ends >= stall.ended_ms)
                if through.any():
                    held[0] += int(np.count_nonzero(through))
                    held[1] += int(np.count_nonzero(through & failed))
                    held[2] = min(held[2], int(elapsed[through].min()))
                    held[3] = max(held[3], int(elapsed[through].max()))
                joined = (starts > stall.began_ms) & (starts < stall.ended_ms) & (ends >= stall.ended_ms)
                if joined.any():
                    held[4] += int(np.count_nonzero(joined))
                    held[5] = max(held[5], int(elapsed[joined].max()))

    def outage(self, figures: str) -> dict | None:
        """The summary's outage record (model.Outage), None without one."""
        if self.recorded is None:
            return None
        parts = (self.before.result() if figures != "none" else None,
                 self.after.result() if self.after is not None and figures != "none" else None)
        return self.recorded.record(self.window, figures, parts)

    def outages(self, figures: str) -> list[dict]:
        """Every outage of the cell in time order (model.Outage each), the recorded one among them with its figures
        and parts; the others' failures stay among the window's errors (`figures` "whole" when the window holds them,
        "before" when it ended before them)."""
        out = []
        for count in self.counts:
            if count is self.recorded:
                out.append(self.outage(figures))
            else:
                inside = count.stretch.began_ms < self.window.end_ms
                out.append(count.record(self.window, "whole" if inside else "before", (None, None)))
        return out

    def stalls(self) -> list[dict]:
        """The summary's stall records (model.Stall), in time order."""
        w = self.window
        return [{"began_s": (s.began_ms - w.first_start_ms) / 1000.0, "lasted_s": (s.ended_ms - s.began_ms) / 1000.0,
                 "held": held, "held_failed": held_failed, "shortest_ms": float(shortest if held else 0),
                 "longest_ms": float(longest), "joined": joined, "joined_longest_ms": float(joined_longest),
                 "in_window": w.start_ms <= s.ended_ms and s.began_ms <= w.end_ms, "rule": STALL_RULE}
                for s, (held, held_failed, shortest, longest, joined, joined_longest)
                in zip(self.silences.stalls, self.held)]


def reason(record: dict) -> str:
    """The outage in the cell's reason: when it began, how long it lasted, what failed, what the figures are."""
    what = (f"{record['failed']:,} requests failed ({record['error_class']})" if record["failed"]
            else "no request completed")
    until = "until requests were answered again" if record["recovered"] else "to the cell's end"
    return (f"outage {record['began_s']:.1f} s into the cell, lasting {record['lasted_s']:.1f} s ({until}): no "
            f"request was answered, {what}; {FIGURES_WORDS[record['figures']]}")


FIGURES_WORDS = {"whole": "the figures are the whole window's, the outage inside it",
                 "before": "the figures are those of the part before it (the server never came back)",
                 "after": "the figures are those of the part after it",  # summaries written before stalls
                 "none": "no figures: no part of the window is left beside it"}
