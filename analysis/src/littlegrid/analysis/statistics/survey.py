"""The analysis' first pass over a cell's rows: what every figure depends on before it can be counted (the steady
window, the Transaction Controller labels, the labels with series), as a rowblock.Frame."""

from __future__ import annotations

import numpy as np
import pandas as pd

from littlegrid.analysis.statistics.rowblock import Frame
from littlegrid.analysis.statistics.series import LABEL_SERIES_MAX, series_labels
from littlegrid.analysis.steady import outage, steady_state
from littlegrid.analysis.steady.warmup_seconds import WarmupSeconds
from littlegrid.analysis.steady.window import EmptyWindow, window_of

NO_START = np.iinfo(np.int64).max
# A guessed frame counts series for three times the labels that get them: the labels the first block and the
# files' ends rank near the cut (many labels with similar counts) do not cost the cell a second read.
GUESS_SERIES_LABELS = 3 * LABEL_SERIES_MAX


class LabelSpans:
    """Per label, over every block: rows, first start and last end (the window needs them over the samples,
    i.e. without the Transaction Controller labels, which only the whole pass knows); and the answers per second,
    which tell stalls and outages (outage.py) before anything is counted, and the successful ones' elapsed sums
    per second from the first start, which tell where the warm-up ends (warmup_seconds.py, steady_state.warmup)."""

    def __init__(self) -> None:
        self.rows: dict[str, int] = {}
        self.first: dict[str, int] = {}
        self.last: dict[str, int] = {}
        self.answers = outage.AnsweredSeconds()
        self.warmup_seconds = WarmupSeconds()

    def add(self, table: pd.DataFrame) -> None:
        labels = table["label"]
        codes = labels.cat.codes.to_numpy().astype(np.int64) + 1  # 0: no label, counted as "" (stats.label_codes)
        names = ["", *(str(c) for c in labels.cat.categories)]
        k = len(names)
        rows = np.bincount(codes, minlength=k)
        first = np.full(k, NO_START, np.int64)
        np.minimum.at(first, codes, table["start_ms"].to_numpy())
        last = np.full(k, -NO_START, np.int64)
        np.maximum.at(last, codes, table["end_ms"].to_numpy())
        for i in np.flatnonzero(rows):
            name = names[i]
            self.rows[name] = self.rows.get(name, 0) + int(rows[i])
            self.first[name] = min(self.first.get(name, NO_START), int(first[i]))
            self.last[name] = max(self.last.get(name, -NO_START), int(last[i]))
        self.answers.add(table)
        self.warmup_seconds.add(table)

    def frame(self, transactions: frozenset, warmup_s: float, cooldown_s: float, blocks: int,
              rows: int | None = None, series_top: int = LABEL_SERIES_MAX, fixed_warmup: bool = False,
              decided: steady_state.Decided | None = None) -> Frame:
        """The cell's Frame; EmptyWindow when no sample is left, or the trim leaves no window. warmup_s is the
        warm-up's floor: the window starts where steady_state.warmup finds the warm-up over in the seconds before
        the cool-down, never before the floor (Frame.warmup keeps the rule's record); fixed_warmup: the trim is
        warmup_s itself (analyze --warmup-fixed), nothing is looked for; decided: the runner's stop record (a precise
        cell's): the warm-up is looked for over the seconds its rule judged, and the window never starts before
        the warm-up it found (steady_state.Decided, steady_state.warmup); the window then ends with the seconds it
        judged, its cool-down the file's tail after them (Frame.cooldown_by). rows: the cell's
        rows when these spans saw only some of them (a guess's: it looks for no silence, its seconds have gaps),
        else theirs; series_top: how many labels get series (a guess keeps more, GUESS_SERIES_LABELS, for the
        whole cell's top ones to be among them). A stall or a recovered outage leaves the window whole; one the
        server never came back from ends it (outage.window_beside), or, when none is left, the window is the whole
        cell (outage.figures)."""
        requests = [name for name in self.rows if name not in transactions]
        if not requests:
            raise EmptyWindow("no samples")
        first, last = min(self.first[n] for n in requests), max(self.last[n] for n in requests)
        silences = self.answers.silences(first, last) if rows is None else outage.Silences()
        # the seconds the warm-up is looked for in end where the window can end: at the cool-down, or where an
        # outage began that the server never came back from (its silence is no steady state); a precise cell's
        # end where its rule's judged seconds did, every one at full load, whatever the cool-down trims after
        until = (last - int(round(cooldown_s * 1000)) if decided is None
                 else first + int(round(decided.judged_s * 1000)))
        if silences.outage is not None and not silences.outage.recovered:
            until = min(until, silences.outage.began_ms)
        decided_s = None if decided is None else decided.warmup_s
        found = (None if fixed_warmup or rows is not None
                 else self.warmup(first, until, warmup_s, silences, decided_s))
        trim = found.seconds if found is not None else max(warmup_s, decided_s or 0.0)
        # a precise cell's window is the one its rule answered on: it ends with the seconds judged, every one at
        # full load when the rule decided; what the file holds after them is the stop's tail (the seconds the stop
        # took to arrive, the samples in flight), which may be shorter than the cool-down asked, or longer
        ends = decided is not None and decided.ends_window
        cool = max(0, last - first - int(round(decided.judged_s * 1000))) / 1000 if ends else cooldown_s
        window = (outage.window_beside(first, last, trim, cool, silences.outage)
                  if silences.outage is not None else window_of(first, last, trim, cool))
        return Frame(window=window or window_of(first, last, 0.0, 0.0), transactions=frozenset(transactions),
                     series_labels=series_labels(self.rows, series_top),
                     rows=sum(self.rows.values()) if rows is None else rows, blocks=blocks, silences=silences,
                     warmup=found, cooldown_by=steady_state.DECIDED if ends else None)

    def warmup(self, first: int, until: int, floor_s: float, silences: outage.Silences,
               decided_s: float | None = None) -> steady_state.Warmup:
        """The warm-up of the cell's seconds from its first start to `until` (steady_state.warmup), never less than
        `floor_s`; the seconds of its stalls and of every outage are left out of the series (the
        window keeps them, marked: they are neither warm-up nor noise). A guessed frame (spans of the first block
        and the files' ends only, their seconds with gaps between) looks for none: it keeps the floor, which the
        whole pass confirms for a cell that settled at once (else the cell is counted again under its frame)."""
        counts, sums, unit = self.warmup_seconds.series(first, until)
        left_out = np.zeros(len(counts), bool)
        for stretch in silences.stretches:
            left_out[max(0, (stretch.began_ms - first) // 1000 // unit):
                     max(0, (stretch.ended_ms - first) // 1000 // unit + 1)] = True
        return steady_state.warmup(counts, sums, floor_s, left_out=left_out, unit_s=unit, decided_s=decided_s)


def counts_alike(guess: Frame, frame: Frame) -> bool:
    """Whether rows counted under `guess` give `frame`'s figures: the same window and transaction labels, and
    series for every label that has them (read out in `frame`'s order; the guess's others are dropped). Rows and
    blocks only size spills."""
    return (guess.window == frame.window and guess.transactions == frame.transactions
            and guess.silences == frame.silences
            and set(frame.series_labels) <= set(guess.series_labels))
