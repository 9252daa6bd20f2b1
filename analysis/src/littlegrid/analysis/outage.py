"""Outages: a stretch of a cell in which the server stopped answering (it died, hung, or refused or dropped every
connection), told apart from a bottleneck, where failures interleave with answers.

Found in the analysis' first pass (survey.LabelSpans feeds AnsweredSeconds every table), so the frame can end the
steady window where the outage began, and every figure is computed on the part before it, in the same single read
(on the part after it when the cell began with it and recovered). The counting pass then counts the outage's own
requests and their error classes (OutageCount).

Answered: a success, or a failure with an HTTP status below 500 (an assertion failed on a 200, a 404: the server
answered; a cell whose every assertion fails is a broken test, not an outage). The rule: a stretch between two
answers (or from the cell's first start to its first answer, or from its last answer to its last completion) is
an outage when it lasted at least MIN_OUTAGE_S, at least SLOWEST_MULTIPLE times the mean response time of the
answers (requests in flight cannot explain it), and the answers the rest of the cell gave at its rate would have
put at least DUE of them into it (at a steady rate the chance of none is about e^-DUE). A stretch from the first
start needs unanswered requests in it (a slow first request is not an outage); one between answers needs them, or
a request in flight through it (a hang), else the generator paused (a JTL of two sessions); a cell with no answer
at all is an outage from its start.
"""

from __future__ import annotations

from dataclasses import dataclass

import re

import numpy as np
import pandas as pd

from littlegrid.analysis.error_classes import count_names, failed_mask, largest_first
from littlegrid.analysis.window import EmptyWindow, SteadyWindow, window_of

MIN_OUTAGE_S = 2.0
SLOWEST_MULTIPLE = 3.0
DUE = 10.0
RULE = (f"no request was answered for at least {MIN_OUTAGE_S:g} s, {SLOWEST_MULTIPLE:g}× the mean response time of "
        f"the cell's answers, and at the rate of the rest of the cell at least {DUE:g} answers were due in it")
_ANSWER = re.compile(r"^\s*[1-4]\d\d\s*$")  # an HTTP status the server chose to send, 5xx aside
NO_END = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Stretch:
    """An outage found by the first pass: no request was answered from began_ms to ended_ms (epoch ms);
    recovered: an answer ended it, else it lasted to the cell's last completion."""

    began_ms: int
    ended_ms: int
    recovered: bool


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
    the first and last end, their elapsed sum), the unanswered ones, and the earliest start of any request
    completing in the second (a request in flight through a silent stretch); and the first unanswered one's end.
    Sparse, only the seconds that had completions: memory is those seconds, however far apart (a JTL holding two
    sessions years apart, a damaged timestamp)."""

    COLUMNS = ("count", "first", "last", "failed", "earliest")
    MERGE_AT = 64  # blocks' per-second tables kept before they are merged into one

    def __init__(self) -> None:
        self._parts: list[pd.DataFrame] = []
        self.elapsed_sum = 0
        self.first_failure_ms = NO_END

    def add(self, table: pd.DataFrame) -> None:
        if len(table) == 0:
            return
        ok = answered(table)
        ends = table["end_ms"].to_numpy(dtype=np.int64)
        if not ok.all():
            self.first_failure_ms = min(self.first_failure_ms, int(ends[~ok].min()))
        self.elapsed_sum += int(table["elapsed_ms"].to_numpy(dtype=np.int64)[ok].sum())
        self._parts.append(_per_second(ends, table["start_ms"].to_numpy(dtype=np.int64), ok))
        if len(self._parts) >= self.MERGE_AT:
            self._parts = [self._merged(pd.concat(self._parts))]

    @staticmethod
    def _merged(rows: pd.DataFrame) -> pd.DataFrame:
        return rows.groupby("second", sort=True).agg(count=("count", "sum"), first=("first", "min"),
                                                     last=("last", "max"), failed=("failed", "sum"),
                                                     earliest=("earliest", "min"))

    def seconds(self) -> pd.DataFrame:
        """Per second with completions, in order: count, first, last (the answers'), failed, earliest."""
        if not self._parts:
            return pd.DataFrame({c: np.zeros(0, np.int64) for c in self.COLUMNS})
        self._parts = [self._merged(pd.concat(self._parts).reset_index()) if len(self._parts) > 1
                       else self._parts[0]]
        return self._parts[0]

    def outage(self, first_start_ms: int, last_end_ms: int) -> Stretch | None:
        """The cell's first outage (module docstring), None when it had none. first_start_ms, last_end_ms: the
        cell's first sample start and last completion (of its requests)."""
        per_second = self.seconds()
        with_answers = per_second[per_second["count"] > 0]
        if len(with_answers) == 0:
            return Stretch(first_start_ms, last_end_ms, recovered=False) if self.first_failure_ms != NO_END else None
        answers = int(with_answers["count"].sum())
        mean_ms = self.elapsed_sum / answers
        span = max(last_end_ms - first_start_ms, 1)
        # the stretches between answers in time order: (began, ended); within a second they are < 1 s apart
        began = np.concatenate(([first_start_ms], with_answers["last"].to_numpy()))
        ended = np.concatenate((with_answers["first"].to_numpy(), [last_end_ms]))
        for i, (b, e) in enumerate(zip(began.tolist(), ended.tolist())):
            if i == 0 and self.first_failure_ms >= e:
                continue  # nothing unanswered before the first answer: a slow start, not an outage
            lasted = e - b
            if lasted < 1000 * MIN_OUTAGE_S or lasted < SLOWEST_MULTIPLE * mean_ms:
                continue  # first: a busy cell has a stretch per second, and this costs no look-up
            if 0 < i < len(with_answers) and not self._failed_or_held(per_second, b, e):
                continue  # nothing failed, nothing in flight: the generator paused (two sessions), not the server
            rest = span - lasted
            if rest <= 0 or answers * lasted / rest >= DUE:
                return Stretch(int(b), int(e), recovered=i < len(with_answers))
        return None

    @staticmethod
    def _failed_or_held(per_second: pd.DataFrame, began_ms: int, ended_ms: int) -> bool:
        """Whether requests went unanswered in the whole seconds inside the stretch, or one that ended it had been
        in flight since its first half (a hang; after a pause of the generator the first requests start at its
        end)."""
        inside = per_second.loc[began_ms // 1000 + 1:ended_ms // 1000 - 1, "failed"]
        return bool(inside.any()) or int(per_second.at[ended_ms // 1000, "earliest"]) < (began_ms + ended_ms) / 2


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
                             "earliest": starts})
        return AnsweredSeconds._merged(rows)
    local = second - low
    answered_at, answered_end = local[ok], ends[ok]
    count = np.bincount(answered_at, minlength=width)
    failed = np.bincount(local, minlength=width) - count
    first, last, earliest = np.full(width, NO_END), np.full(width, -NO_END), np.full(width, NO_END)
    np.minimum.at(first, answered_at, answered_end)
    np.maximum.at(last, answered_at, answered_end)
    np.minimum.at(earliest, local, starts)
    present = np.flatnonzero(count + failed)
    return pd.DataFrame({"count": count[present], "first": first[present], "last": last[present],
                         "failed": failed[present], "earliest": earliest[present]},
                        index=pd.Index(present + low, name="second"))


def window_outside(first_start_ms: int, last_end_ms: int, warmup_s: float, cooldown_s: float,
                   stretch: Stretch) -> SteadyWindow | None:
    """The steady window ended where the outage began, or, when the cell began with it and recovered, started
    where it ended; None when no part of the window is left."""
    try:
        window = window_of(first_start_ms, last_end_ms, warmup_s, cooldown_s)
    except EmptyWindow:
        return None
    start, end = window.start_ms, window.end_ms
    if stretch.began_ms == first_start_ms and stretch.recovered:
        start = max(start, stretch.ended_ms)
    else:
        end = min(end, stretch.began_ms)
    if end <= start:
        return None
    return SteadyWindow(start_ms=start, end_ms=end, warmup_s=window.warmup_s, cooldown_s=window.cooldown_s,
                        first_start_ms=first_start_ms, last_end_ms=last_end_ms, samples_trimmed_before=0,
                        samples_trimmed_after=0)


def figures(window: SteadyWindow, stretch: Stretch | None) -> str:
    """What the window's figures describe: "before" the outage (or no outage), "after" it, or "none" (no part of
    the window was left: the window is the whole cell, counted only for the outage's own requests)."""
    if stretch is None or window.end_ms <= stretch.began_ms:
        return "before"
    return "after" if window.start_ms >= stretch.ended_ms else "none"


class OutageCount:
    """The counting pass's view of an outage: the requests that completed in it (every one unanswered) by error
    class. Those that ended in the very millisecond of the last answer belong to the window before it (its end is
    inclusive), unless the outage began with the cell; those of the answer's that ended it, to the one after."""

    def __init__(self, stretch: Stretch, first_start_ms: int) -> None:
        self.stretch = stretch
        self.after_ms = stretch.began_ms - (stretch.began_ms == first_start_ms)
        self.by_class: dict[str, int] = {}

    def add(self, block) -> None:
        """block: a rowblock.Block (rowblock's Frame holds a Stretch, so this module does not import it)."""
        ends = block.samples["end_ms"].to_numpy()
        inside = (ends > self.after_ms) & (ends < self.stretch.ended_ms if self.stretch.recovered
                                           else ends <= self.stretch.ended_ms)
        for name, n in count_names(block.sample_classes, inside).items():
            self.by_class[name] = self.by_class.get(name, 0) + n

    def result(self, first_start_ms: int, figures: str) -> dict:
        """The summary's outage record (model.Outage)."""
        s = self.stretch
        failed = sum(self.by_class.values())
        lasted = (s.ended_ms - s.began_ms) / 1000.0
        by_class = largest_first(self.by_class)
        return {"began_s": (s.began_ms - first_start_ms) / 1000.0, "lasted_s": lasted, "recovered": s.recovered,
                "failed": failed, "failed_per_s": failed / lasted if lasted > 0 else None,
                "failed_by_class": by_class, "error_class": next(iter(by_class), None),
                "figures": figures, "rule": RULE}


def reason(record: dict) -> str:
    """The outage in the cell's reason: when it began, how long it lasted, what failed."""
    what = (f"{record['failed']:,} requests failed ({record['error_class']})" if record["failed"]
            else "no request completed")
    until = "until requests were answered again" if record["recovered"] else "to the cell's end"
    return (f"outage {record['began_s']:.1f} s into the cell, lasting {record['lasted_s']:.1f} s ({until}): no "
            f"request was answered, {what}; {FIGURES_WORDS[record['figures']]}")


FIGURES_WORDS = {"before": "the figures are those of the part before it",
                 "after": "the figures are those of the part after it",
                 "none": "no figures: no part of the window is left beside it"}
