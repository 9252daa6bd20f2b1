"""One cell's analysis: its JTLs read, trimmed to the steady window, into the summary entry (contract §5) with its
statistics, histograms, series, think time, server figures and queueing-law checks."""

from dataclasses import replace

import numpy as np

from littlegrid.analysis import cells as cells_mod
from littlegrid.analysis.observed import observed_sources, observed_window, server_metrics
from littlegrid.analysis.queueing import laws, little
from littlegrid.analysis.reading import histogram
from littlegrid.analysis.reading.fields import ANALYZED_FIELDS, LABEL_FIELDS, SURVEY_FIELDS
from littlegrid.analysis.statistics.rowblock import Block, Frame, ThreadIds, make_block
from littlegrid.analysis.statistics.series import LabelSeriesAccumulator, TimeSeriesAccumulator
from littlegrid.analysis.statistics.stats import ErrorTypesAccumulator, LabelStatsAccumulator, SampleStatsAccumulator
from littlegrid.analysis.statistics.survey import GUESS_SERIES_LABELS, LabelSpans, counts_alike
from littlegrid.analysis.statistics.window_seconds import WindowSecondsAccumulator
from littlegrid.analysis.steady import outage, steady_state, trend
from littlegrid.analysis.steady.window import EmptyWindow, window_error
from littlegrid.analysis.workload import controller_log
from littlegrid.analysis.workload.arrivals import InterarrivalAccumulator
from littlegrid.analysis.workload.engines import (AGAINST_CONTROLLER, START_SKEW_S, EngineSharesAccumulator,
                                                  clock_tolerance_s)
from littlegrid.analysis.workload.think_gaps import RULE_EVERY, RULE_NONE, RULE_OUTERMOST
from littlegrid.analysis.workload.think_time import ThinkTimeAccumulator
from littlegrid.analysis.workload.users import UsersAccumulator
from littlegrid.jtl.blocks import BlockReader, ReadAgain
from littlegrid.summary import model, plain
from littlegrid.usererror import UserError



def _threads_of_open_plan(cell, n):
    """The open plan's pool: its `threads` property when set (the plan sizes it by Little's law otherwise)."""
    return cells_mod.number(cell.properties.get("threads")) or n


def _in_front(cell, server: dict | None, overall: model.Stats) -> model.Server | None:
    """The server's figures with where the requests are by Little's law at its boundaries (analysis/queueing/little.py)."""
    if server is None:
        return None
    front = little.boundaries(overall.throughput_per_s, overall.mean_ms, server, steady=cell.workload != "spike")
    # client_minus_server_ms: the older name of wait_in_front_ms
    return model.Server.model_validate(plain(server | front | {"client_minus_server_ms": front["wait_in_front_ms"]}))


def _cell_checks(cell, f: model.Cell, arrivals: tuple | None, tol: dict) -> list[model.Check]:
    """The per-cell law checks that apply: closed law (not for a spike); users from a manifest; think-time
    fidelity for closed cells, arrival-rate checks for open ones; Little's law at the server when it
    reported metrics. `f`: the cell's figures so far; `arrivals`: (inter-arrival CV, arrivals) of an open cell."""
    users, think, T = f.users, f.think_time, f.window.length_s
    n, x, r = users.n, f.overall.throughput_per_s, f.overall.mean_ms
    spike = cell.workload == "spike"  # users released at once run down one by one: no steady state to check
    checks = [laws.not_made("closed_law", cell.id, "a spike has no steady state (its users finish one by one); "
                            "the time series and the error classes tell what the server did with the burst")
              if spike else _closed_law(cell.id, n, cell.plan_users is None, x, r, think, T, tol["closed_law"],
                                        f.reading.transaction_rows_excluded)]
    if cell.plan_users is not None:
        peak = max(cell.threads_by_engine.values()) if cell.threads_by_engine else n / (cell.engines or 1)
        checks.append(laws.users_count(cell.id, n, users.all_threads_max, peak, users.threads_seen))
    if cell.rate_per_s and not spike:
        cv, arrivals = arrivals
        checks += [laws.open_rate(cell.id, x, cell.rate_per_s, T, tol["open_rate"]),
                   laws.interarrival_cv(cell.id, cv, arrivals, tol["interarrival_cv"]),
                   laws.generator_sizing(cell.id, cell.rate_per_s, r, _threads_of_open_plan(cell, n),
                                         tol["generator_sizing"])]
    elif cell.intended_think_ms is not None and not spike and think.sequence.rule == RULE_OUTERMOST:
        # A multi-step plan: the think time asked for is per request, but what follows what in each thread are the
        # transactions, each wrapping several requests and their pauses, so their gaps are not that think time
        # (the closed law above still holds, with the transactions' own X, R and realised Z)
        why = (f"the think time asked for ({cell.intended_think_ms:g} ms) is per request, while each thread's "
               f"successive samples are transactions wrapping several requests and their pauses ({think.sequence.text})")
        checks += [laws.does_not_apply("think_time", cell.id, why), laws.does_not_apply("workload", cell.id, why)]
    elif cell.intended_think_ms is not None and not spike:
        checks += [laws.think_time_fidelity(cell.id, think.mean_ms, cell.intended_think_ms, r, think.sd_ms,
                                            think.gaps, tol["think_time"]),
                   laws.workload_fidelity(cell.id, n, x, r, cell.intended_think_ms, T, tol["workload"],
                                          think.sd_ms, think.gaps, think.mean_ms,
                                          think.thread_mean_ms.max if think.thread_mean_ms is not None else None,
                                          think.threads,
                                          laws.intended_think_sd_ms(cell.think_dist, cell.think_ms))]
    srv = f.server
    if srv is not None and not spike and srv.in_flight_source == server_metrics.LITTLE:
        # L_server read from the timer by Little's law (Δsum/Δt) is X·R_server by construction: nothing to test
        checks.append(laws.does_not_apply("server_little", cell.id, "L_server is the server's timer read by Little's "
                                          "law (request-seconds per second), equal to X·R_server by construction"))
    elif srv is not None and not spike and srv.in_flight_source == server_metrics.GAUGES:
        checks.append(laws.does_not_apply("server_little", cell.id, "R_server is L_server/X by Little's law (a "
                                          "proxy's gauges and request counter, no timer), equal to it by construction"))
    elif srv is not None and not spike:  # 1 Hz counters cannot resolve a burst that lasts a few seconds
        checks.append(laws.server_little(cell.id, srv.in_flight_mean, srv.in_flight_se, srv.throughput_per_s,
                                         srv.service_mean_ms, srv.in_flight_source, tol["server_little"]))
    if f.engine_shares:
        checks.append(_engine_clocks(cell.id, f.engine_shares, T))
    if not spike:  # a spike's completions fall as its users finish: no steady state to hold
        checks.append(laws.steady(cell.id, *trend.completions(f.series), tol["steady"], f.trend, tol["steady_r"]))
    return checks


def _engine_clocks(cell_id: str, shares: list, window_s: float) -> model.Check:
    """The engines' clocks agree when their offsets (EngineShare.clock_offset_s, measured against the controller's
    times or against each other) spread no more than the allowance. Two engines cannot say which clock is off;
    three or more name the one farthest from the median."""
    offsets = {s.engine: s.clock_offset_s for s in shares if s.clock_offset_s is not None}
    if len(offsets) < 2:
        return laws.not_made("engine_clocks", cell_id, "needs samples from at least two engines")
    against = next(s.clock_against for s in shares if s.clock_offset_s is not None)
    basis = ("measured against when the controller saw each engine start and finish" if against == AGAINST_CONTROLLER
             else "measured against each other's first and last samples")
    tolerance = clock_tolerance_s(window_s)
    spread = max(offsets.values()) - min(offsets.values())
    ok = spread <= tolerance
    allowed = (f"allowed {tolerance:.2f} s: 1% of the {window_s:.0f} s window, at least {START_SKEW_S:g} s for the "
               "engines' start")
    if ok:
        why = f"the engines' clocks agree within {spread:.2f} s, {basis} ({allowed})."
    else:
        if len(offsets) > 2:
            engine, off = max(offsets.items(), key=lambda kv: abs(kv[1]))
            who = f"{engine}'s samples run {off:+.2f} s against the other engines'"
        else:
            who = f"{' and '.join(offsets)} disagree by {spread:.2f} s"
        why = (f"{who}, {basis} ({allowed}): a clock disagrees, so those samples sit elsewhere in the window than "
               "they happened; synchronise the engines' clocks (NTP/chrony) and run the cell again")
    return laws.verdict("engine_clocks", cell_id, spread, 0.0, spread / window_s if window_s else None,
                        tolerance / window_s if window_s else None, ok, why)


def _closed_law(cell_id, n, n_seen: bool, x, r, think: model.ThinkTime, window_s, floor, transaction_rows: int):
    """N = X·(R+Z) on the sequence think time was measured on: the samples themselves (X and R as reported), the
    outermost ones (their own X and R, since Z runs between them), or none when a thread's samples overlap.
    n_seen (bare JTLs: nobody says how many users ran, N is the threads seen): when fewer threads were active on
    average than were seen (ramp-up, early exits, an Ultimate Thread Group inside the window), N was not constant
    and the law with one N does not apply; saying it failed would misread the test."""
    seq = think.sequence
    if seq.rule == RULE_NONE:
        return laws.does_not_apply("closed_law", cell_id, seq.text.removeprefix("does not apply: "))
    active, z = seq.active_threads, think.mean_ms
    r_seq = r if seq.rule == RULE_EVERY else seq.mean_ms
    # the deficit of active threads the check itself would tolerate (its window error, 3 standard errors)
    slack = (max(floor, 3 * window_error((r_seq + z) / 1000.0, window_s, n))
             if None not in (n, r_seq, z) and n > 0 and window_s > 0 else floor)
    if n_seen and n and active is not None and active < (1 - slack) * n:
        return laws.does_not_apply("closed_law", cell_id, (
            f"the number of active threads changes inside the window ({n:g} threads seen, {active:.1f} active on "
            f"average: ramp-up, early exits or a stepping thread group); --warmup and --cooldown can trim the "
            f"window to the part where all of them ran"))
    if seq.rule == RULE_EVERY and not transaction_rows:
        return laws.closed_law(cell_id, n, x, r, think.mean_ms, window_s, floor)
    return laws.closed_law(cell_id, n, seq.throughput_per_s, seq.mean_ms, think.mean_ms, window_s, floor,
                           basis=f"X and R of the {seq.rule} ({seq.count:,} in the window)")


def _survey(reader: BlockReader, fields) -> LabelSpans:
    """The first pass (survey.py): per-label rows and spans; begun again if a file must be read in one piece."""
    while True:
        spans = LabelSpans()
        try:
            for table in reader.blocks(fields):
                spans.add(table)
            return spans
        except ReadAgain:
            continue


class _Counting:
    """The accumulators of one cell under one frame: every block goes to each (docs/analysis.md)."""

    def __init__(self, cell, frame, by_label: bool) -> None:
        self.frame, self.by_label, self.threads = frame, by_label, ThreadIds(cell.remote_hosts)
        self.overall, self.users, self.trimmed = SampleStatsAccumulator(), UsersAccumulator(), _Trimmed(frame.window)
        self.seconds = WindowSecondsAccumulator(frame.window)
        self.series = TimeSeriesAccumulator(frame, cell.engines, named_engines=len(cell.remote_hosts))
        self.think = ThinkTimeAccumulator(frame, cell.think_dist, cell.think_offset_ms)
        self.accumulators = [self.overall, self.users, self.trimmed, self.seconds, self.series, self.think]
        if by_label:  # on every row, transactions included: they keep their own per-label statistics
            self.labels, self.errors = LabelStatsAccumulator(frame.transactions), ErrorTypesAccumulator()
            self.label_series = LabelSeriesAccumulator(frame)
            self.accumulators += [self.labels, self.errors, self.label_series]
        self.arrivals = InterarrivalAccumulator() if cell.rate_per_s and cell.workload != "spike" else None
        if self.arrivals is not None:
            self.accumulators.append(self.arrivals)
        self.everything = _Everything()
        self.accumulators.append(self.everything)
        silences = frame.silences
        self.silences = (outage.SilenceCount(silences, frame.window)
                         if silences.outage is not None or silences.stalls else None)
        if self.silences is not None:
            self.accumulators.append(self.silences)
        self.engines = EngineSharesAccumulator(list(cell.remote_hosts), self.threads) if cell.remote_hosts else None
        if self.engines is not None:
            self.accumulators.append(self.engines)

    def add(self, table) -> None:
        block = make_block(table, self.frame, self.threads, self.by_label)
        for accumulator in self.accumulators:
            accumulator.add(block)

    def discard(self) -> None:
        """Counted under a frame that turned out wrong: its spill goes now."""
        self.think.discard()


def _count(reader: BlockReader, fields, cell, frame, by_label) -> _Counting:
    """The counting pass under a settled frame; begun again if a file must be read in one piece."""
    while True:
        counting = _Counting(cell, frame, by_label)
        try:
            for table in reader.blocks(fields):
                counting.add(table)
                del table
            return counting
        except ReadAgain:
            counting.discard()


def _single_pass(reader: BlockReader, fields, cell, warmup, cooldown, by_label, decided):
    """A cell too large for one piece, read once: counted under a frame guessed from its first block and the
    first and last rows of each file (BlockReader.ends: JMeter writes a sample when it ends, so the last end is
    near a file's end and the first start near its start), and surveyed on the way. (spans, counting): the spans
    of the whole pass, and the counting, to be kept only if the frame the spans give is the guess
    (survey.counts_alike; the caller checks). None when no guess could be made (a gzip file, a file that must be
    read in one piece, a guess with no window): the caller makes two passes."""
    ends = reader.ends(SURVEY_FIELDS)
    if ends is None:
        return None
    spans, counting = LabelSpans(), None
    blocks = reader.blocks(fields)
    try:
        for table in blocks:
            if counting is None:
                guess = LabelSpans()
                for seen in (table, *ends.tables):
                    guess.add(seen)
                transactions = frozenset(reader.transactions_seen) | ends.transactions
                try:  # blocks=2: more than one, so think time spills from the first
                    frame = guess.frame(transactions, warmup, cooldown, blocks=2, rows=ends.rows_estimate,
                                        series_top=GUESS_SERIES_LABELS, decided=decided)
                except EmptyWindow:
                    return None
                counting = _Counting(cell, frame, by_label)
            spans.add(table)
            counting.add(table)
            del table
    except BaseException as error:  # the spill goes now; a bad file further on is the caller's to say
        if counting is not None:
            counting.discard()
        if isinstance(error, ReadAgain):  # a file to be read in one piece: two passes, the reader knows it now
            return None
        raise
    finally:
        blocks.close()
    return spans, counting


def decided_warmup(stop: dict | None) -> steady_state.Decided | None:
    """The warm-up the runner's rule found when it answered the cell and the seconds it judged (the manifest's stop
    record, reason "precise" or "slo"): the analysis looks for the warm-up over those seconds and its window
    starts no earlier, so it is the window the cell was answered on. None for a fixed-duration cell, a cell
    stopped at max_s or by hand (nothing was answered on a window), or a record without both figures."""
    if not stop or stop.get("reason") not in ("precise", "slo"):
        return None
    w, at = stop.get("warmup_s"), stop.get("at_s")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (w, at)) or w < 0 or at <= w:
        return None
    return steady_state.Decided(float(w), float(at))


def _trim_record(frame: Frame, floor_s: float) -> dict:
    """model.Window's trim rule fields: what the warm-up rule found (steady_state.Warmup), the floor alone when
    nothing was looked for (a fixed trim); where the cool-down came from (Frame.cooldown_by)."""
    cool = {"cooldown_by": frame.cooldown_by}
    found = frame.warmup
    if found is None:
        return {"warmup_floor_s": float(floor_s)} | cool
    return {"warmup_floor_s": float(floor_s), "warmup_detected_s": found.detected_s,
            "warmup_settled": found.settled, "warmup_by": found.by} | cool


def _precision(spans: LabelSpans, window, found: steady_state.Warmup | None, users: float | None) -> model.Precision:
    """The window's batch-means precision of X and mean R (steady_state.precision) over its whole seconds, on the
    series the warm-up was found on (warmup_seconds: answered requests, Transaction Controller parents left out),
    the one the runner's stopping rule judges; a warm-up settled only as an immaterial drift adds the bias it
    accepted (`found`: the warm-up rule's record, None for a fixed trim); `users`, a closed workload's N, adds
    its window edges' error to X's."""
    counts, sums, unit = spans.warmup_seconds.series(window.start_ms, window.end_ms)
    return steady_state.precision(counts, sums, unit_s=unit, drift=found.drift if found is not None else (),
                                  users=users)


class _Everything:
    """Every request of the cell, window or not (Transaction Controller rows aside), and those that failed: what a
    sentence about the file's errors counts."""

    def __init__(self) -> None:
        self.samples, self.failed = 0, 0

    def add(self, block: Block) -> None:
        self.samples += len(block.samples)
        self.failed += int(block.sample_classes.notna().sum())


class _Trimmed:
    """The samples the window trims before and after it (SteadyWindow's counts), block by block."""

    def __init__(self, window) -> None:
        self.window, self.before, self.after = window, 0, 0

    def add(self, block: Block) -> None:
        ends = block.samples["end_ms"].to_numpy()
        self.before += int(np.count_nonzero(ends < self.window.start_ms))
        self.after += int(np.count_nonzero(ends > self.window.end_ms))


def analyze_cell(cell, warmup_s, cooldown_s, by_label, tol, read_options=None, bare=False, fixed_warmup=False):
    """One cell's summary entry (contract §5) as a summary.model.Cell, the histogram of its window's elapsed
    times (for grid-level percentiles) and its window's samples second by second (WindowSecondsAccumulator: a
    search's intervals resample them by second); None and None without a window.

    The cell's JTLs are read block by block (jtl.blocks) and fed to the accumulators of _Counting, which keep
    counts, never rows (docs/analysis.md, "One pass, bounded memory"), under the cell's Frame (survey.py): the
    window, the transaction labels, the labels with series. Files that fit one piece are read once, the frame
    settled before counting. Larger ones are read once too, counted under a frame guessed from the first block
    and the files' ends; when the whole pass's frame differs from the guess, they are counted again under it.
    read_options: read_jtl keywords. warmup_s (else the cell's warmup_s) is the warm-up's floor: the window
    starts where steady_state.warmup finds the warm-up over, unless fixed_warmup (the trim is the floor)."""
    intended = model.Intended(think_ms=cell.intended_think_ms, think_dist=cell.think_dist,
                              think_offset_ms=cell.think_offset_ms if cell.think_dist == "poisson" else None,
                              rate_per_s=cell.rate_per_s, workload=cell.workload)
    unanalysed = dict(id=cell.id, axes=cell.axes, status=cell.status, reason=cell.reason, warnings=[], reading=None,
                      window=None, users=None, intended=intended, overall=None, labels={}, errors=None,
                      label_series=None, think_time=None, server=None, host=None, series=None, histogram=None,
                      checks=[], target=cell.moved_target)

    def not_analysed(why: str | None = None, **known) -> tuple[model.Cell, None, None]:
        reason = "; ".join(filter(None, [cell.reason, why]))  # one bad cell does not sink the run
        return model.Cell.model_validate(plain(unanalysed | known | {"reason": reason or None})), None, None

    if not cell.jtl_paths:
        return not_analysed()
    fields = ANALYZED_FIELDS + (LABEL_FIELDS if by_label else ())
    warmup = warmup_s if warmup_s is not None else (cell.warmup_s or 0.0)
    decided = None if warmup_s is not None or fixed_warmup else decided_warmup(cell.stop)
    if decided is not None and cooldown_s is not None:  # the user's own cool-down trims the end
        decided = replace(decided, ends_window=False)
    cooldown = cooldown_s if cooldown_s is not None else (cell.cooldown_s or 0.0)
    counting = None
    try:
        reader = BlockReader([str(p) for p in cell.jtl_paths], read_options, left_out_groups=cell.left_out_groups)
        once = None if reader.one_piece else _single_pass(reader, fields, cell, warmup, cooldown, by_label, decided)
        if once is not None:
            spans, counting = once
        else:  # surveyed first: in one piece with every column counting needs (nothing is read again), else
            # (gzip, no guess) the few columns the frame needs, the files read twice
            spans = _survey(reader, fields if reader.one_piece else SURVEY_FIELDS)
    except UserError as e:
        if bare:  # the user's own file: their mistake, said in one line
            raise
        return not_analysed(str(e))
    transactions = frozenset(reader.reading.transaction_labels)

    def reading_of(reading) -> model.Reading:
        # Transaction Controller parents sit beside their samplers in a CSV JTL: counting them would count each
        # request twice and break every per-thread cycle; they keep their own per-label statistics.
        return model.Reading(rows_read=reading.rows_read, rows_skipped=int(reading.skipped_total),
                             transaction_rows_excluded=sum(spans.rows.get(t, 0) for t in transactions),
                             absent_columns=list(reading.absent_columns), format=reading.format)
    try:
        frame = spans.frame(transactions, warmup, cooldown, reader.blocks_read, fixed_warmup=fixed_warmup,
                            decided=decided)
    except EmptyWindow as e:
        if counting is not None:
            counting.discard()
        if bare:  # the user's input cannot be analysed at all
            raise UserError(f"{cell.jtl_paths[0]}: {e}") from None
        return not_analysed(f"no steady window: {e}", reading=reading_of(reader.reading),
                            warnings=list(reader.reading.warnings))
    if counting is not None and not counts_alike(counting.frame, frame):
        counting.discard()
        counting = None
    if counting is None:
        counting = _count(reader, fields, cell, frame, by_label)
    window = frame.window
    c = counting
    read = reading_of(reader.reading).model_copy(update={"samples": c.everything.samples,
                                                         "failed": c.everything.failed})
    shown = outage.figures(window, frame.outage)
    found = c.silences.outage(shown) if c.silences is not None else None
    if c.silences is not None:
        unanalysed |= {"stalls": [model.Stall.model_validate(plain(s)) for s in c.silences.stalls()],
                       "outages": [model.Outage.model_validate(plain(o)) for o in c.silences.outages(shown)]}
    if found is not None:  # the cell's status and reason say it; its figures are the whole window, marked, or
        # the part before an outage the server never came back from
        unanalysed |= {"outage": model.Outage.model_validate(plain(found)),
                       "status": "outage" if cell.status == "complete" else cell.status,
                       "reason": "; ".join(filter(None, [cell.reason, outage.reason(found)]))}
    if found is not None and found["figures"] == "none":
        c.discard()
        return model.Cell.model_validate(unanalysed | {"reading": read,
                                                       "warnings": list(reader.reading.warnings)}), None, None
    window = replace(window, samples_trimmed_before=c.trimmed.before, samples_trimmed_after=c.trimmed.after)
    T = window.length_s
    overall = model.Stats.model_validate(plain(c.overall.result(T)))
    elapsed = c.overall.elapsed
    labels, errors, label_series = {}, None, None
    if by_label:
        labels = {label: model.LabelStats.model_validate(figures)
                  for label, figures in plain(c.labels.result(T)).items()}
        errors = model.Errors.model_validate(plain(c.errors.result(T)))
        label_series = model.LabelSeriesSet.model_validate(plain(c.label_series.result(frame.series_labels)))
    kept = histogram.cell_histogram(elapsed, c.seconds.n) | {
        "blocks": c.seconds.block_histograms(elapsed).as_summary()}
    found = observed_window.read(cell.observed, cell.server_metrics, cell.observe_pools, cell.target_port)
    own = observed_sources.of_cell(found, cell.places) if found is not None else None  # this cell's sources
    found, on_target = (own.found, own.target_host) if own is not None else (None, {})
    pool = observed_window.pool_under_test(found, cell.target_port, on_target) if found else None
    server = observed_window.server_block(found, window, cell.target_port, on_target)
    host_frame = server_metrics.read_metrics(cell.host_metrics)
    host = server_metrics.host_figures(host_frame, window)
    users = model.Users.model_validate(plain(c.users.result(cell.plan_users, cell.engines,
                                                            split=cell.threads_by_engine is not None)))
    analysed = model.Cell.model_validate(unanalysed | {
        "warnings": list(reader.reading.warnings) + ([
            f"{reader.rows_left_out} rows of the thread groups {', '.join(cell.left_out_groups)} (setUp and "
            f"tearDown: no part of the load) left out"] if reader.rows_left_out else []), "reading": read,
        "window": model.Window.model_validate(window.as_dict() | _trim_record(frame, warmup)),
        "precision": _precision(spans, window, frame.warmup, users.n if cell.workload in (None, "closed") else None),
        "stop": None if cell.stop is None else model.Stop.model_validate(cell.stop),
        "users": users,
        "overall": overall, "labels": labels, "errors": errors, "label_series": label_series,
        "think_time": model.ThinkTime.model_validate(plain(c.think.result())),
        "server": _in_front(cell, server, overall),
        "host": None if host is None else model.Host.model_validate(plain(host)),
        "series": model.Series.model_validate(plain(c.series.result(
            observed_window.series_points(found, pool, on_target), host_frame))),
        "observed": None if own is None else observed_window.summary_block(own, window, cell.observe_counts),
        "histogram": model.Histogram.model_validate(plain(kept)),
        "engine_shares": None if c.engines is None else [
            model.EngineShare.model_validate(plain(s)) for s in c.engines.result(
                T, cell.threads_by_engine, controller_log.engine_times(cell.controller_log), cell.groups_by_engine)]})
    arrivals = c.arrivals.result() if c.arrivals is not None else None
    analysed = analysed.model_copy(update={"trend": trend.trend(analysed.series, tol["steady_r"])})
    analysed = analysed.model_copy(update={"checks": _cell_checks(cell, analysed, arrivals, tol)})
    return analysed, elapsed, c.seconds
