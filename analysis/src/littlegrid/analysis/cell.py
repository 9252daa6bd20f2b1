"""One cell's analysis: its JTLs read, trimmed to the steady window, into the summary entry (contract §5) with its
statistics, histograms, series, think time, server figures and queueing-law checks."""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from littlegrid.analysis import cells as cells_mod
from littlegrid.analysis import histogram, laws, server_metrics
from littlegrid.analysis.blocks import BlockHistograms
from littlegrid.analysis.error_classes import classify, error_types
from littlegrid.analysis.histogram import ExactHistogram
from littlegrid.analysis.int_sort import sort_ints
from littlegrid.analysis.series import label_series, time_series
from littlegrid.analysis.stats import sample_stats, stats_by_label
from littlegrid.analysis.think_time import RULE_EVERY, RULE_NONE, think_sequence, think_time_stats, thread_keys
from littlegrid.analysis.window import EmptyWindow, in_window, steady_window, window_mask
from littlegrid.summary import model, plain
from littlegrid.usererror import UserError

# The columns the window's copy carries (not messages, URL, bytes…: at millions of rows every column costs).
WINDOW_COLUMNS = ["start_ms", "end_ms", "elapsed_ms", "latency_ms", "connect_ms", "label", "thread", "host"]
# The table columns the analysis reads: URL, bytes… are never parsed (a third of a default JTL). IdleTime
# gives a transaction's whole span (its timers), which tells the samplers it wraps.
ANALYZED_FIELDS = ("start_ms", "end_ms", "elapsed_ms", "latency_ms", "connect_ms", "idle_ms", "label", "success",
                   "response_code", "response_message", "failure_message", "thread", "all_threads", "host")
# Read only for the statistics per label (bytes received and sent per sample).
LABEL_FIELDS = ("bytes", "sent_bytes")
LABEL_COLUMNS = ["start_ms", "end_ms", "elapsed_ms", "latency_ms", "connect_ms", "label", *LABEL_FIELDS]


def _threads_of_open_plan(cell, n):
    """The open plan's pool: its `threads` property when set (the plan sizes it by Little's law otherwise)."""
    return cells_mod.number(cell.properties.get("threads")) or n



def _interarrival_cv(window_samples: pd.DataFrame):
    """CV of the merged inter-arrival times (sample starts) in the window, and the number of arrivals."""
    starts = sort_ints(window_samples["start_ms"].to_numpy(dtype=np.int64))
    if len(starts) < 3:
        return None, len(starts)
    gaps = np.diff(starts).astype(float)
    return (float(gaps.std(ddof=1) / gaps.mean()) if gaps.mean() > 0 else None), len(starts)


def _users(cell, samples, steady, keys) -> dict:
    """N = plan users × engines (allThreads is per engine, never summed); bare JTLs: the threads seen.
    `keys`: thread_keys(steady)."""
    # keys are small integers (host code × thread code): counting them beats np.unique's sort of millions
    small = len(keys) and int(keys.max()) < 4 * len(keys) + (1 << 20)
    threads_seen = int(np.count_nonzero(np.bincount(keys)) if small else len(np.unique(keys)))
    all_threads_max = samples["all_threads"].max()  # nulls skipped, no copy
    from_plan = cell.plan_users is not None
    return {"n": cell.plan_users * (cell.engines or 1) if from_plan else threads_seen,
            "plan_users": cell.plan_users, "engines": cell.engines,
            "all_threads_max": None if pd.isna(all_threads_max) else int(all_threads_max),
            "threads_seen": threads_seen,
            "basis": "plan users × engines" if from_plan else "threads seen in the window"}


def _in_front(cell, server: dict | None, overall: model.Stats) -> model.Server | None:
    """The server's figures with where the requests it does not hold wait (Little's law at two boundaries)."""
    if server is None:
        return None
    front = server_metrics.in_front_of_server(overall.throughput_per_s, overall.mean_ms, server,
                                              steady=cell.workload != "spike")
    # client_minus_server_ms: the older name of wait_in_front_ms
    return model.Server.model_validate(plain(server | front | {"client_minus_server_ms": front["wait_in_front_ms"]}))


def _cell_checks(cell, f: model.Cell, steady, tol: dict) -> list[model.Check]:
    """The per-cell law checks that apply: closed law (not for a spike); users from a manifest; think-time
    fidelity for closed cells, arrival-rate checks for open ones; Little's law at the server when it
    reported metrics. `f`: the cell's figures so far."""
    users, think, T = f.users, f.think_time, f.window.length_s
    n, x, r = users.n, f.overall.throughput_per_s, f.overall.mean_ms
    spike = cell.workload == "spike"  # users released at once run down one by one: no steady state to check
    checks = [laws.not_made("closed_law", cell.id, "a spike has no steady state (its users finish one by one); "
                            "the time series and the error classes tell what the server did with the burst")
              if spike else _closed_law(cell.id, n, cell.plan_users is None, x, r, think, T, tol["closed_law"],
                                        f.reading.transaction_rows_excluded)]
    if cell.plan_users is not None:
        checks.append(laws.users_count(cell.id, n, users.all_threads_max, cell.engines, users.threads_seen))
    if cell.rate_per_s and not spike:
        cv, arrivals = _interarrival_cv(steady)
        checks += [laws.open_rate(cell.id, x, cell.rate_per_s, T, tol["open_rate"]),
                   laws.interarrival_cv(cell.id, cv, arrivals, tol["interarrival_cv"]),
                   laws.generator_sizing(cell.id, cell.rate_per_s, r, _threads_of_open_plan(cell, n),
                                         tol["generator_sizing"])]
    elif cell.intended_think_ms is not None and not spike:
        checks += [laws.think_time_fidelity(cell.id, think.mean_ms, cell.intended_think_ms, r, think.sd_ms,
                                            think.gaps, tol["think_time"]),
                   laws.workload_fidelity(cell.id, n, x, r, cell.intended_think_ms, T, tol["workload"],
                                          think.sd_ms, think.gaps)]
    srv = f.server
    if srv is not None and not spike:  # 1 Hz counters cannot resolve a burst that lasts a few seconds
        checks.append(laws.server_little(cell.id, srv.in_flight_mean, srv.in_flight_se, srv.throughput_per_s,
                                         srv.service_mean_ms, srv.in_flight_source, tol["server_little"]))
    return checks


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
    slack = (max(floor, 3 * laws.window_error((r_seq + z) / 1000.0, window_s, n))
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


def _think_time(table, window, keys, cell, transactions) -> model.ThinkTime:
    """Realised think time on `table`: every row, Transaction Controller rows (labels `transactions`) included."""
    seq = think_sequence(table, window, thread_keys(table) if keys is None else keys, transactions)
    gaps = seq.gaps if seq.gaps is not None else pd.DataFrame({"key": [], "gap_ms": [], "cycle_ms": []}, dtype=np.int64)
    return model.ThinkTime.model_validate(plain(think_time_stats(gaps, cell.think_dist, cell.think_offset_ms)
                                                | {"sequence": seq.as_dict(window.length_s)}))


@dataclass(frozen=True)
class _SampleFigures:
    """What the window's samples give a cell (model values), and the per-row arrays the later figures reuse."""

    overall: model.Stats
    labels: dict
    errors: model.Errors | None
    label_series: model.LabelSeriesSet | None
    users: model.Users
    steady: pd.DataFrame  # the window's rows
    elapsed: ExactHistogram  # the window's response times
    all_classes: pd.Series  # the error class of every sample (not only the window's)
    steady_failed: np.ndarray  # whether each of the window's rows failed, as overall counts it


def _sample_figures(samples, everything, transactions, window, keys, cell, by_label) -> _SampleFigures:
    """The window's statistics (overall, per label when asked: labels, errors by type, label series) and users."""
    mask = window_mask(samples, window)
    steady = in_window(samples, window, WINDOW_COLUMNS, mask)
    all_classes = classify(samples)  # on the full table: the window's copy need not carry the messages
    classes = all_classes if steady is samples else all_classes[mask]  # same rows and index as `steady`
    T = window.length_s
    elapsed = ExactHistogram.of(steady["elapsed_ms"].to_numpy(dtype=np.int64))
    overall = model.Stats.model_validate(plain(sample_stats(steady, classes, T, elapsed)))
    labels, errors, series = {}, None, None
    if by_label:  # on every row, transactions included: they keep their own per-label statistics
        everything_classes = classify(everything) if transactions else all_classes
        types = error_types(everything)
        everything_mask = window_mask(everything, window)
        labelled = in_window(everything, window, LABEL_COLUMNS, everything_mask)
        whole = labelled is everything  # every row in the window: no copies
        labels = {label: model.LabelStats.model_validate(figures) for label, figures in plain(stats_by_label(
            labelled, everything_classes if whole else everything_classes[everything_mask], T,
            types if whole else types[everything_mask], transactions)).items()}
        errors = model.Errors.model_validate(plain(_error_tables(
            types if steady is everything else types[mask] if everything is samples else types.reindex(steady.index),
            T)))
        series = model.LabelSeriesSet.model_validate(plain(label_series(everything, everything_classes.notna().to_numpy(),
                                                                        window)))
    users = model.Users.model_validate(plain(_users(cell, samples, steady, keys if steady is samples
                                                    else thread_keys(steady))))
    return _SampleFigures(overall, labels, errors, series, users, steady, elapsed, all_classes,
                          classes.notna().to_numpy())


ERROR_TYPES_MAX = 100  # error types listed; messages with ids or timestamps in them could make thousands


def _error_tables(types: pd.Series, window_s: float) -> dict:
    """The window's errors by type (JMeter's "Errors" table), largest first (ties by type): count, share of the
    errors, rate; the ERROR_TYPES_MAX largest, the others counted in types_not_listed / errors_not_listed."""
    counts = types.dropna().value_counts()
    counts = counts[counts > 0]
    total = int(counts.sum())
    rows = sorted(((str(t), int(n)) for t, n in counts.items()), key=lambda r: (-r[1], r[0]))
    rest = rows[ERROR_TYPES_MAX:]
    return {"by_type": [{"type": t, "count": n, "share_of_errors": n / total,
                         "per_s": n / window_s if window_s > 0 else None} for t, n in rows[:ERROR_TYPES_MAX]],
            "types_not_listed": len(rest), "errors_not_listed": sum(n for _, n in rest)}


def analyze_cell(cell, warmup_s, cooldown_s, by_label, tol, read_jtl, bare=False):
    """One cell's summary entry (contract §5) as a summary.model.Cell, the histogram of its window's elapsed times
    (for grid-level percentiles) and the window's (elapsed_ms, end_ms, failed) in file order (a search's intervals resample them by
    second), None without."""
    intended = model.Intended(think_ms=cell.intended_think_ms, think_dist=cell.think_dist,
                              think_offset_ms=cell.think_offset_ms if cell.think_dist == "poisson" else None,
                              rate_per_s=cell.rate_per_s, workload=cell.workload)
    unanalysed = dict(id=cell.id, axes=cell.axes, status=cell.status, reason=cell.reason, warnings=[], reading=None,
                      window=None, users=None, intended=intended, overall=None, labels={}, errors=None,
                      label_series=None, think_time=None, server=None, host=None, series=None, histogram=None,
                      checks=[])

    def not_analysed(why: str | None = None, **known) -> tuple[model.Cell, None, None]:
        reason = "; ".join(filter(None, [cell.reason, why]))  # one bad cell does not sink the run
        return model.Cell.model_validate(plain(unanalysed | known | {"reason": reason or None})), None, None

    if not cell.jtl_paths:
        return not_analysed()
    try:
        reading = read_jtl([str(p) for p in cell.jtl_paths],
                           fields=ANALYZED_FIELDS + (LABEL_FIELDS if by_label else ()))
    except UserError as e:
        if bare:  # the user's own file: their mistake, said in one line
            raise
        return not_analysed(str(e))
    everything = reading.samples
    # Transaction Controller parents sit beside their samplers in a CSV JTL: counting them would count each
    # request twice and break every per-thread cycle; they keep their own per-label statistics.
    transactions = frozenset(getattr(reading, "transaction_labels", ()) or ())
    samples = everything[~everything["label"].isin(transactions)] if transactions else everything
    read = model.Reading(rows_read=reading.rows_read, rows_skipped=int(getattr(reading, "skipped_total", 0)),
                         transaction_rows_excluded=int(len(everything) - len(samples)),
                         absent_columns=list(reading.absent_columns), format=reading.format)
    warnings = list(reading.warnings)
    warmup = warmup_s if warmup_s is not None else (cell.warmup_s or 0.0)
    cooldown = cooldown_s if cooldown_s is not None else (cell.cooldown_s or 0.0)
    try:
        window = steady_window(samples, warmup, cooldown)
    except EmptyWindow as e:
        if bare:  # the user's input cannot be analysed at all
            raise UserError(f"{cell.jtl_paths[0]}: {e}") from None
        return not_analysed(f"no steady window: {e}", reading=read, warnings=warnings)
    keys = thread_keys(samples)  # shared by the users count and the gaps (the window's rows, when untrimmed)
    # The think-time figures (a sort by thread, two gathers, a sort of the gaps) run before the sample statistics,
    # not beside them: on two cores the overlap took ~0.6 s off a 5 M-sample cell but held both stages' row-long
    # temporaries at once, 1,050 MiB of peak RSS against 900 MiB one after the other (docs/report.md, "Scale").
    think = _think_time(everything, window, keys if everything is samples else None, cell, transactions)
    f = _sample_figures(samples, everything, transactions, window, keys, cell, by_label)
    del keys
    steady = f.steady
    end_ms = steady["end_ms"].to_numpy()
    kept = histogram.cell_histogram(f.elapsed, end_ms, {"start_ms": window.start_ms, "end_ms": window.end_ms})
    kept["blocks"] = BlockHistograms.from_samples(
        steady["elapsed_ms"].to_numpy(), end_ms, window.start_ms, window.end_ms,
        np.asarray(kept["elapsed_ms"]["values"], np.int64)).as_summary()
    server_frame = server_metrics.read_metrics(cell.server_metrics)
    host_frame = server_metrics.read_metrics(cell.host_metrics)
    host = server_metrics.host_figures(host_frame, window)
    analysed = model.Cell.model_validate(unanalysed | {
        "warnings": warnings, "reading": read, "window": model.Window.model_validate(window.as_dict()),
        "users": f.users, "overall": f.overall, "labels": f.labels, "errors": f.errors,
        "label_series": f.label_series, "think_time": think,
        "server": _in_front(cell, server_metrics.server_figures(server_frame, window), f.overall),
        "host": None if host is None else model.Host.model_validate(plain(host)),
        "series": model.Series.model_validate(plain(time_series(samples, f.all_classes.notna().to_numpy(), window,
                                                                cell.engines, server_frame, host_frame))),
        "histogram": model.Histogram.model_validate(plain(kept))})
    analysed = analysed.model_copy(update={"checks": _cell_checks(cell, analysed, steady, tol)})
    return analysed, f.elapsed, (steady["elapsed_ms"].to_numpy(), end_ms, f.steady_failed)
